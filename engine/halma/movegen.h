#ifndef HALMA_MOVEGEN_H_
#define HALMA_MOVEGEN_H_

#include <cstdint>

#include "halma/bitboard.h"
#include "halma/position.h"
#include "halma/square.h"
#include "halma/variant.h"

namespace halma {

// One legal move of a position: a distinct (origin, destination) pair and
// the fewest hops that reach it (0 for a step).
struct LegalMove {
  Square origin;
  Square destination;
  std::uint8_t hops;
};

// Upper bound on the legal moves of any position of any variant: a piece has
// at most 8 steps plus one jump per empty square of its parity class, and in
// a class p pieces and e empty squares share 64 squares (p * e <= 1024).
inline constexpr int kMaxLegalMoves = 4 * 1024 + 8 * 128;
// A jump chain visits distinct squares of one parity class.
inline constexpr int kMaxPathSquares = 64;

// Fixed-capacity list so that generation never touches the heap.
struct MoveList {
  int size = 0;
  LegalMove moves[kMaxLegalMoves];

  const LegalMove* begin() const { return moves; }
  const LegalMove* end() const { return moves + size; }
};

// Per-position data the jump closure reuses for every piece: for each parity
// class and direction, the squares from which a hop that way has a piece to
// jump over, and the empty squares a hop may land on.
struct JumpBoard {
  std::uint64_t jumpable[4][kDirectionCount];
  std::uint64_t empty[4];
  Bitboard empty_squares;
  explicit JumpBoard(const Variant& variant, const Position& position);
};

// Options for generation.
struct MoveFilter {
  bool only_origin = false;
  Square origin = 0;
};

// All legal moves of `seat` in `position` (not counting `pass`), in no
// particular order. Respects target lock. Allocation-free.
void GenerateLegalMoves(const Variant& variant, const Position& position,
                        Seat seat, MoveList* list,
                        MoveFilter filter = MoveFilter{});

// True when `seat` has any legal move other than `pass`.
bool HasLegalMove(const Variant& variant, const Position& position, Seat seat);

// The fewest-hop path from `origin` to `destination` for the piece standing
// on `origin` (steps included: a neighbour gives a two-square path). Writes
// the squares to `path` and returns their count, or 0 when no legal move
// goes there. `ignore_target_lock` reports reachability as if the lock were
// off, which lets a validator tell "unreachable" from "leaves the target".
int FewestHopPath(const Variant& variant, const Position& position,
                  Square origin, Square destination,
                  Square path[kMaxPathSquares],
                  bool ignore_target_lock = false);

// A fewest-hop path for every move of a MoveList: the squares of move i are
// squares[offset[i]] .. squares[offset[i + 1] - 1], origin first. Large
// (about 350 KB): allocate once and reuse.
struct MovePaths {
  int offset[kMaxLegalMoves + 1];
  Square squares[kMaxLegalMoves * kMaxPathSquares];

  int Length(int i) const { return offset[i + 1] - offset[i]; }
  const Square* Path(int i) const { return squares + offset[i]; }
};

// Like GenerateLegalMoves, and also one fewest-hop path per move.
void GenerateLegalMovesWithPaths(const Variant& variant,
                                 const Position& position, Seat seat,
                                 MoveList* list, MovePaths* paths,
                                 MoveFilter filter = MoveFilter{});

// Orders moves by origin (file, then rank) and destination (file, then rank),
// the order answers present them in.
void SortMoves(MoveList* list);
bool MoveOrder(const LegalMove& a, const LegalMove& b);

}  // namespace halma

#endif  // HALMA_MOVEGEN_H_
