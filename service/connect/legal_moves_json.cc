#include "service/connect/legal_moves_json.h"

#include <cstdint>
#include <vector>

#include "absl/strings/str_cat.h"
#include "google/protobuf/util/json_util.h"

namespace halma::service {
namespace {

// Squares ("a10"), paths ("a3-c5-e7"), "pass" and positions ("4bbbb/5bbb
// w 0,0") are made of these, none of which JSON or protobuf escapes.
bool Plain(absl::string_view text) {
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

// A reader of the few wire-format shapes a LegalMovesResponse has.
class Wire {
 public:
  explicit Wire(absl::string_view bytes)
      : p_(bytes.data()), end_(p_ + bytes.size()) {}
  bool done() const { return p_ == end_; }
  bool Varint(std::uint64_t* value) {
    *value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (p_ == end_) return false;
      const auto byte = static_cast<unsigned char>(*p_++);
      *value |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) return true;
    }
    return false;
  }
  bool Bytes(absl::string_view* value) {
    std::uint64_t size = 0;
    if (!Varint(&size) || size > static_cast<std::uint64_t>(end_ - p_)) {
      return false;
    }
    *value = absl::string_view(p_, size);
    p_ += size;
    return true;
  }

 private:
  const char* p_;
  const char* end_;
};

bool PlainView(absl::string_view text) { return Plain(text); }

struct MoveView {
  absl::string_view origin, destination, path;
  std::uint64_t hops = 0;
};

bool ReadMove(absl::string_view bytes, MoveView* move) {
  Wire wire(bytes);
  while (!wire.done()) {
    std::uint64_t tag = 0;
    if (!wire.Varint(&tag)) return false;
    switch (tag) {
      case (1 << 3) | 2:
        if (!wire.Bytes(&move->origin)) return false;
        break;
      case (2 << 3) | 2:
        if (!wire.Bytes(&move->destination)) return false;
        break;
      case (3 << 3) | 2:
        if (!wire.Bytes(&move->path)) return false;
        break;
      case (4 << 3) | 0:
        if (!wire.Varint(&move->hops)) return false;
        break;
      default:
        return false;
    }
  }
  return move->hops < (1u << 31) && PlainView(move->origin) &&
         PlainView(move->destination) && PlainView(move->path);
}

void AppendField(const char* key, absl::string_view value, bool* first,
                 std::string* out) {
  if (value.empty()) return;
  absl::StrAppend(out, *first ? "" : ",", "\"", key, "\":\"", value, "\"");
  *first = false;
}

}  // namespace

bool WriteLegalMovesJsonFromWire(absl::string_view bytes, std::string* out) {
  thread_local std::vector<MoveView> moves;
  moves.clear();
  std::uint64_t count = 0;
  absl::string_view status_bytes, position;
  bool has_status = false;
  Wire wire(bytes);
  while (!wire.done()) {
    std::uint64_t tag = 0;
    if (!wire.Varint(&tag)) return false;
    absl::string_view field;
    switch (tag) {
      case (1 << 3) | 2:
        if (!wire.Bytes(&field)) return false;
        moves.emplace_back();
        if (!ReadMove(field, &moves.back())) return false;
        break;
      case (2 << 3) | 0:
        if (!wire.Varint(&count) || count >= (1u << 31)) return false;
        break;
      case (3 << 3) | 2:
        if (!wire.Bytes(&status_bytes)) return false;
        has_status = true;
        break;
      case (4 << 3) | 2:
        if (!wire.Bytes(&position) || !PlainView(position)) return false;
        break;
      default:
        return false;
    }
  }
  std::string status;
  if (has_status) {
    v1::GameStatus parsed;
    if (!parsed.ParseFromArray(status_bytes.data(),
                               static_cast<int>(status_bytes.size()))) {
      return false;
    }
    google::protobuf::util::JsonPrintOptions options;
    if (!google::protobuf::util::MessageToJsonString(parsed, &status, options)
             .ok()) {
      return false;
    }
  }
  out->reserve(out->size() + 80 * moves.size() + status.size() + 128);
  out->push_back('{');
  bool first = true;
  if (!moves.empty()) {
    out->append("\"moves\":[");
    for (std::size_t i = 0; i < moves.size(); ++i) {
      const MoveView& move = moves[i];
      out->append(i == 0 ? "{" : ",{");
      bool first_field = true;
      AppendField("origin", move.origin, &first_field, out);
      AppendField("destination", move.destination, &first_field, out);
      AppendField("path", move.path, &first_field, out);
      if (move.hops != 0) {
        absl::StrAppend(out, first_field ? "" : ",", "\"hops\":", move.hops);
      }
      out->push_back('}');
    }
    out->push_back(']');
    first = false;
  }
  if (count != 0) {
    absl::StrAppend(out, first ? "" : ",", "\"count\":", count);
    first = false;
  }
  if (has_status) {
    absl::StrAppend(out, first ? "" : ",", "\"status\":", status);
    first = false;
  }
  AppendField("position", position, &first, out);
  out->push_back('}');
  return true;
}

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
