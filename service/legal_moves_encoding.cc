#include "service/legal_moves_encoding.h"

#include <algorithm>

#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/wire_format_lite.h"
#include "halma/notation.h"
#include "halma/square.h"

namespace halma::service {
namespace {

using google::protobuf::io::CodedOutputStream;
using google::protobuf::internal::WireFormatLite;

// Field tags, as protobuf writes them: (number << 3) | wire type.
constexpr std::uint8_t kLength = WireFormatLite::WIRETYPE_LENGTH_DELIMITED;
constexpr std::uint8_t kVarint = WireFormatLite::WIRETYPE_VARINT;
// halma.v1.Move
constexpr std::uint8_t kMoveOrigin = (1 << 3) | kLength;
constexpr std::uint8_t kMoveDestination = (2 << 3) | kLength;
constexpr std::uint8_t kMovePath = (3 << 3) | kLength;
constexpr std::uint8_t kMoveHops = (4 << 3) | kVarint;
// halma.v1.LegalMovesResponse
constexpr std::uint8_t kResponseMoves = (1 << 3) | kLength;
constexpr std::uint8_t kResponseCount = (2 << 3) | kVarint;
constexpr std::uint8_t kResponseStatus = (3 << 3) | kLength;
constexpr std::uint8_t kResponsePosition = (4 << 3) | kLength;

std::size_t VarintSize(std::uint32_t value) {
  return CodedOutputStream::VarintSize32(value);
}

// Bytes of a length-delimited field of `length` bytes, tag included.
std::size_t FieldSize(std::size_t length) {
  return 1 + VarintSize(static_cast<std::uint32_t>(length)) + length;
}

std::uint8_t* WriteVarint(std::uint32_t value, std::uint8_t* out) {
  return CodedOutputStream::WriteVarint32ToArray(value, out);
}

std::uint8_t* WriteText(std::uint8_t tag, absl::string_view text,
                        std::uint8_t* out) {
  *out++ = tag;
  out = WriteVarint(static_cast<std::uint32_t>(text.size()), out);
  std::copy(text.begin(), text.end(), out);
  return out + text.size();
}

// The sizes of one Move's fields.
struct MoveSizes {
  std::uint32_t path = 0;     // The text of the path.
  std::uint32_t message = 0;  // The Move message, without its own tag.
};

MoveSizes SizesOf(const LegalMove& move, const Square* path, int length) {
  MoveSizes sizes;
  sizes.path = static_cast<std::uint32_t>(PathTextLength(path, length));
  sizes.message = static_cast<std::uint32_t>(
      FieldSize(SquareName(move.origin).size()) +
      FieldSize(SquareName(move.destination).size()) + FieldSize(sizes.path) +
      (move.hops == 0 ? 0 : 1 + VarintSize(move.hops)));
  return sizes;
}

}  // namespace

void AnswerOrder(const MoveList& list, std::uint16_t* order) {
  // The order of MoveOrder as one integer per move, with the move's index
  // in the low bits: sorting plain integers is several times faster than
  // sorting moves with a comparator, and needs no index indirection.
  static_assert(kMaxLegalMoves < (1 << 13), "an index must fit in 13 bits");
  std::uint32_t keys[kMaxLegalMoves];
  for (int i = 0; i < list.size; ++i) {
    const LegalMove& move = list.moves[i];
    const std::uint32_t key = (FileOf(move.origin) << 12) |
                              (RankOf(move.origin) << 8) |
                              (FileOf(move.destination) << 4) |
                              RankOf(move.destination);
    keys[i] = (key << 13) | static_cast<std::uint32_t>(i);
  }
  std::sort(keys, keys + list.size);
  for (int i = 0; i < list.size; ++i) {
    order[i] = static_cast<std::uint16_t>(keys[i] & ((1 << 13) - 1));
  }
}

void EncodeLegalMovesResponse(const LegalMovesAnswer& answer,
                              absl::FunctionRef<char*(std::size_t)> allocate) {
  // First pass: the exact size.
  std::size_t size = 0;
  for (int i = 0; i < answer.move_count; ++i) {
    const int index = answer.order[i];
    const MoveSizes sizes =
        SizesOf(answer.list->moves[index], answer.paths->Path(index),
                answer.paths->Length(index));
    size += FieldSize(sizes.message);
  }
  if (answer.move_count != 0) {
    size += 1 + VarintSize(static_cast<std::uint32_t>(answer.move_count));
  }
  const std::size_t status_size = answer.status->ByteSizeLong();
  size += FieldSize(status_size);
  if (!answer.position.empty()) size += FieldSize(answer.position.size());

  // Second pass: the bytes, in field-number order as protobuf writes them.
  std::uint8_t* const start = reinterpret_cast<std::uint8_t*>(allocate(size));
  std::uint8_t* out = start;
  for (int i = 0; i < answer.move_count; ++i) {
    const int index = answer.order[i];
    const LegalMove& move = answer.list->moves[index];
    const Square* path = answer.paths->Path(index);
    const int length = answer.paths->Length(index);
    const MoveSizes sizes = SizesOf(move, path, length);
    *out++ = kResponseMoves;
    out = WriteVarint(sizes.message, out);
    out = WriteText(kMoveOrigin, SquareName(move.origin), out);
    out = WriteText(kMoveDestination, SquareName(move.destination), out);
    *out++ = kMovePath;
    out = WriteVarint(sizes.path, out);
    out = reinterpret_cast<std::uint8_t*>(
        WritePath(path, length, reinterpret_cast<char*>(out)));
    if (move.hops != 0) {
      *out++ = kMoveHops;
      out = WriteVarint(move.hops, out);
    }
  }
  if (answer.move_count != 0) {
    *out++ = kResponseCount;
    out = WriteVarint(static_cast<std::uint32_t>(answer.move_count), out);
  }
  *out++ = kResponseStatus;
  out = WriteVarint(static_cast<std::uint32_t>(status_size), out);
  out = answer.status->SerializeWithCachedSizesToArray(out);
  if (!answer.position.empty()) {
    out = WriteText(kResponsePosition, answer.position, out);
  }
}

}  // namespace halma::service
