// docs/rules.md section 6 (what a position's status is), evaluated from
// positions alone with EvaluateStatus: in progress with the side to move,
// round-completion turns, forced passes, finished and eliminated seats, and
// the results of section 5.
#include "halma/game_status.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "halma/record_replay.h"
#include "halma/position.h"
#include "halma/variant.h"
#include "test_util.h"

namespace halma {
namespace {

using testing_util::Custom;
using testing_util::Parse;
using testing_util::Preset;
using testing_util::Replay;
using testing_util::SeatsText;
using testing_util::Spec;

GameStatus StatusOf(const Variant& v, const std::string& position) {
  return EvaluateStatus(v, Parse(position, v));
}

void ExpectInProgress(const GameStatus& s, Seat to_move) {
  EXPECT_FALSE(s.over);
  EXPECT_EQ(s.to_move, to_move);
  EXPECT_TRUE(s.winners.Empty());
  EXPECT_EQ(s.rule, DecidingRule::kNone);
  EXPECT_FALSE(s.IsDraw());
}

TEST(Section6Status, EveryPresetStartIsInProgressWithWToMove) {
  for (const std::string& name : PresetNames()) {
    SCOPED_TRACE(name);
    const Variant v = Preset(name);
    const GameStatus s = EvaluateStatus(v, StartPosition(v));
    ExpectInProgress(s, Seat::kW);
    EXPECT_FALSE(s.round_completion_turn);
    EXPECT_FALSE(s.must_pass);
    EXPECT_TRUE(s.finished.Empty());
    EXPECT_TRUE(s.eliminated.Empty());
  }
}

TEST(Section6Status, SideToMoveIsReported) {
  const Variant v = Preset("brainking-8x8");
  ExpectInProgress(StatusOf(v, "4bbbb/5bbb/6bb/7b/w7/www5/www5/1www4 b 1,0"),
                   Seat::kB);
  ExpectInProgress(StatusOf(v, "4bbbb/5bbb/2b3bb/8/w7/www5/www5/1www4 w 1,1"),
                   Seat::kW);
  const Variant four = Preset("classic-16x16-4p");
  const std::string board =
      "rrrr8bbbb/rrrr8bbbb/rrr10bbb/rr12bb/16/16/16/16/16/16/16/16/ww12gg/"
      "www10ggg/wwww8gggg/wwww8gggg";
  // Counts that fit alternate play with each seat to move (the board is
  // the start, which parsing does not mind).
  ExpectInProgress(StatusOf(four, board + " r 1,0,0,0"), Seat::kR);
  ExpectInProgress(StatusOf(four, board + " b 1,1,0,0"), Seat::kB);
  ExpectInProgress(StatusOf(four, board + " g 1,1,1,0"), Seat::kG);
}

// iggamecenter-10x10: w has just filled its target with j5-j6; b needs
// a6-a5 for its own.
constexpr char kWFinished10[] =
    "5wwwww/6wwww/7www/8ww/b8w/10/bb8/bbb7/bbbb6/bbbbb5 b 41,40";

TEST(Section6Status, RoundCompletionTurnFlag) {
  const Variant v = Preset("iggamecenter-10x10");
  const GameStatus s = StatusOf(v, kWFinished10);
  ExpectInProgress(s, Seat::kB);
  EXPECT_TRUE(s.round_completion_turn);
  EXPECT_FALSE(s.must_pass);
  EXPECT_EQ(SeatsText(s.finished), "w");
  // The same board without round completion: w has won.
  const Variant bk = Preset("brainking-10x10");
  const GameStatus won = StatusOf(bk, kWFinished10);
  EXPECT_TRUE(won.over);
  EXPECT_EQ(SeatsText(won.winners), "w");
  EXPECT_EQ(won.rule, DecidingRule::kTargetFilled);
  EXPECT_FALSE(won.round_completion_turn);
}

TEST(Section6Status, RoundCompletionResults) {
  const Variant v = Preset("iggamecenter-10x10");
  // b finished with its extra move: a draw.
  const GameStatus draw =
      StatusOf(v, "5wwwww/6wwww/7www/8ww/9w/b9/bb8/bbb7/bbbb6/bbbbb5 w 41,41");
  EXPECT_TRUE(draw.over);
  EXPECT_TRUE(draw.IsDraw());
  EXPECT_EQ(SeatsText(draw.winners), "wb");
  EXPECT_EQ(SeatsText(draw.finished), "wb");
  EXPECT_EQ(draw.rule, DecidingRule::kTargetFilled);
  // b did not: w wins.
  const GameStatus win = StatusOf(
      v, "5wwwww/6wwww/7www/8ww/1b7w/10/bb8/bbb7/bbbb6/bbbbb5 w 41,41");
  EXPECT_TRUE(win.over);
  EXPECT_FALSE(win.IsDraw());
  EXPECT_EQ(SeatsText(win.winners), "w");
  EXPECT_EQ(SeatsText(win.finished), "w");
  // b finished on its own turn (w did not): b wins.
  const GameStatus b =
      StatusOf(v, "5wwwww/6wwww/7www/8ww/10/b8w/bb8/bbb7/bbbb6/bbbbb5 w 41,41");
  EXPECT_TRUE(b.over);
  EXPECT_EQ(SeatsText(b.winners), "b");
  EXPECT_EQ(SeatsText(b.finished), "b");
}

TEST(Section6Status, MustPassWhenTheSideToMoveIsStuck) {
  // 4x4, camps [4,3], target lock: w is locked into its target or walled
  // in; b's b3 can step to a3.
  const Variant v = Custom(Spec(4, 2, {4, 3}, 0, false, true));
  const GameStatus s = StatusOf(v, "wwww/1bww/bbb1/bwbb w 20,20");
  ExpectInProgress(s, Seat::kW);
  EXPECT_TRUE(s.must_pass);
  EXPECT_FALSE(s.round_completion_turn);
  // After w's pass it is b's turn and b has moves.
  const GameStatus after = StatusOf(v, "wwww/1bww/bbb1/bwbb b 21,20");
  ExpectInProgress(after, Seat::kB);
  EXPECT_FALSE(after.must_pass);
  // Four seats: w walled in on a 4x4 board, the others free.
  const Variant four = Custom(Spec(4, 4, {2, 1}));
  const GameStatus f = StatusOf(four, "4/rrrb/ggbb/wwwg w 5,5,5,5");
  ExpectInProgress(f, Seat::kW);
  EXPECT_TRUE(f.must_pass);
  const GameStatus r = StatusOf(four, "4/rrrb/ggbb/wwwg r 6,5,5,5");
  ExpectInProgress(r, Seat::kR);
  EXPECT_FALSE(r.must_pass);
}

TEST(Section6Status, EveryoneStuckIsADraw) {
  const Variant v = Custom(Spec(4, 2, {4, 3}, 0, false, true));
  const GameStatus s = StatusOf(v, "wwbw/1www/bbb1/bwbb w 20,20");
  EXPECT_TRUE(s.over);
  EXPECT_TRUE(s.IsDraw());
  EXPECT_EQ(SeatsText(s.winners), "wb");
  EXPECT_EQ(s.rule, DecidingRule::kEveryoneStuck);
  EXPECT_FALSE(s.must_pass);
  // Before any move: only the checks that do not concern a last move apply,
  // and a full board is stuck.
  const Variant full = Custom(Spec(4, 2, {4, 4}));
  const GameStatus z = StatusOf(full, "bbbb/bbbb/wwww/wwww w 0,0");
  EXPECT_TRUE(z.over);
  EXPECT_EQ(z.rule, DecidingRule::kEveryoneStuck);
}

TEST(Section6Status, HomeExitLossInATwoPlayerGame) {
  const Variant v = Preset("brainking-8x8");
  // w made its 31st move with a4 still at home.
  const GameStatus s =
      StatusOf(v, "8/8/bbbbb3/bbbbb3/w3www1/3wwwww/8/7w b 31,30");
  EXPECT_TRUE(s.over);
  EXPECT_EQ(SeatsText(s.winners), "b");
  EXPECT_EQ(s.rule, DecidingRule::kHomeExit);
  // After exactly 30 moves it is not yet a loss.
  ExpectInProgress(StatusOf(v, "8/8/bbbbb3/bbbbb3/w3www1/3wwwww/8/7w b 30,29"),
                   Seat::kB);
  EXPECT_TRUE(BrokeHomeExitRule(v,
                                Parse("8/8/bbbbb3/bbbbb3/w3www1/3wwwww/8/"
                                      "7w b 31,30",
                                      v),
                                Seat::kW));
}

TEST(Section6Status, FinishedAndEliminatedSetsInAFourPlayerGame) {
  // 8x8, four seats, camps [2,1], home-exit limit 2. r (a8 b8 at home) and
  // b (g8 h8 at home) made their 3rd moves and are eliminated; g is to move.
  const Variant v = Custom(Spec(8, 4, {2, 1}, 2));
  const std::string text = "rr4bb/8/8/8/r5bg/w7/1ww5/6gg g 3,3,3,2";
  const GameStatus s = StatusOf(v, text);
  ExpectInProgress(s, Seat::kG);
  EXPECT_EQ(SeatsText(s.eliminated), "rb");
  EXPECT_TRUE(s.finished.Empty());
  EXPECT_EQ(SeatsText(SeatsStillPlaying(v, Parse(text, v))), "wg");
  // The same position reached by play.
  const GameRecordResult r =
      Replay(v, StartPosition(v),
             {"a2-a3", "a7-a6", "h7-h6", "h2-h3", "b1-c2", "a6-a5", "h6-h5",
              "h3-h4", "a1-b2", "a5-a4", "h5-g4"});
  EXPECT_EQ(FormatPosition(r.final_position, v), text);
  // g makes its 3rd move with h1 g1 at home: w is the last seat standing.
  const GameStatus last =
      StatusOf(v, "rr4bb/8/8/7g/r5b1/w7/1ww5/6gg w 3,3,3,3");
  EXPECT_TRUE(last.over);
  EXPECT_EQ(SeatsText(last.winners), "w");
  EXPECT_EQ(last.rule, DecidingRule::kHomeExit);
  EXPECT_EQ(SeatsText(last.eliminated), "rbg");
}

TEST(Section6Status, FinishedSeatInAFourPlayerRoundCompletionGame) {
  // 8x8, four seats, camps [1], round completion: w stepped into h8.
  const Variant v = Custom(Spec(8, 4, {1}, 0, true));
  const GameStatus s = StatusOf(v, "7w/8/8/3r4/4g3/8/1b6/8 r 6,5,5,5");
  ExpectInProgress(s, Seat::kR);
  EXPECT_TRUE(s.round_completion_turn);
  EXPECT_EQ(SeatsText(s.finished), "w");
  // b has finished too, g still to move.
  const GameStatus g = StatusOf(v, "7w/8/3r4/8/4g3/8/8/b7 g 6,6,6,5");
  ExpectInProgress(g, Seat::kG);
  EXPECT_TRUE(g.round_completion_turn);
  EXPECT_EQ(SeatsText(g.finished), "wb");
  // Round over: w and b draw.
  const GameStatus d = StatusOf(v, "7w/8/3r4/4g3/8/8/8/b7 w 6,6,6,6");
  EXPECT_TRUE(d.over);
  EXPECT_EQ(SeatsText(d.winners), "wb");
}

TEST(Section6Status, MoveCapDraw) {
  const Variant v = Custom(Spec(8, 2, {4, 3, 2, 1}, 0, false, false, 2));
  const std::string capped = "5bbb/5bbb/3b2bb/7b/w7/ww2w3/www5/www5 w 2,2";
  const GameStatus s = StatusOf(v, capped);
  EXPECT_TRUE(s.over);
  EXPECT_TRUE(s.IsDraw());
  EXPECT_EQ(SeatsText(s.winners), "wb");
  EXPECT_EQ(s.rule, DecidingRule::kMoveCap);
  const GameRecordResult r =
      Replay(v, StartPosition(v), {"d1-e2", "e8-d7", "e2-e3", "d7-d6"});
  EXPECT_EQ(FormatPosition(r.final_position, v), capped);
  // One move short of the cap.
  const std::string short_of_cap =
      "5bbb/3b1bbb/6bb/7b/w7/ww2w3/www5/www5 b 2,1";
  ExpectInProgress(StatusOf(v, short_of_cap), Seat::kB);
  const GameRecordResult three =
      Replay(v, StartPosition(v), {"d1-e2", "e8-d7", "e2-e3"});
  EXPECT_EQ(FormatPosition(three.final_position, v), short_of_cap);
}

// Section 7: the checks of section 5 are made for the seat that made the
// last move; end conditions met by other seats are not results.
TEST(Section6Status, OnlyTheLastMoversEndConditionsCount) {
  const Variant v = Preset("brainking-8x8");
  // w's pieces fill its target, but b moved last.
  const GameStatus filled =
      StatusOf(v, "4wwww/5www/6ww/7w/4b3/bb6/bbb5/bbbb4 w 26,26");
  ExpectInProgress(filled, Seat::kW);
  EXPECT_EQ(SeatsText(filled.finished), "w");
  // w has a piece at home after 31 moves, but b moved last.
  ExpectInProgress(StatusOf(v, "8/8/bbbbb3/bbbbb3/w3wwww/3wwwww/8/8 w 31,31"),
                   Seat::kW);
  // No move counted yet: nobody's target filling counts (w and b both
  // stand in their targets).
  const Variant small = Custom(Spec(8, 2, {2, 1}));
  const GameStatus zero = StatusOf(small, "6ww/7w/8/8/8/8/b7/bb6 w 0,0");
  ExpectInProgress(zero, Seat::kW);
  EXPECT_EQ(SeatsText(zero.finished), "wb");
}

TEST(Section6Status, DecidingRuleNames) {
  EXPECT_STREQ(DecidingRuleName(DecidingRule::kNone), "none");
  EXPECT_STREQ(DecidingRuleName(DecidingRule::kTargetFilled), "target-filled");
  EXPECT_STREQ(DecidingRuleName(DecidingRule::kHomeExit), "home-exit");
  EXPECT_STREQ(DecidingRuleName(DecidingRule::kMoveCap), "move-cap");
  EXPECT_STREQ(DecidingRuleName(DecidingRule::kEveryoneStuck),
               "everyone-stuck");
}

}  // namespace
}  // namespace halma
