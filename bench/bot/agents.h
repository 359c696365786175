#ifndef HALMA_BENCH_BOT_AGENTS_H_
#define HALMA_BENCH_BOT_AGENTS_H_

#include <cstdint>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "halma/bot/search_state.h"
#include "halma/bot/zobrist.h"
#include "halma/position.h"
#include "halma/variant.h"

namespace halma::arena {

// The seed the arena gives an agent for its move at `ply` (0-based, the
// seeded opening's plies counted) of game `game` (0-based: the records'
// Game tag minus one) of a match run with --seed `match_seed`. A test
// that asks the bot a record's position again gives it the same seed.
inline std::uint64_t MoveSeed(std::uint64_t match_seed, int game, int ply) {
  const std::uint64_t game_seed = bot::SplitMix64(
      match_seed ^ (0xA5A5ULL << 32) ^ static_cast<std::uint64_t>(game));
  return bot::SplitMix64(game_seed ^ (static_cast<std::uint64_t>(ply) << 20));
}

// A move an agent chose, and what it cost.
struct AgentMove {
  bot::BotMove move;
  std::int64_t nodes = 0;
  int depth = 0;
};

// A player of the arena. ChooseMove is called for the side to move of a
// position in progress and must return one of its legal moves (or pass
// when pass is the only move); `seed` is this move's (the game's seed and
// the ply). An agent may keep state between calls (a search workspace),
// so each game thread has its own. A remote agent (another server, over
// --target) implements the same interface.
class Agent {
 public:
  virtual ~Agent() = default;
  virtual absl::StatusOr<AgentMove> ChooseMove(const Variant& variant,
                                               const Position& position,
                                               std::uint64_t seed) = 0;
};

// Agent specifications, as the arena's flags take them:
//   level:N             the bot at level N (halma/bot/levels.h)
//   nodes:N[:depth:beam[:pool:temperature]] the bot with an explicit node
//                        budget (and a weaker level's choice rule)
//   random              a uniformly random legal move
//   greedy              the move that gains the most distance to the target
//                       (ties by seed)
//   distance-ab:D       plain alpha-beta (paranoid with four players) to D
//                       plies, sum of distances as evaluation, moves tried
//                       in order of their gain, no table
//   distance-ab-nodes:N the same, deepening while its nodes stay within N
//                       per move (the equal-nodes match)
//   spoiler             keeps pieces in its home camp as long as the rules
//                       allow, otherwise plays greedy
// Returns an error naming the text when it is none of these.
absl::StatusOr<std::unique_ptr<Agent>> MakeAgent(absl::string_view spec);
// Checks a specification without building the agent.
absl::Status CheckAgentSpec(absl::string_view spec);

}  // namespace halma::arena

#endif  // HALMA_BENCH_BOT_AGENTS_H_
