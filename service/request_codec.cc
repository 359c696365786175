#include "service/request_codec.h"

#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/stubs/common.h"
#include "google/protobuf/unknown_field_set.h"
#include "grpcpp/impl/codegen/proto_utils.h"
#include "grpcpp/support/proto_buffer_reader.h"
#include "grpcpp/support/proto_buffer_writer.h"

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

absl::Status ParseRequest(const grpc::ByteBuffer& bytes,
                          google::protobuf::Message* request) {
  {
    grpc::ByteBuffer shared(bytes);  // Shares the slices: no copy.
    grpc::ProtoBufferReader reader(&shared);
    if (request->ParseFromZeroCopyStream(&reader)) return absl::OkStatus();
  }
  // The slow path, for bad requests only: the bytes in one piece.
  std::vector<grpc::Slice> slices;
  std::string flat;
  if (bytes.Dump(&slices).ok()) {
    for (const grpc::Slice& slice : slices) {
      flat.append(reinterpret_cast<const char*>(slice.begin()), slice.size());
    }
  }
  return ParseError(flat, *request->GetDescriptor());
}

namespace {

// A varint of at most 32 bits at `*at`, advancing it; false if truncated
// or longer than five bytes.
bool ReadVarint32(const char*& at, const char* end, std::uint32_t* value) {
  std::uint32_t result = 0;
  for (int shift = 0; shift < 35 && at < end; shift += 7) {
    const auto byte = static_cast<std::uint8_t>(*at++);
    result |= static_cast<std::uint32_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) {
      // A fifth byte may carry only the top four bits.
      if (shift == 28 && byte > 0x0f) return false;
      *value = result;
      return true;
    }
  }
  return false;
}

// The next length-delimited field at `*at` (its tag and value), advancing
// past it; false if the bytes end or the length runs past them. Any other
// wire type reads as a tag the callers do not accept.
bool ReadField(const char*& at, const char* end, std::uint32_t* tag,
               absl::string_view* value) {
  std::uint32_t length;
  if (!ReadVarint32(at, end, tag) || !ReadVarint32(at, end, &length) ||
      length > static_cast<std::size_t>(end - at)) {
    return false;
  }
  *value = absl::string_view(at, length);
  at += length;
  return true;
}

bool IsAscii(absl::string_view text) {
  unsigned char any = 0;
  for (char c : text) any |= static_cast<unsigned char>(c);
  return any < 0x80;
}

}  // namespace

bool ReadAdjudicateRequest(absl::string_view bytes,
                           AdjudicateRequestView* view) {
  // Tags of AdjudicateRequest's fields, all length-delimited.
  constexpr std::uint32_t kVariant = (1 << 3) | 2;
  constexpr std::uint32_t kStartPosition = (2 << 3) | 2;
  constexpr std::uint32_t kMoves = (3 << 3) | 2;
  view->variant = {};
  view->start_position = {};
  view->moves.clear();
  bool seen_variant = false;
  bool seen_start = false;
  const char* at = bytes.data();
  const char* const end = at + bytes.size();
  while (at < end) {
    std::uint32_t tag;
    absl::string_view value;
    if (!ReadField(at, end, &tag, &value)) return false;
    switch (tag) {
      case kVariant:
        // A second one would be merged into the first: left to protobuf.
        if (seen_variant) return false;
        seen_variant = true;
        view->variant = value;
        break;
      case kStartPosition:
        if (seen_start || !IsAscii(value)) return false;
        seen_start = true;
        view->start_position = value;
        break;
      case kMoves:
        if (!IsAscii(value)) return false;
        view->moves.push_back(value);
        break;
      default:
        return false;
    }
  }
  return true;
}

bool ReadAdjudicateStreamRequest(absl::string_view bytes, absl::string_view* id,
                                 AdjudicateRequestView* record) {
  constexpr std::uint32_t kId = (1 << 3) | 2;
  constexpr std::uint32_t kRecord = (2 << 3) | 2;
  *id = {};
  bool seen_id = false;
  bool seen_record = false;
  absl::string_view record_bytes;
  const char* at = bytes.data();
  const char* const end = at + bytes.size();
  while (at < end) {
    std::uint32_t tag;
    absl::string_view value;
    if (!ReadField(at, end, &tag, &value)) return false;
    if (tag == kId && !seen_id && IsAscii(value)) {
      seen_id = true;
      *id = value;
    } else if (tag == kRecord && !seen_record) {
      seen_record = true;
      record_bytes = value;
    } else {
      return false;  // Repeated (merged) fields, non-ASCII, unknown: protobuf.
    }
  }
  return ReadAdjudicateRequest(record_bytes, record);
}

absl::string_view FlatBytes(const grpc::ByteBuffer& buffer, grpc::Slice* slice,
                            std::string* storage) {
  if (buffer.TrySingleSlice(slice).ok()) {
    return absl::string_view(reinterpret_cast<const char*>(slice->begin()),
                             slice->size());
  }
  storage->clear();
  std::vector<grpc::Slice> slices;
  if (buffer.Dump(&slices).ok()) {
    for (const grpc::Slice& piece : slices) {
      storage->append(reinterpret_cast<const char*>(piece.begin()),
                      piece.size());
    }
  }
  return *storage;
}

absl::Status SerializeResponse(const google::protobuf::Message& response,
                               grpc::ByteBuffer* out) {
  bool own_buffer = false;
  grpc::Status status = grpc::GenericSerialize<grpc::ProtoBufferWriter,
                                               google::protobuf::Message>(
      response, out, &own_buffer);
  if (!status.ok()) {
    return absl::InternalError(absl::StrCat(
        "cannot serialize the answer ", response.GetDescriptor()->full_name()));
  }
  return absl::OkStatus();
}

}  // namespace halma::service
