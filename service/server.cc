#include "service/server.h"

#include <grpcpp/resource_quota.h>

#include <fstream>
#include <limits>
#include <sstream>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "grpc/grpc.h"
#include "grpcpp/ext/proto_server_reflection_plugin.h"
#include "grpcpp/impl/server_builder_option.h"
#include "grpcpp/impl/server_builder_plugin.h"
#include "halma/flood_fill.h"

#ifndef HALMA_VERSION
#define HALMA_VERSION "unknown"
#endif

namespace halma::service {
namespace {

// Decides, per server, whether reflection is served. Linking
// libgrpc++_reflection registers its plugin for every ServerBuilder of the
// process (a static initializer), so the plugin is removed from this
// builder's list and, when wanted, added back exactly once: reflection can
// then be off for one server and on for another in the same process.
class ReflectionOption : public grpc::ServerBuilderOption {
 public:
  explicit ReflectionOption(bool enabled) : enabled_(enabled) {}
  void UpdateArguments(grpc::ChannelArguments* /*args*/) override {}
  void UpdatePlugins(std::vector<std::unique_ptr<grpc::ServerBuilderPlugin>>*
                         plugins) override {
    auto plugin =
        std::make_unique<grpc::reflection::ProtoServerReflectionPlugin>();
    const std::string name = plugin->name();
    std::erase_if(*plugins, [&name](const auto& p) {
      return p != nullptr && p->name() == name;
    });
    if (enabled_) plugins->push_back(std::move(plugin));
  }

 private:
  const bool enabled_;
};

absl::StatusOr<std::string> ReadFile(const std::string& path,
                                     absl::string_view setting) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return absl::InvalidArgumentError(
        absl::StrCat(setting, ": cannot read \"", path, "\""));
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) {
    return absl::InvalidArgumentError(
        absl::StrCat(setting, ": error reading \"", path, "\""));
  }
  return text.str();
}

absl::Status CheckRange(absl::string_view setting, std::int64_t value,
                        std::int64_t low, std::int64_t high) {
  if (value < low || value > high) {
    return absl::InvalidArgumentError(
        absl::StrCat(setting, " ", value, ": expected ", low, " to ", high));
  }
  return absl::OkStatus();
}

std::string OnOff(bool on) { return on ? "on" : "off"; }

std::string Seconds(int seconds) {
  return seconds == 0 ? "off" : absl::StrCat(seconds, "s");
}

}  // namespace

const char* Version() { return HALMA_VERSION; }

std::string JoinHostPort(const std::string& host, int port) {
  if (absl::StrContains(host, ':') && !absl::StartsWith(host, "[")) {
    return absl::StrCat("[", host, "]:", port);
  }
  return absl::StrCat(host, ":", port);
}

absl::Status ValidateConfig(const ServerConfig& config) {
  if (config.host.empty()) {
    return absl::InvalidArgumentError("host: empty, expected an address");
  }
  constexpr int kMaxSeconds = 1000000;
  for (const absl::Status& status : {
           CheckRange("port", config.port, 0, 65535),
           CheckRange("max_message_bytes", config.max_message_bytes, 1,
                      std::numeric_limits<int>::max()),
           CheckRange("max_record_moves", config.max_record_moves, 1,
                      std::numeric_limits<int>::max()),
           CheckRange("max_memory_bytes", config.max_memory_bytes, 0,
                      std::numeric_limits<std::int64_t>::max()),
           CheckRange("grace_period_seconds", config.grace_period_seconds, 0,
                      kMaxSeconds),
           CheckRange("max_connection_age_seconds",
                      config.max_connection_age_seconds, 0, kMaxSeconds),
           CheckRange("max_connection_age_grace_seconds",
                      config.max_connection_age_grace_seconds, 0, kMaxSeconds),
       }) {
    if (!status.ok()) return status;
  }
  if (config.tls_cert.empty() != config.tls_key.empty()) {
    return absl::InvalidArgumentError(
        "tls_cert and tls_key: expected both (TLS) or neither (plaintext)");
  }
  return absl::OkStatus();
}

HalmaServer::HalmaServer(const ServerConfig& config) : config_(config) {}

absl::StatusOr<std::unique_ptr<HalmaServer>> HalmaServer::Start(
    const ServerConfig& config) {
  if (absl::Status status = ValidateConfig(config); !status.ok()) {
    return status;
  }
  std::shared_ptr<grpc::ServerCredentials> credentials =
      grpc::InsecureServerCredentials();
  if (!config.tls_cert.empty()) {
    absl::StatusOr<std::string> cert = ReadFile(config.tls_cert, "tls_cert");
    if (!cert.ok()) return cert.status();
    absl::StatusOr<std::string> key = ReadFile(config.tls_key, "tls_key");
    if (!key.ok()) return key.status();
    grpc::SslServerCredentialsOptions options;
    options.pem_key_cert_pairs.push_back({*key, *cert});
    credentials = grpc::SslServerCredentials(options);
  }

  std::unique_ptr<HalmaServer> server(new HalmaServer(config));
  server->health_ = std::make_unique<HealthService>();
  server->rules_ = std::make_unique<HalmaRulesService>(
      RulesOptions{.max_record_moves = config.max_record_moves});

  grpc::ServerBuilder builder;
  builder.AddListeningPort(JoinHostPort(config.host, config.port), credentials,
                           &server->port_);
  builder.RegisterService(server->rules_.get());
  builder.RegisterService(server->health_.get());
  builder.SetMaxReceiveMessageSize(config.max_message_bytes);
  // A second server on the same port must fail, not share it silently.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  if (config.max_connection_age_seconds > 0) {
    builder.AddChannelArgument(GRPC_ARG_MAX_CONNECTION_AGE_MS,
                               config.max_connection_age_seconds * 1000);
  }
  if (config.max_connection_age_grace_seconds > 0) {
    builder.AddChannelArgument(GRPC_ARG_MAX_CONNECTION_AGE_GRACE_MS,
                               config.max_connection_age_grace_seconds * 1000);
  }
  if (config.max_memory_bytes > 0) {
    grpc::ResourceQuota quota("halma_server");
    quota.Resize(static_cast<std::size_t>(config.max_memory_bytes));
    builder.SetResourceQuota(quota);
  }
  builder.SetOption(std::make_unique<ReflectionOption>(config.reflection));
  server->server_ = builder.BuildAndStart();
  if (server->server_ == nullptr || server->port_ == 0) {
    return absl::UnavailableError(absl::StrCat(
        "cannot listen on ", JoinHostPort(config.host, config.port),
        " (address in use, or not an address of this host?)"));
  }
  server->health_->SetServingStatus("", true);
  server->health_->SetServingStatus(v1::HalmaRules::service_full_name(), true);
  return server;
}

HalmaServer::~HalmaServer() {
  if (server_ != nullptr) Shutdown(absl::ZeroDuration());
}

std::string HalmaServer::ListeningLine() const {
  return absl::StrCat(
      "halma_server listening on ", address(), " (version ", Version(),
      "; tls ", OnOff(!config_.tls_cert.empty()), "; reflection ",
      OnOff(config_.reflection), "; max_message_bytes ",
      config_.max_message_bytes, "; max_record_moves ",
      config_.max_record_moves, "; max_memory_bytes ", config_.max_memory_bytes,
      "; grace_period ", config_.grace_period_seconds, "s; max_connection_age ",
      Seconds(config_.max_connection_age_seconds),
      "; max_connection_age_grace ",
      Seconds(config_.max_connection_age_grace_seconds), "; flood_fill ",
      FloodFillKernelName(ActiveFloodFillKernel()), ")");
}

void HalmaServer::Shutdown(absl::Duration grace) {
  std::call_once(shutdown_once_, [&] {
    health_->Shutdown();
    server_->Shutdown(absl::ToChronoTime(absl::Now() + grace));
  });
}

}  // namespace halma::service
