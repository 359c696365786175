#include "halma/bot/levels.h"

namespace halma::bot {
namespace {

// Calibrated by arena matches (docs/bot.md, "Levels"): each level beats
// the one below it.
constexpr LevelSpec kLevels[kTopLevel] = {
    // level, nodes, depth, beam, pool, temperature
    {1, 2'000, 1, 8, 6, 160},      {2, 20'000, 2, 8, 3, 48},
    {3, 100'000, 3, 8, 1, 0},      {4, 400'000, 4, 10, 1, 0},
    {5, 1'500'000, 6, 12, 1, 0},   {6, 5'000'000, 8, 12, 1, 0},
    {7, 15'000'000, 10, 14, 1, 0}, {8, 40'000'000, 12, 16, 1, 0},
};

}  // namespace

const LevelSpec& LevelSpecOf(int level) {
  if (level < kMinLevel) level = kMinLevel;
  if (level > kTopLevel) level = kTopLevel;
  return kLevels[level - kMinLevel];
}

}  // namespace halma::bot
