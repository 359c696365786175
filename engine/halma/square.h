// Squares of the 16x16 frame, indexed by parity class, and the eight
// directions of steps and hops.
#ifndef HALMA_SQUARE_H_
#define HALMA_SQUARE_H_

#include <cstdint>

namespace halma {

// Largest supported board side; every board is laid out in a 16x16 frame.
inline constexpr int kMaxBoardSize = 16;
inline constexpr int kMinBoardSize = 4;
inline constexpr int kSquareCount = kMaxBoardSize * kMaxBoardSize;

// A square of the 16x16 frame, indexed by parity class rather than by row.
//
// A hop moves a piece two squares, so a jump chain never leaves the
// (x mod 2, y mod 2) class of its origin. Each class of the frame is an 8x8
// grid, so storing it in its own 64-bit word turns a hop into a one-square
// king move inside that word. The index is therefore
//   class * 64 + (y / 2) * 8 + (x / 2),  class = (y % 2) * 2 + (x % 2).
using Square = std::uint8_t;

inline constexpr Square MakeSquare(int x, int y) {
  return static_cast<Square>(((y & 1) << 7) | ((x & 1) << 6) | ((y >> 1) << 3) |
                             (x >> 1));
}
inline constexpr int FileOf(Square s) {
  return ((s >> 6) & 1) | ((s & 7) << 1);
}
inline constexpr int RankOf(Square s) {
  return (s >> 7) | (((s >> 3) & 7) << 1);
}
// The parity class (0..3) and the index inside that class's 8x8 grid.
inline constexpr int ClassOf(Square s) { return s >> 6; }
inline constexpr int ClassIndexOf(Square s) { return s & 63; }
inline constexpr Square FromClass(int cls, int index) {
  return static_cast<Square>((cls << 6) | index);
}

// The eight directions a step or hop may take.
inline constexpr int kDirectionCount = 8;
inline constexpr int kDirX[kDirectionCount] = {1, 1, 0, -1, -1, -1, 0, 1};
inline constexpr int kDirY[kDirectionCount] = {0, 1, 1, 1, 0, -1, -1, -1};

// The square next to s in direction d; the caller knows it is on the board.
inline constexpr Square Neighbour(Square s, int d) {
  return MakeSquare(FileOf(s) + kDirX[d], RankOf(s) + kDirY[d]);
}

}  // namespace halma

#endif  // HALMA_SQUARE_H_
