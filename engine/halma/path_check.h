// The check of a move written square by square, leg by leg (docs/rules.md
// sections 3 and 7): CheckPathLegs, inline because the record replay runs
// it on every ply, and the square tables it reads.
#ifndef HALMA_PATH_CHECK_H_
#define HALMA_PATH_CHECK_H_

#include <array>
#include <cstdint>

#include "halma/bitboard.h"
#include "halma/move_masks.h"
#include "halma/move_verdict.h"
#include "halma/position.h"
#include "halma/seat.h"
#include "halma/square.h"
#include "halma/variant.h"

namespace halma {

// What CheckPathLegs finds (four bytes, returned in a register).
struct LegCheck {
  MoveVerdict verdict = MoveVerdict::kLegal;
  // Two squares that are neither neighbours nor a hop apart: shorthand
  // for "from here to there by any legal chain" (docs/rules.md section 4),
  // which needs a search (FewestHopPath). Only the origin has been checked
  // then (verdict kLegal means it holds the mover's piece).
  bool shorthand = false;
  // When illegal, the leg at fault: 1-based, 0 for the origin itself (a
  // legal chain has at most 63 legs; a longer one fails by then).
  std::int16_t failed_leg = 0;
};

namespace path_check_internal {

inline bool AreNeighbours(Square a, Square b) {
  return kStepSquares[a].Test(b);
}

// A hop stays in its parity class, where it is a king move of one grid
// square (square.h). kGridHop[a][b]: for grid squares a and b of one class,
// the index k = (dy + 1) * 3 + (dx + 1) of the move from a to b (dx, dy in
// -1..1), or -1 when b is not next to a (or is a).
constexpr std::array<std::array<std::int8_t, 64>, 64> MakeGridHops() {
  std::array<std::array<std::int8_t, 64>, 64> t{};
  for (int a = 0; a < 64; ++a) {
    for (int b = 0; b < 64; ++b) {
      const int dx = (b & 7) - (a & 7);
      const int dy = (b >> 3) - (a >> 3);
      const bool next = dx >= -1 && dx <= 1 && dy >= -1 && dy <= 1 && a != b;
      t[a][b] = static_cast<std::int8_t>(next ? (dy + 1) * 3 + (dx + 1) : -1);
    }
  }
  return t;
}
inline constexpr auto kGridHop = MakeGridHops();

// kOverSquare[s][k]: the square a hop from s jumps over, for the grid move
// k of kGridHop (k = 4 is no move). Entries that would leave the 16x16
// frame are never used (their landing square would be off it).
constexpr std::array<std::array<Square, 9>, kSquareCount> MakeOverSquares() {
  std::array<std::array<Square, 9>, kSquareCount> t{};
  for (int s = 0; s < kSquareCount; ++s) {
    const Square square = static_cast<Square>(s);
    for (int k = 0; k < 9; ++k) {
      const int x = FileOf(square) + k % 3 - 1;
      const int y = RankOf(square) + k / 3 - 1;
      const bool inside =
          x >= 0 && y >= 0 && x < kMaxBoardSize && y < kMaxBoardSize;
      t[s][k] = inside ? MakeSquare(x, y) : square;
    }
  }
  return t;
}
inline constexpr auto kOverSquare = MakeOverSquares();

// kHopOver.over[a][b]: the square a hop from a to b jumps over, when b is a hop
// away from a (two squares along a rank, file or diagonal, on the 16x16
// frame), else a itself (never the square a hop jumps over): one load for
// a chain's every leg. 64 KiB, of which a board's moves touch the rows of
// their own squares.
struct HopOverTable {
  Square over[kSquareCount][kSquareCount];
};
// Written with plain loops and subscripts: clang's constant evaluation
// counts steps, and 64 Ki entries through std::array's operator[] exceed
// its limit.
constexpr HopOverTable MakeHopOver() {
  HopOverTable t{};
  for (int a = 0; a < kSquareCount; ++a) {
    for (int b = 0; b < kSquareCount; ++b)
      t.over[a][b] = static_cast<Square>(a);
  }
  for (int a = 0; a < kSquareCount; ++a) {
    const Square from = static_cast<Square>(a);
    for (int dy = -1; dy <= 1; ++dy) {
      for (int dx = -1; dx <= 1; ++dx) {
        const int x = FileOf(from) + 2 * dx;
        const int y = RankOf(from) + 2 * dy;
        if ((dx == 0 && dy == 0) || x < 0 || y < 0 || x >= kMaxBoardSize ||
            y >= kMaxBoardSize) {
          continue;
        }
        t.over[a][MakeSquare(x, y)] =
            MakeSquare(FileOf(from) + dx, RankOf(from) + dy);
      }
    }
  }
  return t;
}
inline constexpr auto kHopOver = MakeHopOver();

// The grid move index of a hop from `at` to `to` (see kGridHop), or -1
// when `to` is no hop away: another class, the same square, or more than
// one grid square away.
inline int HopOffset(Square at, Square to) {
  if (ClassOf(at) != ClassOf(to)) return -1;
  return kGridHop[ClassIndexOf(at)][ClassIndexOf(to)];
}

inline LegCheck Fails(MoveVerdict verdict, int leg) {
  return {verdict, false, static_cast<std::int16_t>(leg)};
}

}  // namespace path_check_internal

// The verdict CheckMove gives a move written square by square, for
// `mover` in the position whose pieces `board` holds, leg by leg with
// single-square tests, in the order of docs/rules.md section 7: a step (two
// neighbouring squares), a single hop (two squares two apart on a rank,
// file or diagonal) or a chain (three or more squares, each leg checked as
// a hop exactly as written). `count` >= 2, squares on the board. Checks
// nothing about the game being over or `pass`. CheckMove and the record
// replay (through GameState::CheckPath) both judge paths with it.
[[gnu::always_inline]] inline LegCheck CheckPathLegs(const Variant& variant,
                                                     Seat mover,
                                                     const Mailbox& board,
                                                     const Square* squares,
                                                     int count) {
  using path_check_internal::Fails;
  using path_check_internal::kHopOver;
  const unsigned origin = squares[0];
  if (!board.Occupied(origin)) return Fails(MoveVerdict::kEmptyOrigin, 0);
  if (!board.Holds(origin, mover)) return Fails(MoveVerdict::kNotYourPiece, 0);
  const bool lock = variant.spec.target_lock;
  const Bitboard& target = variant.TargetCamp(mover);
  if (count == 2) {
    // A step, a single hop, or shorthand.
    const unsigned to = squares[1];
    const unsigned over = kHopOver.over[origin][to];
    if (over != origin) {
      if (!board.Occupied(over)) return Fails(MoveVerdict::kNothingToJump, 1);
    } else if (to == origin) {
      return Fails(MoveVerdict::kSquareVisitedTwice, 1);
    } else if (!path_check_internal::AreNeighbours(origin, to)) {
      // A step changes the parity class and a hop keeps it: two squares
      // that are neither are shorthand.
      return {MoveVerdict::kLegal, /*shorthand=*/true, 0};
    }
    if (board.Occupied(to)) return Fails(MoveVerdict::kDestinationOccupied, 1);
    // Target lock: from inside the target camp to outside it.
    if (lock && ((variant.camps_at[origin] & ~variant.camps_at[to]) >>
                 static_cast<int>(TargetCorner(mover))) &
                    1) {
      return Fails(MoveVerdict::kLeavesTarget, 1);
    }
    return {};
  }
  // A chain, hop by hop exactly as written. Every landing square is in the
  // origin's class, so a square of another class is no hop away and the
  // squares visited and the target camp are bits of one grid word. The
  // jumped squares are of other classes, so the origin, which counts as
  // empty once the piece has left it, is never one of them.
  const std::uint64_t target_here = lock ? target.word[origin >> 6] : 0;
  const std::uint8_t* const cells = board.seat_plus_one;
  unsigned at = origin;
  std::uint64_t visited = std::uint64_t{1} << (origin & 63);
  bool in_target = (target_here >> (origin & 63)) & 1;
  for (int i = 1; i < count; ++i) {
    const unsigned to = squares[i];
    const unsigned over = kHopOver.over[at][to];
    if (over == at) {
      // No hop: a square of another class or not next to `at` on the
      // class's grid, or `at` itself (visited).
      const bool same_class = ((to ^ origin) & 0xc0) == 0;
      return Fails(same_class && ((visited >> (to & 63)) & 1)
                       ? MoveVerdict::kSquareVisitedTwice
                       : MoveVerdict::kNotAHop,
                   i);
    }
    // A hop away, so of the origin's class: a bit of its grid word.
    const std::uint64_t to_bit = std::uint64_t{1} << (to & 63);
    if (visited & to_bit) return Fails(MoveVerdict::kSquareVisitedTwice, i);
    if (cells[over] == 0) return Fails(MoveVerdict::kNothingToJump, i);
    if (cells[to] != 0) return Fails(MoveVerdict::kDestinationOccupied, i);
    // Target lock (target_here is 0 without it).
    if (target_here & to_bit) {
      in_target = true;
    } else if (in_target) {
      return Fails(MoveVerdict::kLeavesTarget, i);
    }
    visited |= to_bit;
    at = to;
  }
  return {};
}

}  // namespace halma

#endif  // HALMA_PATH_CHECK_H_
