// halma_server's command-line flags and their environment variables.
//
// Every flag has an environment variable (HALMA_<FLAG IN UPPER CASE>): the
// variable overrides the built-in default and an explicit flag overrides the
// variable. This suits containers (env) and humans (flags) alike.
#ifndef HALMA_SERVICE_SERVER_FLAGS_H_
#define HALMA_SERVICE_SERVER_FLAGS_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "service/server.h"

ABSL_DECLARE_FLAG(std::string, host);
ABSL_DECLARE_FLAG(int, port);
ABSL_DECLARE_FLAG(int, max_message_bytes);
ABSL_DECLARE_FLAG(int, max_record_moves);
ABSL_DECLARE_FLAG(int, grace_period_seconds);
ABSL_DECLARE_FLAG(int, max_connection_age_seconds);
ABSL_DECLARE_FLAG(int, max_connection_age_grace_seconds);
ABSL_DECLARE_FLAG(int64_t, max_memory_bytes);
ABSL_DECLARE_FLAG(int, max_concurrent_streams);
ABSL_DECLARE_FLAG(int, max_connections);
ABSL_DECLARE_FLAG(int, idle_timeout_seconds);
ABSL_DECLARE_FLAG(int, handshake_timeout_seconds);
ABSL_DECLARE_FLAG(int, stream_read_timeout_seconds);
ABSL_DECLARE_FLAG(int, max_metadata_bytes);
ABSL_DECLARE_FLAG(int, max_call_seconds);
ABSL_DECLARE_FLAG(int, max_concurrent_adjudications);
ABSL_DECLARE_FLAG(int, shutdown_delay_seconds);
ABSL_DECLARE_FLAG(std::string, front_proxy);
ABSL_DECLARE_FLAG(int, backend_port);
ABSL_DECLARE_FLAG(bool, http);
ABSL_DECLARE_FLAG(int, http_port);
ABSL_DECLARE_FLAG(int, http_threads);
ABSL_DECLARE_FLAG(bool, playground);
ABSL_DECLARE_FLAG(bool, access_log);
ABSL_DECLARE_FLAG(bool, reflection);
ABSL_DECLARE_FLAG(std::string, tls_cert);
ABSL_DECLARE_FLAG(std::string, tls_key);

namespace halma::service {

// The (flag, environment variable) pairs, e.g. {"port", "HALMA_PORT"}.
struct FlagEnv {
  const char* flag;
  const char* env;
};
const std::vector<FlagEnv>& FlagEnvironment();

// Sets each flag whose variable is set (per `getenv`, std::getenv by
// default) to the variable's value. Call before absl::ParseCommandLine so
// that explicit flags win. The error names the variable and its value.
absl::Status ApplyEnvironmentToFlags(
    const std::function<const char*(const char*)>& getenv = nullptr);

// The config the flags now hold.
ServerConfig ConfigFromFlags();

// Usage text and the --version string ("halma_server VERSION").
void SetServerUsage();

// All of it for main(): environment, then the command line (which handles
// --help and --version and exits on unknown flags), then validation.
// Returns the positional arguments left after parsing in `rest`.
absl::StatusOr<ServerConfig> ParseServerFlags(int argc, char** argv,
                                              std::vector<char*>* rest);

}  // namespace halma::service

#endif  // HALMA_SERVICE_SERVER_FLAGS_H_
