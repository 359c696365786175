// Perft: the number of distinct move sequences of a given depth from a
// position, optionally split by first move.
#ifndef HALMA_PERFT_H_
#define HALMA_PERFT_H_

#include <cstdint>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "halma/position.h"
#include "halma/square.h"
#include "halma/variant.h"

namespace halma {

// The count of one first move, for a perft split by first move.
struct PerftFirstMove {
  bool is_pass = false;
  Square origin = 0;  // Unset for pass.
  Square destination = 0;
  std::uint64_t nodes = 0;
};

struct PerftResult {
  std::uint64_t nodes = 0;
  // Only when asked for: one entry per legal first move (or the single
  // pass), in the order of LegalMoves (origin, then destination, each file
  // first, then rank); their nodes sum to `nodes`. Empty at depth 0 and
  // for a finished game.
  std::vector<PerftFirstMove> first_moves;
};

// The deepest perft accepted at all (a server sets a lower limit).
inline constexpr int kMaxPerftDepth = 64;

// The number of distinct move sequences of `depth` plies from a well-formed
// `position`: each ply's moves are the legal moves of the position it is
// played in (distinct origin-destination pairs, or the single pass when the
// seat to move has none); a finished game has none. Depth 0 counts 1.
// Counts the last ply in bulk. Calls `checkpoint` now and then (at most
// every few milliseconds of work): a non-OK status stops the count and is
// returned. A count past 2^64 - 1 is OUT_OF_RANGE; a depth outside
// 0..kMaxPerftDepth is INVALID_ARGUMENT, and so is a count that would play
// a move of a seat that has already made kMaxMoveCount moves
// (CheckRoomForMove; its moves are still counted at the last ply).
// Allocates one MoveSet (about 270 KB) per ply of depth up front and
// nothing in the count itself.
absl::StatusOr<PerftResult> Perft(const Variant& variant,
                                  const Position& position, int depth,
                                  bool split_by_first_move,
                                  absl::FunctionRef<absl::Status()> checkpoint);

}  // namespace halma

#endif  // HALMA_PERFT_H_
