// The check of one move as written (docs/rules.md sections 3, 4 and 7):
// legal, with the position after it and the fewest-hop path, or illegal,
// with the reason and a message; and ApplyMove for a move known legal.
#ifndef HALMA_MOVE_CHECK_H_
#define HALMA_MOVE_CHECK_H_

#include <string>
#include <vector>

#include "halma/game_status.h"
#include "halma/notation.h"
#include "halma/position.h"
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

// What CheckPathLegs finds.
struct LegCheck {
  MoveVerdict verdict = MoveVerdict::kLegal;
  // When illegal, the leg at fault: 1-based, 0 for the origin itself.
  int failed_leg = 0;
  // Two squares that are neither neighbours nor a hop apart: shorthand
  // for "from here to there by any legal chain" (docs/rules.md section 4),
  // which needs a search (FewestHopPath). Only the origin has been checked
  // then (verdict kLegal means it holds the mover's piece).
  bool shorthand = false;
};

// The verdict CheckMove gives a move written square by square, for
// `mover` in the position whose pieces `board` holds, leg by leg with
// single-square tests, in the order of docs/rules.md section 7: a step (two
// neighbouring squares), a single hop (two squares two apart on a rank,
// file or diagonal) or a chain (three or more squares, each leg checked as
// a hop exactly as written). `count` >= 2, squares on the board. Checks
// nothing about the game being over or `pass`. CheckMove and the record
// replay (through GameState::CheckPath) both judge paths with it.
LegCheck CheckPathLegs(const Variant& variant, Seat mover, const Mailbox& board,
                       const Square* squares, int count);

// Applies a legal move (or pass): moves the piece, counts the move and
// names the next seat still playing. Requires CheckRoomForMove.
Position ApplyMove(const Variant& variant, const Position& position,
                   const MoveText& move);

const char* MoveVerdictName(MoveVerdict verdict);

}  // namespace halma

#endif  // HALMA_MOVE_CHECK_H_
