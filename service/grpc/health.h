// The standard grpc.health.v1.Health service, on gRPC's callback API.
//
// gRPC's built-in health service (EnableDefaultHealthCheckService) uses its
// own message code with no protobuf descriptors, so server reflection cannot
// describe it. This one is generated from grpc/health/v1/health.proto, so
// `grpcurl describe grpc.health.v1.Health` works.
#ifndef HALMA_SERVICE_GRPC_HEALTH_H_
#define HALMA_SERVICE_GRPC_HEALTH_H_

#include <condition_variable>
#include <map>
#include <mutex>
#include <set>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "grpc/health/v1/health.pb.h"
#include "grpcpp/grpcpp.h"

namespace halma::service {

// Check is a raw method, parsed by ParseRequest like the HalmaRules methods,
// so that undecodable bytes get INVALID_ARGUMENT rather than gRPC's empty
// UNIMPLEMENTED.
using HealthServiceBase = grpc::health::v1::Health::WithRawCallbackMethod_Check<
    grpc::health::v1::Health::WithCallbackMethod_Watch<
        grpc::health::v1::Health::Service>>;

class HealthService final : public HealthServiceBase {
 public:
  using ServingStatus = grpc::health::v1::HealthCheckResponse::ServingStatus;

  HealthService() = default;
  HealthService(const HealthService&) = delete;
  HealthService& operator=(const HealthService&) = delete;

  // Registers or updates `service` ("" is the server as a whole). Watch
  // streams of that service receive the change. Ignored after Shutdown().
  void SetServingStatus(absl::string_view service, bool serving);
  // The status Check would report; SERVICE_UNKNOWN for an unknown service.
  ServingStatus GetServingStatus(absl::string_view service) const;
  // Marks every service NOT_SERVING for good, sends that to every Watch
  // stream and then ends the streams (status OK), so that they do not hold
  // up the server's shutdown. Watch calls that arrive later get the final
  // status and end at once.
  void Shutdown();
  // After Shutdown: waits until every Watch stream has ended (its final
  // status sent), or until `deadline`; returns whether they all did.
  bool WaitForWatchersToEnd(absl::Time deadline);

  // Check: the service's status, or NOT_FOUND for an unknown service.
  grpc::ServerUnaryReactor* Check(grpc::CallbackServerContext* context,
                                  const grpc::ByteBuffer* request,
                                  grpc::ByteBuffer* response) override;
  // Watch: the current status at once, then every change, until the client
  // cancels or the server shuts down. An unknown service is reported as
  // SERVICE_UNKNOWN and the stream stays open (it may be registered later).
  grpc::ServerWriteReactor<grpc::health::v1::HealthCheckResponse>* Watch(
      grpc::CallbackServerContext* context,
      const grpc::health::v1::HealthCheckRequest* request) override;

 private:
  class WatchReactor;

  // Registers a new stream and tells it the current status.
  void AddWatcher(WatchReactor* watcher);
  void RemoveWatcher(WatchReactor* watcher);
  ServingStatus StatusLocked(const std::string& service) const
      ABSL_SHARED_LOCKS_REQUIRED(mu_);

  // std::mutex rather than absl::Mutex: Debian's Abseil is not built for
  // ThreadSanitizer, which then cannot see its locking (the tsan preset).
  mutable std::mutex mu_;
  std::condition_variable watcher_removed_;
  bool shutdown_ ABSL_GUARDED_BY(mu_) = false;
  std::map<std::string, ServingStatus, std::less<>> statuses_
      ABSL_GUARDED_BY(mu_);
  std::set<WatchReactor*> watchers_ ABSL_GUARDED_BY(mu_);
};

}  // namespace halma::service

#endif  // HALMA_SERVICE_GRPC_HEALTH_H_
