// A running halma_server, put together from its parts: the rules core, the
// admission gate and the call observer in the middle; the gRPC edge
// (HalmaRules, Health, reflection, behind the nghttpx front proxy when
// there is one) and the HTTP/JSON edge around them. The same code starts
// the binary (main.cc) and the in-process servers of the tests.
#ifndef HALMA_SERVICE_SERVER_SERVER_H_
#define HALMA_SERVICE_SERVER_SERVER_H_

#include <memory>
#include <mutex>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "grpcpp/grpcpp.h"
#include "service/admission/admission_gate.h"
#include "service/config/settings.h"
#include "service/connect/connect_handler.h"
#include "service/connect/http_listener.h"
#include "service/core/rules_core.h"
#include "service/grpc/health.h"
#include "service/grpc/rules_service.h"
#include "service/log/logger.h"
#include "service/metrics/metrics.h"
#include "service/observe/call_observer.h"
#include "service/playground/playground.h"
#include "service/reflection/reflection_service.h"
#include "service/server/front_proxy.h"
#include "service/server/startup_lines.h"

namespace halma::service {

// The settings (settings.h) and what a process gives a server besides them.
struct ServerConfig : Settings {
  // Where the access log goes (the server's own lines are main()'s); none
  // when null. Must outlive the server.
  Logger* logger = nullptr;
  // Tests only: called at every checkpoint of expensive work
  // (checkpoint.h), to hold it at a known point.
  CheckpointHook checkpoint_hook;
};

// "host:port", bracketing an IPv6 host: "[::1]:50051".
std::string JoinHostPort(const std::string& host, int port);

class HalmaServer {
 public:
  // Validates the settings, builds the parts, binds and starts listening.
  // UNAVAILABLE when an address cannot be bound; INVALID_ARGUMENT for bad
  // settings or unreadable TLS files.
  static absl::StatusOr<std::unique_ptr<HalmaServer>> Start(
      const ServerConfig& config);

  HalmaServer(const HalmaServer&) = delete;
  HalmaServer& operator=(const HalmaServer&) = delete;
  // Shuts down at once if Shutdown() was not called.
  ~HalmaServer();

  // The settings in effect: defaults resolved (0 CPUs-dependent values)
  // and the ports bound (port, http_port, backend_port).
  const Settings& settings() const { return settings_; }
  // Where clients connect.
  int port() const { return settings_.port; }
  std::string address() const { return JoinHostPort(settings_.host, port()); }
  // The HTTP listener's port, or 0 when it is off.
  int http_port() const { return http_ != nullptr ? settings_.http_port : 0; }
  // Whether the HTTP listener serves the playground page.
  bool playground_enabled() const { return playground_ != nullptr; }
  // The front proxy, or null when gRPC listens itself.
  FrontProxy* front_proxy() { return front_.get(); }

  HealthService& health() { return *health_; }
  metrics::Metrics& metrics() { return *metrics_; }
  AdmissionGate& gate() { return *gate_; }
  RulesService& rules_service() { return *rules_service_; }
  grpc::Server& grpc_server() { return *grpc_; }
  // HalmaRules calls being answered now, or waiting for a slot, on both
  // protocols: what a graceful shutdown waits for.
  int calls_in_progress() const { return observer_->rules_calls_in_progress(); }

  // What the start-up lines say besides the settings (startup_lines.h).
  StartupFacts startup_facts() const {
    return {.grpc_port = grpc_port_,
            .http = http_ != nullptr,
            .playground = playground_ != nullptr};
  }
  // The start-up line: "halma_server listening on HOST:PORT (version ...;
  // every setting ...)", without a newline (startup_lines.h).
  std::string ListeningLine() const {
    return service::ListeningLine(settings_, startup_facts());
  }

  // Graceful shutdown: health turns NOT_SERVING at once (Watch streams are
  // told) and everything is still served for the shutdown delay; then the
  // listeners close, new calls are refused, and calls accepted before
  // (running or waiting for a slot) may finish until the end of the delay
  // + grace, after which they are cancelled. With the front proxy, calls
  // whose request has arrived all finish; a request still uploading gets
  // at most stream_read_timeout_seconds. Blocks until done. Idempotent:
  // later calls return at once.
  void Shutdown(absl::Duration grace);
  // The time health says NOT_SERVING before the listener closes (the
  // configured shutdown_delay_seconds; tests may shorten it).
  void set_shutdown_delay(absl::Duration delay) { shutdown_delay_ = delay; }
  // Shutdown with the configured grace period.
  void Shutdown() { Shutdown(absl::Seconds(settings_.grace_period_seconds)); }
  // Blocks until the server has shut down.
  void Wait() { grpc_->Wait(); }

 private:
  explicit HalmaServer(const ServerConfig& config);

  // Start's steps, in order.
  void ResolveDefaults();
  absl::Status BuildRules();
  absl::Status StartGrpc();
  absl::Status StartFrontProxy();
  absl::Status StartHttp();
  void StartServing();

  void DrainFront(absl::Time deadline);

  const ServerConfig config_;
  Settings settings_;
  absl::Duration shutdown_delay_;
  int grpc_port_ = 0;  // gRPC's own port (= port() without a front proxy).

  // Destroyed in the reverse order: the listeners first, the parts every
  // call uses last.
  std::unique_ptr<metrics::Metrics> metrics_;
  std::unique_ptr<CallObserver> observer_;
  std::unique_ptr<RulesCore> core_;
  std::unique_ptr<AdmissionGate> gate_;
  std::unique_ptr<HealthService> health_;
  std::unique_ptr<RulesService> rules_service_;
  std::unique_ptr<ReflectionV1Service> reflection_v1_;
  std::unique_ptr<ReflectionV1AlphaService> reflection_v1alpha_;
  std::unique_ptr<grpc::Server> grpc_;
  std::unique_ptr<FrontProxy> front_;
  std::unique_ptr<ConnectHandler> connect_;
  std::unique_ptr<Playground> playground_;  // Null when off.
  std::unique_ptr<HttpListener> http_;
  std::once_flag shutdown_once_;
};

// Same as HalmaServer::Start.
inline absl::StatusOr<std::unique_ptr<HalmaServer>> StartServer(
    const ServerConfig& config) {
  return HalmaServer::Start(config);
}

}  // namespace halma::service

#endif  // HALMA_SERVICE_SERVER_SERVER_H_
