// An AdjudicateRequest read in place: the strings point into the request's
// bytes. A 300-move record parsed as a message costs 300 arena strings
// (most with a heap block, being longer than 15 characters) and a UTF-8
// check of each; read in place it costs one pass over the bytes to find
// the fields, and the replay reads each move from its bytes as it goes
// (ViewMoveReader). The gRPC edge reads Adjudicate's request and each
// AdjudicateStream record so, and RulesCore::AdjudicateView answers from
// the view.
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
  // The request's bytes from the first move's field to the end (fields of
  // the other two kinds may come between moves: ViewMoveReader skips
  // them), and the number of moves there.
  absl::string_view move_fields;
  int move_count = 0;
};

// Reads `bytes` into `view` when they hold an AdjudicateRequest in the form
// serializers write: fields 1 and 2 at most once each, field 3 any number
// of times, in any order, the start position ASCII (so valid UTF-8),
// nothing else. Returns false for anything else, leaving it to
// ParseRequest (which accepts or refuses it, naming the field). The
// variant's bytes are not looked into: when they parse as a Variant, the
// request parses too, and the view holds exactly what protobuf would
// parse; when they do not, the request does not either. The moves' bytes
// are not looked into either: protobuf accepts the request only when
// every move is valid UTF-8, which RulesCore::AdjudicateView makes sure of
// before it answers (every move it reads as a move is ASCII; it checks the
// others), answering nothing when one is not ASCII.
bool ReadAdjudicateRequest(absl::string_view bytes,
                           AdjudicateRequestView* view);

// The same for an AdjudicateStreamRequest: its id (field 1, ASCII, at most
// once) and its record (field 2, at most once) read as above; false for
// anything else, left to ParseRequest.
bool ReadAdjudicateStreamRequest(absl::string_view bytes, absl::string_view* id,
                                 AdjudicateRequestView* record);

// Whether every byte of `text` is below 0x80.
bool IsAscii(absl::string_view text);

// The moves of a view, in order (for tests and the fuzzers; the replay
// reads them with ViewMoveReader).
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
// text. A move the replay reads as squares is ASCII; of the others
// (NotAPath) it checks whether they are, and any_non_ascii() says whether
// one was not (the request is then protobuf's to judge).
// Only for a view ReadAdjudicateRequest filled (the fields are known to be
// well formed), called at most move_count times.
class ViewMoveReader {
 public:
  explicit ViewMoveReader(const AdjudicateRequestView& view)
      : at_(view.move_fields.data()),
        end_(view.move_fields.data() + view.move_fields.size()) {}

  [[gnu::always_inline]] absl::string_view Next() {
    if (end_ - at_ >= 2 &&
        at_[0] == static_cast<char>(record_view_internal::kMovesTag) &&
        static_cast<signed char>(at_[1]) >= 0) {
      // A move with a one-byte length (every move of an ordinary record),
      // inside the bytes (ReadAdjudicateRequest checked every length).
      const std::size_t length = static_cast<std::uint8_t>(at_[1]);
      const absl::string_view text(at_ + 2, length);
      at_ += 2 + length;
      return text;
    }
    return ReadSlowly();
  }

  // A move ReadMoveSquares does not take may be any bytes.
  void NotAPath(absl::string_view text) {
    if (!IsAscii(text)) any_non_ascii_ = true;
  }

  bool any_non_ascii() const { return any_non_ascii_; }

 private:
  // The next move past fields of other kinds, or with a longer length.
  absl::string_view ReadSlowly() {
    std::uint32_t tag;
    absl::string_view text;
    do {
      // Not for a view ReadAdjudicateRequest filled, or past its moves:
      // an empty text, which the replay finds malformed.
      if (!record_view_internal::ReadField(at_, end_, &tag, &text)) {
        return {};
      }
    } while (tag != record_view_internal::kMovesTag);
    return text;
  }

  const char* at_;
  const char* end_;
  bool any_non_ascii_ = false;
};

}  // namespace halma::service

#endif  // HALMA_SERVICE_CORE_RECORD_VIEW_H_
