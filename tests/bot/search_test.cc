// The move-suggestion search (halma/bot/search.h) through its interface:
// legality of every answer (checked by the engine), determinism, the
// forced pass, errors, custom and four-player variants, the checkpoint,
// candidates.
#include "halma/bot/search.h"

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "halma/bot/levels.h"
#include "halma/move_check.h"
#include "halma/notation.h"
#include "tests/bot/bot_test_util.h"

namespace halma::bot {
namespace {

using bot_test::Playouts;
using bot_test::Variants;
using ::testing::HasSubstr;
using testing_util::Custom;
using testing_util::Parse;
using testing_util::Preset;
using testing_util::Spec;

absl::StatusOr<SearchResult> Suggest(const Variant& variant,
                                     const Position& position,
                                     const SearchOptions& options,
                                     SearchWorkspace* workspace = nullptr) {
  if (workspace != nullptr) {
    return SuggestMove(variant, position, options, workspace);
  }
  SearchWorkspace fresh(12);
  return SuggestMove(variant, position, options, &fresh);
}

SearchOptions Budget(std::int64_t nodes, int candidates = 1) {
  SearchOptions options;
  options.node_budget = nodes;
  options.candidates = candidates;
  return options;
}

// The engine's verdict on a suggestion, and the position after it.
void ExpectLegal(const Variant& variant, const Position& position,
                 const Suggestion& s, const std::string& where) {
  const GameStatus status = EvaluateStatus(variant, position);
  MoveText text;
  if (s.move.is_pass) {
    text.is_pass = true;
    EXPECT_EQ(s.path_length, 0) << where;
  } else {
    ASSERT_GE(s.path_length, 2) << where;
    EXPECT_EQ(s.path[0], s.move.origin) << where;
    EXPECT_EQ(s.path[s.path_length - 1], s.move.destination) << where;
    text.squares.assign(s.path, s.path + s.path_length);
  }
  const MoveCheck check = CheckMove(variant, position, status, text);
  ASSERT_EQ(check.verdict, MoveVerdict::kLegal)
      << where << ": " << FormatMove(text) << ": " << check.message;
  if (!s.move.is_pass) {
    // The path is the fewest-hop one, as LegalMoves gives it.
    EXPECT_EQ(FormatMove(check.path), FormatMove(text)) << where;
    EXPECT_EQ(check.hops, s.move.hops) << where << " " << FormatMove(text);
  }
}

std::string Describe(const SearchResult& r) {
  std::string out = "chosen " + std::to_string(r.chosen) + " depth " +
                    std::to_string(r.depth) + " nodes " +
                    std::to_string(r.nodes) + " expansions " +
                    std::to_string(r.expansions) + ":";
  for (int i = 0; i < r.candidate_count; ++i) {
    const Suggestion& s = r.candidates[i];
    out += " " +
           (s.move.is_pass ? std::string("pass")
                           : FormatPath(s.path, s.path_length)) +
           "=" + std::to_string(s.score.value) + "/" +
           ScoreKindName(s.score.kind) + std::to_string(s.score.moves);
  }
  out += " pv";
  for (int i = 0; i < r.pv_length; ++i) {
    out += " " + std::string(1, SeatLetter(r.pv_seat[i])) + ":" +
           (r.pv[i].is_pass ? std::string("pass")
                            : FormatSquare(r.pv[i].origin) + "-" +
                                  FormatSquare(r.pv[i].destination));
  }
  return out + " stop " + StopReasonName(r.stop_reason);
}

TEST(SearchTest, EverySuggestionIsLegalOnEveryVariant) {
  for (const auto& [name, variant] : Variants()) {
    SCOPED_TRACE(name);
    SearchWorkspace workspace(12);
    const std::vector<Position> positions = Playouts(variant, 2, 160, 11);
    int searched = 0;
    for (size_t i = 0; i < positions.size(); i += 9) {
      const Position& p = positions[i];
      if (EvaluateStatus(variant, p).over) continue;
      const std::string where = FormatPosition(p, variant);
      for (const SearchOptions& options : {Budget(4000, 4), [] {
                                             SearchOptions o;
                                             o.level = 1;
                                             o.candidates = 3;
                                             return o;
                                           }()}) {
        absl::StatusOr<SearchResult> r =
            Suggest(variant, p, options, &workspace);
        ASSERT_TRUE(r.ok()) << where << ": " << r.status();
        ASSERT_GE(r->candidate_count, 1) << where;
        ASSERT_LT(r->chosen, r->candidate_count) << where;
        for (int c = 0; c < r->candidate_count; ++c) {
          ExpectLegal(variant, p, r->candidates[c], where);
          if (c > 0) {
            // Ranked by score, best first.
            EXPECT_GE(r->candidates[c - 1].score.value,
                      r->candidates[c].score.value)
                << where << " " << Describe(*r);
          }
          for (int d = 0; d < c; ++d) {
            EXPECT_FALSE(r->candidates[c].move == r->candidates[d].move)
                << where << ": a candidate listed twice";
          }
        }
        // The principal variation starts with the chosen move when it is
        // the best.
        if (r->chosen == 0) {
          ASSERT_GE(r->pv_length, 1) << where;
          EXPECT_TRUE(r->pv[0] == r->move().move) << where << Describe(*r);
          EXPECT_EQ(r->pv_seat[0], p.to_move);
        }
        if (options.level == 0) {
          EXPECT_EQ(r->chosen, 0) << where << ": no level, no randomness";
        }
        ++searched;
        if (HasFailure()) return;
      }
    }
    EXPECT_GE(searched, 2);
  }
}

bool SameResult(const SearchResult& a, const SearchResult& b) {
  return Describe(a) == Describe(b);
}

TEST(SearchTest, TheSameRequestGivesTheSameAnswer) {
  // Fresh workspace, reused workspace (after searches of other positions),
  // and a second workspace of the same table size: one answer.
  SearchWorkspace reused(12), other(12);
  for (const auto& [name, variant] : Variants()) {
    SCOPED_TRACE(name);
    const std::vector<Position> positions = Playouts(variant, 1, 120, 5);
    for (size_t i = 0; i < positions.size(); i += 23) {
      const Position& p = positions[i];
      if (EvaluateStatus(variant, p).over) continue;
      for (SearchOptions options : {Budget(6000, 3), Budget(30000, 1)}) {
        options.seed = i;
        absl::StatusOr<SearchResult> first = Suggest(variant, p, options);
        absl::StatusOr<SearchResult> again =
            Suggest(variant, p, options, &reused);
        // Something else in between.
        (void)Suggest(variant, positions[0], Budget(5000), &reused);
        absl::StatusOr<SearchResult> third =
            Suggest(variant, p, options, &reused);
        absl::StatusOr<SearchResult> fourth =
            Suggest(variant, p, options, &other);
        ASSERT_TRUE(first.ok() && again.ok() && third.ok() && fourth.ok());
        EXPECT_PRED2(SameResult, *first, *again);
        EXPECT_PRED2(SameResult, *first, *third);
        EXPECT_PRED2(SameResult, *first, *fourth);
      }
    }
  }
}

TEST(SearchTest, LevelsAreDeterministicAndLegal) {
  const Variant variant = Preset("brainking-10x10");
  const std::vector<Position> positions = Playouts(variant, 1, 60, 3);
  SearchWorkspace workspace;
  for (int level = kMinLevel; level < kTopLevel; ++level) {
    for (size_t i = 0; i < positions.size(); i += 17) {
      SearchOptions options;
      options.level = level;
      options.seed = 1000 + i;
      absl::StatusOr<SearchResult> a =
          Suggest(variant, positions[i], options, &workspace);
      // A fresh workspace of the same table size (answers depend on it:
      // docs/bot.md, "Determinism").
      SearchWorkspace fresh(workspace.table_bits());
      absl::StatusOr<SearchResult> b =
          Suggest(variant, positions[i], options, &fresh);
      ASSERT_TRUE(a.ok() && b.ok());
      EXPECT_PRED2(SameResult, *a, *b) << "level " << level;
      ExpectLegal(variant, positions[i], a->move(), "level");
      EXPECT_LE(a->depth, LevelSpecOf(level).depth_limit);
    }
  }
}

TEST(SearchTest, TheChosenMoveDoesNotDependOnTheCandidatesAskedFor) {
  const Variant variant = Preset("classic-16x16");
  const std::vector<Position> positions = Playouts(variant, 1, 100, 9);
  for (size_t i = 10; i < positions.size(); i += 30) {
    absl::StatusOr<SearchResult> one =
        Suggest(variant, positions[i], Budget(20000, 1));
    absl::StatusOr<SearchResult> six =
        Suggest(variant, positions[i], Budget(20000, 6));
    ASSERT_TRUE(one.ok() && six.ok());
    EXPECT_TRUE(one->move().move == six->move().move);
    EXPECT_EQ(one->move().score.value, six->move().score.value);
    EXPECT_EQ(six->candidate_count, 6);
    EXPECT_EQ(six->chosen, 0);
  }
}

TEST(SearchTest, PassWhenPassIsTheOnlyMove) {
  // docs/rules.md section 3 (the engine's own fixtures, rules_test.cc):
  // w is locked in its target or walled in; four seats: w walled in.
  const Variant two = Custom(Spec(4, 2, {4, 3}, 0, false, true));
  const Variant four = Custom(Spec(4, 4, {2, 1}));
  for (const auto& [variant, text] :
       {std::pair{two, "wwww/1bww/bbb1/bwbb w 20,20"},
        std::pair{four, "4/rrrb/ggbb/wwwg w 5,5,5,5"}}) {
    const Position p = Parse(text, variant);
    ASSERT_TRUE(EvaluateStatus(variant, p).must_pass);
    for (int level = kMinLevel; level <= kTopLevel; ++level) {
      SearchOptions options;
      options.level = level;
      options.candidates = 5;
      absl::StatusOr<SearchResult> r = Suggest(variant, p, options);
      ASSERT_TRUE(r.ok()) << r.status();
      EXPECT_TRUE(r->move().move.is_pass) << text;
      EXPECT_EQ(r->candidate_count, 1);
      ExpectLegal(variant, p, r->move(), text);
    }
  }
}

TEST(SearchTest, AFinishedGameIsAnErrorNamingThePosition) {
  const Variant stuck = Custom(Spec(4, 2, {4, 3}, 0, false, true));
  const Position drawn = Parse("wwbw/1www/bbb1/bwbb w 20,20", stuck);
  absl::StatusOr<SearchResult> r = Suggest(stuck, drawn, Budget(1000));
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(r.status().message(), HasSubstr("position"));
  EXPECT_THAT(r.status().message(), HasSubstr("draw:wb:everyone-stuck"));
  // A won game: the last position of a playout that ended.
  for (const auto& [name, variant] : Variants()) {
    for (const Position& p : Playouts(variant, 3, 400, 21)) {
      const GameStatus status = EvaluateStatus(variant, p);
      if (!status.over) continue;
      absl::StatusOr<SearchResult> over = Suggest(variant, p, Budget(1000));
      EXPECT_EQ(over.status().code(), absl::StatusCode::kInvalidArgument)
          << name;
      EXPECT_THAT(over.status().message(),
                  HasSubstr("position: the game is over"));
    }
  }
}

TEST(SearchTest, BadOptionsAreErrorsNamingTheField) {
  const Variant variant = Preset("brainking-8x8");
  const Position p = StartPosition(variant);
  const auto error = [&](SearchOptions o) {
    absl::StatusOr<SearchResult> r = Suggest(variant, p, o);
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
    return std::string(r.status().message());
  };
  SearchOptions o;
  o.level = kTopLevel + 1;
  EXPECT_THAT(error(o), HasSubstr("level 9: expected 1 to 8"));
  o = SearchOptions();
  EXPECT_THAT(error(o), HasSubstr("level 0: expected a level"));
  o = Budget(100);
  o.candidates = 0;
  EXPECT_THAT(error(o), HasSubstr("candidates 0: expected 1 to 16"));
  o.candidates = kMaxCandidates + 1;
  EXPECT_THAT(error(o), HasSubstr("candidates 17"));
  o = Budget(-5);
  EXPECT_THAT(error(o), HasSubstr("node_budget -5"));
  o = Budget(100);
  o.level = 3;
  EXPECT_THAT(error(o), HasSubstr("either a level or an explicit budget"));
  o = Budget(100);
  o.depth_limit = kMaxSearchDepth + 1;
  EXPECT_THAT(error(o), HasSubstr("depth_limit 49"));
  o = Budget(100);
  o.beam = 1000;
  EXPECT_THAT(error(o), HasSubstr("beam 1000"));
  o = Budget(100);
  o.time_budget_us = -1;
  EXPECT_THAT(error(o), HasSubstr("time_budget_us -1"));
}

TEST(SearchTest, FindsAWinInOneAndSeesALossInOne) {
  // 4x4, one piece each: w (a1 -> d4) and b (d4 -> a1).
  const Variant v = Custom(Spec(4, 2, {1}));
  // w steps to d4 and wins.
  const Position win = Parse("4/2w1/1b2/4 w 5,5", v);
  absl::StatusOr<SearchResult> r = Suggest(v, win, Budget(10000, 3));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->move().score.kind, ScoreKind::kWin) << Describe(*r);
  EXPECT_EQ(r->move().score.moves, 1);
  EXPECT_EQ(FormatPath(r->move().path, r->move().path_length), "c3-d4");
  // w is too far to finish, and b steps to a1 whatever w does.
  const Position loss = Parse("4/w3/1b2/4 w 5,5", v);
  r = Suggest(v, loss, Budget(10000, 3));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->move().score.kind, ScoreKind::kLoss) << Describe(*r);
  EXPECT_EQ(r->move().score.moves, 1);
}

TEST(SearchTest, LeavesHomeBeforeTheHomeExitLimit) {
  // 6x6, camps [3,2,1], home-exit limit 8: w has made 8 moves and still has
  // c1 at home; its 9th move must take it out (docs/rules.md section 5,
  // rule 2), every other move loses at once.
  const Variant v = Custom(Spec(6, 2, {3, 2, 1}, 8));
  const Position p = Parse("bbb3/bb4/bwww2/2ww2/6/2w3 w 8,8", v);
  for (int level = kMinLevel; level <= 3; ++level) {
    SearchOptions options;
    options.level = level;
    absl::StatusOr<SearchResult> r = Suggest(v, p, options);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(FormatSquare(r->move().move.origin), "c1") << Describe(*r);
    EXPECT_FALSE(v.HomeCamp(Seat::kW).Test(r->move().move.destination));
    EXPECT_NE(r->move().score.kind, ScoreKind::kLoss);
  }
}

TEST(SearchTest, ADraggedOutGameIsConcededNotBlocked) {
  // iggamecenter-10x10 (no home-exit limit, no move cap): the end of a
  // level-8 self-play game that reached the arena's turn cap (docs/bot.md,
  // "Where a game did not end"). w's last piece outside its target sits on
  // d2 in its home camp, the one square b's last piece (d3) still needs;
  // w's hole, h8, is far. Leaving loses (b plays d3-d2 and finishes), and
  // staying blocks b for ever, which nothing in these rules ends. Past the
  // stall threshold (50 moves on a 10-square side; here 60 each) the bot
  // leaves.
  const Variant v = Preset("iggamecenter-10x10");
  const Position p =
      Parse("5wwwww/6wwww/8ww/8ww/9w/b9/bb8/bbbb6/bbbw6/bbbbb5 w 60,60", v);
  for (const int level : {kMinLevel, 4, 6, kTopLevel}) {
    SearchOptions options;
    options.level = level;
    absl::StatusOr<SearchResult> r = Suggest(v, p, options);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(FormatSquare(r->move().move.origin), "d2")
        << "level " << level << ": " << Describe(*r);
    EXPECT_FALSE(v.HomeCamp(Seat::kW).Test(r->move().move.destination))
        << "level " << level << ": " << Describe(*r);
  }
}

TEST(SearchTest, TheBotLeavesAStragglerInItsCampAWayOut) {
  // classic-16x16 (target lock, no move cap): game 166 of the top level
  // (b) against greedy (w) at 200 games (docs/bot.md, "A camp closed on a
  // straggler"). w never moved its a1 piece; b has filled its camp around
  // it but for b2 and c3, its last three pieces wait outside. Filling c3
  // (the arena's level 8 played e3-c3) closes w's last way out: under
  // target lock b's pieces in the camp can never make room again, a1 is
  // never freed, and neither side ever finishes. The bot keeps the way
  // open and waits.
  const Variant v = Preset("classic-16x16");
  const Position p = Parse(
      "12wwww/7w5www/8w5ww/14w1/10w4w/16/9w6/4w8w2/16/8w7/b15/b1b13/"
      "bbbb12/bb1bb11/b1bbb11/wbbbb11 b 102,101",
      v);
  const Bitboard& camp = v.TargetCamp(Seat::kB);
  const Square a1 = MakeSquare(0, 0);
  ASSERT_TRUE(bot_test::CanGetOutByItsOwnMoves(v, p, Seat::kW, a1, camp));
  for (const int level : {kMinLevel, 4, 6, kTopLevel}) {
    for (const std::uint64_t seed : {0ULL, 2426734292774896118ULL}) {
      SearchOptions options;
      options.level = level;
      options.seed = seed;
      options.candidates = 4;
      absl::StatusOr<SearchResult> r = Suggest(v, p, options);
      ASSERT_TRUE(r.ok()) << r.status();
      for (int i = 0; i < r->candidate_count; ++i) {
        const BotMove& m = r->candidates[i].move;
        Position after = p;
        after.pieces[SeatIndex(Seat::kB)].Clear(m.origin);
        after.pieces[SeatIndex(Seat::kB)].Set(m.destination);
        EXPECT_TRUE(
            bot_test::CanGetOutByItsOwnMoves(v, after, Seat::kW, a1, camp))
            << "level " << level << " seed " << seed << ": " << Describe(*r);
      }
    }
  }
}

// The position after `move` (origin and destination) of the side to move.
Position After(const Variant& variant, const Position& position, Square origin,
               Square destination) {
  MoveText text;
  text.squares = {origin, destination};
  return ApplyMove(variant, position, text);
}

// Whether the side to move wins (as the only winner) within `moves` of
// its own moves whatever the opponent (two players) replies, by the
// engine's moves and status.
bool WinsWithin(const Variant& variant, const Position& position, int moves);

// Whether the move from `origin` to `destination` of the side to move wins
// within `moves` of its own moves (that one included) whatever the
// opponent replies.
bool MoveWinsWithin(const Variant& variant, const Position& position,
                    Square origin, Square destination, int moves) {
  const Seat mover = position.to_move;
  const Position after = After(variant, position, origin, destination);
  const GameStatus status = EvaluateStatus(variant, after);
  if (status.over) {
    return status.winners.Has(mover) && status.winners.Count() == 1;
  }
  if (moves == 1) return false;
  auto replies = std::make_unique<MoveList>();
  GenerateLegalMoves(variant, after, after.to_move, replies.get());
  if (replies->size == 0) return false;
  for (const LegalMove& r : *replies) {
    if (!WinsWithin(variant, After(variant, after, r.origin, r.destination),
                    moves - 1)) {
      return false;
    }
  }
  return true;
}

bool WinsWithin(const Variant& variant, const Position& position, int moves) {
  auto list = std::make_unique<MoveList>();
  GenerateLegalMoves(variant, position, position.to_move, list.get());
  for (const LegalMove& m : *list) {
    if (MoveWinsWithin(variant, position, m.origin, m.destination, moves)) {
      return true;
    }
  }
  return false;
}

// Whether the side to move in `position` ends the game as its only winner
// with one of its moves, by the engine's moves and status.
bool WinsAtOnce(const Variant& variant, const Position& position) {
  return WinsWithin(variant, position, 1);
}

// Whether `move` of the side to move wins by its second move, not its
// first, whatever the opponent (two players) replies.
bool WinsByTheSecondMove(const Variant& variant, const Position& position,
                         const BotMove& move) {
  return !MoveWinsWithin(variant, position, move.origin, move.destination, 1) &&
         MoveWinsWithin(variant, position, move.origin, move.destination, 2);
}

// classic-16x16, game 57 of the equal-nodes match against distance-ab
// (docs/bot.md, "The equal-nodes match") after 222 plies: w has 18 of its
// 19 pieces in its target and its last one on l11; b's last piece has
// just stepped out of n13, w's one hole, to m13, and steps back in
// whenever w could fill the hole next. Before the fix the search's beam
// left b's step back out of the replies it searched, and level 8 claimed
// l11-m12 won "in 1 move" (b answered m13-n13); for 1,800 plies the game
// went on so.
constexpr char kBlockedHole[] =
    "11wwwww/11wwwww/12wwww/12b1ww/14ww/11w4/16/16/16/16/16/b15/bbb13/"
    "bbbb12/bbbbb11/bbbbb11 w 111,111";

// Asks levels 5 to the top for eight candidates in `position` and checks
// that every win a candidate claims within `max_moves` moves holds against
// every reply (the engine's moves, one by one).
void ExpectClaimedWinsHold(const Variant& variant, const Position& position,
                           int max_moves) {
  for (const int level : {5, 6, 7, kTopLevel}) {
    SearchOptions options;
    options.level = level;
    options.candidates = 8;
    absl::StatusOr<SearchResult> r = Suggest(variant, position, options);
    ASSERT_TRUE(r.ok()) << r.status();
    for (int i = 0; i < r->candidate_count; ++i) {
      const Suggestion& s = r->candidates[i];
      if (s.score.kind != ScoreKind::kWin || s.score.moves > max_moves) {
        continue;
      }
      EXPECT_TRUE(MoveWinsWithin(variant, position, s.move.origin,
                                 s.move.destination, s.score.moves))
          << "level " << level << ": win in " << s.score.moves << ": "
          << Describe(*r);
    }
  }
}

TEST(SearchTest, AWinIsClaimedOnlyWhereNoReplyStopsIt) {
  const Variant v = Preset("classic-16x16");
  const Position p = Parse(kBlockedHole, v);
  // No move wins at once, so a win claimed on the first move is false.
  ASSERT_FALSE(WinsAtOnce(v, p));
  // The claim the search used to make is false: b steps back in.
  BotMove l11_m12;
  l11_m12.origin = MakeSquare(11, 10);
  l11_m12.destination = MakeSquare(12, 11);
  ASSERT_FALSE(WinsByTheSecondMove(v, p, l11_m12));
  ExpectClaimedWinsHold(v, p, 2);
}

TEST(SearchTest, AWinSeenAtTheLeavesCountsItsMoves) {
  // The position above with b's last piece far away (h8): w wins by its
  // second move whatever b does (l11-m12, then m12-n13), and not by its
  // first. A win found one ply above the leaves used to be valued as one
  // on the root's own move: "win in 1 move".
  const Variant v = Preset("classic-16x16");
  const Position p = Parse(
      "11wwwww/11wwwww/12wwww/14ww/14ww/11w4/16/16/7b8/16/16/b15/bbb13/"
      "bbbb12/bbbbb11/bbbbb11 w 111,111",
      v);
  ASSERT_FALSE(WinsAtOnce(v, p));
  for (const int level : {5, 6, 7, kTopLevel}) {
    SearchOptions options;
    options.level = level;
    absl::StatusOr<SearchResult> r = Suggest(v, p, options);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->move().score.kind, ScoreKind::kWin)
        << "level " << level << ": " << Describe(*r);
    EXPECT_EQ(r->move().score.moves, 2)
        << "level " << level << ": " << Describe(*r);
    EXPECT_TRUE(WinsByTheSecondMove(v, p, r->move().move))
        << "level " << level << ": " << Describe(*r);
  }
}

// classic-16x16, game 21 of the equal-nodes match against distance-ab
// (docs/bot.md, "The equal-nodes match") at the 2,000-ply cap: w has 18
// of its 19 pieces in its target, its last one on j14 and its one hole
// on m16; b's last piece stands in the way on k14, just outside the
// camp, and steps back and forth to stay there. The search's beam left
// b's staying out of the replies it searched, and level 8 claimed
// l16-m16 won "in 3 moves" with a line where b steps aside.
constexpr char kPieceInTheWay[] =
    "11w1www/11wwwww/9wb1wwww/13www/14ww/16/16/16/16/16/16/b15/bbb13/"
    "bbbb12/bbbbb11/bbbbb11 w 1000,1000";

TEST(SearchTest, AWinIsNotClaimedPastAPieceInTheWay) {
  const Variant v = Preset("classic-16x16");
  const Position p = Parse(kPieceInTheWay, v);
  ASSERT_FALSE(WinsAtOnce(v, p));
  ExpectClaimedWinsHold(v, p, 3);
}

TEST(SearchTest, TheCheckpointStopsTheSearch) {
  const Variant variant = Preset("classic-16x16");
  const Position p = Playouts(variant, 1, 60, 4).back();
  ASSERT_FALSE(EvaluateStatus(variant, p).over);
  SearchWorkspace workspace;
  // Polled at least every kCheckpointExpansions expansions.
  int calls = 0;
  absl::StatusOr<SearchResult> full =
      SuggestMove(variant, p, Budget(300000), &workspace, [&] {
        ++calls;
        return absl::OkStatus();
      });
  ASSERT_TRUE(full.ok());
  EXPECT_GE(calls, full->expansions / kCheckpointExpansions);
  EXPECT_GE(calls, full->nodes / kCheckpointNodes);
  // A hook that says stop at its 5th call: the call answers with its
  // status, having done only what five polls allow.
  for (bool best_so_far : {false, true}) {
    calls = 0;
    SearchOptions options = Budget(300000, 3);
    options.best_so_far_on_stop = best_so_far;
    absl::StatusOr<SearchResult> r =
        SuggestMove(variant, p, options, &workspace, [&] {
          return ++calls >= 5 ? absl::CancelledError("client went away")
                              : absl::OkStatus();
        });
    EXPECT_EQ(calls, 5);
    if (!best_so_far) {
      EXPECT_EQ(r.status().code(), absl::StatusCode::kCancelled);
      continue;
    }
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->stop_reason, StopReason::kCheckpoint);
    EXPECT_EQ(r->stop_status.code(), absl::StatusCode::kCancelled);
    EXPECT_LE(r->expansions, 5 * kCheckpointExpansions + 1);
    ExpectLegal(variant, p, r->move(), "best so far");
  }
}

TEST(SearchTest, BudgetsBoundTheWork) {
  const Variant variant = Preset("classic-16x16");
  const Position p = Playouts(variant, 1, 50, 8).back();
  for (std::int64_t budget : {1, 100, 5000, 50000}) {
    absl::StatusOr<SearchResult> r = Suggest(variant, p, Budget(budget));
    ASSERT_TRUE(r.ok());
    // The budget is checked at each expansion, whose leaves are counted in
    // bulk: at most one position's moves over.
    EXPECT_LE(r->nodes, budget + kMaxLegalMoves * 3 + 1);
    ExpectLegal(variant, p, r->move(), "budget");
  }
  // A depth limit stops the deepening.
  SearchOptions options = Budget(10'000'000);
  options.depth_limit = 2;
  absl::StatusOr<SearchResult> r = Suggest(variant, p, options);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->depth, 2);
  EXPECT_EQ(r->stop_reason, StopReason::kCompleted);
  // A time budget of one microsecond stops at the first poll.
  options = Budget(10'000'000);
  options.time_budget_us = 1;
  r = Suggest(variant, p, options);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->stop_reason, StopReason::kTimeBudget);
  EXPECT_LE(r->expansions, kCheckpointExpansions + 1);
  ExpectLegal(variant, p, r->move(), "time");
}

TEST(SearchTest, TurnsNeededAreEqualForBothSeatsAtTheStart) {
  for (const auto& [name, variant] : Variants()) {
    absl::StatusOr<SearchResult> r =
        Suggest(variant, StartPosition(variant), Budget(2000));
    ASSERT_TRUE(r.ok()) << name;
    for (int i = 1; i < variant.seat_count; ++i) {
      EXPECT_DOUBLE_EQ(r->turns_needed[SeatIndex(variant.seats[0])],
                       r->turns_needed[SeatIndex(variant.seats[i])])
          << name;
    }
    EXPECT_GE(r->turns_needed[0], variant.pieces_per_seat) << name;
  }
}

}  // namespace
}  // namespace halma::bot
