// Shared helpers of the libFuzzer targets: turning the fuzzer's bytes into a
// variant and texts, building a well-formed position out of arbitrary bytes,
// and the checks every target asserts (a failed check aborts, so libFuzzer
// reports the input).
//
// The input of the engine targets is one selector byte followed by text:
// the selector picks a variant of FuzzVariants() ('A' is the first, 'B' the
// second, ...; any other byte is taken modulo their number) and the text is
// split into lines at '\n'. The seeds in fuzz/corpus are written that way.
#ifndef HALMA_FUZZ_FUZZ_INPUT_H_
#define HALMA_FUZZ_FUZZ_INPUT_H_

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "halma/movegen.h"
#include "halma/notation.h"
#include "halma/position.h"
#include "halma/variant.h"

namespace halma::fuzz {

// Longest error message any target accepts. Messages quote the offending
// text, cut to 80 characters, but a control character is quoted as four
// ("\x00") and a move's message quotes the move, then its square twice
// (about 1.2 KB at most), so the bound is 2 KB rather than 1 KB.
inline constexpr size_t kMaxErrorMessage = 2048;

[[noreturn]] inline void Fail(const char* file, int line, const char* what,
                              const std::string& detail) {
  std::fprintf(stderr, "\n*** fuzz property failed at %s:%d: %s\n", file, line,
               what);
  if (!detail.empty()) {
    std::fprintf(stderr, "*** %.4000s\n", detail.c_str());
  }
  std::fflush(stderr);
  std::abort();
}

// Aborts (so that libFuzzer saves the input) when `cond` is false; `detail`
// is any expression convertible to std::string, evaluated only on failure.
#define FUZZ_CHECK(cond, detail)                                \
  do {                                                          \
    if (!(cond)) {                                              \
      ::halma::fuzz::Fail(__FILE__, __LINE__, #cond, (detail)); \
    }                                                           \
  } while (false)

// One variant a target may be given, with a short label for messages.
struct FuzzVariant {
  std::string label;
  Variant variant;
};

inline VariantSpec CustomSpec(int n, int seats, std::vector<int> rows,
                              int home_exit = 0, bool round_completion = false,
                              bool target_lock = false, int move_cap = 0) {
  VariantSpec spec;
  spec.board_size = n;
  spec.seat_count = seats;
  spec.camp_rows = std::move(rows);
  spec.home_exit_limit = home_exit;
  spec.round_completion = round_completion;
  spec.target_lock = target_lock;
  spec.move_cap = move_cap;
  return spec;
}

// The presets in the engine's order, then custom variants that reach
// corners the presets do not: eliminations, forced passes, round completion
// with four seats, move caps, the largest camps, a full board. The order is
// part of the seed format (fuzz/make_seeds.py writes the same list).
inline const std::vector<FuzzVariant>& FuzzVariants() {
  static const auto* variants = [] {
    auto* out = new std::vector<FuzzVariant>;
    for (const std::string& name : PresetNames()) {
      absl::StatusOr<Variant> v = PresetVariant(name);
      FUZZ_CHECK(v.ok(), v.status().ToString());
      out->push_back({name, *std::move(v)});
    }
    const std::pair<const char*, VariantSpec> customs[] = {
        {"custom-8x8-4p-exit2", CustomSpec(8, 4, {2, 1}, 2)},
        {"custom-4x4-lock", CustomSpec(4, 2, {4, 3}, 0, false, true)},
        {"custom-12x12-rc-cap60",
         CustomSpec(12, 2, {4, 4, 2}, 0, true, false, 60)},
        {"custom-16x16-4p-big", CustomSpec(16, 4, {8, 7, 6, 5, 4, 3, 2, 1})},
        {"custom-6x6-4p-all", CustomSpec(6, 4, {1}, 3, true, true, 20)},
        {"custom-16x16-full", CustomSpec(16, 2, std::vector<int>(8, 16))},
        {"custom-5x5-exit1-cap3", CustomSpec(5, 2, {2, 1}, 1, false, false, 3)},
        // The custom variants of the public vectors (testdata/vectors).
        {"custom-16x16-nolock", CustomSpec(16, 2, {5, 5, 4, 3, 2})},
        {"custom-8x8-4p", CustomSpec(8, 4, {3, 2, 1})},
        {"custom-12x12", CustomSpec(12, 2, {6, 5, 4, 3, 2, 1})},
        {"custom-5x5-tight", CustomSpec(5, 2, {4, 3, 2, 1})},
        {"custom-8x8-cap20",
         CustomSpec(8, 2, {4, 3, 2, 1}, 0, false, false, 20)},
    };
    for (const auto& [label, spec] : customs) {
      absl::StatusOr<Variant> v = MakeVariant(spec);
      FUZZ_CHECK(v.ok(), std::string(label) + ": " + v.status().ToString());
      out->push_back({label, *std::move(v)});
    }
    return out;
  }();
  return *variants;
}

inline const FuzzVariant& PickVariant(uint8_t selector) {
  const std::vector<FuzzVariant>& all = FuzzVariants();
  const size_t count = all.size();
  if (selector >= 'A' && selector < 'A' + count) return all[selector - 'A'];
  return all[selector % count];
}

// The bytes after the selector, as text.
struct FuzzText {
  uint8_t selector = 0;
  absl::string_view text;
};
inline FuzzText SplitSelector(const uint8_t* data, size_t size) {
  FuzzText out;
  if (size == 0) return out;
  out.selector = data[0];
  out.text =
      absl::string_view(reinterpret_cast<const char*>(data) + 1, size - 1);
  return out;
}

// At least one line, the first maybe empty (StrSplit gives none for the
// null view of an empty input).
inline std::vector<absl::string_view> Lines(absl::string_view text) {
  std::vector<absl::string_view> lines = absl::StrSplit(text, '\n');
  if (lines.empty()) lines.emplace_back();
  return lines;
}

// An error of a parser or validator: INVALID_ARGUMENT, bounded, starting
// with one of `prefixes` (the thing or field it concerns), printable (input
// is quoted with control characters escaped).
inline void CheckRequestError(const absl::Status& status,
                              const std::vector<absl::string_view>& prefixes,
                              absl::string_view context) {
  const std::string where = std::string(context) + ": " + status.ToString();
  FUZZ_CHECK(status.code() == absl::StatusCode::kInvalidArgument, where);
  const absl::string_view message = status.message();
  FUZZ_CHECK(message.size() <= kMaxErrorMessage,
             "message of " + std::to_string(message.size()) + " bytes; " +
                 std::string(message.substr(0, 300)));
  bool named = false;
  for (absl::string_view prefix : prefixes) {
    named = named || absl::StartsWith(message, prefix);
  }
  FUZZ_CHECK(named, "message names no expected field: " + where);
  for (char c : message) {
    const unsigned char u = static_cast<unsigned char>(c);
    FUZZ_CHECK(u >= 0x20 && u != 0x7f,
               "control character in message: " + QuoteForError(message));
  }
}

// A position that the engine accepted: consistent, its canonical text
// parses back to the same position and formats identically. Returns the
// canonical text.
inline std::string CheckPositionRoundTrip(const Variant& variant,
                                          const Position& position,
                                          absl::string_view context) {
  const absl::Status consistent = CheckPositionConsistency(variant, position);
  const std::string text = FormatPosition(position, variant);
  FUZZ_CHECK(consistent.ok(),
             std::string(context) + ": " + text + ": " + consistent.ToString());
  for (int i = 0; i < kMaxSeats; ++i) {
    FUZZ_CHECK((position.pieces[i] & ~variant.on_board).Any() == false, text);
  }
  const absl::StatusOr<Position> back = ParsePosition(text, variant);
  FUZZ_CHECK(back.ok(), std::string(context) + ": canonical text " + text +
                            " does not parse: " + back.status().ToString());
  FUZZ_CHECK(*back == position, std::string(context) + ": " + text);
  FUZZ_CHECK(FormatPosition(*back, variant) == text, text);
  return text;
}

// The largest move count a position holds (whatever its integer type).
using MoveCount = std::remove_cv_t<
    std::remove_reference_t<decltype(Position{}.move_count[0])>>;
inline constexpr MoveCount kLargestCount =
    std::numeric_limits<MoveCount>::max();

// A well-formed position of `variant` built from arbitrary bytes, so that
// every input reaches move generation and validation:
//   byte 0: the side to move (modulo the seat count) and how move counts
//           are chosen (bits 4-5: 0 small, 1 larger, 2 near the largest
//           count, 3 the largest count for the side to move);
//   byte 1: the move count of the side to move (scaled as byte 0 says);
//   then pairs (piece, square): the piece-th piece on the board (of any
//   seat) moves to the square-th empty square, starting from the variant's
//   start position.
// Move counts that do not fit (a side to move eliminated by the home-exit
// rule) fall back to no moves made.
inline Position PositionFromBytes(const Variant& variant,
                                  absl::string_view bytes) {
  Position p = StartPosition(variant);
  const auto byte = [&](size_t i) -> uint8_t {
    return i < bytes.size() ? static_cast<uint8_t>(bytes[i]) : 0;
  };
  const uint8_t mode = byte(0);
  const uint8_t count_byte = byte(1);
  // Squares with a piece and empty squares of the board; a relocation
  // swaps an entry of one list with an entry of the other.
  constexpr int kMaxRelocations = 256;
  Square pieces[kSquareCount], empties[kSquareCount];
  int piece_count = 0, empty_count = 0;
  const Bitboard occupied = p.Occupied();
  ForEachSquare(occupied, [&](Square s) { pieces[piece_count++] = s; });
  ForEachSquare(variant.on_board & ~occupied,
                [&](Square s) { empties[empty_count++] = s; });
  for (size_t i = 2, done = 0; i + 1 < bytes.size() && done < kMaxRelocations &&
                               piece_count > 0 && empty_count > 0;
       i += 2, ++done) {
    Square& from = pieces[byte(i) % piece_count];
    Square& to = empties[byte(i + 1) % empty_count];
    Seat owner;
    if (!p.PieceAt(from, &owner)) break;
    p.pieces[SeatIndex(owner)].Clear(from);
    p.pieces[SeatIndex(owner)].Set(to);
    std::swap(from, to);
  }

  const int side_index = (mode & 0x0f) % variant.seat_count;
  MoveCount base = count_byte;
  switch ((mode >> 4) & 3) {
    case 0:
      break;
    case 1:
      base = MoveCount{count_byte} * 37 + 100;
      break;
    case 2:
      base = kLargestCount - 1 - count_byte % 2;
      break;
    case 3:
      base = kLargestCount - (side_index == 0 ? 0 : 1);
      break;
  }
  for (int i = 0; i < variant.seat_count; ++i) {
    p.move_count[SeatIndex(variant.seats[i])] = base + (i < side_index ? 1 : 0);
  }
  p.to_move = variant.seats[side_index];
  if (!CheckPositionConsistency(variant, p).ok()) {
    for (MoveCount& c : p.move_count) c = 0;
    p.to_move = variant.seats[0];
  }
  return p;
}

// The position a target works on: the text when it parses, else one built
// from the text's bytes. Either way it is checked to round-trip.
inline Position PositionFromText(const Variant& variant,
                                 absl::string_view text) {
  if (text.empty()) return StartPosition(variant);
  absl::StatusOr<Position> parsed = ParsePosition(text, variant);
  Position p = parsed.ok() ? *parsed : PositionFromBytes(variant, text);
  CheckPositionRoundTrip(variant, p, parsed.ok() ? "parsed" : "generated");
  return p;
}

// Move generation buffers are large (MovePaths is about 350 KB): one of
// each per process, never on the stack.
struct Buffers {
  MoveList list;
  MoveList other;
  MovePaths paths;
  MoveSet set;
};
inline Buffers& SharedBuffers() {
  static Buffers* buffers = new Buffers;
  return *buffers;
}

}  // namespace halma::fuzz

#endif  // HALMA_FUZZ_FUZZ_INPUT_H_
