#ifndef HALMA_BOT_SCORE_UNITS_H_
#define HALMA_BOT_SCORE_UNITS_H_

#include <algorithm>

namespace halma::bot {

// The unit of the search's values: 16 per square of distance to the
// target corner (EvalWeights::distance).
inline constexpr int kEvalUnitsPerSquare = 16;

// The squares of distance a seat gains per turn on average, by board size,
// so that a distance converts to an estimate in turns: an approximation
// (docs/bot.md, "Scores"), not yet fitted to the bot's self-play.
double SquaresPerTurn(int board_size);

// The turns a seat still needs by that estimate: its distance to go over
// the squares per turn, and at least one per piece outside the target.
inline double TurnsNeeded(int distance_to_go, int pieces_outside,
                          int board_size) {
  return std::max<double>(pieces_outside,
                          distance_to_go / SquaresPerTurn(board_size));
}

}  // namespace halma::bot

#endif  // HALMA_BOT_SCORE_UNITS_H_
