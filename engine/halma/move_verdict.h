// Why a move is illegal (docs/rules.md sections 3, 5 and 7): the verdicts
// of a move check, and their names in answers.
#ifndef HALMA_MOVE_VERDICT_H_
#define HALMA_MOVE_VERDICT_H_

#include <cstdint>

namespace halma {

// Why a move is illegal (docs/rules.md sections 3, 5 and 7).
enum class MoveVerdict : std::uint8_t {
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

const char* MoveVerdictName(MoveVerdict verdict);

}  // namespace halma

#endif  // HALMA_MOVE_VERDICT_H_
