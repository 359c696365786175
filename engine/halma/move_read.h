// The fast reader of a move as written (docs/rules.md section 4):
// ReadMoveSquares, inline because the record replay reads a move with it on
// every ply. It only says whether the text is a well-formed move it takes;
// ParseMoveInto (notation.h) says what is wrong with one it does not.
#ifndef HALMA_MOVE_READ_H_
#define HALMA_MOVE_READ_H_

#include <array>
#include <cstddef>

#include "absl/strings/string_view.h"
#include "halma/square.h"

namespace halma {

// The longest path ReadMoveSquares reads (a legal chain visits at most 64
// squares of one parity class).
inline constexpr int kMaxReadPathSquares = 64;

namespace move_read_internal {

// kSquareAt[rank][file]: MakeSquare(file, rank), both 0..15, as one load.
constexpr std::array<std::array<Square, kMaxBoardSize>, kMaxBoardSize>
MakeSquareTable() {
  std::array<std::array<Square, kMaxBoardSize>, kMaxBoardSize> t{};
  for (int y = 0; y < kMaxBoardSize; ++y) {
    for (int x = 0; x < kMaxBoardSize; ++x) t[y][x] = MakeSquare(x, y);
  }
  return t;
}
inline constexpr auto kSquareAt = MakeSquareTable();

// Paths up to this many characters have at most kMaxReadPathSquares
// squares (n squares take at least 3 n - 1 characters).
inline constexpr std::ptrdiff_t kMaxReadPathText =
    3 * (kMaxReadPathSquares + 1) - 2;

// A well-formed path of two or more squares of an n x n board joined by
// '-', of at most kMaxReadPathText characters, read into `squares` without
// building any message. Returns the number of squares, or -1. Every square
// but the last has a dash after it, so while four characters remain a
// square is read without testing for the end of the text: a file letter, a
// digit, then a second digit and a dash, or a dash.
[[gnu::always_inline]] inline int ReadPath(const char* at,
                                           const char* const end, unsigned n,
                                           Square* squares) {
  if (end - at > kMaxReadPathText) return -1;
  Square* out = squares;
  while (end - at >= 4) {
    const unsigned file = static_cast<unsigned char>(at[0]) - 'a';
    unsigned rank = static_cast<unsigned char>(at[1]) - '1';  // 0-based.
    const unsigned digit = static_cast<unsigned char>(at[2]) - '0';
    if (file >= n || rank > 8) return -1;
    const char* dash = at + 2;
    if (digit <= 9) {
      rank = rank * 10 + 9 + digit;  // (rank + 1) * 10 + digit - 1.
      ++dash;
    }
    if (rank >= n || *dash != '-') return -1;
    *out++ = kSquareAt[rank][file];
    at = dash + 1;
  }
  // The last square: two or three characters.
  const std::ptrdiff_t left = end - at;
  if (left < 2) return -1;
  const unsigned file = static_cast<unsigned char>(at[0]) - 'a';
  unsigned rank = static_cast<unsigned char>(at[1]) - '1';
  if (file >= n || rank > 8) return -1;
  if (left == 3) {
    const unsigned digit = static_cast<unsigned char>(at[2]) - '0';
    if (digit > 9) return -1;
    rank = rank * 10 + 9 + digit;
  }
  if (rank >= n) return -1;
  *out++ = kSquareAt[rank][file];
  const int count = static_cast<int>(out - squares);
  return count < 2 ? -1 : count;
}

// One square of an n x n board at `*at` (a file letter and a rank of one
// or two digits, as ReadPath reads them), advancing past it; false when
// the characters there are not one.
[[gnu::always_inline]] inline bool ReadSquare(const char*& at,
                                              const char* const end, unsigned n,
                                              Square* square) {
  if (end - at < 2) return false;
  const unsigned file = static_cast<unsigned char>(at[0]) - 'a';
  unsigned rank = static_cast<unsigned char>(at[1]) - '1';  // 0-based.
  if (file >= n || rank > 8) return false;
  at += 2;
  if (at != end) {
    const unsigned digit = static_cast<unsigned char>(*at) - '0';
    if (digit <= 9) {
      rank = rank * 10 + 9 + digit;  // (rank + 1) * 10 + digit - 1.
      ++at;
    }
  }
  if (rank >= n) return false;
  *square = kSquareAt[rank][file];
  return true;
}

}  // namespace move_read_internal

// The fast path of ParseMoveInto for a caller with storage of its own:
// reads a well-formed move of an n x n board, `pass` or two to
// kMaxReadPathSquares squares joined by '-', into `squares` without
// building any message. Returns the number of squares (0 for `pass`), or
// -1 for anything else: ParseMoveInto then says what is wrong (or reads a
// longer path).
[[gnu::always_inline]] inline int ReadMoveSquares(
    absl::string_view text, int board_size,
    Square squares[kMaxReadPathSquares]) {
  if (text.size() == 4 && text == "pass") return 0;
  return move_read_internal::ReadPath(text.data(), text.data() + text.size(),
                                      static_cast<unsigned>(board_size),
                                      squares);
}

}  // namespace halma

#endif  // HALMA_MOVE_READ_H_
