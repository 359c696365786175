// Legal-move generation (docs/rules.md section 3): the move set in bitboard
// form, the move list with fewest hops and paths, HasLegalMove,
// FewestHopPath, and the order answers list moves in.
#ifndef HALMA_MOVEGEN_H_
#define HALMA_MOVEGEN_H_

#include <algorithm>
#include <bit>
#include <cstdint>

#include "halma/bitboard.h"
#include "halma/flood_fill.h"
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
  // Room for the up to eight candidate steps GenerateLegalMoves writes past
  // the last move before it knows which are empty.
  LegalMove moves[kMaxLegalMoves + kDirectionCount];

  const LegalMove* begin() const { return moves; }
  const LegalMove* end() const { return moves + size; }
};

// The most pieces a seat can have: two camps of eight full rows fill a
// 16x16 board.
inline constexpr int kMaxPiecesPerSeat = 128;
// Jump layers of all pieces, flood-filled several at a time (flood_fill.h):
// a group stores one word per lane per layer of its deepest piece, so with
// up to eight lanes at most eight times the sum over pieces of
// (layers + 1). A piece has at most one layer per empty square of its
// class, and a class's p pieces and e empty squares give p * e <= 1024.
// (Boards up to 10x10 may run twelve or sixteen lanes a group, but their
// classes have at most 25 squares, p * e <= 156.)
inline constexpr int kMaxLayerWords = 8 * (4 * 1024 + kMaxPiecesPerSeat);

// The legal-move set of one seat in bitboard form, which is how the engine
// computes it: the steps of all pieces as one mask per parity class and
// direction, and for every piece that can jump, layer by layer, the squares
// its jump chains reach (layer k holds the destinations whose fewest-hop
// count is k). Each (origin, destination) pair appears once.
struct MoveSet {
  // One piece that can jump, as ForEachJumper hands it out.
  struct Jumper {
    Square origin;
    // Layers stored. The piece was flood-filled with others, as deep as
    // the deepest of them, so its last layers may be empty.
    int depth;
    int stride;                  // Words between its consecutive layers.
    const std::uint64_t* first;  // Its layer 1.

    std::uint64_t Layer(int k) const { return first[(k - 1) * stride]; }
  };
  // steps[d][c]: the pieces of class c (bits of its 8x8 grid, see
  // square.h) whose neighbour in direction d is a legal step.
  std::uint64_t steps[kDirectionCount][4];
  // The pieces that can jump, in flood-fill order: piece j stands on bit
  // jumper_bits[j] of the grid of class jumper_classes[j]. Past the last
  // piece, idle lanes (bit 0) fill the last group.
  int jumper_count = 0;
  std::uint64_t jumper_bits[kMaxPiecesPerSeat + kMaxFloodFillLanes];
  std::uint8_t jumper_classes[kMaxPiecesPerSeat + kMaxFloodFillLanes];
  // The flood-fill groups (flood_fill.h) that hold their layers.
  int group_count = 0;
  FloodFillGroupInfo groups[kMaxPiecesPerSeat / 4];
  // Words of the 8x8 grid of the piece's parity class.
  std::uint64_t layers[kMaxLayerWords];

  // Calls fn(jumper) for every piece that can jump.
  template <typename Fn>
  void ForEachJumper(Fn&& fn) const {
    for (int g = 0; g < group_count; ++g) {
      const FloodFillGroupInfo& group = groups[g];
      const int end = std::min(jumper_count, group.first_piece + group.lanes);
      for (int j = group.first_piece; j < end; ++j) {
        const int lane = j - group.first_piece;
        fn(Jumper{
            FromClass(jumper_classes[j], std::countr_zero(jumper_bits[j])),
            group.depth, group.lanes, layers + group.first_word + lane});
      }
    }
  }
  // The number of legal moves (distinct origin, destination pairs).
  int Count() const;
  // Calls fn(origin, destination, hops) for every move.
  template <typename Fn>
  void ForEach(Fn&& fn) const {
    for (int d = 0; d < kDirectionCount; ++d) {
      for (int c = 0; c < 4; ++c) {
        for (std::uint64_t w = steps[d][c]; w != 0; w &= w - 1) {
          const Square origin = FromClass(c, std::countr_zero(w));
          fn(origin, Neighbour(origin, d), 0);
        }
      }
    }
    ForEachJumper([&fn](const Jumper& jumper) {
      const int cls = ClassOf(jumper.origin);
      for (int k = 1; k <= jumper.depth; ++k) {
        for (std::uint64_t w = jumper.Layer(k); w != 0; w &= w - 1) {
          fn(jumper.origin, FromClass(cls, std::countr_zero(w)), k);
        }
      }
    });
  }
};

// Restricts generation to the piece on one square.
struct MoveFilter {
  bool only_origin = false;
  Square origin = 0;
};

// The legal-move set of `seat` in `position` (not counting `pass`). Respects
// target lock. Allocation-free: this is the engine's hot path.
void GenerateMoveSet(const Variant& variant, const Position& position,
                     Seat seat, MoveSet* set, MoveFilter filter = MoveFilter{});

// The same set as a list of moves, in no particular order. Allocation-free.
void GenerateLegalMoves(const Variant& variant, const Position& position,
                        Seat seat, MoveList* list,
                        MoveFilter filter = MoveFilter{});

// True when `seat` has any legal move other than `pass`.
bool HasLegalMove(const Variant& variant, const Position& position, Seat seat);

// A legal step of `seat` in `position` (whose pieces `occupied` holds), if
// it has one: its origin and destination, the first in a fixed order. A
// step stays legal as long as its origin holds the seat's piece and its
// destination is empty (target lock depends on those two squares alone),
// so a caller may keep one as a witness that the seat can move.
bool FindStep(const Variant& variant, const Position& position,
              const Bitboard& occupied, Seat seat, Square* origin,
              Square* destination);

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
