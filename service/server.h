// Starting and stopping a halma_server: the same code for the binary and
// for in-process tests.
#ifndef HALMA_SERVICE_SERVER_H_
#define HALMA_SERVICE_SERVER_H_

#include <memory>
#include <mutex>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "grpcpp/grpcpp.h"
#include "service/connect/connect_handler.h"
#include "service/connect/http_listener.h"
#include "service/front_proxy.h"
#include "service/halma_rules_service.h"
#include "service/health.h"
#include "service/log/json_line.h"
#include "service/log/logger.h"
#include "service/reflection/reflection_service.h"

namespace halma::service {

// The project version (CMake's PROJECT_VERSION), e.g. "0.1.0".
const char* Version();

struct ServerConfig {
  // Address to listen on; "0.0.0.0" for every IPv4 interface, "::" for
  // every interface, "127.0.0.1" for local clients only.
  std::string host = "0.0.0.0";
  // TCP port; 0 picks a free port (see HalmaServer::port()).
  int port = 50051;
  // Largest request gRPC accepts; larger ones fail with RESOURCE_EXHAUSTED.
  int max_message_bytes = 64 * 1024;
  // Longest game record Adjudicate accepts (INVALID_ARGUMENT beyond).
  int max_record_moves = 10000;
  // How long in-flight calls may run on after a shutdown begins.
  int grace_period_seconds = 10;
  // Connections are closed (with GOAWAY) after this age, so that clients
  // rebalance across replicas; 0 = off. In-flight calls then get the grace.
  int max_connection_age_seconds = 0;
  int max_connection_age_grace_seconds = 0;
  // Memory gRPC may use for requests in flight (its resource quota); 0 =
  // unlimited. Without it, concurrent large requests are all buffered.
  std::int64_t max_memory_bytes = 0;
  // --- Limits on connections, calls and work (docs/security.md) ---
  // Streams (calls) one client connection may have open at once; gRPC's
  // MAX_CONCURRENT_STREAMS setting, or the front proxy's.
  int max_concurrent_streams = 16;
  // Client connections open at once (front proxy only: gRPC 1.51 has no
  // such limit of its own).
  int max_connections = 256;
  // A connection with no call open is closed after this long.
  int idle_timeout_seconds = 30;
  // A new connection must have sent its HTTP/2 preface (and, with TLS,
  // finished its handshake) within this time.
  int handshake_timeout_seconds = 5;
  // A call whose request body makes no progress for this long is reset
  // (front proxy only: gRPC 1.51 waits for a body for ever).
  int stream_read_timeout_seconds = 5;
  // Largest request header block (metadata), in bytes.
  int max_metadata_bytes = 16 * 1024;
  // Longest a call may run when the client sends no (or a longer)
  // deadline; Adjudicate stops mid-record with DEADLINE_EXCEEDED.
  int max_call_seconds = 10;
  // Deepest Perft answered.
  int max_perft_depth = 8;
  // Adjudicate calls being replayed at once; more get RESOURCE_EXHAUSTED.
  // 0 = the number of CPUs.
  int max_concurrent_adjudications = 0;
  // --- The Connect protocol's HTTP/1.1 listener (service/connect/) ---
  // Off in a ServerConfig (tests start many servers); the binary's --http
  // flag turns it on by default. It listens on `host` too.
  bool http = false;
  // Its TCP port; 0 picks a free port (see HalmaServer::http_port()).
  int http_port = 8080;
  // Threads that read HTTP requests and answer them; 0 = twice the number
  // of CPUs (a replay holds its thread until it ends).
  int http_threads = 0;
  // The playground page at GET / of the HTTP listener (service/playground/).
  // Off in a ServerConfig, like `http`; the binary's --playground flag turns
  // it on by default.
  bool playground = false;
  // --- Logs ---
  // One JSON line per call (method, code, latency, peer, bytes, variant,
  // trace id) on both ports; off by default.
  bool access_log = false;
  // Where the access log goes (the server's own lines are main()'s); none
  // when null. Must outlive the server.
  Logger* logger = nullptr;
  // --- Shutdown ---
  // After SIGTERM, how long health answers NOT_SERVING while every call is
  // still served, before the listener closes (lets load balancers move
  // away first).
  int shutdown_delay_seconds = 0;
  // --- Front proxy ---
  // Path of nghttpx (Debian's nghttp2-proxy): when set, nghttpx listens on
  // host:port and forwards to gRPC on 127.0.0.1:backend_port. It holds the
  // HTTP/2 limits that gRPC 1.51 lacks (rapid reset, stalled streams,
  // connection count).
  std::string front_proxy;
  // gRPC's own port on 127.0.0.1 behind the front proxy; 0 picks one.
  int backend_port = 0;
  // Serve grpc.reflection.v1.ServerReflection and v1alpha's.
  bool reflection = true;
  // PEM files of the server's certificate chain and private key: both for
  // TLS, neither for plaintext.
  std::string tls_cert;
  std::string tls_key;
};

// Checks ranges and the TLS pair; errors name the setting.
absl::Status ValidateConfig(const ServerConfig& config);

// "host:port", bracketing an IPv6 host: "[::1]:50051".
std::string JoinHostPort(const std::string& host, int port);

// A running server: HalmaRules, Health and (optionally) reflection.
class HalmaServer {
 public:
  // Validates `config`, builds the services, binds and starts listening.
  // UNAVAILABLE when the address cannot be bound; INVALID_ARGUMENT for a bad
  // config or unreadable TLS files.
  static absl::StatusOr<std::unique_ptr<HalmaServer>> Start(
      const ServerConfig& config);

  HalmaServer(const HalmaServer&) = delete;
  HalmaServer& operator=(const HalmaServer&) = delete;
  // Shuts down at once if Shutdown() was not called.
  ~HalmaServer();

  // The bound port (the chosen one when the config asked for 0).
  int port() const { return port_; }
  // host:port with the bound port.
  std::string address() const { return JoinHostPort(config_.host, port_); }
  const ServerConfig& config() const { return config_; }
  HealthService& health() { return *health_; }
  HalmaRulesService& rules() { return *rules_; }
  const RulesOptions& rules_options() const { return rules_->options(); }
  metrics::Metrics& metrics() { return *metrics_; }
  // The HTTP listener's port, or 0 when it is off.
  int http_port() const { return http_ != nullptr ? http_->port() : 0; }
  // Whether the HTTP listener serves the playground page.
  bool playground_enabled() const { return playground_ != nullptr; }
  // The front proxy, or null when gRPC listens itself.
  FrontProxy* front_proxy() { return front_.get(); }
  grpc::Server& grpc_server() { return *server_; }

  // The start-up line: "halma_server listening on HOST:PORT (version ...,
  // settings ...)", without a newline.
  std::string ListeningLine() const;

  // Graceful shutdown: health turns NOT_SERVING at once (Watch streams are
  // told) and everything is still served for the shutdown delay; then the
  // listener closes, new calls are refused, and calls in flight may finish
  // until the end of the delay + grace, after which they are cancelled.
  // With the front proxy, calls whose request has arrived all finish; a
  // request still uploading gets at most stream_read_timeout_seconds.
  // Blocks until done. Idempotent: later calls return at once.
  void Shutdown(absl::Duration grace);
  // The time health says NOT_SERVING before the listener closes (the
  // configured shutdown_delay_seconds; tests may shorten it).
  void set_shutdown_delay(absl::Duration delay) { shutdown_delay_ = delay; }
  // Shutdown with the configured grace period.
  void Shutdown() { Shutdown(absl::Seconds(config_.grace_period_seconds)); }
  // Blocks until the server has shut down.
  void Wait() { server_->Wait(); }

 private:
  explicit HalmaServer(const ServerConfig& config);

  void DrainFront(absl::Time deadline);

  ServerConfig config_;
  absl::Duration shutdown_delay_;
  int port_ = 0;       // Where clients connect.
  int grpc_port_ = 0;  // gRPC's own port (= port_ without a front proxy).
  std::unique_ptr<FrontProxy> front_;
  std::unique_ptr<metrics::Metrics> metrics_;
  std::unique_ptr<HealthService> health_;
  std::unique_ptr<HalmaRulesService> rules_;
  std::unique_ptr<ReflectionV1Service> reflection_v1_;
  std::unique_ptr<ReflectionV1AlphaService> reflection_v1alpha_;
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<ConnectHandler> connect_;
  std::unique_ptr<Playground> playground_;  // Null when off.
  std::unique_ptr<HttpListener> http_;
  std::once_flag shutdown_once_;
};

// The start-up log line: "message" is ListeningLine(), then every setting
// as a field of its own.
JsonLine StartupLine(const HalmaServer& server);

// Same as HalmaServer::Start.
inline absl::StatusOr<std::unique_ptr<HalmaServer>> StartServer(
    const ServerConfig& config) {
  return HalmaServer::Start(config);
}

}  // namespace halma::service

#endif  // HALMA_SERVICE_SERVER_H_
