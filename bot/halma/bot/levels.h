#ifndef HALMA_BOT_LEVELS_H_
#define HALMA_BOT_LEVELS_H_

#include <cstdint>

namespace halma::bot {

// A strength level: how much the search may do and how it picks among the
// best moves (docs/bot.md, "Levels"). Everything here is counted, never
// timed, so a level's answer is the same on every machine.
struct LevelSpec {
  int level;
  // Nodes (docs/bot.md, "What a node is") the search may visit.
  std::int64_t node_budget;
  // Deepest iteration, in plies (a four-player opponent round is one ply).
  int depth_limit;
  // Moves searched at a node below the root: the best `beam` by the
  // evaluation's gain (plus the table's and the killer moves).
  int beam;
  // Weaker levels choose among the `choice_pool` best root moves, each
  // with weight max(0, temperature - (best - score)) (evaluation units,
  // 16 per square of distance): 1 or 0 keeps the best.
  int choice_pool;
  int temperature;
};

inline constexpr int kMinLevel = 1;
inline constexpr int kTopLevel = 8;
// The level a caller gets when it asks for none.
inline constexpr int kDefaultLevel = 7;

// The spec of `level` (kMinLevel..kTopLevel).
const LevelSpec& LevelSpecOf(int level);

}  // namespace halma::bot

#endif  // HALMA_BOT_LEVELS_H_
