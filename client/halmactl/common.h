#ifndef HALMA_CLIENT_HALMACTL_COMMON_H_
#define HALMA_CLIENT_HALMACTL_COMMON_H_

// What every halmactl subcommand shares: the parsed command line, the exit
// codes, the --variant syntax, and the error and JSON printers.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/message.h"
#include "halma/v1/halma.pb.h"
#include "halma_client.h"

namespace halma::halmactl {

namespace v1 = ::halma::v1;

// Exit codes.
inline constexpr int kExitOk = 0;
inline constexpr int kExitRpcError = 1;
inline constexpr int kExitUsage = 2;
inline constexpr int kExitNegative = 3;  // Illegal move or record; not serving.

inline constexpr char kDefaultTarget[] = "localhost:50051";
inline constexpr int kDefaultDeadlineMs = 10000;

struct CommandLine {
  std::string command;
  std::vector<std::string> args;  // Positional arguments after the command.
  bool help = false;
  // Global flags.
  std::string target;
  bool tls = false;
  std::string ca_cert;
  std::string tls_server_name;
  int deadline_ms = kDefaultDeadlineMs;
  bool deadline_given = false;
  bool json = false;
  // Command flags (set only when given).
  std::optional<std::string> variant, position, origin, file, service, record,
      batch, suite, protocol, filter;
  std::optional<int> depth, streams, window, retries, level, time_ms,
      candidates;
  std::optional<std::int64_t> nodes;
  std::optional<std::uint64_t> seed;
  bool split = false;
  bool best_so_far = false;
  bool text_out = false;
};

// A subcommand: its name, help text and what it needs.
struct Command {
  const char* name;
  const char* usage;
  // Whether --variant is required.
  bool needs_variant;
  // Whether positional arguments are accepted.
  bool takes_args;
  int (*run)(const CommandLine& cl, client::HalmaClient& client);
};

// The subcommands, in the order of the main help text ("help" included,
// with run == nullptr).
const std::vector<Command>& Commands();
const Command* FindCommand(absl::string_view name);

// The main help text.
extern const char kMainUsage[];

// Parses argv. Flags are "--name=value" or "--name value" ("--name" alone
// for booleans); "--" ends the flags; "-" is an argument.
absl::StatusOr<CommandLine> ParseCommandLine(int argc, char** argv);

bool ParseBool(absl::string_view text, bool* value);

// Parses --variant: a preset name or "custom:key=value,...".
absl::StatusOr<v1::Variant> ParseVariant(absl::string_view text);

// Reads a whole file ("-" = standard input).
absl::StatusOr<std::string> ReadInput(const std::string& path);

// Reads whitespace-separated moves from a file ("-" = standard input); '#'
// starts a comment that runs to the end of the line.
absl::StatusOr<std::vector<std::string>> ReadMovesFile(const std::string& path);

// "halmactl: CODE: message" on stderr; returns kExitRpcError.
int RpcError(const absl::Status& status);
// "halmactl: message" and the help hint on stderr; returns kExitUsage.
int UsageFailure(const std::string& command, absl::string_view message);

// The message as indented JSON (proto3 JSON mapping, every field) on stdout.
void PrintJson(const google::protobuf::Message& message);
// The message as one line of JSON, every field shown.
std::string CompactJson(const google::protobuf::Message& message);
// A JSON string literal.
std::string JsonQuote(absl::string_view text);

// The subcommands (one file each, or one per closely related group).
int CmdVariants(const CommandLine& cl, client::HalmaClient& client);
int CmdStart(const CommandLine& cl, client::HalmaClient& client);
int CmdLegal(const CommandLine& cl, client::HalmaClient& client);
int CmdValidate(const CommandLine& cl, client::HalmaClient& client);
int CmdAdjudicate(const CommandLine& cl, client::HalmaClient& client);
int CmdPerft(const CommandLine& cl, client::HalmaClient& client);
int CmdSuggest(const CommandLine& cl, client::HalmaClient& client);
int CmdHealth(const CommandLine& cl, client::HalmaClient& client);
int CmdConformance(const CommandLine& cl, client::HalmaClient& client);
// adjudicate --batch (batch.cc).
int CmdAdjudicateBatch(const CommandLine& cl, client::HalmaClient& client);

}  // namespace halma::halmactl

#endif  // HALMA_CLIENT_HALMACTL_COMMON_H_
