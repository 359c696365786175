#include "halma/bot/levels.h"

namespace halma::bot {
namespace {

// Calibrated by arena matches (docs/bot.md, "Levels"): each level beats
// the one below it.
// clang-format off
constexpr LevelSpec kLevels[kTopLevel] = {
    // level, nodes, depth, beam, pool, temperature
    {1,     1'000,  1, 8, 6, 160},
    {2,     5'000,  2, 8, 3,  48},
    {3,    20'000,  3, 8, 1,   0},
    {4,    60'000,  4, 8, 1,   0},
    {5,   200'000,  6, 8, 1,   0},
    {6,   500'000,  8, 8, 1,   0},
    {7, 1'000'000, 10, 8, 1,   0},
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
