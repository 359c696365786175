// Every setting of halma_server, declared once.
//
// HALMA_SETTINGS is the one table: each row is a setting's C++ type, name
// (the flag, --name), environment variable, default, range (integers only),
// where it applies, and help. Everything else is made from it: the Settings
// struct below, the flags and their environment variables
// (settings_flags.h), validation (ValidateSettings), both start-up lines
// (service/server/startup_lines.h) and the table of docs/configuration.md
// (settings_markdown.h, checked by a test). To add a setting, add a row.
//
// Rows are in the order the docs and the start-up lines list them.
#ifndef HALMA_SERVICE_CONFIG_SETTINGS_H_
#define HALMA_SERVICE_CONFIG_SETTINGS_H_

#include <cstdint>
#include <limits>
#include <string>
#include <variant>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "halma/bot/search.h"
#include "halma/perft.h"

namespace halma::service {

// Where a setting applies: the docs' "applies to" column, and for the
// start-up line whether it is in use (a front-proxy setting without a
// front proxy is not).
enum class SettingScope : std::uint8_t {
  kListeners,          // Both the gRPC and the HTTP listener.
  kGrpc,               // The gRPC port (the front proxy's, when there is one).
  kFrontProxy,         // Only with --front_proxy.
  kFrontProxyAndHttp,  // The front proxy and the HTTP listener.
  kHttp,               // Only with --http.
  kRules,              // The rules core: what a request may ask for.
  kAdmission,          // The admission gate of expensive calls.
  kShutdown,           // SIGTERM and SIGINT.
  kLogs,
};

inline constexpr std::int64_t kMaxSettingSeconds = 1'000'000;
inline constexpr std::int64_t kIntMax = std::numeric_limits<int>::max();
inline constexpr std::int64_t kInt64Max =
    std::numeric_limits<std::int64_t>::max();

// X(type, name, environment variable, default, minimum, maximum, scope,
//   help). Minimum and maximum are ignored for strings and booleans. Help
//   is a sentence or two; the flags add " Env: <variable>." to it.
#define HALMA_SETTINGS(X)                                                      \
  X(std::string, host, "HALMA_HOST", "0.0.0.0", 0, 0,                          \
    ::halma::service::SettingScope::kListeners,                                \
    "Address to listen on: 0.0.0.0 (every IPv4 interface), :: (every "         \
    "interface) or one address.")                                              \
  X(int, port, "HALMA_PORT", 50051, 0, 65535,                                  \
    ::halma::service::SettingScope::kGrpc,                                     \
    "TCP port of gRPC (of the front proxy, when there is one); 0 picks a "     \
    "free port and prints it in the start-up line.")                           \
  X(std::string, front_proxy, "HALMA_FRONT_PROXY", "", 0, 0,                   \
    ::halma::service::SettingScope::kFrontProxy,                               \
    "Path of nghttpx (Debian's nghttp2-proxy) to run as the HTTP/2 front on "  \
    "--host:--port, forwarding to gRPC on 127.0.0.1:--backend_port; it "       \
    "holds the HTTP/2 limits gRPC 1.51 lacks (docs/security.md). Empty: "      \
    "gRPC listens itself.")                                                    \
  X(int, backend_port, "HALMA_BACKEND_PORT", 0, 0, 65535,                      \
    ::halma::service::SettingScope::kFrontProxy,                               \
    "With --front_proxy: gRPC's own port on 127.0.0.1; 0 picks a free one.")   \
  X(bool, reflection, "HALMA_REFLECTION", true, 0, 0,                          \
    ::halma::service::SettingScope::kGrpc,                                     \
    "Serve gRPC server reflection (grpc.reflection.v1 and v1alpha), for "      \
    "tools such as grpcurl and buf curl.")                                     \
  X(std::string, tls_cert, "HALMA_TLS_CERT", "", 0, 0,                         \
    ::halma::service::SettingScope::kGrpc,                                     \
    "PEM file with the server's certificate chain; with --tls_key, serve "     \
    "TLS (terminated by the front proxy when there is one).")                  \
  X(std::string, tls_key, "HALMA_TLS_KEY", "", 0, 0,                           \
    ::halma::service::SettingScope::kGrpc,                                     \
    "PEM file with the server's private key; with --tls_cert, serve TLS.")     \
  X(int, max_message_bytes, "HALMA_MAX_MESSAGE_BYTES", 64 * 1024, 1,           \
    ::halma::service::kIntMax, ::halma::service::SettingScope::kListeners,     \
    "Largest request accepted, in bytes; larger requests fail with "           \
    "RESOURCE_EXHAUSTED.")                                                     \
  X(int, max_record_moves, "HALMA_MAX_RECORD_MOVES", 10000, 1,                 \
    ::halma::service::kIntMax, ::halma::service::SettingScope::kRules,         \
    "Longest game record Adjudicate accepts, in moves; longer ones fail with " \
    "INVALID_ARGUMENT.")                                                       \
  X(int, max_perft_depth, "HALMA_MAX_PERFT_DEPTH", 8, 0,                       \
    ::halma::kMaxPerftDepth, ::halma::service::SettingScope::kRules,           \
    "Deepest Perft answered (deeper is INVALID_ARGUMENT); every Perft is "     \
    "bounded by max_call_seconds too.")                                        \
  X(std::int64_t, max_suggest_nodes, "HALMA_MAX_SUGGEST_NODES", 4'000'000,     \
    1000, ::halma::bot::kMaxNodeBudget,                                        \
    ::halma::service::SettingScope::kRules,                                    \
    "Largest search SuggestMove runs, in nodes: a larger max_nodes, or a "     \
    "level that searches more, is INVALID_ARGUMENT naming this limit.")        \
  X(int, max_suggest_time_ms, "HALMA_MAX_SUGGEST_TIME_MS", 10000, 1,           \
    3'600'000, ::halma::service::SettingScope::kRules,                         \
    "Largest max_time_ms SuggestMove accepts (larger is INVALID_ARGUMENT); "   \
    "every search is bounded by max_call_seconds too.")                        \
  X(int, suggest_table_bits, "HALMA_SUGGEST_TABLE_BITS",                       \
    ::halma::bot::SearchWorkspace::kDefaultTableBits,                          \
    ::halma::bot::SearchWorkspace::kMinTableBits,                              \
    ::halma::bot::SearchWorkspace::kMaxTableBits,                              \
    ::halma::service::SettingScope::kRules,                                    \
    "SuggestMove's transposition table: 2^bits entries of 16 bytes, "          \
    "allocated once per admission slot. Answers depend on it: servers that "   \
    "must agree use the same value (the default).")                            \
  X(int, max_concurrent_adjudications, "HALMA_MAX_CONCURRENT_ADJUDICATIONS",   \
    0, 0, 1 << 16, ::halma::service::SettingScope::kAdmission,                 \
    "Expensive calls (Adjudicate, AdjudicateStream records, Perft, "           \
    "SuggestMove) run at once; more wait in the admission queue. 0 = the "     \
    "number of CPUs.")                                                         \
  X(int, max_queue_length, "HALMA_MAX_QUEUE_LENGTH", 256, 0, 1 << 20,          \
    ::halma::service::SettingScope::kAdmission,                                \
    "Expensive calls that may wait for a slot at once; more are refused at "   \
    "once with RESOURCE_EXHAUSTED. 0 = no queue (every call beyond "           \
    "max_concurrent_adjudications is refused).")                               \
  X(int, max_queue_wait_ms, "HALMA_MAX_QUEUE_WAIT_MS", 1000, 0,                \
    1000 * ::halma::service::kMaxSettingSeconds,                               \
    ::halma::service::SettingScope::kAdmission,                                \
    "Longest an expensive call waits for a slot (the client's deadline, when " \
    "earlier, wins); then RESOURCE_EXHAUSTED with a retry hint.")              \
  X(int, max_call_seconds, "HALMA_MAX_CALL_SECONDS", 10, 1,                    \
    ::halma::service::kMaxSettingSeconds,                                      \
    ::halma::service::SettingScope::kAdmission,                                \
    "Longest an expensive call runs when the client's deadline is later or "   \
    "absent; it stops with DEADLINE_EXCEEDED.")                                \
  X(std::int64_t, max_memory_bytes, "HALMA_MAX_MEMORY_BYTES",                  \
    256 * 1024 * 1024, 0, ::halma::service::kInt64Max,                         \
    ::halma::service::SettingScope::kGrpc,                                     \
    "Memory gRPC may use for requests in flight, in bytes (its resource "      \
    "quota); 0 = unlimited.")                                                  \
  X(int, max_concurrent_streams, "HALMA_MAX_CONCURRENT_STREAMS", 16, 1,        \
    1 << 20, ::halma::service::SettingScope::kGrpc,                            \
    "Calls one client connection may have open at once (HTTP/2 "               \
    "MAX_CONCURRENT_STREAMS).")                                                \
  X(int, max_connections, "HALMA_MAX_CONNECTIONS", 256, 1, 1 << 20,            \
    ::halma::service::SettingScope::kFrontProxyAndHttp,                        \
    "Client connections open at once, on each of the front proxy and the "     \
    "HTTP listener (gRPC 1.51 alone has no such limit).")                      \
  X(int, max_metadata_bytes, "HALMA_MAX_METADATA_BYTES", 16 * 1024, 1024,      \
    1 << 20, ::halma::service::SettingScope::kListeners,                       \
    "Largest request header block (metadata), in bytes.")                      \
  X(int, idle_timeout_seconds, "HALMA_IDLE_TIMEOUT_SECONDS", 30, 1,            \
    ::halma::service::kMaxSettingSeconds,                                      \
    ::halma::service::SettingScope::kListeners,                                \
    "Close a connection that has had no call for this long.")                  \
  X(int, handshake_timeout_seconds, "HALMA_HANDSHAKE_TIMEOUT_SECONDS", 5, 1,   \
    ::halma::service::kMaxSettingSeconds,                                      \
    ::halma::service::SettingScope::kGrpc,                                     \
    "Close a new connection that has not sent its HTTP/2 preface (and "        \
    "finished TLS) within this time.")                                         \
  X(int, stream_read_timeout_seconds, "HALMA_STREAM_READ_TIMEOUT_SECONDS", 5,  \
    1, ::halma::service::kMaxSettingSeconds,                                   \
    ::halma::service::SettingScope::kFrontProxyAndHttp,                        \
    "Reset a call whose request body makes no progress for this long (gRPC "   \
    "1.51 alone waits for ever).")                                             \
  X(int, max_connection_age_seconds, "HALMA_MAX_CONNECTION_AGE_SECONDS", 0, 0, \
    ::halma::service::kMaxSettingSeconds,                                      \
    ::halma::service::SettingScope::kGrpc,                                     \
    "Close connections after this age (GOAWAY), so that clients rebalance "    \
    "across replicas; 0 = off.")                                               \
  X(int, max_connection_age_grace_seconds,                                     \
    "HALMA_MAX_CONNECTION_AGE_GRACE_SECONDS", 0, 0,                            \
    ::halma::service::kMaxSettingSeconds,                                      \
    ::halma::service::SettingScope::kGrpc,                                     \
    "Time in-flight calls get on a connection closed for its age; 0 = "        \
    "gRPC's default (unlimited).")                                             \
  X(int, shutdown_delay_seconds, "HALMA_SHUTDOWN_DELAY_SECONDS", 0, 0,         \
    ::halma::service::kMaxSettingSeconds,                                      \
    ::halma::service::SettingScope::kShutdown,                                 \
    "On SIGTERM, how long health answers NOT_SERVING while every call is "     \
    "still served, before the listener closes.")                               \
  X(int, grace_period_seconds, "HALMA_GRACE_PERIOD_SECONDS", 10, 0,            \
    ::halma::service::kMaxSettingSeconds,                                      \
    ::halma::service::SettingScope::kShutdown,                                 \
    "On SIGTERM or SIGINT, how long calls accepted before it (running or "     \
    "waiting for a slot) may run on before they are cancelled.")               \
  X(bool, http, "HALMA_HTTP", true, 0, 0,                                      \
    ::halma::service::SettingScope::kHttp,                                     \
    "Serve the Connect protocol (HTTP/1.1 with JSON or protobuf, POST and "    \
    "GET), /healthz, /readyz and /metrics on --http_port.")                    \
  X(int, http_port, "HALMA_HTTP_PORT", 8080, 0, 65535,                         \
    ::halma::service::SettingScope::kHttp,                                     \
    "TCP port of the HTTP listener, on --host; 0 picks a free port.")          \
  X(int, http_threads, "HALMA_HTTP_THREADS", 0, 0, 1024,                       \
    ::halma::service::SettingScope::kHttp,                                     \
    "Threads of the HTTP listener (a call holds its thread while it waits "    \
    "for a slot and while it runs); 0 = twice the number of CPUs.")            \
  X(bool, playground, "HALMA_PLAYGROUND", true, 0, 0,                          \
    ::halma::service::SettingScope::kHttp,                                     \
    "Serve the playground page (a board that calls the API, "                  \
    "docs/playground.md) at GET / on the HTTP listener.")                      \
  X(bool, access_log, "HALMA_ACCESS_LOG", false, 0, 0,                         \
    ::halma::service::SettingScope::kLogs,                                     \
    "Log every call (gRPC and HTTP) as one JSON line on stderr: method, "      \
    "code, latency, peer, bytes, variant, trace id.")

// The settings' values, each with its default.
struct Settings {
#define HALMA_SETTING_MEMBER(type, name, env, default_value, min, max, scope, \
                             help)                                            \
  type name = default_value;
  HALMA_SETTINGS(HALMA_SETTING_MEMBER)
#undef HALMA_SETTING_MEMBER
};

// Each setting's default as a constant, for the options of the parts that
// take one (RulesOptions, AdmissionLimits): setting_default::port.
namespace setting_default {
#define HALMA_SETTING_DEFAULT(type, name, env, default_value, min, max, scope, \
                              help)                                            \
  inline constexpr auto name = default_value;
HALMA_SETTINGS(HALMA_SETTING_DEFAULT)
#undef HALMA_SETTING_DEFAULT
}  // namespace setting_default

// A row of the table, for code that walks every setting.
struct SettingInfo {
  absl::string_view name;
  absl::string_view env;
  absl::string_view type;  // "string", "int", "int64", "bool"
  std::int64_t min = 0;
  std::int64_t max = 0;
  SettingScope scope = SettingScope::kListeners;
  absl::string_view help;
};

// One setting's value.
using SettingValue = std::variant<bool, std::int64_t, absl::string_view>;

// The rows, in table order.
absl::Span<const SettingInfo> SettingTable();

// Calls `visit` with every setting of `settings`, in table order.
void ForEachSetting(
    const Settings& settings,
    absl::FunctionRef<void(const SettingInfo&, const SettingValue&)> visit);

// "the gRPC listener", "the front proxy", ...: the docs' wording.
absl::string_view ScopeName(SettingScope scope);

// Whether a setting of `scope` is in use with these settings (a front-proxy
// setting without --front_proxy is not).
bool InUse(SettingScope scope, const Settings& settings);

// Checks every integer against its range and the rules between settings
// (a non-empty host; tls_cert and tls_key together); the error names the
// setting and its value.
absl::Status ValidateSettings(const Settings& settings);

}  // namespace halma::service

#endif  // HALMA_SERVICE_CONFIG_SETTINGS_H_
