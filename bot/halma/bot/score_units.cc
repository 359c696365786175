#include "halma/bot/score_units.h"

namespace halma::bot {

double SquaresPerTurn(int board_size) {
  // About one fifth of the board side (docs/bot.md, "Scores").
  return std::max(1.0, board_size / 5.0);
}

}  // namespace halma::bot
