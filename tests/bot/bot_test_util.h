// Helpers of the bot's tests: the variants they cover and positions from
// random playouts of each (through the engine, tests/engine/test_util.h).
#ifndef HALMA_TESTS_BOT_BOT_TEST_UTIL_H_
#define HALMA_TESTS_BOT_BOT_TEST_UTIL_H_

#include <random>
#include <string>
#include <vector>

#include "halma/bot/search_state.h"
#include "halma/game_status.h"
#include "halma/movegen.h"
#include "halma/position.h"
#include "halma/variant.h"
#include "tests/engine/test_util.h"

namespace halma::bot_test {

using testing_util::Custom;
using testing_util::Preset;
using testing_util::Spec;

struct NamedVariant {
  std::string name;
  Variant variant;
};

// Every preset, and custom variants that turn on every rule of
// docs/rules.md (boards 4 to 16, two and four seats, odd camps, home-exit
// limits, round completion, target lock, move caps).
inline std::vector<NamedVariant> Variants() {
  std::vector<NamedVariant> out;
  for (const std::string& name : PresetNames()) {
    out.push_back({name, Preset(name)});
  }
  out.push_back({"4x4 one piece", Custom(Spec(4, 2, {1}))});
  out.push_back({"6x6 exit 8 round", Custom(Spec(6, 2, {3, 2, 1}, 8, true))});
  out.push_back(
      {"7x7 4p lock cap 30", Custom(Spec(7, 4, {2, 1}, 0, false, true, 30))});
  out.push_back({"12x12 4p exit 20 round lock",
                 Custom(Spec(12, 4, {4, 3, 2, 1}, 20, true, true))});
  out.push_back({"16x16 camp 8,1", Custom(Spec(16, 2, {8, 1}))});
  out.push_back({"9x9 square camps lock cap 40",
                 Custom(Spec(9, 2, {4, 4, 4, 4}, 0, false, true, 40))});
  return out;
}

// Positions of random playouts (mostly moves that gain distance, so that
// games reach their ends), the start included; finished ones too.
inline std::vector<Position> Playouts(const Variant& variant, int games,
                                      int plies, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<Position> out;
  for (int g = 0; g < games; ++g) {
    std::vector<Position> game = testing_util::RandomGame(
        variant, StartPosition(variant), plies, &rng, 0.8);
    out.insert(out.end(), game.begin(), game.end());
  }
  return out;
}

// The move that leads from `before` to `after` (consecutive positions).
inline bot::BotMove MoveBetween(const Position& before, const Position& after) {
  const int i = SeatIndex(before.to_move);
  const Bitboard from = before.pieces[i] & ~after.pieces[i];
  const Bitboard to = after.pieces[i] & ~before.pieces[i];
  if (!from.Any()) return bot::BotMove::Pass();
  bot::BotMove move;
  ForEachSquare(from, [&](Square s) { move.origin = s; });
  ForEachSquare(to, [&](Square s) { move.destination = s; });
  return move;
}

// Whether the piece of `seat` on `from` can get out of `camp` by moves of
// its own alone, every other piece staying put: the engine's legal moves
// of that piece, followed square by square (every landing of a jump chain
// is a legal destination of its own, so a chain through a square outside
// the camp shows that square).
inline bool CanGetOutByItsOwnMoves(const Variant& variant,
                                   const Position& position, Seat seat,
                                   Square from, const Bitboard& camp) {
  Position at = position;
  at.to_move = seat;
  at.pieces[SeatIndex(seat)].Clear(from);
  std::vector<Square> queue = {from};
  Bitboard seen;
  seen.Set(from);
  MoveList list;
  for (std::size_t i = 0; i < queue.size(); ++i) {
    Position here = at;
    here.pieces[SeatIndex(seat)].Set(queue[i]);
    MoveFilter filter;
    filter.only_origin = true;
    filter.origin = queue[i];
    GenerateLegalMoves(variant, here, seat, &list, filter);
    for (const LegalMove& m : list) {
      if (!camp.Test(m.destination)) return true;
      if (!seen.Test(m.destination)) {
        seen.Set(m.destination);
        queue.push_back(m.destination);
      }
    }
  }
  return false;
}

}  // namespace halma::bot_test

#endif  // HALMA_TESTS_BOT_BOT_TEST_UTIL_H_
