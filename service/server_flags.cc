#include "service/server_flags.h"

#include <cstdlib>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/reflection.h"
#include "absl/flags/usage.h"
#include "absl/flags/usage_config.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

ABSL_FLAG(std::string, host, "0.0.0.0",
          "Address to listen on: 0.0.0.0 (every IPv4 interface), :: (every "
          "interface) or one address. Env: HALMA_HOST.");
ABSL_FLAG(int, port, 50051,
          "TCP port; 0 picks a free port and prints it in the start-up line. "
          "Env: HALMA_PORT.");
ABSL_FLAG(int, max_message_bytes, 4 * 1024 * 1024,
          "Largest request accepted, in bytes; larger requests fail with "
          "RESOURCE_EXHAUSTED. Env: HALMA_MAX_MESSAGE_BYTES.");
ABSL_FLAG(int, max_record_moves, 10000,
          "Longest game record Adjudicate accepts, in moves; longer ones fail "
          "with INVALID_ARGUMENT. Env: HALMA_MAX_RECORD_MOVES.");
ABSL_FLAG(int64_t, max_memory_bytes, 256 * 1024 * 1024,
          "Memory gRPC may use for requests in flight, in bytes (its "
          "resource quota); 0 = unlimited. Env: HALMA_MAX_MEMORY_BYTES.");
ABSL_FLAG(int, grace_period_seconds, 10,
          "On SIGTERM or SIGINT, how long in-flight calls may run on before "
          "they are cancelled. Env: HALMA_GRACE_PERIOD_SECONDS.");
ABSL_FLAG(int, max_connection_age_seconds, 0,
          "Close connections after this age (GOAWAY), so that clients "
          "rebalance across replicas; 0 = off. Env: "
          "HALMA_MAX_CONNECTION_AGE_SECONDS.");
ABSL_FLAG(int, max_connection_age_grace_seconds, 0,
          "Time in-flight calls get on a connection closed for its age; 0 = "
          "gRPC's default (unlimited). Env: "
          "HALMA_MAX_CONNECTION_AGE_GRACE_SECONDS.");
ABSL_FLAG(bool, reflection, true,
          "Serve gRPC server reflection (grpc.reflection.v1alpha), for tools "
          "such as grpcurl. Env: HALMA_REFLECTION.");
ABSL_FLAG(std::string, tls_cert, "",
          "PEM file with the server's certificate chain; with --tls_key, "
          "serve TLS. Env: HALMA_TLS_CERT.");
ABSL_FLAG(std::string, tls_key, "",
          "PEM file with the server's private key; with --tls_cert, serve "
          "TLS. Env: HALMA_TLS_KEY.");

namespace halma::service {

const std::vector<FlagEnv>& FlagEnvironment() {
  static const auto* pairs = new std::vector<FlagEnv>{
      {"host", "HALMA_HOST"},
      {"port", "HALMA_PORT"},
      {"max_message_bytes", "HALMA_MAX_MESSAGE_BYTES"},
      {"max_record_moves", "HALMA_MAX_RECORD_MOVES"},
      {"max_memory_bytes", "HALMA_MAX_MEMORY_BYTES"},
      {"grace_period_seconds", "HALMA_GRACE_PERIOD_SECONDS"},
      {"max_connection_age_seconds", "HALMA_MAX_CONNECTION_AGE_SECONDS"},
      {"max_connection_age_grace_seconds",
       "HALMA_MAX_CONNECTION_AGE_GRACE_SECONDS"},
      {"reflection", "HALMA_REFLECTION"},
      {"tls_cert", "HALMA_TLS_CERT"},
      {"tls_key", "HALMA_TLS_KEY"},
  };
  return *pairs;
}

absl::Status ApplyEnvironmentToFlags(
    const std::function<const char*(const char*)>& getenv) {
  for (const FlagEnv& pair : FlagEnvironment()) {
    const char* value = getenv ? getenv(pair.env) : std::getenv(pair.env);
    if (value == nullptr) continue;
    absl::CommandLineFlag* flag = absl::FindCommandLineFlag(pair.flag);
    if (flag == nullptr) continue;  // Not linked in: cannot happen here.
    std::string error;
    if (!flag->ParseFrom(value, &error)) {
      return absl::InvalidArgumentError(absl::StrCat(
          pair.env, "=\"", value, "\": ", error, " (for --", pair.flag, ")"));
    }
  }
  return absl::OkStatus();
}

ServerConfig ConfigFromFlags() {
  ServerConfig config;
  config.host = absl::GetFlag(FLAGS_host);
  config.port = absl::GetFlag(FLAGS_port);
  config.max_message_bytes = absl::GetFlag(FLAGS_max_message_bytes);
  config.max_record_moves = absl::GetFlag(FLAGS_max_record_moves);
  config.max_memory_bytes = absl::GetFlag(FLAGS_max_memory_bytes);
  config.grace_period_seconds = absl::GetFlag(FLAGS_grace_period_seconds);
  config.max_connection_age_seconds =
      absl::GetFlag(FLAGS_max_connection_age_seconds);
  config.max_connection_age_grace_seconds =
      absl::GetFlag(FLAGS_max_connection_age_grace_seconds);
  config.reflection = absl::GetFlag(FLAGS_reflection);
  config.tls_cert = absl::GetFlag(FLAGS_tls_cert);
  config.tls_key = absl::GetFlag(FLAGS_tls_key);
  return config;
}

void SetServerUsage() {
  absl::SetProgramUsageMessage(
      "The Halma rules service (gRPC halma.v1.HalmaRules, grpc.health.v1 "
      "Health and server reflection).\n"
      "Usage: halma_server [--flag=value ...]\n"
      "Every flag can also be set with an environment variable "
      "HALMA_<FLAG>; an explicit flag wins over the variable.\n"
      "SIGTERM or SIGINT: health turns NOT_SERVING, in-flight calls get "
      "--grace_period_seconds to finish, then the server exits 0.");
  absl::FlagsUsageConfig usage;
  usage.version_string = [] {
    return absl::StrCat("halma_server ", Version(), "\n");
  };
  // Only this program's flags in --help (not every linked library's).
  usage.contains_help_flags = [](absl::string_view file) {
    return absl::StrContains(file, "server_flags");
  };
  absl::SetFlagsUsageConfig(usage);
}

absl::StatusOr<ServerConfig> ParseServerFlags(int argc, char** argv,
                                              std::vector<char*>* rest) {
  SetServerUsage();
  // Environment first, so that the command line overrides it; its errors
  // are reported after parsing so that --help and --version still work.
  const absl::Status env_status = ApplyEnvironmentToFlags();
  std::vector<char*> positional = absl::ParseCommandLine(argc, argv);
  if (!env_status.ok()) return env_status;
  if (rest != nullptr) {
    rest->assign(positional.begin() + 1, positional.end());
  }
  ServerConfig config = ConfigFromFlags();
  if (absl::Status status = ValidateConfig(config); !status.ok()) {
    return status;
  }
  return config;
}

}  // namespace halma::service
