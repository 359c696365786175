#include "halma/game_status.h"

#include "halma/game_state.h"

namespace halma {

GameStatus EvaluateStatus(const Variant& variant, const Position& position) {
  // The rules live in GameState, which the replay and the search update
  // move by move; a position on its own is a state with its tallies
  // counted from scratch.
  return GameState(variant, position).status();
}

const char* DecidingRuleName(DecidingRule rule) {
  switch (rule) {
    case DecidingRule::kNone:
      return "none";
    case DecidingRule::kTargetFilled:
      return "target-filled";
    case DecidingRule::kHomeExit:
      return "home-exit";
    case DecidingRule::kMoveCap:
      return "move-cap";
    case DecidingRule::kEveryoneStuck:
      return "everyone-stuck";
  }
  return "none";
}

}  // namespace halma
