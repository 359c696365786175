// The text notation of docs/rules.md section 4: parsing and formatting of
// squares, moves and positions, with error messages that name the field.
#ifndef HALMA_NOTATION_H_
#define HALMA_NOTATION_H_

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "halma/move_read.h"  // ReadMoveSquares, the fast reader.
#include "halma/position.h"
#include "halma/square.h"
#include "halma/variant.h"

namespace halma {

// A move as written (docs/rules.md section 4): `pass`, or the squares it
// visits. Most chains are short, so the squares are stored inline: parsing a
// move (once per ply of a replayed record) allocates nothing.
struct MoveText {
  bool is_pass = false;
  absl::InlinedVector<Square, 16> squares;
  friend bool operator==(const MoveText& a, const MoveText& b) {
    return a.is_pass == b.is_pass && a.squares == b.squares;
  }
};

// Parsers return INVALID_ARGUMENT whose message names what was wrong, quotes
// the offending text and says what was expected. `board_size` bounds squares.
absl::StatusOr<Square> ParseSquare(absl::string_view text, int board_size);
absl::StatusOr<MoveText> ParseMove(absl::string_view text, int board_size);
// The same into `*move` (which should be empty), for a caller that parses
// many moves into storage of its own, such as a record's replay.
absl::Status ParseMoveInto(absl::string_view text, int board_size,
                           MoveText* move);
// Parses and checks a position string against `variant`: layout, letters,
// piece counts and move counts (see CheckPositionConsistency).
absl::StatusOr<Position> ParsePosition(absl::string_view text,
                                       const Variant& variant);

// Canonical formatting.

namespace notation_internal {
struct SquareText {
  char text[3];
  std::uint8_t length;
};
// The names of all squares of the frame, indexed by Square.
extern const std::array<SquareText, kSquareCount> kSquareTexts;
}  // namespace notation_internal

// The name of a square ("a1" .. "p16"), from a table: formatting the
// thousands of squares of an answer builds no strings. Its data() always
// has three readable bytes (a copier may move three at once).
inline absl::string_view SquareName(Square s) {
  const notation_internal::SquareText& name =
      notation_internal::kSquareTexts[s];
  return absl::string_view(name.text, name.length);
}
std::string FormatSquare(Square s);
std::string FormatMove(const MoveText& move);
std::string FormatPath(const Square* squares, int count);
std::string FormatPosition(const Position& position, const Variant& variant);

// Quotes text for an error message, escaping control characters and cutting
// very long input so that messages stay bounded.
std::string QuoteForError(absl::string_view text);

}  // namespace halma

#endif  // HALMA_NOTATION_H_
