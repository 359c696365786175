#ifndef HALMA_CLIENT_HALMACTL_CONFORMANCE_SUITE_H_
#define HALMA_CLIENT_HALMACTL_CONFORMANCE_SUITE_H_

// The conformance suite's cases (docs/conformance.md): reading them from
// the suite's JSON lines files, choosing them (--filter), and the
// comparison rules of their expectations. No transport here: conformance.cc
// calls the server.

#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/struct.pb.h"

namespace halma::halmactl::conformance {

using JsonValue = ::google::protobuf::Value;

// The kinds of expectation (docs/conformance.md, "What a case expects").
enum class ExpectKind { kAnswer, kError, kDeterministic, kMember };

struct Case {
  std::string id;
  // "halma.v1.HalmaRules/ValidateMove", and the method it names.
  std::string rpc;
  const google::protobuf::MethodDescriptor* method = nullptr;
  std::vector<std::string> areas;
  // The protocols the case is for ("grpc", "connect"); empty: every one.
  std::vector<std::string> protocols;
  // The request in proto3 JSON, as the suite writes it.
  std::string request_json;
  ExpectKind kind = ExpectKind::kAnswer;
  // The whole "expect" object (shown in reports).
  JsonValue expect;
  // kAnswer: the fields that must match, and the paths of repeated fields
  // compared in any order.
  JsonValue fields;
  std::set<std::string> unordered;
  // kError: the status code name, the field the message must name (empty:
  // none) and the texts it must contain.
  std::string code;
  std::string field;
  std::vector<std::string> contains;
  // kDeterministic: the number of calls.
  int calls = 0;
  // kMember: a path of the answer, and the call and path whose values
  // must include its values.
  std::string path;
  std::string in_rpc;
  const google::protobuf::MethodDescriptor* in_method = nullptr;
  std::string in_request_json;
  std::string in_path;
  // Where it was read: "legal_moves.jsonl:12".
  std::string source;
};

// Reads one case (one line of a suite file). INVALID_ARGUMENT names what is
// wrong: not JSON, a missing or mistyped key, an RPC that halma.v1 does not
// have, a request that does not parse as the RPC's request message, an
// unknown expectation kind or status code.
absl::StatusOr<Case> ParseCase(absl::string_view line);

// Reads every *.jsonl file of `dir` (in name order, lines in order; blank
// lines skipped). NOT_FOUND when the folder cannot be read or holds no
// suite file, INVALID_ARGUMENT ("file:line: ...") for a bad case or an id
// used twice.
absl::StatusOr<std::vector<Case>> LoadSuite(const std::string& dir);

// --filter: comma-separated terms "rpc:NAME" (the method, e.g.
// "LegalMoves", or the whole RPC), "area:NAME", "id:PREFIX" or a bare word
// (a part of the id); a term with a leading '-' excludes. A case runs when
// it matches an including term (or there is none) and no excluding one.
class Filter {
 public:
  static absl::StatusOr<Filter> Parse(absl::string_view text);
  bool Selects(const Case& c) const;

 private:
  struct Term {
    std::string kind;  // "rpc", "area", "id", "" (part of the id)
    std::string value;
  };
  static bool Matches(const Term& term, const Case& c);
  std::vector<Term> include_, exclude_;
};

// The differences between an expectation and an answer (the answer as
// proto3 JSON with every field, defaults included), one line each:
// "status.state: expected \"STATE_WIN\", got \"STATE_IN_PROGRESS\"".
// `got` is null for an absent field. Rules (docs/conformance.md,
// "Comparison"): objects compare the keys they have; null means "not set";
// lists compare in order, or as multisets for the `unordered` paths
// ("moves[].path" form); scalars compare equal by JSON type and value.
std::vector<std::string> Differences(const JsonValue& want,
                                     const JsonValue* got,
                                     const std::set<std::string>& unordered,
                                     const std::string& path = "");

// Every value at `path` ("moves[].destination": "[]" takes every element).
std::vector<const JsonValue*> ValuesAt(const JsonValue& value,
                                       absl::string_view path);

// Whether an error message names `field` as halma.v1 messages do: it
// begins with the field's path, then ':' or ' '.
bool NamesField(absl::string_view message, absl::string_view field);

// JSON text of a value: compact, object keys sorted, integers without a
// fraction. Longer than `limit` bytes (0: no limit): cut, with "...".
std::string JsonText(const JsonValue& value, size_t limit = 0);

// Parses JSON text into a value.
absl::StatusOr<JsonValue> ParseJson(absl::string_view text);

// The status code names of gRPC ("INVALID_ARGUMENT"), and the Connect
// protocol's ("invalid_argument", "canceled") in gRPC's spelling.
bool IsStatusCodeName(absl::string_view name);
// The name of a gRPC status code number ("INVALID_ARGUMENT" for 3).
std::string CodeNameOf(int code);
std::string CodeNameFromConnect(absl::string_view connect_code);

}  // namespace halma::halmactl::conformance

#endif  // HALMA_CLIENT_HALMACTL_CONFORMANCE_SUITE_H_
