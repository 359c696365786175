#include "halma/bot/levels.h"

namespace halma::bot {
namespace {

// Calibrated by arena matches on brainking-10x10 (docs/bot.md, "Levels"):
// each level beats the one below it in 68.0-88.5% of 200 games. Levels 1-3
// look one ply ahead and pick among the best moves at decreasing
// temperatures; level 4 plays the one-ply best; level 5 looks three plies
// ahead with a little choice; levels 6-8 search deeper and play the best.
// clang-format off
constexpr LevelSpec kLevels[kTopLevel] = {
    // level, nodes, depth, beam, pool, temperature
    {1,     1'000,  1, 8, 6, 160},
    {2,     1'000,  1, 8, 4,  80},
    {3,     1'000,  1, 8, 3,  40},
    {4,     1'000,  1, 8, 1,   0},
    {5,    20'000,  3, 8, 3,  24},
    {6,    30'000,  4, 8, 1,   0},
    {7,   100'000,  5, 8, 1,   0},
    {8, 2'000'000, 12, 8, 1,   0},
};
// clang-format on

}  // namespace

const LevelSpec& LevelSpecOf(int level) {
  if (level < kMinLevel) level = kMinLevel;
  if (level > kTopLevel) level = kTopLevel;
  return kLevels[level - kMinLevel];
}

}  // namespace halma::bot
