#ifndef HALMA_MOVE_CHECK_H_
#define HALMA_MOVE_CHECK_H_

#include <string>
#include <vector>

#include "halma/notation.h"
#include "halma/position.h"
#include "halma/status.h"
#include "halma/variant.h"

namespace halma {

// Why a move is illegal (docs/rules.md sections 3, 5 and 7).
enum class MoveVerdict {
  kLegal = 0,
  kGameOver,             // The game had already ended.
  kPassNotAllowed,       // `pass` while the seat has a legal move.
  kEmptyOrigin,          // No piece on the origin square.
  kNotYourPiece,         // The origin holds another seat's piece.
  kDestinationOccupied,  // A step or hop lands on an occupied square.
  kNothingToJump,        // A hop over an empty square.
  kNotAHop,              // A leg of a chain is not a hop (a step included:
                         // steps and hops never combine).
  kSquareVisitedTwice,   // A chain returns to a square it visited.
  kLeavesTarget,         // Target lock: lands outside the target camp.
  kUnreachable,          // Shorthand: no legal chain reaches the square.
};

struct MoveCheck {
  MoveVerdict verdict = MoveVerdict::kLegal;
  std::string message;  // Human-readable reason; empty when legal.
  // Legal moves only: the fewest-hop path (empty for `pass`), the hop count,
  // and the position after the move.
  MoveText path;
  int hops = 0;
  Position after;
};

// What CheckMove works out for a legal move besides the position after it.
enum class MoveDetail {
  // `path` and `hops` too: the fewest-hop path that answers show.
  kFewestHopPath,
  // `after` only (`path` empty, `hops` 0): a replay needs no path, so a
  // chain written square by square is checked hop by hop without a search.
  kPositionOnly,
};

// Checks `move` for the side to move of a well-formed position whose
// status is `status` (from EvaluateStatus), and applies it when legal.
// The position must leave room to count the move (CheckRoomForMove).
MoveCheck CheckMove(const Variant& variant, const Position& position,
                    const GameStatus& status, const MoveText& move,
                    MoveDetail detail = MoveDetail::kFewestHopPath);

// Applies a legal move (or pass): moves the piece, counts the move and
// names the next seat still playing. Requires CheckRoomForMove.
Position ApplyMove(const Variant& variant, const Position& position,
                   const MoveText& move);

const char* MoveVerdictName(MoveVerdict verdict);

}  // namespace halma

#endif  // HALMA_MOVE_CHECK_H_
