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
  // Room for the up to eight candidate steps GenerateLegalMoves writes past
  // the last move before it knows which are empty.
  LegalMove moves[kMaxLegalMoves + kDirectionCount];

  const LegalMove* begin() const { return moves; }
  const LegalMove* end() const { return moves + size; }
};

// The most pieces a seat can have: two camps of eight full rows fill a
// 16x16 board.
inline constexpr int kMaxPiecesPerSeat = 128;
// Jump layers of all pieces. A piece has at most one layer per empty square
// of its class, and a class's p pieces and e empty squares give
// p * e <= 1024; pieces flood-filled two at a time may pad up to twice that.
inline constexpr int kMaxLayerWords = 4 * 2 * 1024;

// The legal-move set of one seat in bitboard form, which is how the engine
// computes it: for every piece, the squares one step away and, layer by
// layer, the squares its jump chains reach (layer k holds the destinations
// whose fewest-hop count is k). Each (origin, destination) pair appears once.
struct MoveSet {
  struct Piece {
    Square origin;
    std::uint8_t depth;    // Number of jump layers.
    std::uint16_t first;   // Index of layer 1 in `layers`.
    std::uint16_t stride;  // Distance between its consecutive layers.
    Bitboard steps;
  };
  int piece_count = 0;
  Piece pieces[kMaxPiecesPerSeat];
  // Words of the 8x8 grid of the piece's parity class (see square.h): layer
  // k of a piece is layers[first + (k - 1) * stride].
  std::uint64_t layers[kMaxLayerWords];

  std::uint64_t Layer(const Piece& piece, int k) const {
    return layers[piece.first + (k - 1) * piece.stride];
  }
  // The number of legal moves (distinct origin, destination pairs).
  int Count() const;
  // Calls fn(origin, destination, hops) for every move.
  template <typename Fn>
  void ForEach(Fn&& fn) const {
    for (int p = 0; p < piece_count; ++p) {
      const Piece& piece = pieces[p];
      ForEachSquare(piece.steps, [&](Square to) { fn(piece.origin, to, 0); });
      const int cls = ClassOf(piece.origin);
      for (int k = 1; k <= piece.depth; ++k) {
        for (std::uint64_t w = Layer(piece, k); w != 0; w &= w - 1) {
          fn(piece.origin, FromClass(cls, std::countr_zero(w)), k);
        }
      }
    }
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
