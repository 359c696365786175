#ifndef HALMA_CLIENT_HALMA_CLIENT_H_
#define HALMA_CLIENT_HALMA_CLIENT_H_

// A small blocking client for the halma.v1.HalmaRules service and the
// standard grpc.health.v1.Health service. Every call returns the response
// message, or the gRPC status converted to an absl::Status with the same
// code and message. A HalmaClient is thread-safe: one instance may serve
// many concurrent calls.

#include <chrono>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "grpcpp/channel.h"
#include "grpcpp/client_context.h"
#include "grpcpp/support/status.h"
#include "grpcpp/support/sync_stream.h"
#include "halma/v1/halma.grpc.pb.h"
#include "halma/v1/halma.pb.h"

namespace halma::client {

struct ClientOptions {
  // "host:port" (or any gRPC target URI, e.g. "unix:/path").
  std::string target = "localhost:50051";
  // Use TLS. When false the channel is plaintext.
  bool tls = false;
  // TLS: a PEM file of root certificates to trust instead of the system's.
  std::string root_cert_file;
  // TLS: check the server certificate against this name instead of the
  // target's host (for test certificates).
  std::string tls_server_name;
  // Per-call deadline; zero or negative means no deadline.
  std::chrono::milliseconds deadline{10000};
  // Largest response accepted; negative means unlimited.
  int max_receive_message_bytes = 64 << 20;
  // A gRPC service config for the channel, e.g.
  // {"loadBalancingConfig":[{"round_robin":{}}]} to spread calls over every
  // address the target resolves to; empty = gRPC's default (pick_first).
  std::string service_config_json;
};

// The service config that selects round_robin load balancing.
inline constexpr char kRoundRobinServiceConfig[] =
    R"({"loadBalancingConfig":[{"round_robin":{}}]})";

// The serving status of the standard health service
// (grpc.health.v1.HealthCheckResponse.ServingStatus).
enum class HealthStatus {
  kUnknown = 0,
  kServing = 1,
  kNotServing = 2,
  kServiceUnknown = 3,
};
// "SERVING", "NOT_SERVING", ... as in health.proto.
const char* HealthStatusName(HealthStatus status);

// Converts a gRPC status to an absl::Status with the same code and message.
absl::Status ToAbslStatus(const grpc::Status& status);

class HalmaClient {
 public:
  // Fails (INVALID_ARGUMENT / NOT_FOUND) when the options are unusable, e.g.
  // an unreadable root certificate file. Does not connect: the channel
  // connects on the first call.
  static absl::StatusOr<std::unique_ptr<HalmaClient>> Create(
      const ClientOptions& options);

  absl::StatusOr<halma::v1::ListVariantsResponse> ListVariants(
      const halma::v1::ListVariantsRequest& request = {});
  absl::StatusOr<halma::v1::LegalMovesResponse> LegalMoves(
      const halma::v1::LegalMovesRequest& request);
  absl::StatusOr<halma::v1::ValidateMoveResponse> ValidateMove(
      const halma::v1::ValidateMoveRequest& request);
  absl::StatusOr<halma::v1::AdjudicateResponse> Adjudicate(
      const halma::v1::AdjudicateRequest& request);
  absl::StatusOr<halma::v1::PerftResponse> Perft(
      const halma::v1::PerftRequest& request);
  absl::StatusOr<halma::v1::SuggestMoveResponse> SuggestMove(
      const halma::v1::SuggestMoveRequest& request);

  // Opens an AdjudicateStream call on `context` (which the caller owns and
  // keeps until Finish; no deadline is set on it here: a stream lasts as
  // long as its records).
  std::unique_ptr<grpc::ClientReaderWriter<halma::v1::AdjudicateStreamRequest,
                                           halma::v1::AdjudicateStreamResponse>>
  AdjudicateStream(grpc::ClientContext* context);

  // grpc.health.v1.Health/Check for `service` ("" = the whole server,
  // "halma.v1.HalmaRules" = the rules service).
  absl::StatusOr<HealthStatus> CheckHealth(const std::string& service = "");

  // Waits until the channel is connected or `timeout` passes.
  bool WaitForConnected(std::chrono::milliseconds timeout);

  const ClientOptions& options() const { return options_; }
  const std::shared_ptr<grpc::Channel>& channel() const { return channel_; }

 private:
  HalmaClient(ClientOptions options, std::shared_ptr<grpc::Channel> channel);
  void PrepareContext(grpc::ClientContext* context) const;

  ClientOptions options_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<halma::v1::HalmaRules::Stub> stub_;
};

}  // namespace halma::client

#endif  // HALMA_CLIENT_HALMA_CLIENT_H_
