#ifndef HALMA_BOT_CAMP_ESCAPE_H_
#define HALMA_BOT_CAMP_ESCAPE_H_

#include "halma/bitboard.h"
#include "halma/square.h"

namespace halma::bot {

// Whether the piece on `from` can still get out of `camp` on a board of
// side `board_size` by moves of its own alone: steps to empty squares and
// hops over occupied squares to empty ones (docs/rules.md section 3), turn
// after turn, every other piece of `occupied` staying where it stands.
//
// A camp is an opponent's way home: a piece of one seat walled in in the
// target camp of another, with no way out, keeps both from ever finishing
// (docs/rules.md section 5, rule 1), and target lock keeps the wall's
// pieces from ever making room (docs/bot.md, "Games end"). Allocation-free:
// a flood over at most the camp's squares.
bool CanLeaveCamp(int board_size, const Bitboard& occupied,
                  const Bitboard& camp, Square from);

}  // namespace halma::bot

#endif  // HALMA_BOT_CAMP_ESCAPE_H_
