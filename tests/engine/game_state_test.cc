// GameState (game_state.h): the incremental game state that the replay and
// the move-suggestion search play on. After every Play and PlayPass its
// status is the status of docs/rules.md sections 5 and 6 for the position
// reached (EvaluateStatus of a state built afresh), its tallies are those
// counted afresh, and Undo gives back exactly the state before the move.
#include "halma/game_state.h"

#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "halma/game_status.h"
#include "halma/move_read.h"
#include "halma/movegen.h"
#include "halma/notation.h"
#include "halma/position.h"
#include "halma/variant.h"
#include "test_util.h"

namespace halma {
namespace {

using testing_util::Custom;
using testing_util::Parse;
using testing_util::Preset;
using testing_util::SeatsText;
using testing_util::Spec;
using testing_util::Sq;

void ExpectSameStatus(const GameStatus& a, const GameStatus& b) {
  EXPECT_EQ(a.over, b.over);
  EXPECT_EQ(a.to_move, b.to_move);
  EXPECT_EQ(a.round_completion_turn, b.round_completion_turn);
  EXPECT_EQ(a.must_pass, b.must_pass);
  EXPECT_EQ(SeatsText(a.winners), SeatsText(b.winners));
  EXPECT_EQ(a.rule, b.rule);
  EXPECT_EQ(SeatsText(a.finished), SeatsText(b.finished));
  EXPECT_EQ(SeatsText(a.eliminated), SeatsText(b.eliminated));
}

// The index of a move of `list` (legal moves of `position`'s side to
// move): mostly the one that gets nearest the target, so that playouts
// end, else one at random.
int PickTowardsTarget(const Variant& v, const Position& position,
                      const MoveList& list, std::mt19937& rng) {
  int pick = static_cast<int>(rng() % list.size);
  if (rng() % 4 != 0) {
    int best = 1 << 30;
    for (int i = 0; i < list.size; ++i) {
      const int d = testing_util::DistanceToTarget(v, position.to_move,
                                                   list.moves[i].destination);
      if (d < best) best = d, pick = i;
    }
  }
  return pick;
}

// Plays from -> to on `state` and checks the state against one built from
// the position reached, which must be `after` (a position string).
GameState::UndoRecord PlayTo(GameState* state, const std::string& from,
                             const std::string& to, const std::string& after) {
  const Variant& v = state->variant();
  const GameState::UndoRecord undo =
      state->Play(Sq(from, v.size), Sq(to, v.size));
  EXPECT_EQ(FormatPosition(state->position(), v), after);
  const GameState fresh(v, Parse(after, v));
  EXPECT_TRUE(*state == fresh) << after;
  ExpectSameStatus(state->status(), EvaluateStatus(v, Parse(after, v)));
  return undo;
}

TEST(GameStateTest, TalliesAndStatusOfEveryPresetStart) {
  for (const std::string& name : PresetNames()) {
    SCOPED_TRACE(name);
    const Variant v = Preset(name);
    const GameState state(v, StartPosition(v));
    ExpectSameStatus(state.status(), EvaluateStatus(v, StartPosition(v)));
    EXPECT_FALSE(state.tally().any_move_made);
    EXPECT_TRUE(state.tally().finished.Empty());
    EXPECT_TRUE(state.tally().eliminated.Empty());
    for (int i = 0; i < v.seat_count; ++i) {
      const int k = SeatIndex(v.seats[i]);
      // Every piece at home, none in the target.
      EXPECT_EQ(state.tally().outside_target[k], v.pieces_per_seat);
      EXPECT_EQ(state.tally().at_home[k],
                v.spec.home_exit_limit > 0 ? v.pieces_per_seat : 0);
    }
    EXPECT_TRUE(state.position() == StartPosition(v));
  }
}

// Rule 1 without round completion: the move that fills the target wins at
// once; Undo reopens the game.
TEST(GameStateTest, FillingTheTargetWinsAndUndoReopensTheGame) {
  const Variant v = Preset("brainking-10x10");
  const std::string before =
      "5wwwww/6wwww/7www/8ww/b9/9w/bb8/bbb7/bbbb6/bbbbb5 w 40,40";
  GameState state(v, Parse(before, v));
  ASSERT_FALSE(state.status().over);
  EXPECT_EQ(state.tally().outside_target[SeatIndex(Seat::kW)], 1);
  const GameState copy = state;
  const GameState::UndoRecord undo =
      PlayTo(&state, "j5", "j6",
             "5wwwww/6wwww/7www/8ww/b8w/10/bb8/bbb7/bbbb6/bbbbb5 b 41,40");
  EXPECT_TRUE(state.status().over);
  EXPECT_EQ(SeatsText(state.status().winners), "w");
  EXPECT_EQ(state.status().rule, DecidingRule::kTargetFilled);
  EXPECT_EQ(state.tally().outside_target[SeatIndex(Seat::kW)], 0);
  state.Undo(undo);
  EXPECT_TRUE(state == copy);
  EXPECT_FALSE(state.status().over);
}

// Rule 1 with round completion: the finisher's opponent gets one more
// move, and finishing with it draws.
TEST(GameStateTest, RoundCompletionTurnThenDraw) {
  const Variant v = Preset("iggamecenter-10x10");
  GameState state(
      v, Parse("5wwwww/6wwww/7www/8ww/b9/9w/bb8/bbb7/bbbb6/bbbbb5 w 40,40", v));
  const GameState start = state;
  const GameState::UndoRecord first =
      PlayTo(&state, "j5", "j6",
             "5wwwww/6wwww/7www/8ww/b8w/10/bb8/bbb7/bbbb6/bbbbb5 b 41,40");
  EXPECT_FALSE(state.status().over);
  EXPECT_TRUE(state.status().round_completion_turn);
  EXPECT_EQ(SeatsText(state.status().finished), "w");
  const GameState middle = state;
  const GameState::UndoRecord second =
      PlayTo(&state, "a6", "a5",
             "5wwwww/6wwww/7www/8ww/9w/b9/bb8/bbb7/bbbb6/bbbbb5 w 41,41");
  EXPECT_TRUE(state.status().over);
  EXPECT_TRUE(state.status().IsDraw());
  EXPECT_EQ(SeatsText(state.status().winners), "wb");
  state.Undo(second);
  EXPECT_TRUE(state == middle);
  state.Undo(first);
  EXPECT_TRUE(state == start);
}

// Rule 2 in a four-player game: a seat that breaks the home-exit rule is
// eliminated, play skips it, and the last seat standing wins.
TEST(GameStateTest, EliminatedSeatsAreSkippedAndTheLastOneStandingWins) {
  // 8x8, four seats, camps [2,1], home-exit limit 2.
  const Variant v = Custom(Spec(8, 4, {2, 1}, 2));
  GameState state(v, StartPosition(v));
  const std::vector<std::string> moves = {"a2-a3", "a7-a6", "h7-h6", "h2-h3",
                                          "b1-c2", "a6-a5", "h6-h5", "h3-h4",
                                          "a1-b2", "a5-a4", "h5-g4"};
  std::vector<GameState> before;
  std::vector<GameState::UndoRecord> undo;
  for (const std::string& text : moves) {
    SCOPED_TRACE(text);
    const MoveText move = testing_util::Move(text, v.size);
    before.push_back(state);
    undo.push_back(state.Play(move.squares.front(), move.squares.back()));
    const GameState fresh(v, state.position());
    EXPECT_TRUE(state == fresh);
    ExpectSameStatus(state.status(), EvaluateStatus(v, state.position()));
  }
  // r and b made their third moves with pieces at home: g is to move.
  EXPECT_EQ(FormatPosition(state.position(), v),
            "rr4bb/8/8/8/r5bg/w7/1ww5/6gg g 3,3,3,2");
  EXPECT_EQ(SeatsText(state.status().eliminated), "rb");
  EXPECT_EQ(state.status().to_move, Seat::kG);
  // g's third move leaves g1 h1 at home: w is the last seat standing.
  before.push_back(state);
  undo.push_back(
      PlayTo(&state, "h4", "h5", "rr4bb/8/8/7g/r5b1/w7/1ww5/6gg w 3,3,3,3"));
  EXPECT_TRUE(state.status().over);
  EXPECT_EQ(SeatsText(state.status().winners), "w");
  EXPECT_EQ(state.status().rule, DecidingRule::kHomeExit);
  EXPECT_EQ(SeatsText(state.status().eliminated), "rbg");
  // Taken back move by move, every earlier state comes back.
  for (int i = static_cast<int>(undo.size()) - 1; i >= 0; --i) {
    state.Undo(undo[i]);
    EXPECT_TRUE(state == before[i]) << "after undoing move " << i + 1;
  }
}

// Section 3: a seat with no move must pass; the pass counts and play goes
// on.
TEST(GameStateTest, MustPassThenPass) {
  const Variant v = Custom(Spec(4, 2, {4, 3}, 0, false, true));
  GameState state(v, Parse("wwww/1bww/bbb1/bwbb w 20,20", v));
  EXPECT_TRUE(state.status().must_pass);
  const GameState copy = state;
  const GameState::UndoRecord undo = state.PlayPass();
  EXPECT_EQ(FormatPosition(state.position(), v), "wwww/1bww/bbb1/bwbb b 21,20");
  EXPECT_TRUE(state == GameState(v, Parse("wwww/1bww/bbb1/bwbb b 21,20", v)));
  EXPECT_FALSE(state.status().must_pass);
  EXPECT_EQ(state.status().to_move, Seat::kB);
  state.Undo(undo);
  EXPECT_TRUE(state == copy);
}

// Seeded playouts on every preset and on custom variants (two and four
// seats, every rule on): after every move the incremental state equals one
// built from the position reached, and undoing all the moves in reverse
// order passes back through every earlier state.
TEST(GameStateTest, PlayoutsMatchFreshStatesAndUndoAllTheWayBack) {
  std::vector<Variant> variants;
  for (const std::string& name : PresetNames())
    variants.push_back(Preset(name));
  variants.push_back(Custom(Spec(6, 2, {2, 1}, 12, true, true, 40)));
  variants.push_back(Custom(Spec(8, 4, {2, 1}, 6, true, false, 60)));
  variants.push_back(Custom(Spec(9, 4, {3, 2}, 0, false, true)));
  auto list = std::make_unique<MoveList>();
  for (const Variant& v : variants) {
    SCOPED_TRACE(v.spec.name.empty() ? "custom" : v.spec.name);
    for (std::uint32_t seed = 1; seed <= 6; ++seed) {
      std::mt19937 rng(seed);
      GameState state(v, StartPosition(v));
      std::vector<GameState> before;
      std::vector<GameState::UndoRecord> undo;
      for (int ply = 0; ply < 400 && !state.status().over; ++ply) {
        before.push_back(state);
        if (state.status().must_pass) {
          undo.push_back(state.PlayPass());
        } else {
          const Position& p = state.position();
          GenerateLegalMoves(v, p, p.to_move, list.get());
          ASSERT_GT(list->size, 0);
          const int pick = PickTowardsTarget(v, p, *list, rng);
          undo.push_back(state.Play(list->moves[pick].origin,
                                    list->moves[pick].destination));
        }
        const GameState fresh(v, state.position());
        ASSERT_TRUE(state == fresh)
            << "seed " << seed << " ply " << ply + 1 << ": "
            << FormatPosition(state.position(), v);
      }
      for (int i = static_cast<int>(undo.size()) - 1; i >= 0; --i) {
        state.Undo(undo[i]);
        ASSERT_TRUE(state == before[i]) << "seed " << seed << " undo " << i;
      }
    }
  }
}

// PlayWritten (the replay's one-pass read, check and play of a move's
// text) against the general way: it plays exactly the texts that
// ReadMoveSquares reads and CheckPath finds legal and not shorthand, to
// the state Play gives, and leaves the state as it was for every other
// text. The texts: every legal move's path, and from each, texts that are
// illegal (a leg shortened, reversed, a square repeated, origin and
// destination only: shorthand), every step and single hop of the mover's
// pieces, legal or not, malformed texts (cut short, a dash doubled,
// capitals, a rank 0 or past the board) and `pass`.
TEST(GameStateTest, PlayWrittenAgreesWithReadingCheckingAndPlaying) {
  std::vector<Variant> variants;
  for (const std::string& name : PresetNames())
    variants.push_back(Preset(name));
  variants.push_back(Custom(Spec(6, 2, {2, 1}, 12, true, true, 40)));
  variants.push_back(Custom(Spec(9, 4, {3, 2}, 0, false, true)));
  auto list = std::make_unique<MoveList>();
  auto paths = std::make_unique<MovePaths>();
  int played = 0;
  int refused = 0;
  for (const Variant& v : variants) {
    SCOPED_TRACE(v.spec.name.empty() ? "custom" : v.spec.name);
    std::mt19937 rng(7);
    GameState state(v, StartPosition(v));
    for (int ply = 0; ply < 300 && !state.status().over; ++ply) {
      if (state.status().must_pass) {
        state.PlayPass();
        continue;
      }
      const Position& p = state.position();
      GenerateLegalMovesWithPaths(v, p, p.to_move, list.get(), paths.get());
      ASSERT_GT(list->size, 0);
      std::vector<std::string> texts = {"pass", "", "a1", "a1-"};
      for (int i = 0; i < list->size; ++i) {
        const Square* path = paths->Path(i);
        const int length = paths->Length(i);
        const std::string text = FormatPath(path, length);
        texts.push_back(text);
        texts.push_back(FormatPath(path, 1) + "-" +
                        FormatPath(path + length - 1, 1));
        std::vector<Square> reversed(path, path + length);
        std::reverse(reversed.begin(), reversed.end());
        texts.push_back(FormatPath(reversed.data(), length));
        texts.push_back(text + "-" + FormatPath(path + length - 2, 1));
        texts.push_back(text.substr(0, text.size() - 1));
        texts.push_back(text + "-");
        std::string doubled = text;
        doubled.insert(doubled.find('-'), "-");
        texts.push_back(doubled);
        std::string capital = text;
        capital[0] = static_cast<char>(capital[0] - 'a' + 'A');
        texts.push_back(capital);
        texts.push_back(text + "0");
        if (length > 2) texts.push_back(FormatPath(path, length - 1));
      }
      texts.push_back("a0-a2");
      texts.push_back("a17-a15");
      // Every two squares of the mover's pieces up to two files and ranks
      // away: steps and single hops, legal or not (onto pieces, over
      // nothing, out of the target camp under the target lock), and
      // shorthand.
      for (int x = 0; x < v.size; ++x) {
        for (int y = 0; y < v.size; ++y) {
          const Square from = MakeSquare(x, y);
          if (!p.pieces[SeatIndex(p.to_move)].Test(from)) continue;
          for (int dx = -2; dx <= 2; ++dx) {
            for (int dy = -2; dy <= 2; ++dy) {
              if (x + dx < 0 || y + dy < 0 || x + dx >= v.size ||
                  y + dy >= v.size) {
                continue;
              }
              const Square two[2] = {from, MakeSquare(x + dx, y + dy)};
              texts.push_back(FormatPath(two, 2));
              // Chains of two legs from single hops: into the target camp
              // and out again, back to the origin, onto pieces.
              if ((dx & 1) || (dy & 1) || (dx == 0 && dy == 0)) continue;
              for (int ex = -2; ex <= 2; ex += 2) {
                for (int ey = -2; ey <= 2; ey += 2) {
                  const int x2 = x + dx + ex;
                  const int y2 = y + dy + ey;
                  if (x2 < 0 || y2 < 0 || x2 >= v.size || y2 >= v.size) {
                    continue;
                  }
                  const Square three[3] = {from, two[1], MakeSquare(x2, y2)};
                  texts.push_back(FormatPath(three, 3));
                }
              }
            }
          }
        }
      }
      for (const std::string& text : texts) {
        Square read[kMaxReadPathSquares];
        const int count = ReadMoveSquares(text, v.size, read);
        bool legal = false;
        if (count >= 2) {
          const LegCheck legs = state.CheckPath(read, count);
          legal = legs.verdict == MoveVerdict::kLegal && !legs.shorthand;
        }
        GameState written = state;
        ASSERT_EQ(written.PlayWritten(text), legal) << text;
        if (legal) {
          GameState general = state;
          general.Play(read[0], read[count - 1]);
          ASSERT_TRUE(written == general) << text;
          ExpectSameStatus(written.status(), general.status());
          ++played;
        } else {
          ASSERT_TRUE(written == state) << text;
          ++refused;
        }
      }
      const int pick = PickTowardsTarget(v, p, *list, rng);
      state.Play(list->moves[pick].origin, list->moves[pick].destination);
    }
  }
  // Both sides of the comparison were exercised.
  EXPECT_GT(played, 1000);
  EXPECT_GT(refused, 1000);
}

}  // namespace
}  // namespace halma
