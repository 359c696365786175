#ifndef HALMA_BOT_EVAL_TABLES_H_
#define HALMA_BOT_EVAL_TABLES_H_

#include <cstdint>

#include "halma/bitboard.h"
#include "halma/seat.h"
#include "halma/square.h"
#include "halma/variant.h"

namespace halma::bot {

// The weights of the evaluation (docs/bot.md, "How it plays"). Plain
// integers, so that an evaluation is exact and the same on every machine.
struct EvalWeights {
  // Cost of one square of distance to the target corner.
  int distance = 16;
  // Extra cost of a piece left behind: straggler * (V - V0)^2 / 16 for a
  // piece at distance V outside the target camp, V0 the distance of the
  // camp's first outer ring. Convex, so that the last pieces move up.
  int straggler = 3;
  // Cost per square of sideways distance from the board's main diagonal
  // outside the target camp: pieces on the diagonal have more jump lanes
  // and the camps are centred on it.
  int lateral = 2;
  // A piece still in its home camp after the grace (a share of the board
  // size, in its seat's moves) costs home_per_move per move since, for
  // each king step it still needs to get out of the camp (the Ludii
  // failure of the issue: a side that keeps pieces at home walls itself in
  // and blocks its opponent for good).
  int home_grace_percent = 50;
  int home_per_move = 12;
  // Under the home-exit rule (docs/rules.md section 5, rule 2): the cost
  // of each piece at home beyond what the moves left can still evacuate,
  // with a margin of `exit_margin` moves.
  int exit_urgency = 256;
  int exit_margin = 4;
};

// Per-variant tables of the evaluation, by seat and square (docs/bot.md).
//
// `distance[s][sq]` is the distance V of square sq for seat s: inside s's
// target camp, the Manhattan distance to the target corner (so pieces go
// deep and leave the camp's mouth free); outside, at least one more than
// the deepest camp square plus the king-step distance to the camp minus
// one, and at least the Manhattan distance to the corner. Every camp square
// is thus nearer than every square outside it, whatever the camp's shape,
// so the only arrangement with the least total distance is the filled
// camp. `cost[s][sq]` is what the evaluation charges for a piece there:
// distance, straggler and lateral terms.
struct EvalTables {
  EvalWeights weights;
  int board_size = 0;
  int pieces_per_seat = 0;
  // The least total distance a seat can have: its pieces filling the camp.
  int min_distance_sum = 0;
  std::int16_t distance[kMaxSeats][kSquareCount] = {};
  std::int32_t cost[kMaxSeats][kSquareCount] = {};
  // The plain Manhattan distance to the target corner.
  std::uint8_t corner_distance[kMaxSeats][kSquareCount] = {};
  std::int32_t min_cost_sum[kMaxSeats] = {};
  // King steps from a home camp square to the nearest square outside the
  // camp (0 outside it).
  std::uint8_t exit_steps[kMaxSeats][kSquareCount] = {};
  // The neighbours of a square nearer the seat's target (smaller distance).
  Bitboard forward[kMaxSeats][kSquareCount];
  Bitboard target[kMaxSeats];
  // The target camp and the squares within two king steps of it.
  Bitboard target_zone[kMaxSeats];
  Bitboard home[kMaxSeats];

  // The grace (in the seat's own moves) before pieces at home cost extra.
  int home_grace = 0;
};

// Builds the tables of `variant` with `weights`.
void BuildEvalTables(const Variant& variant, const EvalWeights& weights,
                     EvalTables* tables);

// What one king step still to go out of the home camp costs a seat that
// has made `moves` moves.
std::int32_t HomeRate(const EvalTables& tables, std::int64_t moves);
// Under the home-exit rule (`exit_limit` > 0): what `at_home` pieces still
// in the home camp cost a seat that has made `moves` moves.
std::int32_t ExitUrgency(const EvalTables& tables, int exit_limit, int at_home,
                         std::int64_t moves);
// Both: `exit_steps` is the sum of exit_steps over the seat's pieces.
inline std::int32_t HomePenalty(const EvalTables& tables, int exit_limit,
                                int at_home, int exit_steps,
                                std::int64_t moves) {
  return HomeRate(tables, moves) * exit_steps +
         ExitUrgency(tables, exit_limit, at_home, moves);
}

}  // namespace halma::bot

#endif  // HALMA_BOT_EVAL_TABLES_H_
