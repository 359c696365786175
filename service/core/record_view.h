// An AdjudicateRequest read in place: the strings point into the request's
// bytes. A 300-move record parsed as a message costs 300 arena strings
// (most with a heap block, being longer than 15 characters) and a UTF-8
// check of each; read in place it costs one pass over the bytes, the
// replay's: the fields before the first move are read first, and the
// replay reads each move from its bytes as it goes (ViewMoveReader),
// checking that it is one. A pass of its own to find and count the moves
// first cost 6 % of a stream's CPU on 300-move records (a chain of
// dependent loads, one per move; docs/benchmarks.md). The gRPC edge reads
// Adjudicate's request and each AdjudicateStream record so, and
// RulesCore::AdjudicateView answers from the view.
#ifndef HALMA_SERVICE_CORE_RECORD_VIEW_H_
#define HALMA_SERVICE_CORE_RECORD_VIEW_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/strings/string_view.h"
#include "halma/move_read.h"
#include "halma/square.h"

namespace halma::service {

struct AdjudicateRequestView {
  absl::string_view variant;  // A serialized halma.v1.Variant.
  absl::string_view start_position;
  // The request's bytes from the first move's field to the end. Whether
  // every field there is a well-formed move is found as they are read
  // (ViewMoveReader, CountMoves); when one is not (another field after
  // the moves, a length past the end), the request is protobuf's to read.
  absl::string_view move_fields;
};

// Reads `bytes` into `view` when they begin as an AdjudicateRequest in the
// form serializers write: fields 1 and 2 at most once each, in any order,
// the start position ASCII (so valid UTF-8), then from the first field 3
// on only fields 3. Returns false when the fields before the first move
// are anything else, leaving the request to ParseRequest (which accepts
// or refuses it, naming the field). The variant's bytes are not looked
// into: when they parse as a Variant, the request parses too (if its moves
// do), and the view holds exactly what protobuf would parse; when they do
// not, the request does not either. The fields from the first move on are
// not looked into here but as the replay reads them: when every one is a
// move (CountMoves >= 0) and every move is ASCII, the view holds exactly
// the request's moves; else RulesCore::AdjudicateView answers nothing,
// leaving the request to protobuf (which accepts moves of valid UTF-8 and
// fields in any order, and refuses the rest).
bool ReadAdjudicateRequest(absl::string_view bytes,
                           AdjudicateRequestView* view);

// The same for an AdjudicateStreamRequest: its id (field 1, ASCII, at most
// once) and its record (field 2, at most once) read as above; false for
// anything else, left to ParseRequest.
bool ReadAdjudicateStreamRequest(absl::string_view bytes, absl::string_view* id,
                                 AdjudicateRequestView* record);

// Whether every byte of `text` is below 0x80.
bool IsAscii(absl::string_view text);

// The number of moves of a view when every field of its move_fields is a
// move (field 3, length-delimited, inside the bytes), else -1. A pass over
// the moves: for the limit on a record's moves, answers that did not read
// them all, tests and the fuzzers (the replay reads them with
// ViewMoveReader).
int CountMoves(const AdjudicateRequestView& view);

// Whether the view holds the request's moves exactly: every field of its
// move_fields a move, every move ASCII (what a replay that read them all
// has found when its ViewMoveReader is not left_to_parser).
bool MovesReadInPlace(const AdjudicateRequestView& view);

// The moves of a view, in order, when CountMoves(view) >= 0 (for tests and
// the fuzzers).
std::vector<absl::string_view> MovesOf(const AdjudicateRequestView& view);

namespace record_view_internal {

// A varint of at most 32 bits at `*at`, advancing it; false if truncated
// or longer than five bytes.
bool ReadVarint32(const char*& at, const char* end, std::uint32_t* value);

// The next length-delimited field at `*at` (its tag and value), advancing
// past it; false if the bytes end or the length runs past them. Any other
// wire type reads as a tag the callers do not accept.
[[gnu::always_inline]] inline bool ReadField(const char*& at, const char* end,
                                             std::uint32_t* tag,
                                             absl::string_view* value) {
  std::uint32_t length;
  if (end - at >= 2 && ((at[0] | at[1]) & 0x80) == 0) {
    // A one-byte tag and a one-byte length: every move of a record.
    *tag = static_cast<std::uint8_t>(at[0]);
    length = static_cast<std::uint8_t>(at[1]);
    at += 2;
  } else if (!ReadVarint32(at, end, tag) || !ReadVarint32(at, end, &length)) {
    return false;
  }
  if (length > static_cast<std::size_t>(end - at)) return false;
  *value = absl::string_view(at, length);
  at += length;
  return true;
}

// AdjudicateRequest's moves field: number 3, length-delimited.
inline constexpr std::uint32_t kMovesTag = (3 << 3) | 2;

}  // namespace record_view_internal

// The moves of a view read in order from the request's bytes, the reader
// halma::ReplayRecord (record_replay.h) takes: Next gives each move's
// text, and false at the end of the bytes or at a field that is not a
// well-formed move. A move the replay reads as squares is ASCII; of the
// others (NotAPath) it checks whether they are. left_to_parser() says
// whether the view fell short: a move not ASCII, or a field not a move.
class ViewMoveReader {
 public:
  explicit ViewMoveReader(const AdjudicateRequestView& view)
      : at_(view.move_fields.data()),
        end_(view.move_fields.data() + view.move_fields.size()) {}

  [[gnu::always_inline]] bool Next(absl::string_view* text) {
    const std::ptrdiff_t left = end_ - at_;
    if (left >= 2 &&
        at_[0] == static_cast<char>(record_view_internal::kMovesTag) &&
        static_cast<signed char>(at_[1]) >= 0 && at_[1] <= left - 2) {
      // A move with a one-byte length inside the bytes: every move of an
      // ordinary record.
      const std::size_t length = static_cast<std::uint8_t>(at_[1]);
      *text = absl::string_view(at_ + 2, length);
      at_ += 2 + length;
      return true;
    }
    return NextSlowly(text);
  }

  // A move ReadMoveSquares does not take may be any bytes.
  void NotAPath(absl::string_view text) {
    if (!IsAscii(text)) left_to_parser_ = true;
  }

  bool left_to_parser() const { return left_to_parser_; }

 private:
  // The end, a move with a longer length, or a field that is not a move.
  bool NextSlowly(absl::string_view* text) {
    if (at_ == end_) return false;
    std::uint32_t tag;
    if (!record_view_internal::ReadField(at_, end_, &tag, text) ||
        tag != record_view_internal::kMovesTag) {
      left_to_parser_ = true;
      at_ = end_;
      return false;
    }
    return true;
  }

  const char* at_;
  const char* end_;
  bool left_to_parser_ = false;
};

}  // namespace halma::service

#endif  // HALMA_SERVICE_CORE_RECORD_VIEW_H_
