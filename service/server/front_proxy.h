// The HTTP/2 front proxy: Debian's nghttpx (package nghttp2-proxy), run as
// a child of halma_server, listening where clients connect and forwarding
// to the gRPC server on loopback.
//
// Why a proxy at all: gRPC 1.51 predates the HTTP/2 rapid-reset fixes and
// has no limit on connections, on streams whose body never comes or on the
// time a stalled stream is held. Debian's nghttp2 carries the rapid-reset
// (CVE-2023-44487) and CONTINUATION-flood (CVE-2024-28182) fixes, and
// nghttpx enforces the connection, stream and timeout limits below. Writing
// an HTTP/2 front of our own would repeat all of that, badly.
#ifndef HALMA_SERVICE_SERVER_FRONT_PROXY_H_
#define HALMA_SERVICE_SERVER_FRONT_PROXY_H_

#include <sys/types.h>

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"

namespace halma::service {

struct FrontProxyOptions {
  std::string binary;       // Path of nghttpx.
  std::string listen_host;  // Where clients connect: "0.0.0.0", "::", ...
  int listen_port = 0;      // 0: a free port is chosen.
  int backend_port = 0;     // The gRPC server on 127.0.0.1.
  // TLS is terminated here when both are set.
  std::string tls_cert;
  std::string tls_key;
  int max_connections = 0;
  int max_concurrent_streams = 0;
  int idle_timeout_seconds = 0;
  int handshake_timeout_seconds = 0;
  int stream_read_timeout_seconds = 0;
  int max_metadata_bytes = 0;
  // How long the backend may take to answer a call.
  int backend_timeout_seconds = 0;
  // Every this many seconds (0 = never) every client connection is sent
  // GOAWAY, so that clients re-resolve and spread over new pods; calls in
  // flight then get `connection_age_grace_seconds` (0 = no limit).
  int connection_age_seconds = 0;
  int connection_age_grace_seconds = 0;
};

// nghttpx's command line for `options` (listen_port must be set).
std::vector<std::string> FrontProxyArguments(const FrontProxyOptions& options);

// A running nghttpx. It is killed with its parent (PR_SET_PDEATHSIG), so a
// crashed or SIGKILLed halma_server never leaves it listening.
class FrontProxy {
 public:
  // Starts nghttpx and waits (up to 10 s) until it accepts connections.
  // UNAVAILABLE when it exits or does not listen in time.
  static absl::StatusOr<std::unique_ptr<FrontProxy>> Start(
      FrontProxyOptions options);

  FrontProxy(const FrontProxy&) = delete;
  FrontProxy& operator=(const FrontProxy&) = delete;
  // Kills nghttpx if it still runs.
  ~FrontProxy();

  int port() const { return options_.listen_port; }
  pid_t pid() const { return pid_; }

  // How many times connections have been aged (see connection_age_seconds).
  int connection_ages() const { return ages_.load(); }

  // Graceful stop (SIGQUIT): the listener closes, clients get GOAWAY,
  // streams already open run to their end; nghttpx exits when none is left.
  void BeginDrain();
  // Immediate stop (SIGTERM, then SIGKILL after 2 s); waits for the exit.
  void Stop();
  // True once nghttpx has exited; WaitForExit blocks until then or
  // `deadline`.
  bool Exited() const { return exited_.HasBeenNotified(); }
  bool WaitForExit(absl::Time deadline) const {
    return exited_.WaitForNotificationWithDeadline(deadline);
  }
  // The wait status of the exited process (see waitpid).
  int exit_status() const { return exit_status_.load(); }

 private:
  explicit FrontProxy(FrontProxyOptions options) : options_(options) {}
  void StopAgeing();

  FrontProxyOptions options_;
  pid_t pid_ = -1;
  // Atomic although exited_ orders it: Debian's Abseil is not built for
  // ThreadSanitizer, which then cannot see that ordering.
  std::atomic<int> exit_status_{0};
  std::atomic<int> ages_{0};
  absl::Notification exited_;
  std::thread reaper_;  // waitpid()s for the child.
  absl::Notification stop_ageing_;
  std::thread ager_;  // Sends the reloads that age connections.
};

}  // namespace halma::service

#endif  // HALMA_SERVICE_SERVER_FRONT_PROXY_H_
