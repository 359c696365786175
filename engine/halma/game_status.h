// The status of a position (docs/rules.md sections 5 and 6): in progress
// (whose turn, round-completion turn, must pass) or over (winners, the
// deciding rule), worked out from the position alone by EvaluateStatus.
#ifndef HALMA_GAME_STATUS_H_
#define HALMA_GAME_STATUS_H_

#include <cstdint>

#include "halma/position.h"
#include "halma/seat.h"
#include "halma/variant.h"

namespace halma {

// The rule of docs/rules.md section 5 that ended a game.
enum class DecidingRule : std::uint8_t {
  kNone = 0,
  kTargetFilled,  // Including results of round completion.
  kHomeExit,      // A loss, or in four-player games the last seat standing.
  kMoveCap,
  kEveryoneStuck,
};

// The status of a position (docs/rules.md section 6).
struct GameStatus {
  bool over = false;
  // In progress: whose turn it is, whether the turn is one that round
  // completion grants after another seat finished, and whether that seat
  // has no legal move but `pass`.
  Seat to_move = Seat::kW;
  bool round_completion_turn = false;
  bool must_pass = false;
  // Over: the winners (one seat) or the drawn seats (several), and the rule.
  SeatSet winners;
  DecidingRule rule = DecidingRule::kNone;
  // Seats whose pieces all stand in their target camp, and (four-player
  // games) seats eliminated by the home-exit rule.
  SeatSet finished;
  SeatSet eliminated;

  bool IsDraw() const { return over && winners.Count() > 1; }
};

// The status of a well-formed position: section 5's checks as they stand
// after the last counted move, made by the seat before the side to move.
// With no move counted yet, only the checks that do not concern a last move
// apply (move cap, everyone stuck).
GameStatus EvaluateStatus(const Variant& variant, const Position& position);

const char* DecidingRuleName(DecidingRule rule);

}  // namespace halma

#endif  // HALMA_GAME_STATUS_H_
