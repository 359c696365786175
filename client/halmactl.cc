// halmactl: a command-line client of the halma.v1.HalmaRules service.
//
//   halmactl [global flags] COMMAND [flags] [args]
//
// Run `halmactl --help` or `halmactl help COMMAND` for the details.

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/util/json_util.h"
#include "halma_client.h"

namespace {

namespace v1 = ::halma::v1;
using ::halma::client::ClientOptions;
using ::halma::client::HalmaClient;
using ::halma::client::HealthStatus;

// Exit codes.
constexpr int kExitOk = 0;
constexpr int kExitRpcError = 1;
constexpr int kExitUsage = 2;
constexpr int kExitNegative = 3;  // Illegal move or record; not serving.

constexpr char kDefaultTarget[] = "localhost:50051";
constexpr int kDefaultDeadlineMs = 10000;

// ---------------------------------------------------------------------------
// Help texts.

constexpr char kMainUsage[] =
    R"(halmactl: a command-line client of the Halma rules service (halma.v1).

Usage: halmactl [global flags] COMMAND [flags] [arguments]

Commands:
  variants     list the named variants and their parameters
  start        show a variant's start position, board and status
  legal        list the legal moves of a position, grouped by origin
  validate     check one move of the side to move
  adjudicate   replay a game record and report the result
  health       ask the server's health service whether it is serving
  help         show this text, or `help COMMAND` for one command

Global flags (before or after the command):
  --target=HOST:PORT  the server (default: $HALMA_TARGET, else localhost:50051)
  --tls               use TLS (the system's root certificates unless --ca_cert)
  --ca_cert=FILE      trust the PEM root certificates in FILE (implies --tls)
  --tls_server_name=NAME
                      expect this name in the server certificate
  --deadline_ms=MS    per-call deadline in milliseconds (default 10000; 0 = none)
  --json              print the service's response as JSON (proto3 JSON
                      mapping, every field shown) instead of text
  -h, --help          show help

Variants (--variant): a preset name from `halmactl variants`, e.g.
  brainking-8x8, brainking-10x10, iggamecenter-10x10, classic-16x16,
  classic-16x16-4p; or a custom variant:
    custom:N=8,seats=2,camp=4.3.2.1,home_exit=0,round_completion=false,target_lock=false,move_cap=0
  N and camp are required; camp rows are separated by '.'; the others
  default to seats=2, home_exit=0, round_completion=false,
  target_lock=false, move_cap=0. Booleans: true/false, on/off, yes/no, 1/0.

Notation: squares "a1".."p16"; moves "b2-c3" (step), "c3-e5-g7" (hops),
"c3-g7" (any jump chain), "pass"; positions
"4bbbb/5bbb/6bb/7b/w7/ww6/www5/wwww4 w 0,0" (board ranks N..1, side to move,
moves made per seat).

Exit codes:
  0  success
  1  RPC or transport error (server unreachable, deadline exceeded, or the
     server rejected the request, e.g. INVALID_ARGUMENT for a malformed
     position, move or variant)
  2  usage error (bad command line, unreadable file)
  3  a negative answer: `validate` found the move illegal, `adjudicate` found
     an illegal move in the record, `health` found the server not serving
)";

const std::map<std::string, std::string>& CommandUsage() {
  static const auto* usage = new std::map<std::string, std::string>{
      {"variants", R"(Usage: halmactl variants

Lists the named variants with their board size, seats, camp rows, rules and
start positions. With --json: the ListVariantsResponse.
)"},
      {"start", R"(Usage: halmactl start --variant=V

Shows the start position of variant V (a preset or custom:...), its board,
its status and the number of legal moves. With --json: the
LegalMovesResponse for the start position.
)"},
      {"legal",
       R"(Usage: halmactl legal --variant=V [--position=P] [--origin=SQ]

Lists every legal move of the side to move in position P (default: the
variant's start), grouped by origin: steps as their destination, jumps as
their fewest-hop path. --origin limits the list to the piece on SQ.
With --json: the LegalMovesResponse.
)"},
      {"validate", R"(Usage: halmactl validate --variant=V [--position=P] MOVE

Checks MOVE ("b2-c3", "c3-e5-g7", "c3-g7" or "pass") for the side to move in
position P (default: the variant's start). A legal move prints its
normalised path, the position after it, the board and the status; an
illegal one prints why.
Exit code: 0 when the move is legal, 3 when it is illegal, 1 when the
request was rejected (malformed move, position or variant) or failed.
With --json: the ValidateMoveResponse.
)"},
      {"adjudicate",
       R"(Usage: halmactl adjudicate --variant=V [--position=P] MOVE...
       halmactl adjudicate --variant=V [--position=P] --file=F

Replays a game record from position P (default: the variant's start) and
reports the result: who won or drew, by which rule and at which ply, or the
game still in progress, and the first illegal move if there is one. The
moves are the arguments, or are read from file F (whitespace-separated, one
or more per line, '#' starts a comment; F = "-" reads standard input).
Exit code: 0 when every move was legal, 3 when the record has an illegal
move, 1 when the request was rejected or failed.
With --json: the AdjudicateResponse.
)"},
      {"health", R"(Usage: halmactl health [--service=NAME]

Calls the standard grpc.health.v1.Health/Check for NAME (default "": the
whole server; "halma.v1.HalmaRules": the rules service) and prints the
serving status. Exit code: 0 when SERVING, 3 otherwise, 1 on RPC errors.
With --json: {"service": NAME, "status": "SERVING"}.
)"},
      {"help", R"(Usage: halmactl help [COMMAND]
)"},
  };
  return *usage;
}

// ---------------------------------------------------------------------------
// Command line.

struct UsageError {
  std::string message;
};

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
  bool json = false;
  // Command flags (set only when given).
  std::optional<std::string> variant, position, origin, file, service;
};

struct FlagInfo {
  bool takes_value;
  // Commands that accept the flag; empty = every command (global flag).
  std::vector<std::string> commands;
};

const std::map<std::string, FlagInfo>& Flags() {
  static const auto* flags = new std::map<std::string, FlagInfo>{
      {"target", {true, {}}},
      {"tls", {false, {}}},
      {"ca_cert", {true, {}}},
      {"tls_server_name", {true, {}}},
      {"deadline_ms", {true, {}}},
      {"json", {false, {}}},
      {"help", {false, {}}},
      {"variant", {true, {"start", "legal", "validate", "adjudicate"}}},
      {"position", {true, {"legal", "validate", "adjudicate"}}},
      {"origin", {true, {"legal"}}},
      {"file", {true, {"adjudicate"}}},
      {"service", {true, {"health"}}},
  };
  return *flags;
}

bool ParseBool(absl::string_view text, bool* value) {
  const std::string t = absl::AsciiStrToLower(text);
  if (t == "true" || t == "on" || t == "yes" || t == "1") {
    *value = true;
    return true;
  }
  if (t == "false" || t == "off" || t == "no" || t == "0") {
    *value = false;
    return true;
  }
  return false;
}

// Parses argv. Flags are "--name=value" or "--name value" ("--name" alone for
// booleans); "--" ends the flags; "-" is an argument.
absl::StatusOr<CommandLine> ParseCommandLine(int argc, char** argv) {
  CommandLine cl;
  if (const char* env = std::getenv("HALMA_TARGET"); env && *env) {
    cl.target = env;
  } else {
    cl.target = kDefaultTarget;
  }
  std::vector<std::string> positional;
  std::vector<std::pair<std::string, std::string>> given;  // name, value
  bool flags_done = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (flags_done || arg == "-" || !absl::StartsWith(arg, "-")) {
      positional.push_back(arg);
      continue;
    }
    if (arg == "--") {
      flags_done = true;
      continue;
    }
    if (arg == "-h") arg = "--help";
    if (!absl::StartsWith(arg, "--")) {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown flag '", arg, "' (flags are --name=value)"));
    }
    std::string name = arg.substr(2);
    std::optional<std::string> value;
    if (const size_t eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
    auto it = Flags().find(name);
    if (it == Flags().end()) {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown flag '--", name, "'"));
    }
    if (!value.has_value()) {
      if (it->second.takes_value) {
        if (i + 1 >= argc) {
          return absl::InvalidArgumentError(
              absl::StrCat("flag '--", name, "' needs a value"));
        }
        value = argv[++i];
      } else {
        value = "true";
      }
    }
    given.emplace_back(name, *value);
  }

  if (!positional.empty()) {
    cl.command = positional.front();
    positional.erase(positional.begin());
  }
  cl.args = std::move(positional);
  if (cl.command == "help") {
    cl.help = true;
    if (!cl.args.empty()) {
      cl.command = cl.args.front();
      cl.args.erase(cl.args.begin());
    } else {
      cl.command.clear();
    }
  }

  for (const auto& flag : given) {
    // Named references rather than a structured binding: clang 14 (the
    // sanitizer builds) cannot capture a binding in the lambda below.
    const std::string& name = flag.first;
    const std::string& value = flag.second;
    const FlagInfo& info = Flags().at(name);
    if (!info.commands.empty() && !cl.command.empty()) {
      bool allowed = false;
      for (const std::string& c : info.commands) allowed |= c == cl.command;
      if (!allowed) {
        return absl::InvalidArgumentError(absl::StrCat(
            "flag '--", name, "' does not apply to '", cl.command, "'"));
      }
    }
    auto parse_bool = [&](bool* out) -> absl::Status {
      if (!ParseBool(value, out)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "flag '--", name, "': expected true or false, got '", value, "'"));
      }
      return absl::OkStatus();
    };
    absl::Status status;
    if (name == "target") {
      cl.target = value;
    } else if (name == "tls") {
      status = parse_bool(&cl.tls);
    } else if (name == "ca_cert") {
      cl.ca_cert = value;
    } else if (name == "tls_server_name") {
      cl.tls_server_name = value;
    } else if (name == "deadline_ms") {
      if (!absl::SimpleAtoi(value, &cl.deadline_ms) || cl.deadline_ms < 0) {
        status = absl::InvalidArgumentError(absl::StrCat(
            "flag '--deadline_ms': expected milliseconds >= 0, got '", value,
            "'"));
      }
    } else if (name == "json") {
      status = parse_bool(&cl.json);
    } else if (name == "help") {
      status = parse_bool(&cl.help);
    } else if (name == "variant") {
      cl.variant = value;
    } else if (name == "position") {
      cl.position = value;
    } else if (name == "origin") {
      cl.origin = value;
    } else if (name == "file") {
      cl.file = value;
    } else if (name == "service") {
      cl.service = value;
    }
    if (!status.ok()) return status;
  }
  return cl;
}

// Parses --variant: a preset name or "custom:key=value,...".
absl::StatusOr<v1::Variant> ParseVariant(absl::string_view text) {
  v1::Variant variant;
  text = absl::StripAsciiWhitespace(text);
  if (text.empty()) {
    return absl::InvalidArgumentError("--variant must not be empty");
  }
  if (!absl::StartsWith(text, "custom:")) {
    variant.set_preset(std::string(text));
    return variant;
  }
  v1::VariantSpec* spec = variant.mutable_custom();
  spec->set_seat_count(2);
  bool have_n = false, have_camp = false;
  for (absl::string_view item :
       absl::StrSplit(text.substr(7), ',', absl::SkipWhitespace())) {
    std::pair<absl::string_view, absl::string_view> kv =
        absl::StrSplit(item, absl::MaxSplits('=', 1));
    const std::string key =
        absl::AsciiStrToLower(absl::StripAsciiWhitespace(kv.first));
    const absl::string_view value = absl::StripAsciiWhitespace(kv.second);
    auto bad = [&](absl::string_view expected) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--variant: ", key, "='", value, "': expected ", expected));
    };
    int number = 0;
    bool flag = false;
    if (key == "n" || key == "size" || key == "board_size") {
      if (!absl::SimpleAtoi(value, &number)) return bad("a number");
      spec->set_board_size(number);
      have_n = true;
    } else if (key == "seats" || key == "seat_count") {
      if (!absl::SimpleAtoi(value, &number)) return bad("2 or 4");
      spec->set_seat_count(number);
    } else if (key == "camp" || key == "camp_rows") {
      spec->clear_camp_rows();
      for (absl::string_view row :
           absl::StrSplit(value, absl::ByAnyChar("./"))) {
        if (!absl::SimpleAtoi(row, &number)) {
          return bad("row lengths separated by '.', e.g. 4.3.2.1");
        }
        spec->add_camp_rows(number);
      }
      have_camp = true;
    } else if (key == "home_exit" || key == "home_exit_limit") {
      if (!absl::SimpleAtoi(value, &number)) return bad("a number (0 = off)");
      spec->set_home_exit_limit(number);
    } else if (key == "move_cap") {
      if (!absl::SimpleAtoi(value, &number)) return bad("a number (0 = off)");
      spec->set_move_cap(number);
    } else if (key == "round_completion") {
      if (!ParseBool(value, &flag)) return bad("true or false");
      spec->set_round_completion(flag);
    } else if (key == "target_lock") {
      if (!ParseBool(value, &flag)) return bad("true or false");
      spec->set_target_lock(flag);
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          "--variant: unknown key '", key,
          "' (expected N, seats, camp, home_exit, round_completion, "
          "target_lock, move_cap)"));
    }
  }
  if (!have_n || !have_camp) {
    return absl::InvalidArgumentError(
        "--variant custom:... needs at least N= and camp=, e.g. "
        "custom:N=8,camp=4.3.2.1");
  }
  return variant;
}

// Reads whitespace-separated moves from a file ("-" = standard input); '#'
// starts a comment that runs to the end of the line.
absl::StatusOr<std::vector<std::string>> ReadMovesFile(
    const std::string& path) {
  std::string content;
  if (path == "-") {
    content.assign(std::istreambuf_iterator<char>(std::cin),
                   std::istreambuf_iterator<char>());
  } else {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      return absl::NotFoundError(absl::StrCat("cannot read '", path, "'"));
    }
    content.assign(std::istreambuf_iterator<char>(in),
                   std::istreambuf_iterator<char>());
  }
  std::vector<std::string> moves;
  for (absl::string_view line : absl::StrSplit(content, '\n')) {
    line = line.substr(0, line.find('#'));
    for (absl::string_view move : absl::StrSplit(
             line, absl::ByAnyChar(" \t\r\f\v"), absl::SkipEmpty())) {
      moves.emplace_back(move);
    }
  }
  return moves;
}

// ---------------------------------------------------------------------------
// Text output.

char SeatLetter(v1::Seat seat) {
  switch (seat) {
    case v1::SEAT_W:
      return 'w';
    case v1::SEAT_R:
      return 'r';
    case v1::SEAT_B:
      return 'b';
    case v1::SEAT_G:
      return 'g';
    default:
      return '?';
  }
}

std::string SeatList(const google::protobuf::RepeatedField<int>& seats) {
  std::vector<std::string> letters;
  for (int s : seats) letters.emplace_back(1, SeatLetter(v1::Seat(s)));
  return absl::StrJoin(letters, ", ");
}

std::string RuleWords(v1::DecidingRule rule) {
  switch (rule) {
    case v1::DECIDING_RULE_TARGET_FILLED:
      return "target filled";
    case v1::DECIDING_RULE_HOME_EXIT:
      return "home-exit rule";
    case v1::DECIDING_RULE_MOVE_CAP:
      return "move cap";
    case v1::DECIDING_RULE_EVERYONE_STUCK:
      return "everyone stuck";
    default:
      return "unspecified rule";
  }
}

// "ILLEGAL_REASON_DESTINATION_OCCUPIED" -> "destination occupied".
std::string ReasonWords(v1::IllegalReason reason) {
  std::string name = v1::IllegalReason_Name(reason);
  if (absl::StartsWith(name, "ILLEGAL_REASON_")) name = name.substr(15);
  absl::AsciiStrToLower(&name);
  for (char& c : name) {
    if (c == '_') c = ' ';
  }
  return name.empty() ? std::string("unknown reason") : name;
}

// One line: "w to move", "b wins (target filled) at ply 68", "draw between w,
// b (move cap) at ply 40", plus finished/eliminated seats.
std::string StatusLine(const v1::GameStatus& status) {
  std::string line;
  switch (status.state()) {
    case v1::GameStatus::STATE_IN_PROGRESS:
      line = absl::StrCat(std::string(1, SeatLetter(status.to_move())),
                          " to move");
      if (status.round_completion_turn()) {
        absl::StrAppend(&line, " (round-completion turn)");
      }
      if (status.must_pass()) {
        absl::StrAppend(&line, "; no legal move: must pass");
      }
      break;
    case v1::GameStatus::STATE_WIN:
      line = absl::StrCat(SeatList(status.winners()), " wins (",
                          RuleWords(status.rule()), ")");
      if (status.ply() > 0) absl::StrAppend(&line, " at ply ", status.ply());
      break;
    case v1::GameStatus::STATE_DRAW:
      line = absl::StrCat("draw between ", SeatList(status.winners()), " (",
                          RuleWords(status.rule()), ")");
      if (status.ply() > 0) absl::StrAppend(&line, " at ply ", status.ply());
      break;
    default:
      line = "unknown state";
  }
  if (status.finished_size() > 0) {
    absl::StrAppend(&line, "; finished: ", SeatList(status.finished()));
  }
  if (status.eliminated_size() > 0) {
    absl::StrAppend(&line, "; eliminated: ", SeatList(status.eliminated()));
  }
  return line;
}

// Draws the board of a position string: ranks N..1 with their numbers, files
// below, '.' for empty squares and seat letters for pieces; then the side to
// move and the moves made by each seat. Returns "" when the string cannot be
// read (the caller prints the string itself in any case).
std::string BoardDiagram(absl::string_view position) {
  std::vector<absl::string_view> fields =
      absl::StrSplit(position, ' ', absl::SkipEmpty());
  if (fields.size() != 3) return "";
  std::vector<std::string> rows;  // Rank N first.
  for (absl::string_view rank : absl::StrSplit(fields[0], '/')) {
    std::string row;
    int run = 0;
    for (char c : rank) {
      if (absl::ascii_isdigit(c)) {
        run = run * 10 + (c - '0');
        if (run > 16) return "";
        continue;
      }
      row.append(run, '.');
      run = 0;
      row.push_back(c);
    }
    row.append(run, '.');
    rows.push_back(row);
  }
  const int n = static_cast<int>(rows.size());
  if (n < 1 || n > 26) return "";
  for (const std::string& row : rows) {
    if (static_cast<int>(row.size()) != n) return "";
  }
  std::vector<absl::string_view> counts = absl::StrSplit(fields[2], ',');
  const char* seats = counts.size() == 4 ? "wrbg" : "wb";

  std::string out;
  for (int r = 0; r < n; ++r) {
    const int rank = n - r;
    absl::StrAppend(&out, rank < 10 ? "   " : "  ", rank, " ");
    for (char c : rows[r]) absl::StrAppend(&out, " ", std::string(1, c));
    out.push_back('\n');
  }
  absl::StrAppend(&out, "     ");
  for (int f = 0; f < n; ++f) {
    absl::StrAppend(&out, " ", std::string(1, static_cast<char>('a' + f)));
  }
  out.push_back('\n');
  std::vector<std::string> made;
  for (size_t i = 0; i < counts.size() && seats[i] != '\0'; ++i) {
    made.push_back(absl::StrCat(std::string(1, seats[i]), " ", counts[i]));
  }
  absl::StrAppend(&out, "      to move: ", fields[1],
                  "   moves made: ", absl::StrJoin(made, ", "), "\n");
  return out;
}

void PrintPosition(absl::string_view label, absl::string_view position) {
  std::cout << label << ": " << position << "\n\n";
  const std::string diagram = BoardDiagram(position);
  if (!diagram.empty()) std::cout << diagram << "\n";
}

// Moves grouped by origin: steps as their destination, jumps as their path.
void PrintMoves(const v1::LegalMovesResponse& response) {
  std::string current;
  std::vector<std::string> steps, jumps;
  auto flush = [&] {
    if (current.empty()) return;
    std::string line = absl::StrCat("  ", current, ":");
    line.append(current.size() < 3 ? 4 - current.size() : 1, ' ');
    if (!steps.empty()) absl::StrAppend(&line, absl::StrJoin(steps, " "));
    if (!jumps.empty()) {
      absl::StrAppend(&line, steps.empty() ? "" : "   ",
                      "jumps: ", absl::StrJoin(jumps, " "));
    }
    std::cout << line << "\n";
    steps.clear();
    jumps.clear();
  };
  for (const v1::Move& move : response.moves()) {
    if (move.origin() != current) {
      flush();
      current = move.origin();
    }
    if (move.hops() == 0) {
      steps.push_back(move.destination());
    } else {
      jumps.push_back(move.path());
    }
  }
  flush();
}

// ---------------------------------------------------------------------------
// Commands.

int RpcError(const absl::Status& status) {
  std::cerr << "halmactl: " << absl::StatusCodeToString(status.code()) << ": "
            << status.message() << "\n";
  return kExitRpcError;
}

int UsageFailure(const std::string& command, absl::string_view message) {
  std::cerr << "halmactl: " << message << "\n";
  std::cerr << "Run 'halmactl help"
            << (command.empty() ? "" : absl::StrCat(" ", command))
            << "' for usage.\n";
  return kExitUsage;
}

void PrintJson(const google::protobuf::Message& message) {
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = true;
  options.always_print_primitive_fields = true;
  std::string json;
  if (!google::protobuf::util::MessageToJsonString(message, &json, options)
           .ok()) {
    json = "{}\n";
  }
  std::cout << json;
  if (json.empty() || json.back() != '\n') std::cout << "\n";
}

int CmdVariants(const CommandLine& cl, HalmaClient& client) {
  absl::StatusOr<v1::ListVariantsResponse> response = client.ListVariants();
  if (!response.ok()) return RpcError(response.status());
  if (cl.json) {
    PrintJson(*response);
    return kExitOk;
  }
  std::printf("%-20s %5s  %-8s %-10s %6s  %-9s  %-16s  %-11s  %s\n", "NAME",
              "BOARD", "SEATS", "CAMP", "PIECES", "HOME-EXIT",
              "ROUND-COMPLETION", "TARGET-LOCK", "SOURCE");
  for (const v1::VariantInfo& info : response->variants()) {
    const v1::VariantSpec& spec = info.spec();
    std::vector<std::string> seats;
    for (int s : info.seats()) {
      seats.emplace_back(1, SeatLetter(v1::Seat(s)));
    }
    const std::string board =
        absl::StrCat(spec.board_size(), "x", spec.board_size());
    const std::string exit_limit = spec.home_exit_limit() > 0
                                       ? absl::StrCat(spec.home_exit_limit())
                                       : "off";
    std::printf(
        "%-20s %5s  %-8s %-10s %6d  %-9s  %-16s  %-11s  %s\n",
        info.name().c_str(), board.c_str(), absl::StrJoin(seats, " ").c_str(),
        absl::StrJoin(spec.camp_rows(), ".").c_str(), info.pieces_per_seat(),
        exit_limit.c_str(), spec.round_completion() ? "on" : "off",
        spec.target_lock() ? "on" : "off", info.source().c_str());
    if (spec.move_cap() > 0)
      std::printf("%21s move cap %d\n", "", spec.move_cap());
  }
  std::printf("\nStart positions:\n");
  for (const v1::VariantInfo& info : response->variants()) {
    std::printf("  %-20s %s\n", info.name().c_str(),
                info.start_position().c_str());
  }
  return kExitOk;
}

int CmdLegal(const CommandLine& cl, HalmaClient& client, bool start_only) {
  v1::LegalMovesRequest request;
  absl::StatusOr<v1::Variant> variant = ParseVariant(*cl.variant);
  if (!variant.ok())
    return UsageFailure(cl.command, variant.status().message());
  *request.mutable_variant() = *variant;
  if (cl.position) request.set_position(*cl.position);
  if (cl.origin) request.set_origin(*cl.origin);
  absl::StatusOr<v1::LegalMovesResponse> response = client.LegalMoves(request);
  if (!response.ok()) return RpcError(response.status());
  if (cl.json) {
    PrintJson(*response);
    return kExitOk;
  }
  PrintPosition(start_only ? "Start position" : "Position",
                response->position());
  std::cout << "Status: " << StatusLine(response->status()) << "\n";
  const char mover = SeatLetter(response->status().to_move());
  if (response->status().state() != v1::GameStatus::STATE_IN_PROGRESS) {
    std::cout << "No legal moves: the game is over.\n";
    return kExitOk;
  }
  if (response->status().must_pass()) {
    std::cout << "No legal move for " << mover << ": the only move is pass.\n";
    return kExitOk;
  }
  std::cout << response->count() << " legal move"
            << (response->count() == 1 ? "" : "s") << " for " << mover
            << (cl.origin ? absl::StrCat(" from ", *cl.origin) : "")
            << (start_only ? "." : ":") << "\n";
  if (!start_only) PrintMoves(*response);
  return kExitOk;
}

int CmdValidate(const CommandLine& cl, HalmaClient& client) {
  if (cl.args.size() != 1) {
    return UsageFailure(cl.command, "validate needs exactly one MOVE argument");
  }
  v1::ValidateMoveRequest request;
  absl::StatusOr<v1::Variant> variant = ParseVariant(*cl.variant);
  if (!variant.ok())
    return UsageFailure(cl.command, variant.status().message());
  *request.mutable_variant() = *variant;
  if (cl.position) request.set_position(*cl.position);
  request.set_move(cl.args[0]);
  absl::StatusOr<v1::ValidateMoveResponse> response =
      client.ValidateMove(request);
  if (!response.ok()) return RpcError(response.status());
  if (cl.json) {
    PrintJson(*response);
    return response->legal() ? kExitOk : kExitNegative;
  }
  const char mover = SeatLetter(response->mover());
  if (!response->legal()) {
    std::cout << "Illegal move " << cl.args[0] << " for " << mover << ": "
              << ReasonWords(response->reason());
    if (!response->message().empty()) std::cout << ": " << response->message();
    std::cout << "\nStatus: " << StatusLine(response->status()) << "\n";
    return kExitNegative;
  }
  std::cout << "Legal move for " << mover << ": " << response->path();
  if (response->hops() > 0) {
    std::cout << " (" << response->hops() << " hop"
              << (response->hops() == 1 ? "" : "s") << ")";
  } else if (response->path() != "pass") {
    std::cout << " (step)";
  }
  std::cout << "\n\n";
  PrintPosition("Position after", response->position_after());
  std::cout << "Status: " << StatusLine(response->status()) << "\n";
  return kExitOk;
}

int CmdAdjudicate(const CommandLine& cl, HalmaClient& client) {
  v1::AdjudicateRequest request;
  absl::StatusOr<v1::Variant> variant = ParseVariant(*cl.variant);
  if (!variant.ok())
    return UsageFailure(cl.command, variant.status().message());
  *request.mutable_variant() = *variant;
  if (cl.position) request.set_start_position(*cl.position);
  std::vector<std::string> moves = cl.args;
  if (cl.file) {
    if (!moves.empty()) {
      return UsageFailure(cl.command,
                          "give the moves as arguments or with --file, not "
                          "both");
    }
    absl::StatusOr<std::vector<std::string>> read = ReadMovesFile(*cl.file);
    if (!read.ok()) return UsageFailure(cl.command, read.status().message());
    moves = *std::move(read);
  }
  for (std::string& move : moves) request.add_moves(std::move(move));
  absl::StatusOr<v1::AdjudicateResponse> response = client.Adjudicate(request);
  if (!response.ok()) return RpcError(response.status());
  const bool illegal = response->has_illegal_move();
  if (cl.json) {
    PrintJson(*response);
    return illegal ? kExitNegative : kExitOk;
  }
  std::cout << "Moves played: " << response->moves_played() << " of "
            << request.moves_size() << "\n";
  if (illegal) {
    const v1::IllegalMove& bad = response->illegal_move();
    std::cout << "Illegal move at ply " << bad.ply() << ": " << bad.move()
              << ": " << ReasonWords(bad.reason());
    if (!bad.message().empty()) std::cout << ": " << bad.message();
    std::cout << "\n";
  }
  std::cout << (illegal ? "Status before it: " : "Result: ")
            << StatusLine(response->status()) << "\n\n";
  PrintPosition("Final position", response->final_position());
  return illegal ? kExitNegative : kExitOk;
}

// A JSON string literal.
std::string JsonQuote(absl::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      out.push_back('\\');
      out.push_back(c);
    } else if (static_cast<unsigned char>(c) < 0x20) {
      absl::StrAppend(&out, "\\u00", absl::Hex(c, absl::kZeroPad2));
    } else {
      out.push_back(c);
    }
  }
  out.push_back('"');
  return out;
}

int CmdHealth(const CommandLine& cl, HalmaClient& client) {
  const std::string service = cl.service.value_or("");
  absl::StatusOr<HealthStatus> status = client.CheckHealth(service);
  if (!status.ok()) return RpcError(status.status());
  const char* name = halma::client::HealthStatusName(*status);
  if (cl.json) {
    std::cout << "{\n  \"service\": " << JsonQuote(service)
              << ",\n  \"status\": \"" << name << "\"\n}\n";
  } else {
    std::cout << (service.empty() ? "server" : service) << ": " << name << "\n";
  }
  return *status == HealthStatus::kServing ? kExitOk : kExitNegative;
}

int Run(int argc, char** argv) {
  absl::StatusOr<CommandLine> parsed = ParseCommandLine(argc, argv);
  if (!parsed.ok()) return UsageFailure("", parsed.status().message());
  CommandLine& cl = *parsed;

  const auto& usage = CommandUsage();
  if (cl.help || cl.command.empty()) {
    if (!cl.command.empty()) {
      auto it = usage.find(cl.command);
      if (it == usage.end()) {
        return UsageFailure("",
                            absl::StrCat("unknown command '", cl.command, "'"));
      }
      std::cout << it->second;
      return kExitOk;
    }
    if (!cl.help) {  // No command: the usage on stderr, exit 2.
      std::cerr << kMainUsage;
      return kExitUsage;
    }
    std::cout << kMainUsage;
    return kExitOk;
  }
  if (usage.find(cl.command) == usage.end() || cl.command == "help") {
    return UsageFailure("", absl::StrCat("unknown command '", cl.command, "'"));
  }
  const bool needs_variant = cl.command == "start" || cl.command == "legal" ||
                             cl.command == "validate" ||
                             cl.command == "adjudicate";
  if (needs_variant && !cl.variant) {
    return UsageFailure(
        cl.command,
        absl::StrCat(cl.command,
                     " needs --variant (a preset such as brainking-8x8, see "
                     "'halmactl variants', or custom:N=...,camp=...)"));
  }
  if (cl.command != "validate" && cl.command != "adjudicate" &&
      !cl.args.empty()) {
    return UsageFailure(cl.command,
                        absl::StrCat("unexpected argument '", cl.args[0], "'"));
  }

  ClientOptions options;
  options.target = cl.target;
  options.tls = cl.tls || !cl.ca_cert.empty() || !cl.tls_server_name.empty();
  options.root_cert_file = cl.ca_cert;
  options.tls_server_name = cl.tls_server_name;
  options.deadline = std::chrono::milliseconds(cl.deadline_ms);
  absl::StatusOr<std::unique_ptr<HalmaClient>> client =
      HalmaClient::Create(options);
  if (!client.ok()) return UsageFailure("", client.status().message());

  if (cl.command == "variants") return CmdVariants(cl, **client);
  if (cl.command == "start") return CmdLegal(cl, **client, true);
  if (cl.command == "legal") return CmdLegal(cl, **client, false);
  if (cl.command == "validate") return CmdValidate(cl, **client);
  if (cl.command == "adjudicate") return CmdAdjudicate(cl, **client);
  return CmdHealth(cl, **client);
}

}  // namespace

int main(int argc, char** argv) { return Run(argc, argv); }
