#include "service/grpc/interceptor.h"

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

#include "grpcpp/server_context.h"
#include "grpcpp/support/byte_buffer.h"
#include "grpcpp/support/interceptor.h"
#include "service/core/rules_methods.h"
#include "service/grpc/hand_over.h"

namespace halma::service {
namespace {

using grpc::experimental::InterceptionHookPoints;

class ObservingInterceptor final : public grpc::experimental::Interceptor {
 public:
  ObservingInterceptor(const CallObserver& observer, metrics::Method method,
                       grpc::ServerContextBase* context)
      : call_(observer, metrics::Protocol::kGrpc, method),
        context_(context),
        wants_peer_(observer.wants_peer()) {
    HandOver();
  }

  ~ObservingInterceptor() override {
    HandOver();
    // A call that ended without the server sending a status (torn down by
    // a cancellation or a shutdown) still counts, as CANCELLED.
    if (!recorded_.exchange(true, std::memory_order_acq_rel)) {
      call_.AddResponseBytes(response_bytes_.load(std::memory_order_relaxed));
      call_.Finish(absl::StatusCode::kCancelled);
    }
  }

  void Intercept(
      grpc::experimental::InterceptorBatchMethods* methods) override {
    HandOver();
    if (methods->QueryInterceptionHookPoint(
            InterceptionHookPoints::PRE_SEND_MESSAGE)) {
      if (const grpc::ByteBuffer* response =
              methods->GetSerializedSendMessage();
          response != nullptr) {
        response_bytes_.fetch_add(response->Length(),
                                  std::memory_order_relaxed);
      }
    }
    if (methods->QueryInterceptionHookPoint(
            InterceptionHookPoints::PRE_SEND_STATUS) &&
        !recorded_.exchange(true, std::memory_order_acq_rel)) {
      if (wants_peer_) {
        const auto& metadata = context_->client_metadata();
        const auto found = metadata.find("traceparent");
        call_.SetPeer(context_->peer(),
                      found == metadata.end()
                          ? absl::string_view()
                          : absl::string_view(found->second.data(),
                                              found->second.size()));
      }
      call_.AddResponseBytes(response_bytes_.load(std::memory_order_relaxed));
      call_.Finish(
          static_cast<absl::StatusCode>(methods->GetSendStatus().error_code()));
    }
    // After the last access of this object: once Proceed() has started the
    // batch, the call may complete and destroy the interceptor on another
    // thread.
    HandOver();
    methods->Proceed();
  }

 private:
  // gRPC makes the interceptor on one thread, runs its hooks on others
  // (those of a stream's reads and writes even at the same time, the
  // completion's POST_RECV_CLOSE from CompletionOp::FinalizeResult) and
  // destroys it on yet another (~ServerContextBase): the constructor (at
  // its end), each hook (at its start and end) and the destructor (at its
  // start) show that order to ThreadSanitizer (hand_over.h).
  static void HandOver() { GrpcHandOver(); }

  ObservedCall call_;
  grpc::ServerContextBase* const context_;
  const bool wants_peer_;
  std::atomic<std::size_t> response_bytes_{0};
  std::atomic<bool> recorded_{false};
};

}  // namespace

grpc::experimental::Interceptor*
ObservingInterceptorFactory::CreateServerInterceptor(
    grpc::experimental::ServerRpcInfo* info) {
  const metrics::Method method = metrics::MethodFromName(info->method());
  // HalmaRules' methods observe themselves: no interceptor, and gRPC takes
  // its fast path.
  if (static_cast<int>(method) < kRulesMethodCount) return nullptr;
  return new ObservingInterceptor(*observer_, method, info->server_context());
}

}  // namespace halma::service
