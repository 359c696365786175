#include "service/core/request_bytes.h"

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/stubs/common.h"
#include "google/protobuf/unknown_field_set.h"

namespace halma::service {
namespace {

using google::protobuf::Descriptor;
using google::protobuf::FieldDescriptor;
using google::protobuf::UnknownField;
using google::protobuf::UnknownFieldSet;

// Nested messages deeper than this are not looked into (the requests nest
// three deep; protobuf itself stops at 100).
constexpr int kMaxDiagnosisDepth = 8;

std::string FieldName(absl::string_view parent, const FieldDescriptor& field) {
  return parent.empty() ? field.name()
                        : absl::StrCat(parent, ".", field.name());
}

// "moves[3]" for the fourth entry of a repeated field.
std::string FieldPath(absl::string_view parent, const FieldDescriptor& field,
                      int index) {
  std::string path = FieldName(parent, field);
  if (field.is_repeated()) absl::StrAppend(&path, "[", index, "]");
  return path;
}

bool PackedVarintsDecode(const std::string& bytes) {
  google::protobuf::io::CodedInputStream in(
      reinterpret_cast<const uint8_t*>(bytes.data()),
      static_cast<int>(bytes.size()));
  uint64_t value;
  while (in.BytesUntilLimit() != 0) {
    if (!in.ReadVarint64(&value)) return false;
  }
  return true;
}

// Why `bytes` do not parse as a `type`, naming the innermost field that can
// be named (protobuf's parser says only that parsing failed), or OK when no
// field is to blame. Reads the wire format with the descriptor beside it,
// field by field.
absl::Status Diagnose(const std::string& bytes, const Descriptor& type,
                      absl::string_view path, int depth) {
  const std::string where = path.empty() ? "request" : std::string(path);
  UnknownFieldSet fields;
  if (!fields.ParseFromString(bytes)) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": truncated or malformed protobuf (", bytes.size(),
                     " bytes), expected a serialized ", type.full_name()));
  }
  std::vector<int> seen(type.field_count(), 0);
  for (int i = 0; i < fields.field_count(); ++i) {
    const UnknownField& wire = fields.field(i);
    const FieldDescriptor* field = type.FindFieldByNumber(wire.number());
    // Unknown numbers and unexpected wire types are skipped by the parser
    // too (kept as unknown fields), so they are not the cause.
    if (field == nullptr ||
        wire.type() != UnknownField::TYPE_LENGTH_DELIMITED) {
      continue;
    }
    const std::string name = FieldPath(path, *field, seen[field->index()]++);
    const std::string& value = wire.length_delimited();
    switch (field->type()) {
      case FieldDescriptor::TYPE_STRING:
        if (!google::protobuf::internal::IsStructurallyValidUTF8(
                value.data(), static_cast<int>(value.size()))) {
          return absl::InvalidArgumentError(
              absl::StrCat(name, ": not valid UTF-8 (", value.size(),
                           " bytes), expected UTF-8 text"));
        }
        break;
      case FieldDescriptor::TYPE_MESSAGE:
        if (depth < kMaxDiagnosisDepth) {
          absl::Status nested =
              Diagnose(value, *field->message_type(), name, depth + 1);
          if (!nested.ok()) return nested;
        }
        break;
      default:
        // A packed list of numbers (camp_rows, enums).
        if (field->is_packable() && !PackedVarintsDecode(value)) {
          return absl::InvalidArgumentError(
              absl::StrCat(FieldName(path, *field), ": malformed packed list (",
                           value.size(), " bytes), expected varints"));
        }
        break;
    }
  }
  return absl::OkStatus();
}

// The error for bytes that protobuf refused to parse as a `type`.
absl::Status ParseError(const std::string& bytes, const Descriptor& type) {
  absl::Status found = Diagnose(bytes, type, "", 0);
  if (!found.ok()) return found;
  return absl::InvalidArgumentError(absl::StrCat("request: not a valid ",
                                                 type.full_name(), " (",
                                                 bytes.size(), " bytes)"));
}

}  // namespace

absl::Status ParseRequest(absl::string_view bytes,
                          google::protobuf::Message* request) {
  if (request->ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return absl::OkStatus();
  }
  return ParseError(std::string(bytes), *request->GetDescriptor());
}

}  // namespace halma::service
