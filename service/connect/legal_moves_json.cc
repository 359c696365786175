#include "service/connect/legal_moves_json.h"

#include "absl/strings/str_cat.h"
#include "google/protobuf/util/json_util.h"

namespace halma::service {
namespace {

// Squares ("a10"), paths ("a3-c5-e7"), "pass" and positions ("4bbbb/5bbb
// w 0,0") are made of these, none of which JSON or protobuf escapes.
bool Plain(const std::string& text) {
  for (const char c : text) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                    (c >= '0' && c <= '9') || c == '-' || c == '/' ||
                    c == ' ' || c == ',';
    if (!ok) return false;
  }
  return true;
}

void AddString(const char* key, const std::string& value, bool* first,
               std::string* out) {
  if (value.empty()) return;  // Default values are left out.
  absl::StrAppend(out, *first ? "" : ",", "\"", key, "\":\"", value, "\"");
  *first = false;
}

}  // namespace

bool WriteLegalMovesJson(const v1::LegalMovesResponse& response,
                         std::string* out) {
  if (!Plain(response.position())) return false;
  for (const v1::Move& move : response.moves()) {
    if (!Plain(move.origin()) || !Plain(move.destination()) ||
        !Plain(move.path())) {
      return false;
    }
  }
  std::string status;
  if (response.has_status()) {
    google::protobuf::util::JsonPrintOptions options;
    if (!google::protobuf::util::MessageToJsonString(response.status(), &status,
                                                     options)
             .ok()) {
      return false;
    }
  }
  const std::size_t start = out->size();
  out->reserve(start + 96 * response.moves_size() + status.size() + 128);
  out->push_back('{');
  bool first = true;
  if (response.moves_size() > 0) {
    out->append("\"moves\":[");
    for (int i = 0; i < response.moves_size(); ++i) {
      const v1::Move& move = response.moves(i);
      out->append(i == 0 ? "{" : ",{");
      bool first_field = true;
      AddString("origin", move.origin(), &first_field, out);
      AddString("destination", move.destination(), &first_field, out);
      AddString("path", move.path(), &first_field, out);
      if (move.hops() != 0) {
        absl::StrAppend(out, first_field ? "" : ",", "\"hops\":", move.hops());
        first_field = false;
      }
      out->push_back('}');
    }
    out->push_back(']');
    first = false;
  }
  if (response.count() != 0) {
    absl::StrAppend(out, first ? "" : ",", "\"count\":", response.count());
    first = false;
  }
  if (response.has_status()) {
    absl::StrAppend(out, first ? "" : ",", "\"status\":", status);
    first = false;
  }
  AddString("position", response.position(), &first, out);
  out->push_back('}');
  return true;
}

}  // namespace halma::service
