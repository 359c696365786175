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
ABSL_FLAG(int, max_message_bytes, 64 * 1024,
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
ABSL_FLAG(int, max_concurrent_streams, 16,
          "Calls one client connection may have open at once (HTTP/2 "
          "MAX_CONCURRENT_STREAMS). Env: HALMA_MAX_CONCURRENT_STREAMS.");
ABSL_FLAG(int, max_connections, 256,
          "Client connections open at once; needs --front_proxy. Env: "
          "HALMA_MAX_CONNECTIONS.");
ABSL_FLAG(int, idle_timeout_seconds, 30,
          "Close a connection that has had no call for this long. Env: "
          "HALMA_IDLE_TIMEOUT_SECONDS.");
ABSL_FLAG(int, handshake_timeout_seconds, 5,
          "Close a new connection that has not sent its HTTP/2 preface (and "
          "finished TLS) within this time. Env: "
          "HALMA_HANDSHAKE_TIMEOUT_SECONDS.");
ABSL_FLAG(int, stream_read_timeout_seconds, 5,
          "Reset a call whose request body makes no progress for this long; "
          "needs --front_proxy. Env: HALMA_STREAM_READ_TIMEOUT_SECONDS.");
ABSL_FLAG(int, max_metadata_bytes, 16 * 1024,
          "Largest request header block (metadata), in bytes. Env: "
          "HALMA_MAX_METADATA_BYTES.");
ABSL_FLAG(int, max_call_seconds, 10,
          "Longest a call may run when the client's deadline is later or "
          "absent; Adjudicate stops with DEADLINE_EXCEEDED. Env: "
          "HALMA_MAX_CALL_SECONDS.");
ABSL_FLAG(int, max_perft_depth, 8,
          "Deepest Perft answered (deeper is INVALID_ARGUMENT); every Perft "
          "is bounded by max_call_seconds too. Env: HALMA_MAX_PERFT_DEPTH.");
ABSL_FLAG(int, max_concurrent_adjudications, 0,
          "Adjudicate calls replayed at once; more get RESOURCE_EXHAUSTED. "
          "0 = the number of CPUs. Env: HALMA_MAX_CONCURRENT_ADJUDICATIONS.");
ABSL_FLAG(int, shutdown_delay_seconds, 0,
          "On SIGTERM, how long health answers NOT_SERVING while every call "
          "is still served, before the listener closes. Env: "
          "HALMA_SHUTDOWN_DELAY_SECONDS.");
ABSL_FLAG(std::string, front_proxy, "",
          "Path of nghttpx (Debian's nghttp2-proxy) to run as the HTTP/2 "
          "front on --host:--port, forwarding to gRPC on 127.0.0.1:"
          "--backend_port; empty = gRPC listens itself. Env: "
          "HALMA_FRONT_PROXY.");
ABSL_FLAG(int, backend_port, 0,
          "With --front_proxy: gRPC's own port on 127.0.0.1; 0 picks a free "
          "one. Env: HALMA_BACKEND_PORT.");
ABSL_FLAG(bool, http, true,
          "Serve the Connect protocol (HTTP/1.1 with JSON or protobuf, POST "
          "and GET), /healthz, /readyz and /metrics on --http_port. Env: "
          "HALMA_HTTP.");
ABSL_FLAG(int, http_port, 8080,
          "TCP port of the HTTP listener, on --host; 0 picks a free port. "
          "Env: HALMA_HTTP_PORT.");
ABSL_FLAG(int, http_threads, 0,
          "Threads of the HTTP listener; 0 = twice the number of CPUs. Env: "
          "HALMA_HTTP_THREADS.");
ABSL_FLAG(bool, playground, true,
          "Serve the playground page (a board that calls the API, "
          "docs/playground.md) at GET / on the HTTP listener (--http). Env: "
          "HALMA_PLAYGROUND.");
ABSL_FLAG(bool, access_log, false,
          "Log every call (gRPC and HTTP) as one JSON line on stderr: method, "
          "code, latency, peer, bytes, variant, trace id. Env: "
          "HALMA_ACCESS_LOG.");
ABSL_FLAG(bool, reflection, true,
          "Serve gRPC server reflection (grpc.reflection.v1 and v1alpha), for "
          "tools such as grpcurl and buf curl. Env: HALMA_REFLECTION.");
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
      {"max_concurrent_streams", "HALMA_MAX_CONCURRENT_STREAMS"},
      {"max_connections", "HALMA_MAX_CONNECTIONS"},
      {"idle_timeout_seconds", "HALMA_IDLE_TIMEOUT_SECONDS"},
      {"handshake_timeout_seconds", "HALMA_HANDSHAKE_TIMEOUT_SECONDS"},
      {"stream_read_timeout_seconds", "HALMA_STREAM_READ_TIMEOUT_SECONDS"},
      {"max_metadata_bytes", "HALMA_MAX_METADATA_BYTES"},
      {"max_call_seconds", "HALMA_MAX_CALL_SECONDS"},
      {"max_perft_depth", "HALMA_MAX_PERFT_DEPTH"},
      {"max_concurrent_adjudications", "HALMA_MAX_CONCURRENT_ADJUDICATIONS"},
      {"shutdown_delay_seconds", "HALMA_SHUTDOWN_DELAY_SECONDS"},
      {"front_proxy", "HALMA_FRONT_PROXY"},
      {"backend_port", "HALMA_BACKEND_PORT"},
      {"http", "HALMA_HTTP"},
      {"http_port", "HALMA_HTTP_PORT"},
      {"http_threads", "HALMA_HTTP_THREADS"},
      {"playground", "HALMA_PLAYGROUND"},
      {"access_log", "HALMA_ACCESS_LOG"},
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
  config.max_concurrent_streams = absl::GetFlag(FLAGS_max_concurrent_streams);
  config.max_connections = absl::GetFlag(FLAGS_max_connections);
  config.idle_timeout_seconds = absl::GetFlag(FLAGS_idle_timeout_seconds);
  config.handshake_timeout_seconds =
      absl::GetFlag(FLAGS_handshake_timeout_seconds);
  config.stream_read_timeout_seconds =
      absl::GetFlag(FLAGS_stream_read_timeout_seconds);
  config.max_metadata_bytes = absl::GetFlag(FLAGS_max_metadata_bytes);
  config.max_call_seconds = absl::GetFlag(FLAGS_max_call_seconds);
  config.max_perft_depth = absl::GetFlag(FLAGS_max_perft_depth);
  config.max_concurrent_adjudications =
      absl::GetFlag(FLAGS_max_concurrent_adjudications);
  config.shutdown_delay_seconds = absl::GetFlag(FLAGS_shutdown_delay_seconds);
  config.front_proxy = absl::GetFlag(FLAGS_front_proxy);
  config.backend_port = absl::GetFlag(FLAGS_backend_port);
  config.http = absl::GetFlag(FLAGS_http);
  config.http_port = absl::GetFlag(FLAGS_http_port);
  config.http_threads = absl::GetFlag(FLAGS_http_threads);
  config.playground = absl::GetFlag(FLAGS_playground);
  config.access_log = absl::GetFlag(FLAGS_access_log);
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
