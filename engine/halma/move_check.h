// The check of one move as written (docs/rules.md sections 3, 4 and 7):
// legal, with the position after it and the fewest-hop path, or illegal,
// with the reason and a message; and ApplyMove for a move known legal.
#ifndef HALMA_MOVE_CHECK_H_
#define HALMA_MOVE_CHECK_H_

#include <cstdint>
#include <string>
#include <vector>

#include "halma/game_status.h"
#include "halma/move_verdict.h"
#include "halma/notation.h"
#include "halma/path_check.h"
#include "halma/position.h"
#include "halma/variant.h"

namespace halma {

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

}  // namespace halma

#endif  // HALMA_MOVE_CHECK_H_
