#include "conformance_suite.h"

#include <dirent.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "google/protobuf/dynamic_message.h"
#include "google/protobuf/util/json_util.h"
#include "halma/v1/halma.pb.h"

namespace halma::halmactl::conformance {
namespace {

namespace pb = ::google::protobuf;

// gRPC's codes are absl's (0 to 16), with the same names.
constexpr int kLastStatusCode = static_cast<int>(absl::StatusCode::kUnauthenticated);

const JsonValue* Member(const JsonValue& object, const std::string& key) {
  if (object.kind_case() != JsonValue::kStructValue) return nullptr;
  const auto& fields = object.struct_value().fields();
  auto it = fields.find(key);
  return it == fields.end() ? nullptr : &it->second;
}

absl::Status Bad(absl::string_view what) {
  return absl::InvalidArgumentError(what);
}

absl::StatusOr<std::string> StringMember(const JsonValue& object,
                                         const std::string& key,
                                         bool required = true) {
  const JsonValue* value = Member(object, key);
  if (value == nullptr) {
    if (!required) return std::string();
    return Bad(absl::StrCat("\"", key, "\": missing"));
  }
  if (value->kind_case() != JsonValue::kStringValue) {
    return Bad(absl::StrCat("\"", key, "\": expected a string"));
  }
  return value->string_value();
}

absl::StatusOr<std::vector<std::string>> StringList(const JsonValue& object,
                                                    const std::string& key) {
  std::vector<std::string> out;
  const JsonValue* value = Member(object, key);
  if (value == nullptr) return out;
  if (value->kind_case() != JsonValue::kListValue) {
    return Bad(absl::StrCat("\"", key, "\": expected a list of strings"));
  }
  for (const JsonValue& item : value->list_value().values()) {
    if (item.kind_case() != JsonValue::kStringValue) {
      return Bad(absl::StrCat("\"", key, "\": expected a list of strings"));
    }
    out.push_back(item.string_value());
  }
  return out;
}

// The method an RPC name ("halma.v1.HalmaRules/LegalMoves") names in the
// descriptors this program was built with.
absl::StatusOr<const pb::MethodDescriptor*> FindMethod(const std::string& rpc) {
  // Naming a message of halma.proto links its generated code in, which
  // registers the file (its messages and service) in the generated pool.
  (void)::halma::v1::ListVariantsRequest::descriptor();
  const std::vector<std::string> parts = absl::StrSplit(rpc, '/');
  const pb::ServiceDescriptor* service =
      parts.size() == 2
          ? pb::DescriptorPool::generated_pool()->FindServiceByName(parts[0])
          : nullptr;
  const pb::MethodDescriptor* method =
      service ? service->FindMethodByName(parts[1]) : nullptr;
  if (method == nullptr) {
    return Bad(absl::StrCat("\"rpc\": ", rpc,
                            " is not a method of the halma.v1 API this "
                            "halmactl knows (a newer suite?)"));
  }
  if (method->client_streaming() || method->server_streaming()) {
    return Bad(absl::StrCat("\"rpc\": ", rpc, " is a streaming method"));
  }
  return method;
}

// Checks that `json` parses as the request message of `method`.
absl::Status CheckRequest(const pb::MethodDescriptor* method,
                          const std::string& json, absl::string_view key) {
  std::unique_ptr<pb::Message> message(pb::MessageFactory::generated_factory()
                                           ->GetPrototype(method->input_type())
                                           ->New());
  pb::util::JsonParseOptions options;
  const auto status =
      pb::util::JsonStringToMessage(json, message.get(), options);
  if (!status.ok()) {
    return Bad(absl::StrCat("\"", key, "\": not a ",
                            method->input_type()->full_name(), ": ",
                            std::string(status.message())));
  }
  return absl::OkStatus();
}

std::string FormatNumber(double number) {
  if (std::isfinite(number) && number == std::floor(number) &&
      std::fabs(number) < 1e15) {
    return absl::StrFormat("%.0f", number);
  }
  return absl::StrFormat("%.17g", number);
}

void AppendQuoted(absl::string_view text, std::string* out) {
  out->push_back('"');
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out->push_back('\\');
      out->push_back(c);
    } else if (c == '\n') {
      out->append("\\n");
    } else if (c == '\r') {
      out->append("\\r");
    } else if (c == '\t') {
      out->append("\\t");
    } else if (u < 0x20 || u == 0x7f) {
      absl::StrAppend(out, "\\u00", absl::Hex(u, absl::kZeroPad2));
    } else {
      out->push_back(c);
    }
  }
  out->push_back('"');
}

void AppendJson(const JsonValue& value, std::string* out) {
  switch (value.kind_case()) {
    case JsonValue::kNullValue:
    case JsonValue::KIND_NOT_SET:
      out->append("null");
      return;
    case JsonValue::kBoolValue:
      out->append(value.bool_value() ? "true" : "false");
      return;
    case JsonValue::kNumberValue:
      out->append(FormatNumber(value.number_value()));
      return;
    case JsonValue::kStringValue:
      AppendQuoted(value.string_value(), out);
      return;
    case JsonValue::kListValue: {
      out->push_back('[');
      bool first = true;
      for (const JsonValue& item : value.list_value().values()) {
        if (!first) out->push_back(',');
        first = false;
        AppendJson(item, out);
      }
      out->push_back(']');
      return;
    }
    case JsonValue::kStructValue: {
      // Sorted keys: the same text on every run.
      std::map<std::string, const JsonValue*> sorted;
      for (const auto& [key, item] : value.struct_value().fields()) {
        sorted.emplace(key, &item);
      }
      out->push_back('{');
      bool first = true;
      for (const auto& [key, item] : sorted) {
        if (!first) out->push_back(',');
        first = false;
        AppendQuoted(key, out);
        out->push_back(':');
        AppendJson(*item, out);
      }
      out->push_back('}');
      return;
    }
  }
}

// "moves[3].path" -> "moves[].path".
std::string NormalisedPath(absl::string_view path) {
  std::string out;
  for (size_t i = 0; i < path.size(); ++i) {
    if (path[i] == '[') {
      const size_t close = path.find(']', i);
      if (close == absl::string_view::npos) break;
      out.append("[]");
      i = close;
    } else {
      out.push_back(path[i]);
    }
  }
  return out;
}

const char* TypeName(const JsonValue& value) {
  switch (value.kind_case()) {
    case JsonValue::kBoolValue:
      return "bool";
    case JsonValue::kNumberValue:
      return "number";
    case JsonValue::kStringValue:
      return "string";
    case JsonValue::kListValue:
      return "list";
    case JsonValue::kStructValue:
      return "object";
    default:
      return "null";
  }
}

bool SameScalar(const JsonValue& want, const JsonValue& got) {
  if (want.kind_case() != got.kind_case()) return false;
  switch (want.kind_case()) {
    case JsonValue::kBoolValue:
      return want.bool_value() == got.bool_value();
    case JsonValue::kNumberValue:
      return want.number_value() == got.number_value();
    case JsonValue::kStringValue:
      return want.string_value() == got.string_value();
    default:
      return true;
  }
}

constexpr size_t kShownValueBytes = 200;

void Compare(const JsonValue& want, const JsonValue* got,
             const std::set<std::string>& unordered, const std::string& path,
             std::vector<std::string>* out) {
  const std::string where = path.empty() ? "(answer)" : path;
  if (want.kind_case() == JsonValue::kNullValue) {
    if (got != nullptr) {
      out->push_back(absl::StrCat(where, ": expected absent (not set), got ",
                                  JsonText(*got, kShownValueBytes)));
    }
    return;
  }
  if (got == nullptr) {
    out->push_back(absl::StrCat(where, ": expected ",
                                JsonText(want, kShownValueBytes),
                                ", got absent (not set)"));
    return;
  }
  if (want.kind_case() == JsonValue::kStructValue) {
    if (got->kind_case() != JsonValue::kStructValue) {
      out->push_back(absl::StrCat(where, ": expected an object, got ",
                                  JsonText(*got, kShownValueBytes)));
      return;
    }
    std::map<std::string, const JsonValue*> sorted;
    for (const auto& [key, item] : want.struct_value().fields()) {
      sorted.emplace(key, &item);
    }
    for (const auto& [key, item] : sorted) {
      Compare(*item, Member(*got, key), unordered,
              path.empty() ? key : absl::StrCat(path, ".", key), out);
    }
    return;
  }
  if (want.kind_case() == JsonValue::kListValue) {
    if (got->kind_case() != JsonValue::kListValue) {
      out->push_back(absl::StrCat(where, ": expected a list, got ",
                                  JsonText(*got, kShownValueBytes)));
      return;
    }
    const auto& w = want.list_value().values();
    const auto& g = got->list_value().values();
    if (w.size() != g.size()) {
      out->push_back(absl::StrCat(where, ": expected ", w.size(),
                                  " elements, got ", g.size(), ": ",
                                  JsonText(*got, kShownValueBytes)));
      return;
    }
    if (unordered.count(NormalisedPath(path)) > 0) {
      std::vector<bool> used(g.size(), false);
      for (const JsonValue& item : w) {
        bool found = false;
        for (int j = 0; j < g.size() && !found; ++j) {
          if (used[j]) continue;
          std::vector<std::string> trial;
          Compare(item, &g[j], unordered, absl::StrCat(path, "[", j, "]"),
                  &trial);
          if (trial.empty()) used[j] = found = true;
        }
        if (!found) {
          out->push_back(absl::StrCat(
              where, ": expected an element ", JsonText(item, kShownValueBytes),
              " (in any order), got ", JsonText(*got, kShownValueBytes)));
          return;
        }
      }
      return;
    }
    for (int i = 0; i < w.size(); ++i) {
      Compare(w[i], &g[i], unordered, absl::StrCat(path, "[", i, "]"), out);
    }
    return;
  }
  if (!SameScalar(want, *got)) {
    out->push_back(
        absl::StrCat(where, ": expected ", JsonText(want, kShownValueBytes),
                     ", got ", JsonText(*got, kShownValueBytes),
                     want.kind_case() == got->kind_case()
                         ? ""
                         : absl::StrCat(" (a ", TypeName(*got), ", not a ",
                                        TypeName(want), ")")));
  }
}

absl::Status ParseExpect(const JsonValue& expect, Case* c) {
  if (expect.kind_case() != JsonValue::kStructValue) {
    return Bad("\"expect\": expected an object");
  }
  absl::StatusOr<std::string> kind = StringMember(expect, "kind");
  if (!kind.ok()) return Bad(absl::StrCat("expect.", kind.status().message()));
  if (*kind == "answer") {
    c->kind = ExpectKind::kAnswer;
    const JsonValue* fields = Member(expect, "fields");
    if (fields == nullptr || fields->kind_case() != JsonValue::kStructValue) {
      return Bad("expect.\"fields\": expected an object");
    }
    c->fields = *fields;
    absl::StatusOr<std::vector<std::string>> unordered =
        StringList(expect, "unordered");
    if (!unordered.ok()) {
      return Bad(absl::StrCat("expect.", unordered.status().message()));
    }
    c->unordered.insert(unordered->begin(), unordered->end());
  } else if (*kind == "error") {
    c->kind = ExpectKind::kError;
    absl::StatusOr<std::string> code = StringMember(expect, "code");
    if (!code.ok())
      return Bad(absl::StrCat("expect.", code.status().message()));
    if (!IsStatusCodeName(*code) || *code == "OK") {
      return Bad(absl::StrCat("expect.\"code\": \"", *code,
                              "\" is not a gRPC error code name"));
    }
    c->code = *code;
    absl::StatusOr<std::string> field = StringMember(expect, "field", false);
    if (!field.ok()) {
      return Bad(absl::StrCat("expect.", field.status().message()));
    }
    c->field = *field;
    absl::StatusOr<std::vector<std::string>> contains =
        StringList(expect, "contains");
    if (!contains.ok()) {
      return Bad(absl::StrCat("expect.", contains.status().message()));
    }
    c->contains = *contains;
  } else if (*kind == "deterministic") {
    c->kind = ExpectKind::kDeterministic;
    const JsonValue* calls = Member(expect, "calls");
    c->calls = 2;
    if (calls != nullptr) {
      if (calls->kind_case() != JsonValue::kNumberValue ||
          calls->number_value() < 2 || calls->number_value() > 100 ||
          calls->number_value() != std::floor(calls->number_value())) {
        return Bad("expect.\"calls\": expected a number from 2 to 100");
      }
      c->calls = static_cast<int>(calls->number_value());
    }
  } else if (*kind == "member") {
    c->kind = ExpectKind::kMember;
    absl::StatusOr<std::string> path = StringMember(expect, "path");
    if (!path.ok())
      return Bad(absl::StrCat("expect.", path.status().message()));
    c->path = *path;
    const JsonValue* in = Member(expect, "in");
    if (in == nullptr || in->kind_case() != JsonValue::kStructValue) {
      return Bad("expect.\"in\": expected an object {rpc, request, path}");
    }
    absl::StatusOr<std::string> rpc = StringMember(*in, "rpc");
    absl::StatusOr<std::string> in_path = StringMember(*in, "path");
    const JsonValue* request = Member(*in, "request");
    if (!rpc.ok() || !in_path.ok() || request == nullptr ||
        request->kind_case() != JsonValue::kStructValue) {
      return Bad("expect.\"in\": expected an object {rpc, request, path}");
    }
    absl::StatusOr<const pb::MethodDescriptor*> method = FindMethod(*rpc);
    if (!method.ok()) {
      return Bad(absl::StrCat("expect.in.", method.status().message()));
    }
    c->in_rpc = *rpc;
    c->in_method = *method;
    c->in_path = *in_path;
    c->in_request_json = JsonText(*request);
    absl::Status parsed =
        CheckRequest(*method, c->in_request_json, "expect.in.request");
    if (!parsed.ok()) return parsed;
  } else {
    return Bad(absl::StrCat("expect.\"kind\": \"", *kind,
                            "\" is not a kind this halmactl knows (answer, "
                            "error, deterministic, member)"));
  }
  c->expect = expect;
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<JsonValue> ParseJson(absl::string_view text) {
  JsonValue value;
  const auto status = pb::util::JsonStringToMessage(
      pb::StringPiece(text.data(), text.size()), &value);
  if (!status.ok()) {
    return Bad(absl::StrCat("not JSON: ", std::string(status.message())));
  }
  return value;
}

absl::StatusOr<Case> ParseCase(absl::string_view line) {
  absl::StatusOr<JsonValue> value = ParseJson(line);
  if (!value.ok()) return value.status();
  if (value->kind_case() != JsonValue::kStructValue) {
    return Bad("expected a JSON object");
  }
  Case c;
  absl::StatusOr<std::string> id = StringMember(*value, "id");
  if (!id.ok()) return id.status();
  if (id->empty()) return Bad("\"id\": empty");
  c.id = *id;
  absl::StatusOr<std::string> rpc = StringMember(*value, "rpc");
  if (!rpc.ok()) return rpc.status();
  absl::StatusOr<const pb::MethodDescriptor*> method = FindMethod(*rpc);
  if (!method.ok()) return method.status();
  c.rpc = *rpc;
  c.method = *method;
  absl::StatusOr<std::vector<std::string>> areas = StringList(*value, "areas");
  if (!areas.ok()) return areas.status();
  c.areas = *areas;
  absl::StatusOr<std::vector<std::string>> protocols =
      StringList(*value, "protocols");
  if (!protocols.ok()) return protocols.status();
  for (const std::string& p : *protocols) {
    if (p != "grpc" && p != "connect") {
      return Bad(absl::StrCat("\"protocols\": \"", p,
                              "\", expected \"grpc\" or \"connect\""));
    }
  }
  c.protocols = *protocols;
  const JsonValue* request = Member(*value, "request");
  if (request == nullptr || request->kind_case() != JsonValue::kStructValue) {
    return Bad("\"request\": expected an object");
  }
  c.request_json = JsonText(*request);
  absl::Status parsed = CheckRequest(c.method, c.request_json, "request");
  if (!parsed.ok()) return parsed;
  const JsonValue* expect = Member(*value, "expect");
  if (expect == nullptr) return Bad("\"expect\": missing");
  absl::Status expect_status = ParseExpect(*expect, &c);
  if (!expect_status.ok()) return expect_status;
  return c;
}

absl::StatusOr<std::vector<Case>> LoadSuite(const std::string& dir) {
  std::vector<std::string> names;
  DIR* handle = opendir(dir.c_str());
  if (handle == nullptr) {
    return absl::NotFoundError(
        absl::StrCat("cannot read the suite folder '", dir, "'"));
  }
  while (const dirent* entry = readdir(handle)) {
    const std::string name = entry->d_name;
    if (absl::EndsWith(name, ".jsonl") && name[0] != '.') names.push_back(name);
  }
  closedir(handle);
  std::sort(names.begin(), names.end());
  if (names.empty()) {
    return absl::NotFoundError(
        absl::StrCat("no *.jsonl suite file in '", dir, "'"));
  }
  std::vector<Case> cases;
  std::map<std::string, std::string> seen;  // id -> where
  for (const std::string& name : names) {
    std::ifstream in(absl::StrCat(dir, "/", name), std::ios::binary);
    if (!in) {
      return absl::NotFoundError(
          absl::StrCat("cannot read '", dir, "/", name, "'"));
    }
    std::string line;
    int number = 0;
    while (std::getline(in, line)) {
      ++number;
      if (absl::StripAsciiWhitespace(line).empty()) continue;
      const std::string where = absl::StrCat(name, ":", number);
      absl::StatusOr<Case> c = ParseCase(line);
      if (!c.ok()) {
        return Bad(absl::StrCat(dir, "/", where, ": ", c.status().message()));
      }
      c->source = where;
      auto [it, fresh] = seen.emplace(c->id, where);
      if (!fresh) {
        return Bad(absl::StrCat(dir, "/", where, ": id \"", c->id,
                                "\" is also the id of ", it->second));
      }
      cases.push_back(*std::move(c));
    }
    if (in.bad()) {
      return absl::NotFoundError(
          absl::StrCat("cannot read '", dir, "/", name, "'"));
    }
  }
  return cases;
}

absl::StatusOr<Filter> Filter::Parse(absl::string_view text) {
  Filter filter;
  for (absl::string_view raw : absl::StrSplit(text, ',', absl::SkipEmpty())) {
    absl::string_view word = absl::StripAsciiWhitespace(raw);
    if (word.empty()) continue;
    const bool exclude = absl::ConsumePrefix(&word, "-");
    Term term;
    const size_t colon = word.find(':');
    if (colon != absl::string_view::npos) {
      term.kind = std::string(word.substr(0, colon));
      term.value = std::string(word.substr(colon + 1));
      if (term.kind != "rpc" && term.kind != "area" && term.kind != "id") {
        return Bad(absl::StrCat("--filter: \"", word,
                                "\": expected rpc:NAME, area:NAME, id:PREFIX "
                                "or a part of an id"));
      }
    } else {
      term.value = std::string(word);
    }
    if (term.value.empty()) {
      return Bad(absl::StrCat("--filter: \"", raw, "\" names nothing"));
    }
    (exclude ? filter.exclude_ : filter.include_).push_back(std::move(term));
  }
  return filter;
}

bool Filter::Matches(const Term& term, const Case& c) {
  if (term.kind == "rpc") {
    return c.rpc == term.value ||
           (c.method != nullptr && c.method->name() == term.value);
  }
  if (term.kind == "area") {
    return std::find(c.areas.begin(), c.areas.end(), term.value) !=
           c.areas.end();
  }
  if (term.kind == "id") return absl::StartsWith(c.id, term.value);
  return absl::StrContains(c.id, term.value);
}

bool Filter::Selects(const Case& c) const {
  for (const Term& term : exclude_) {
    if (Matches(term, c)) return false;
  }
  if (include_.empty()) return true;
  for (const Term& term : include_) {
    if (Matches(term, c)) return true;
  }
  return false;
}

std::vector<std::string> Differences(const JsonValue& want,
                                     const JsonValue* got,
                                     const std::set<std::string>& unordered,
                                     const std::string& path) {
  std::vector<std::string> out;
  Compare(want, got, unordered, path, &out);
  return out;
}

std::vector<const JsonValue*> ValuesAt(const JsonValue& value,
                                       absl::string_view path) {
  std::vector<const JsonValue*> current = {&value};
  const std::string spaced = absl::StrReplaceAll(path, {{"[]", ".[]"}});
  for (absl::string_view part :
       absl::StrSplit(spaced, '.', absl::SkipEmpty())) {
    std::vector<const JsonValue*> next;
    for (const JsonValue* item : current) {
      if (part == "[]") {
        if (item->kind_case() == JsonValue::kListValue) {
          for (const JsonValue& element : item->list_value().values()) {
            next.push_back(&element);
          }
        }
      } else if (const JsonValue* member = Member(*item, std::string(part))) {
        next.push_back(member);
      }
    }
    current = std::move(next);
  }
  return current;
}

bool NamesField(absl::string_view message, absl::string_view field) {
  return absl::StartsWith(message, field) && message.size() > field.size() &&
         (message[field.size()] == ':' || message[field.size()] == ' ');
}

std::string JsonText(const JsonValue& value, size_t limit) {
  std::string out;
  AppendJson(value, &out);
  if (limit > 0 && out.size() > limit) {
    out.resize(limit);
    out.append("...");
  }
  return out;
}

bool IsStatusCodeName(absl::string_view name) {
  for (int code = 0; code <= kLastStatusCode; ++code) {
    if (absl::StatusCodeToString(static_cast<absl::StatusCode>(code)) == name) {
      return true;
    }
  }
  return false;
}

std::string CodeNameOf(int code) {
  if (code < 0 || code > kLastStatusCode) return absl::StrCat("CODE_", code);
  return absl::StatusCodeToString(static_cast<absl::StatusCode>(code));
}

std::string CodeNameFromConnect(absl::string_view connect_code) {
  // The Connect protocol writes gRPC's codes in lower case, and "canceled"
  // with one "l".
  if (connect_code == "canceled") return "CANCELLED";
  return absl::AsciiStrToUpper(connect_code);
}

}  // namespace halma::halmactl::conformance
