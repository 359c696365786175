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
#include "service/halma_rules_service.h"
#include "service/health.h"

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
  int max_message_bytes = 4 * 1024 * 1024;
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
  // Serve grpc.reflection.v1alpha.ServerReflection.
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
  grpc::Server& grpc_server() { return *server_; }

  // The start-up line: "halma_server listening on HOST:PORT (version ...,
  // settings ...)", without a newline.
  std::string ListeningLine() const;

  // Graceful shutdown: health turns NOT_SERVING (Watch streams are told and
  // ended), new calls are refused, in-flight calls may finish until
  // now + grace, after which they are cancelled. Blocks until done.
  // Idempotent: later calls return at once.
  void Shutdown(absl::Duration grace);
  // Shutdown with the configured grace period.
  void Shutdown() { Shutdown(absl::Seconds(config_.grace_period_seconds)); }
  // Blocks until the server has shut down.
  void Wait() { server_->Wait(); }

 private:
  explicit HalmaServer(const ServerConfig& config);

  ServerConfig config_;
  int port_ = 0;
  std::unique_ptr<HealthService> health_;
  std::unique_ptr<HalmaRulesService> rules_;
  std::unique_ptr<grpc::Server> server_;
  std::once_flag shutdown_once_;
};

// Same as HalmaServer::Start.
inline absl::StatusOr<std::unique_ptr<HalmaServer>> StartServer(
    const ServerConfig& config) {
  return HalmaServer::Start(config);
}

}  // namespace halma::service

#endif  // HALMA_SERVICE_SERVER_H_
