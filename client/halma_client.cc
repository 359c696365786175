#include "halma_client.h"

#include <condition_variable>
#include <fstream>
#include <mutex>
#include <sstream>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/security/credentials.h"
#include "grpcpp/support/byte_buffer.h"
#include "grpcpp/support/channel_arguments.h"
#include "grpcpp/support/slice.h"

namespace halma::client {
namespace {

// The health service is called through a generic stub with its two tiny
// messages encoded by hand (grpc/health/v1/health.proto: request field 1 is
// the service name, response field 1 the serving status). This keeps the
// client free of generated health code, so it can be linked together with
// anything that registers health.proto in the generated descriptor pool.
constexpr char kHealthCheckMethod[] = "/grpc.health.v1.Health/Check";

void AppendVarint(std::uint64_t value, std::string* out) {
  while (value >= 0x80) {
    out->push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out->push_back(static_cast<char>(value));
}

std::string EncodeHealthCheckRequest(const std::string& service) {
  std::string out;
  if (!service.empty()) {
    out.push_back(0x0a);  // Field 1, length-delimited.
    AppendVarint(service.size(), &out);
    out += service;
  }
  return out;
}

bool ReadVarint(const std::string& in, size_t* pos, std::uint64_t* value) {
  *value = 0;
  for (int shift = 0; shift < 64 && *pos < in.size(); shift += 7) {
    const auto byte = static_cast<unsigned char>(in[(*pos)++]);
    *value |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) return true;
  }
  return false;
}

// Returns the ServingStatus of a HealthCheckResponse (0 when absent),
// skipping any other field.
absl::StatusOr<int> DecodeHealthCheckResponse(const std::string& in) {
  int status = 0;
  size_t pos = 0;
  while (pos < in.size()) {
    std::uint64_t key, value;
    if (!ReadVarint(in, &pos, &key)) break;
    const int wire_type = static_cast<int>(key & 7);
    const std::uint64_t field = key >> 3;
    if (wire_type == 0) {
      if (!ReadVarint(in, &pos, &value)) break;
      if (field == 1) status = static_cast<int>(value);
    } else if (wire_type == 1 || wire_type == 5) {
      pos += wire_type == 1 ? 8 : 4;
    } else if (wire_type == 2) {
      if (!ReadVarint(in, &pos, &value) || value > in.size() - pos) break;
      pos += value;
    } else {
      break;
    }
  }
  if (pos != in.size()) {
    return absl::InternalError("malformed grpc.health.v1.HealthCheckResponse");
  }
  return status;
}

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::NotFoundError(absl::StrCat("cannot read file '", path, "'"));
  }
  std::ostringstream content;
  content << in.rdbuf();
  return content.str();
}

}  // namespace

const char* HealthStatusName(HealthStatus status) {
  switch (status) {
    case HealthStatus::kServing:
      return "SERVING";
    case HealthStatus::kNotServing:
      return "NOT_SERVING";
    case HealthStatus::kServiceUnknown:
      return "SERVICE_UNKNOWN";
    case HealthStatus::kUnknown:
      break;
  }
  return "UNKNOWN";
}

absl::Status ToAbslStatus(const grpc::Status& status) {
  if (status.ok()) return absl::OkStatus();
  return absl::Status(static_cast<absl::StatusCode>(status.error_code()),
                      status.error_message());
}

absl::StatusOr<std::unique_ptr<HalmaClient>> HalmaClient::Create(
    const ClientOptions& options) {
  if (options.target.empty()) {
    return absl::InvalidArgumentError("the target must not be empty");
  }
  std::shared_ptr<grpc::ChannelCredentials> credentials;
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(options.max_receive_message_bytes);
  args.SetMaxSendMessageSize(-1);
  if (!options.service_config_json.empty()) {
    args.SetServiceConfigJSON(options.service_config_json);
  }
  if (options.tls) {
    grpc::SslCredentialsOptions ssl;
    if (!options.root_cert_file.empty()) {
      absl::StatusOr<std::string> pem = ReadFile(options.root_cert_file);
      if (!pem.ok()) return pem.status();
      ssl.pem_root_certs = *std::move(pem);
    }
    credentials = grpc::SslCredentials(ssl);
    if (!options.tls_server_name.empty()) {
      args.SetSslTargetNameOverride(options.tls_server_name);
    }
  } else {
    if (!options.root_cert_file.empty() || !options.tls_server_name.empty()) {
      return absl::InvalidArgumentError(
          "a root certificate or TLS server name needs TLS to be on");
    }
    credentials = grpc::InsecureChannelCredentials();
  }
  auto channel = grpc::CreateCustomChannel(options.target, credentials, args);
  if (channel == nullptr) {
    return absl::InternalError(
        absl::StrCat("cannot create a channel to '", options.target, "'"));
  }
  return std::unique_ptr<HalmaClient>(
      new HalmaClient(options, std::move(channel)));
}

HalmaClient::HalmaClient(ClientOptions options,
                         std::shared_ptr<grpc::Channel> channel)
    : options_(std::move(options)),
      channel_(std::move(channel)),
      stub_(halma::v1::HalmaRules::NewStub(channel_)) {}

void HalmaClient::PrepareContext(grpc::ClientContext* context) const {
  if (options_.deadline.count() > 0) {
    context->set_deadline(std::chrono::system_clock::now() + options_.deadline);
  }
}

absl::StatusOr<halma::v1::ListVariantsResponse> HalmaClient::ListVariants(
    const halma::v1::ListVariantsRequest& request) {
  grpc::ClientContext context;
  PrepareContext(&context);
  halma::v1::ListVariantsResponse response;
  grpc::Status status = stub_->ListVariants(&context, request, &response);
  if (!status.ok()) return ToAbslStatus(status);
  return response;
}

absl::StatusOr<halma::v1::LegalMovesResponse> HalmaClient::LegalMoves(
    const halma::v1::LegalMovesRequest& request) {
  grpc::ClientContext context;
  PrepareContext(&context);
  halma::v1::LegalMovesResponse response;
  grpc::Status status = stub_->LegalMoves(&context, request, &response);
  if (!status.ok()) return ToAbslStatus(status);
  return response;
}

absl::StatusOr<halma::v1::ValidateMoveResponse> HalmaClient::ValidateMove(
    const halma::v1::ValidateMoveRequest& request) {
  grpc::ClientContext context;
  PrepareContext(&context);
  halma::v1::ValidateMoveResponse response;
  grpc::Status status = stub_->ValidateMove(&context, request, &response);
  if (!status.ok()) return ToAbslStatus(status);
  return response;
}

absl::StatusOr<halma::v1::AdjudicateResponse> HalmaClient::Adjudicate(
    const halma::v1::AdjudicateRequest& request) {
  grpc::ClientContext context;
  PrepareContext(&context);
  halma::v1::AdjudicateResponse response;
  grpc::Status status = stub_->Adjudicate(&context, request, &response);
  if (!status.ok()) return ToAbslStatus(status);
  return response;
}

absl::StatusOr<halma::v1::PerftResponse> HalmaClient::Perft(
    const halma::v1::PerftRequest& request) {
  grpc::ClientContext context;
  PrepareContext(&context);
  halma::v1::PerftResponse response;
  grpc::Status status = stub_->Perft(&context, request, &response);
  if (!status.ok()) return ToAbslStatus(status);
  return response;
}

absl::StatusOr<halma::v1::SuggestMoveResponse> HalmaClient::SuggestMove(
    const halma::v1::SuggestMoveRequest& request) {
  grpc::ClientContext context;
  PrepareContext(&context);
  halma::v1::SuggestMoveResponse response;
  grpc::Status status = stub_->SuggestMove(&context, request, &response);
  if (!status.ok()) return ToAbslStatus(status);
  return response;
}

std::unique_ptr<grpc::ClientReaderWriter<halma::v1::AdjudicateStreamRequest,
                                         halma::v1::AdjudicateStreamResponse>>
HalmaClient::AdjudicateStream(grpc::ClientContext* context) {
  return stub_->AdjudicateStream(context);
}

absl::StatusOr<HealthStatus> HalmaClient::CheckHealth(
    const std::string& service) {
  const std::string encoded = EncodeHealthCheckRequest(service);
  grpc::Slice slice(encoded);
  grpc::ByteBuffer request(&slice, 1);
  grpc::ByteBuffer response;
  grpc::ClientContext context;
  PrepareContext(&context);

  std::mutex mu;
  std::condition_variable done_cv;
  bool done = false;
  grpc::Status status;
  grpc::GenericStub stub(channel_);
  stub.UnaryCall(&context, kHealthCheckMethod, grpc::StubOptions(), &request,
                 &response, [&](grpc::Status s) {
                   std::lock_guard<std::mutex> lock(mu);
                   status = std::move(s);
                   done = true;
                   done_cv.notify_one();
                 });
  {
    std::unique_lock<std::mutex> lock(mu);
    done_cv.wait(lock, [&] { return done; });
  }
  if (!status.ok()) return ToAbslStatus(status);

  std::vector<grpc::Slice> slices;
  if (response.Valid() && !response.Dump(&slices).ok()) {
    return absl::InternalError("cannot read the health check response");
  }
  std::string bytes;
  for (const grpc::Slice& s : slices) {
    bytes.append(reinterpret_cast<const char*>(s.begin()), s.size());
  }
  absl::StatusOr<int> serving = DecodeHealthCheckResponse(bytes);
  if (!serving.ok()) return serving.status();
  if (*serving < 0 || *serving > 3) return HealthStatus::kUnknown;
  return static_cast<HealthStatus>(*serving);
}

bool HalmaClient::WaitForConnected(std::chrono::milliseconds timeout) {
  return channel_->WaitForConnected(std::chrono::system_clock::now() + timeout);
}

}  // namespace halma::client
