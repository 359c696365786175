#include "service/core/legal_moves_encoding.h"

#include <cstring>
#include <vector>

#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/wire_format_lite.h"
#include "halma/notation.h"
#include "halma/square.h"

namespace halma::service {
namespace {

using google::protobuf::internal::WireFormatLite;
using google::protobuf::io::CodedOutputStream;

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

std::uint8_t* WriteVarint(std::uint32_t value, std::uint8_t* out) {
  return CodedOutputStream::WriteVarint32ToArray(value, out);
}

// Writes a square's name. SquareName's text has three readable bytes, so
// three are copied whatever its length: the caller's buffer has slack, and
// whatever follows overwrites the extra byte.
std::uint8_t* WriteSquare(Square square, std::uint8_t* out) {
  const absl::string_view name = SquareName(square);
  std::memcpy(out, name.data(), 3);
  return out + name.size();
}

// Each square's place in the answer order, file then rank (FileOf << 4 |
// RankOf): one load instead of the bit arithmetic of both.
struct OrderKeys {
  std::uint8_t key[kSquareCount];
  constexpr OrderKeys() : key() {
    for (int s = 0; s < kSquareCount; ++s) {
      const Square square = static_cast<Square>(s);
      key[s] =
          static_cast<std::uint8_t>((FileOf(square) << 4) | RankOf(square));
    }
  }
};
constexpr OrderKeys kOrderKeys;

// Upper bound on the bytes of one Move of a path of `length` squares: tag
// and two-byte length, two tagged squares, the tagged path (each square at
// most three characters and a dash, the length in two bytes), the hops.
constexpr std::size_t MaxMoveBytes(std::size_t length) {
  return 3 + 2 * (2 + 3) + 3 + 4 * length + 2;
}

// Writes the length of the bytes from `length_at + 1` to `end` into the one
// byte reserved for it at `length_at`, moving them along by one in the rare
// case the length takes two (a Move is at most a few hundred bytes, so
// never three); returns their end.
std::uint8_t* FillLength(std::uint8_t* length_at, std::uint8_t* end) {
  std::uint8_t* const start = length_at + 1;
  const std::size_t size = end - start;
  if (size < 128) {
    *length_at = static_cast<std::uint8_t>(size);
    return end;
  }
  std::memmove(start + 1, start, size);
  return WriteVarint(static_cast<std::uint32_t>(size), length_at) + size;
}

// Writes the Move field of `answer`'s i-th move at `out`; returns its end.
std::uint8_t* WriteMove(const LegalMovesAnswer& answer, int i,
                        std::uint8_t* out) {
  const int index = answer.order[i];
  const LegalMove& move = answer.list->moves[index];
  const Square* path = answer.paths->Path(index);
  const int length = answer.paths->Length(index);
  *out++ = kResponseMoves;
  // The Move's length goes first, before its size is known: one byte is
  // reserved, and the body moved along in the rare case it needs two.
  std::uint8_t* const length_at = out++;
  *out++ = kMoveOrigin;
  *out++ = static_cast<std::uint8_t>(SquareName(move.origin).size());
  out = WriteSquare(move.origin, out);
  *out++ = kMoveDestination;
  *out++ = static_cast<std::uint8_t>(SquareName(move.destination).size());
  out = WriteSquare(move.destination, out);
  *out++ = kMovePath;
  std::uint8_t* const path_length_at = out++;  // The same, for the path.
  // Each square and a dash after it, three bytes copied per name (the
  // next write covers the extra one); the last dash is then dropped.
  for (int k = 0; k < length; ++k) {
    out = WriteSquare(path[k], out);
    *out++ = '-';
  }
  out -= length > 0 ? 1 : 0;
  out = FillLength(path_length_at, out);
  if (move.hops != 0) {
    *out++ = kMoveHops;
    out = WriteVarint(move.hops, out);
  }
  return FillLength(length_at, out);
}

std::uint8_t* WriteText(std::uint8_t tag, absl::string_view text,
                        std::uint8_t* out) {
  *out++ = tag;
  out = WriteVarint(static_cast<std::uint32_t>(text.size()), out);
  std::memcpy(out, text.data(), text.size());
  return out + text.size();
}

}  // namespace

void AnswerOrder(const MoveList& list, std::uint16_t* order) {
  // MoveOrder as a 16-bit key (origin file, origin rank, destination file,
  // destination rank, four bits each), sorted by a two-pass radix sort,
  // low byte then high byte: for ~200 moves several times cheaper than a
  // comparison sort, and with no data-dependent branches.
  const int n = list.size;
  std::uint16_t keys[kMaxLegalMoves];
  std::uint16_t by_low[kMaxLegalMoves];
  int low[257] = {};
  int high[257] = {};
  for (int i = 0; i < n; ++i) {
    const LegalMove& move = list.moves[i];
    const int key =
        (kOrderKeys.key[move.origin] << 8) | kOrderKeys.key[move.destination];
    keys[i] = static_cast<std::uint16_t>(key);
    ++low[(key & 255) + 1];
    ++high[(key >> 8) + 1];
  }
  for (int d = 1; d < 257; ++d) {
    low[d] += low[d - 1];
    high[d] += high[d - 1];
  }
  for (int i = 0; i < n; ++i) {
    by_low[low[keys[i] & 255]++] = static_cast<std::uint16_t>(i);
  }
  for (int j = 0; j < n; ++j) {
    const int i = by_low[j];
    order[high[keys[i] >> 8]++] = static_cast<std::uint16_t>(i);
  }
}

void EncodeLegalMovesResponse(const LegalMovesAnswer& answer,
                              absl::FunctionRef<char*(std::size_t)> allocate) {
  // One pass into per-thread scratch sized by an upper bound, then one copy
  // into the buffer of the exact size: cheaper than measuring every field
  // first, as protobuf does.
  const std::size_t status_size = answer.status->ByteSizeLong();
  std::size_t bound = 16 + status_size + answer.position.size();
  for (int i = 0; i < answer.move_count; ++i) {
    bound += MaxMoveBytes(answer.paths->Length(answer.order[i]));
  }
  // Answers of ordinary positions fit the per-thread buffer; a rare huge
  // one (a custom variant can list thousands of long chains) gets a buffer
  // of its own, so that no thread keeps megabytes after it.
  constexpr std::size_t kKeptScratchBytes = 64 * 1024;
  thread_local std::vector<std::uint8_t> kept(kKeptScratchBytes);
  std::vector<std::uint8_t> large;
  if (bound > kept.size()) large.resize(bound);
  std::vector<std::uint8_t>& scratch = large.empty() ? kept : large;
  std::uint8_t* out = scratch.data();
  for (int i = 0; i < answer.move_count; ++i) out = WriteMove(answer, i, out);
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
  const std::size_t size = out - scratch.data();
  std::memcpy(allocate(size), scratch.data(), size);
}

}  // namespace halma::service
