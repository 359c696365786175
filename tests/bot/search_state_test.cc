// The bot's game state (search_state.h) against a fresh state of the same
// position and the engine's status, move after move of random playouts,
// and back again with Undo.
#include "halma/bot/search_state.h"

#include <vector>

#include "gtest/gtest.h"
#include "halma/bot/eval_tables.h"
#include "halma/notation.h"
#include "tests/bot/bot_test_util.h"

namespace halma::bot {
namespace {

using bot_test::MoveBetween;
using bot_test::Playouts;
using bot_test::Variants;
using testing_util::Preset;

void ExpectSameState(const SearchState& a, const SearchState& b,
                     const std::string& where) {
  EXPECT_TRUE(a.position() == b.position()) << where;
  EXPECT_EQ(a.key(), b.key()) << where;
  for (int i = 0; i < kMaxSeats; ++i) {
    const Seat s = SeatAt(i);
    EXPECT_EQ(a.cost(s), b.cost(s)) << where << " seat " << i;
    EXPECT_EQ(a.distance(s), b.distance(s)) << where << " seat " << i;
    EXPECT_EQ(a.exit_steps(s), b.exit_steps(s)) << where << " seat " << i;
    EXPECT_EQ(a.in_target(s), b.in_target(s)) << where << " seat " << i;
    EXPECT_EQ(a.at_home(s), b.at_home(s)) << where << " seat " << i;
  }
  EXPECT_TRUE(a.playing() == b.playing()) << where;
}

TEST(SearchStateTest, PlayAndUndoMatchAFreshStateAndTheEngine) {
  for (const auto& [name, variant] : Variants()) {
    SCOPED_TRACE(name);
    EvalTables tables;
    BuildEvalTables(variant, EvalWeights(), &tables);
    std::mt19937 rng(7);
    for (int game = 0; game < 3; ++game) {
      const std::vector<Position> positions = testing_util::RandomGame(
          variant, StartPosition(variant), 250, &rng, 0.8);
      SearchState played, fresh;
      played.Reset(variant, tables, positions[0]);
      for (size_t i = 1; i < positions.size(); ++i) {
        played.Play(MoveBetween(positions[i - 1], positions[i]));
        fresh.Reset(variant, tables, positions[i]);
        const std::string where = FormatPosition(positions[i], variant) +
                                  " (ply " + std::to_string(i) + ")";
        ExpectSameState(played, fresh, where);
        const GameStatus engine = EvaluateStatus(variant, positions[i]);
        EXPECT_EQ(played.over(), engine.over) << where;
        EXPECT_TRUE(played.status().winners == engine.winners) << where;
        EXPECT_EQ(played.status().must_pass, engine.must_pass) << where;
        if (::testing::Test::HasFailure()) return;
      }
      EXPECT_EQ(played.played(), static_cast<int>(positions.size()) - 1);
      // Back to the start, checking every position on the way.
      for (size_t i = positions.size() - 1; i > 0; --i) {
        played.Undo();
        fresh.Reset(variant, tables, positions[i - 1]);
        ExpectSameState(played, fresh, "undo to ply " + std::to_string(i - 1));
        if (::testing::Test::HasFailure()) return;
      }
    }
  }
}

TEST(SearchStateTest, KeysDifferForDifferentSidesToMoveAndPieces) {
  const Variant variant = Preset("brainking-8x8");
  EvalTables tables;
  BuildEvalTables(variant, EvalWeights(), &tables);
  SearchState a, b;
  a.Reset(variant, tables, StartPosition(variant));
  Position moved = StartPosition(variant);
  moved.to_move = Seat::kB;
  moved.move_count[0] = 1;
  b.Reset(variant, tables, moved);
  EXPECT_NE(a.key(), b.key());
}

TEST(EvalTablesTest, TheFilledCampIsTheOnlyCheapestArrangement) {
  // docs/bot.md: every camp square is nearer than every square outside it,
  // whatever the camp's shape, so a seat whose pieces fill its target has
  // the least distance and cost, and any other arrangement more.
  for (const auto& [name, variant] : Variants()) {
    SCOPED_TRACE(name);
    EvalTables tables;
    BuildEvalTables(variant, EvalWeights(), &tables);
    for (int i = 0; i < variant.seat_count; ++i) {
      const int seat = SeatIndex(variant.seats[i]);
      int camp_max = 0, outside_min = 1 << 20;
      int cost_max = 0, cost_outside_min = 1 << 20;
      for (int y = 0; y < variant.size; ++y) {
        for (int x = 0; x < variant.size; ++x) {
          const Square s = MakeSquare(x, y);
          if (tables.target[seat].Test(s)) {
            camp_max = std::max<int>(camp_max, tables.distance[seat][s]);
            cost_max = std::max<int>(cost_max, tables.cost[seat][s]);
          } else {
            outside_min = std::min<int>(outside_min, tables.distance[seat][s]);
            cost_outside_min =
                std::min<int>(cost_outside_min, tables.cost[seat][s]);
          }
        }
      }
      EXPECT_LT(camp_max, outside_min);
      EXPECT_LT(cost_max, cost_outside_min);
    }
  }
}

}  // namespace
}  // namespace halma::bot
