#include "common.h"

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "google/protobuf/util/json_util.h"

namespace halma::halmactl {
namespace {

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
      {"variant",
       {true,
        {"start", "legal", "validate", "adjudicate", "perft", "suggest"}}},
      {"position",
       {true, {"legal", "validate", "adjudicate", "perft", "suggest"}}},
      {"origin", {true, {"legal"}}},
      {"file", {true, {"adjudicate"}}},
      {"record", {true, {"adjudicate"}}},
      {"batch", {true, {"adjudicate"}}},
      {"streams", {true, {"adjudicate"}}},
      {"window", {true, {"adjudicate"}}},
      {"retries", {true, {"adjudicate"}}},
      {"text_out", {false, {"adjudicate"}}},
      {"depth", {true, {"perft", "suggest"}}},
      {"split", {false, {"perft"}}},
      {"level", {true, {"suggest"}}},
      {"nodes", {true, {"suggest"}}},
      {"time_ms", {true, {"suggest"}}},
      {"seed", {true, {"suggest"}}},
      {"candidates", {true, {"suggest"}}},
      {"best_so_far", {false, {"suggest"}}},
      {"service", {true, {"health"}}},
      {"suite", {true, {"conformance"}}},
      {"protocol", {true, {"conformance"}}},
      {"filter", {true, {"conformance"}}},
  };
  return *flags;
}

}  // namespace

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
    // --text-out and --text_out are the same flag.
    if (name == "text-out") name = "text_out";
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
    auto parse_int = [&](int low, int high,
                         std::optional<int>* out) -> absl::Status {
      int number = 0;
      if (!absl::SimpleAtoi(value, &number) || number < low || number > high) {
        return absl::InvalidArgumentError(
            absl::StrCat("flag '--", name, "': expected a number from ", low,
                         " to ", high, ", got '", value, "'"));
      }
      *out = number;
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
      cl.deadline_given = true;
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
    } else if (name == "record") {
      cl.record = value;
    } else if (name == "batch") {
      cl.batch = value;
    } else if (name == "streams") {
      status = parse_int(1, 256, &cl.streams);
    } else if (name == "window") {
      status = parse_int(1, 1024, &cl.window);
    } else if (name == "retries") {
      status = parse_int(0, 100, &cl.retries);
    } else if (name == "text_out") {
      status = parse_bool(&cl.text_out);
    } else if (name == "depth") {
      status = parse_int(0, 64, &cl.depth);
    } else if (name == "split") {
      status = parse_bool(&cl.split);
    } else if (name == "level") {
      status = parse_int(0, 1000, &cl.level);
    } else if (name == "time_ms") {
      status = parse_int(0, 1 << 30, &cl.time_ms);
    } else if (name == "candidates") {
      status = parse_int(1, 1000, &cl.candidates);
    } else if (name == "nodes") {
      std::int64_t nodes = 0;
      if (!absl::SimpleAtoi(value, &nodes) || nodes < 1) {
        status = absl::InvalidArgumentError(absl::StrCat(
            "flag '--nodes': expected a number from 1, got '", value, "'"));
      }
      cl.nodes = nodes;
    } else if (name == "seed") {
      std::uint64_t seed = 0;
      if (!absl::SimpleAtoi(value, &seed)) {
        status = absl::InvalidArgumentError(absl::StrCat(
            "flag '--seed': expected a number from 0 to 2^64-1, got '", value,
            "'"));
      }
      cl.seed = seed;
    } else if (name == "best_so_far") {
      status = parse_bool(&cl.best_so_far);
    } else if (name == "service") {
      cl.service = value;
    } else if (name == "suite") {
      cl.suite = value;
    } else if (name == "protocol") {
      cl.protocol = value;
    } else if (name == "filter") {
      cl.filter = value;
    }
    if (!status.ok()) return status;
  }
  return cl;
}

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

absl::StatusOr<std::string> ReadInput(const std::string& path) {
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
  return content;
}

absl::StatusOr<std::vector<std::string>> ReadMovesFile(
    const std::string& path) {
  absl::StatusOr<std::string> content = ReadInput(path);
  if (!content.ok()) return content.status();
  std::vector<std::string> moves;
  for (absl::string_view line : absl::StrSplit(*content, '\n')) {
    line = line.substr(0, line.find('#'));
    for (absl::string_view move : absl::StrSplit(
             line, absl::ByAnyChar(" \t\r\f\v"), absl::SkipEmpty())) {
      moves.emplace_back(move);
    }
  }
  return moves;
}

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

std::string CompactJson(const google::protobuf::Message& message) {
  google::protobuf::util::JsonPrintOptions options;
  options.always_print_primitive_fields = true;
  std::string json;
  if (!google::protobuf::util::MessageToJsonString(message, &json, options)
           .ok()) {
    json = "{}";
  }
  return json;
}

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

}  // namespace halma::halmactl
