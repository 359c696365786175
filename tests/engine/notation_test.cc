// docs/rules.md section 4 (notation) and section 8 (bad input): round trips of
// squares, moves and positions on every preset, canonicalisation of
// non-canonical input, and a table of malformed inputs that must be
// rejected with INVALID_ARGUMENT and a message naming what was wrong and
// what was expected.
#include "halma/notation.h"

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "halma/record_replay.h"
#include "halma/movegen.h"
#include "halma/variant.h"
#include "test_util.h"

namespace halma {
namespace {

using ::testing::HasSubstr;
using testing_util::Custom;
using testing_util::Parse;
using testing_util::Preset;
using testing_util::RandomGame;
using testing_util::Spec;

constexpr char kBk8Board[] = "4bbbb/5bbb/6bb/7b/w7/ww6/www5/wwww4";
constexpr char kBk8Start[] = "4bbbb/5bbb/6bb/7b/w7/ww6/www5/wwww4 w 0,0";

std::string SquareName(int x, int y) {
  return std::string(1, static_cast<char>('a' + x)) + std::to_string(y + 1);
}

// ===========================================================================
// Squares.

TEST(Section4Squares, EverySquareOfEveryBoardSizeRoundTrips) {
  for (int n = kMinBoardSize; n <= kMaxBoardSize; ++n) {
    for (int y = 0; y < n; ++y) {
      for (int x = 0; x < n; ++x) {
        const std::string name = SquareName(x, y);
        const absl::StatusOr<Square> s = ParseSquare(name, n);
        ASSERT_TRUE(s.ok()) << name << " on " << n << ": " << s.status();
        EXPECT_EQ(*s, MakeSquare(x, y)) << name;
        EXPECT_EQ(FileOf(*s), x) << name;
        EXPECT_EQ(RankOf(*s), y) << name;
        EXPECT_EQ(FormatSquare(*s), name);
      }
    }
  }
}

TEST(Section4Squares, SquaresBeyondTheBoardAreRejected) {
  for (int n = kMinBoardSize; n < kMaxBoardSize; ++n) {
    // The first file and the first rank past the edge.
    for (const std::string& name :
         {SquareName(n, 0), SquareName(0, n), SquareName(n, n)}) {
      const absl::StatusOr<Square> s = ParseSquare(name, n);
      ASSERT_FALSE(s.ok()) << name << " on " << n;
      EXPECT_EQ(s.status().code(), absl::StatusCode::kInvalidArgument);
      EXPECT_THAT(std::string(s.status().message()), HasSubstr("off the"));
    }
  }
}

TEST(Section4Squares, ExamplesFromTheRuleBook) {
  EXPECT_EQ(FormatSquare(*ParseSquare("a1", 10)), "a1");
  EXPECT_EQ(FormatSquare(*ParseSquare("j10", 10)), "j10");
  EXPECT_EQ(FormatSquare(*ParseSquare("p16", 16)), "p16");
  EXPECT_EQ(*ParseSquare("p16", 16), MakeSquare(15, 15));
}

// ===========================================================================
// Moves.

TEST(Section4Moves, HandWrittenMovesRoundTrip) {
  const std::vector<std::pair<std::string, int>> moves = {
      {"pass", 8},         {"b2-c3", 8},        {"c3-e5-g7", 8},
      {"a1-a1", 8},        {"h8-a1", 8},        {"j10-h8", 10},
      {"a10-c10-e10", 10}, {"p16-n14-l12", 16}, {"a1-p16", 16},
      {"d4-b2", 4},        {"a1-c3-a1-c3", 8},  {"b2-c3-d4-e5-f6", 8},
  };
  for (const auto& [text, n] : moves) {
    const absl::StatusOr<MoveText> m = ParseMove(text, n);
    ASSERT_TRUE(m.ok()) << text << ": " << m.status();
    EXPECT_EQ(FormatMove(*m), text);
    EXPECT_EQ(m->is_pass, text == "pass");
  }
  const MoveText two = *ParseMove("c3-e5-g7", 8);
  ASSERT_EQ(two.squares.size(), 3u);
  EXPECT_EQ(two.squares[0], MakeSquare(2, 2));
  EXPECT_EQ(two.squares[1], MakeSquare(4, 4));
  EXPECT_EQ(two.squares[2], MakeSquare(6, 6));
  EXPECT_EQ(FormatPath(two.squares.data(), 3), "c3-e5-g7");
}

TEST(Section4Moves, GeneratedPathsRoundTripOnEveryPreset) {
  std::mt19937 rng(7);
  auto list = std::make_unique<MoveList>();
  auto paths = std::make_unique<MovePaths>();
  int checked = 0;
  for (const std::string& name : PresetNames()) {
    SCOPED_TRACE(name);
    const Variant v = Preset(name);
    const std::vector<Position> game =
        RandomGame(v, StartPosition(v), 120, &rng, 0.7);
    for (size_t k = 0; k < game.size(); k += 5) {
      const Position& p = game[k];
      GenerateLegalMovesWithPaths(v, p, p.to_move, list.get(), paths.get());
      for (int i = 0; i < list->size; ++i) {
        const std::string text = FormatPath(paths->Path(i), paths->Length(i));
        const absl::StatusOr<MoveText> m = ParseMove(text, v.size);
        ASSERT_TRUE(m.ok()) << text << ": " << m.status();
        EXPECT_EQ(FormatMove(*m), text);
        EXPECT_EQ(static_cast<int>(m->squares.size()), paths->Length(i));
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 1000);
}

// ===========================================================================
// Positions.

TEST(Section4Positions, RuleBookExampleParses) {
  const Variant v = Preset("brainking-8x8");
  const Position p = Parse(kBk8Start, v);
  EXPECT_TRUE(p == StartPosition(v));
  EXPECT_EQ(FormatPosition(p, v), kBk8Start);
}

TEST(Section4Positions, RandomGamesRoundTripOnEveryPresetAndCustomVariants) {
  std::vector<Variant> variants;
  for (const std::string& name : PresetNames())
    variants.push_back(Preset(name));
  // Four seats with a short home-exit limit: eliminated seats fall behind in
  // their move counts. A tiny board with forced passes. Round completion.
  variants.push_back(Custom(Spec(8, 4, {2, 1}, 3)));
  variants.push_back(Custom(Spec(4, 2, {4, 3}, 0, false, true)));
  variants.push_back(Custom(Spec(12, 2, {4, 4, 2}, 0, true, false, 60)));
  variants.push_back(Custom(Spec(16, 4, {8, 7, 6, 5, 4, 3, 2, 1})));
  std::mt19937 rng(12345);
  int checked = 0;
  for (const Variant& v : variants) {
    SCOPED_TRACE(v.spec.name.empty() ? "custom" : v.spec.name);
    for (double greedy : {0.0, 0.8}) {
      for (const Position& p :
           RandomGame(v, StartPosition(v), 150, &rng, greedy)) {
        const std::string text = FormatPosition(p, v);
        const absl::StatusOr<Position> back = ParsePosition(text, v);
        ASSERT_TRUE(back.ok()) << text << ": " << back.status();
        EXPECT_TRUE(*back == p) << text;
        EXPECT_EQ(FormatPosition(*back, v), text);
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 1000);
}

TEST(Section4Positions, EliminatedSeatMayHaveFewerMoves) {
  // 8x8, four seats, camps [2,1], home-exit limit 2. First: r (3 moves,
  // a8 and b8 at home) and b (3 moves, g8 h8 at home) are eliminated and g
  // is to move after 2 moves. Then r alone is eliminated (a8 at home) and
  // falls further behind round after round.
  const Variant v = Custom(Spec(8, 4, {2, 1}, 2));
  for (const char* text : {"rr4bb/8/8/8/r5bg/w7/1ww5/6gg g 3,3,3,2",
                           "r7/2r2bb1/7b/r7/8/w2w3g/1w3gg1/8 b 4,3,3,3",
                           "r7/2r2bb1/7b/r7/8/w2w3g/1w3gg1/8 w 9,3,9,9",
                           "r7/2r2bb1/7b/r7/8/w2w3g/1w3gg1/8 g 10,3,10,9"}) {
    const absl::StatusOr<Position> p = ParsePosition(text, v);
    ASSERT_TRUE(p.ok()) << text << ": " << p.status();
    EXPECT_EQ(FormatPosition(*p, v), text);
  }
}

struct CanonicalRow {
  std::string variant;
  std::string input;
  std::string canonical;
};

TEST(Section4Positions, NonCanonicalInputIsAcceptedAndCanonicalised) {
  const std::string c16 =
      "11bbbbb/11bbbbb/12bbbb/13bbb/14bb/16/16/16/16/16/16/ww14/www13/"
      "wwww12/wwwww11/wwwww11 w 0,0";
  const std::string c16x4 =
      "rrrr8bbbb/rrrr8bbbb/rrr10bbb/rr12bb/16/16/16/16/16/16/16/16/ww12gg/"
      "www10ggg/wwww8gggg/wwww8gggg";
  const std::vector<CanonicalRow> rows = {
      {"brainking-8x8", "04bbbb/5bbb/6bb/7b/w7/ww6/www5/wwww4 w 0,0",
       kBk8Start},
      {"brainking-8x8", "4bbbb/05bbb/006bb/7b/w07/ww6/www5/wwww004 w 0,0",
       kBk8Start},
      {"brainking-8x8", "00000004bbbb/5bbb/6bb/7b/w7/ww6/www5/wwww4 w 0,0",
       kBk8Start},
      {"brainking-8x8", std::string(kBk8Board) + " w 00,0", kBk8Start},
      {"brainking-8x8", std::string(kBk8Board) + " w 000000000,000000000",
       kBk8Start},
      {"brainking-8x8", "4wwww/5www/7w/5w1w/4b3/bb6/bbb5/bbbb4 w 025,0025",
       "4wwww/5www/7w/5w1w/4b3/bb6/bbb5/bbbb4 w 25,25"},
      {"brainking-8x8", "4wwww/5www/07w/5w01w/4b03/bb6/bbb5/bbbb4 b 26,25",
       "4wwww/5www/7w/5w1w/4b3/bb6/bbb5/bbbb4 b 26,25"},
      {"classic-16x16",
       "011bbbbb/11bbbbb/12bbbb/13bbb/14bb/016/16/0016/16/16/16/ww14/www13/"
       "wwww12/wwwww11/wwwww011 w 0,0",
       c16},
      {"classic-16x16-4p", c16x4 + " w 0,00,000,0000", c16x4 + " w 0,0,0,0"},
      {"classic-16x16-4p", c16x4 + " g 1,1,01,000", c16x4 + " g 1,1,1,0"},
      {"iggamecenter-10x10",
       "5bbbbb/6bbbb/7bbb/8bb/9b/w9/ww8/www7/wwww6/wwwww05 w 0,0",
       "5bbbbb/6bbbb/7bbb/8bb/9b/w9/ww8/www7/wwww6/wwwww5 w 0,0"},
  };
  for (const CanonicalRow& row : rows) {
    const Variant v = Preset(row.variant);
    const absl::StatusOr<Position> p = ParsePosition(row.input, v);
    ASSERT_TRUE(p.ok()) << row.input << ": " << p.status();
    EXPECT_EQ(FormatPosition(*p, v), row.canonical) << row.input;
    // The canonical form is a fixed point.
    const absl::StatusOr<Position> q = ParsePosition(row.canonical, v);
    ASSERT_TRUE(q.ok()) << row.canonical << ": " << q.status();
    EXPECT_TRUE(*p == *q);
  }
}

// ===========================================================================
// Section 8: malformed input.

enum class Kind { kSquare, kMove, kPosition, kPreset, kSpec, kRecord };

const char* KindName(Kind k) {
  switch (k) {
    case Kind::kSquare:
      return "square";
    case Kind::kMove:
      return "move";
    case Kind::kPosition:
      return "position";
    case Kind::kPreset:
    case Kind::kSpec:
      return "variant";
    case Kind::kRecord:
      return "ply";
  }
  return "";
}

struct BadRow {
  Kind kind;
  // Square, move and record rows: the board size; position rows: the
  // preset name (or "4p-exit" for a custom four-seat variant).
  std::string context;
  std::string input;      // Record rows: moves separated by spaces.
  std::string want;       // A substring the message must contain.
  VariantSpec spec = {};  // Spec rows only.
};

BadRow Sq(std::string input, std::string want, int n = 8) {
  return {Kind::kSquare, std::to_string(n), std::move(input), std::move(want)};
}
BadRow Mv(std::string input, std::string want, int n = 8) {
  return {Kind::kMove, std::to_string(n), std::move(input), std::move(want)};
}
BadRow Pos(std::string input, std::string want,
           std::string variant = "brainking-8x8") {
  return {Kind::kPosition, std::move(variant), std::move(input),
          std::move(want)};
}
BadRow Bk8(std::string tail, std::string want) {
  return Pos(std::string(kBk8Board) + tail, std::move(want));
}
BadRow Named(std::string input, std::string want) {
  return {Kind::kPreset, "", std::move(input), std::move(want)};
}
BadRow SpecRow(VariantSpec spec, std::string want) {
  BadRow row{Kind::kSpec, "", "", std::move(want)};
  row.spec = std::move(spec);
  return row;
}
BadRow Rec(std::string moves, std::string want) {
  return {Kind::kRecord, "8", std::move(moves), std::move(want)};
}

std::vector<BadRow> BadRows() {
  const std::string with_nul("a1\0", 3);
  const std::string long_move(2000, 'a');
  const std::string long_position =
      std::string(kBk8Board) + " w " + std::string(5000, '0');
  std::vector<BadRow> rows = {
      // Squares.
      Sq("", "empty"),
      Sq("a", "missing rank"),
      Sq("1", "does not start with a file letter"),
      Sq("11", "does not start with a file letter"),
      Sq("A1", "upper-case file 'A'"),
      Sq("H8", "upper-case file 'H'"),
      Sq("a9", "rank 9 is off the 8x8 board"),
      Sq("i1", "file 'i' is off the 8x8 board"),
      Sq("z1", "file 'z' is off the 8x8 board"),
      Sq("a0", "is 0"),
      Sq("a01", "leading zero"),
      Sq("a08", "leading zero"),
      Sq("a1 ", "after the rank"),
      Sq(" a1", "does not start with a file letter"),
      Sq("a-1", "no rank number"),
      Sq("a+1", "no rank number"),
      Sq("aa1", "no rank number"),
      Sq("a1b", "after the rank"),
      Sq("a1.", "after the rank"),
      Sq(with_nul, "\\x00"),
      Sq("a\n", "\\n"),
      Sq("\xc3\xa9"
         "1",
         "does not start with a file letter"),
      Sq("a1000", "after the rank", 16),
      Sq("q1", "file 'q' is off the 16x16 board", 16),
      Sq("p17", "rank 17 is off the 16x16 board", 16),
      Sq("e1", "file 'e' is off the 4x4 board", 4),
      Sq("a5", "rank 5 is off the 4x4 board", 4),
      Sq("k1", "file 'k' is off the 10x10 board", 10),
      Sq("a11", "rank 11 is off the 10x10 board", 10),
      // Moves.
      Mv("", "empty"),
      Mv("a1", "a single square is not a move"),
      Mv("-a1", "square 1 is empty"),
      Mv("a1-", "square 2 is empty"),
      Mv("a1--b2", "square 2 is empty"),
      Mv("a1-b2-", "square 3 is empty"),
      Mv("-", "square 1 is empty"),
      Mv("pass-a1", "\"pass\" must stand alone"),
      Mv("a1-pass", "\"pass\" must stand alone"),
      Mv("PASS", "upper-case file 'P'"),
      Mv("Pass", "upper-case file 'P'"),
      Mv("pass ", "file 'p' is off the 8x8 board"),
      Mv(" pass", "does not start with a file letter"),
      Mv("a1 b2", "after the rank"),
      Mv("a1,b2", "after the rank"),
      Mv("a1_b2", "after the rank"),
      Mv("a1\xe2\x80\x93"
         "b2",
         "after the rank"),  // an en dash
      Mv("a1-i9", "square 2"),
      Mv("a1-a0", "is 0"),
      Mv("a1-B2", "upper-case file 'B'"),
      Mv("a01-b2", "leading zero"),
      Mv("p16-q17", "file 'q' is off the 16x16 board", 16),
      Mv("j10-k11", "file 'k' is off the 10x10 board", 10),
      Mv(long_move, "longer than 1024 characters"),
      // Positions.
      Pos("", "expected 3"),
      Pos(kBk8Board, "has 1 space-separated fields, expected 3"),
      Bk8(" w", "has 2 space-separated fields, expected 3"),
      Bk8(" w 0,0 x", "has 4 space-separated fields, expected 3"),
      Bk8("  w 0,0", "expected 3"),
      Bk8(" w  0,0", "expected 3"),
      Pos(" " + std::string(kBk8Start), "expected 3"),
      Bk8(" w 0,0 ", "expected 3"),
      Bk8("\tw\t0,0", "expected 3"),
      Bk8(" w 0,0\n", "move count 2"),
      Pos("4bbbbb/5bbb/6bb/7b/w7/ww6/www5/wwww4 w 0,0",
          "rank 8 \"4bbbbb\" holds more than 8 squares, expected 8"),
      Pos("4bbb/5bbb/6bb/7b/w7/ww6/www5/wwww4 w 0,0",
          "rank 8 \"4bbb\" holds 7 squares, expected 8"),
      Pos("4bbbb/5bbb/6bb/7b/w7/ww6/www5/wwww5 w 0,0",
          "rank 1 \"wwww5\" holds more than 8 squares"),
      Pos("4bbbb/5bbb/6bb/7b/w7/ww6/www5/wwww40 w 0,0",
          "holds more than 8 squares"),
      Pos("4bbbb/5bbb/6bb/7b/w7/ww6/www5/wwww99 w 0,0",
          "holds more than 8 squares"),
      Pos("4bbbb/5bbb/6bb/7b/w7/ww6/www5/ w 0,0",
          "rank 1 \"\" holds 0 squares, expected 8"),
      Pos("4bbbb/5bbb/6bb/7b/w7/ww6/www5 w 0,0",
          "board has 7 ranks separated by '/', expected 8"),
      Pos("8/4bbbb/5bbb/6bb/7b/w7/ww6/www5/wwww4 w 0,0",
          "board has 9 ranks separated by '/', expected 8"),
      Pos("4bbbb/5bbb/6bb/7b/w7/ww6/www5/wwww4/ w 0,0", "board has 9 ranks"),
      Pos("4bbbb/5bbb/6bb/7b/r7/ww6/www5/wwww4 w 0,0",
          "expected a seat in play (w or b)"),
      Pos("4bbbb/5bbb/6bb/7b/x7/ww6/www5/wwww4 w 0,0",
          "expected a seat in play (w or b)"),
      Pos("4bbbb/5bbb/6bb/7b/W7/ww6/www5/wwww4 w 0,0",
          "expected a seat in play (w or b)"),
      Pos("4bbbb/5bbb/6bb/7b/.7/ww6/www5/wwww4 w 0,0",
          "expected a seat in play (w or b)"),
      Pos("11bbbbb/11bbbbb/12bbbb/13bbb/14bb/16/16/16/16/16/16/ww13r/www13/"
          "wwww12/wwwww11/wwwww11 w 0,0",
          "expected a seat in play (w or b)", "classic-16x16"),
      Bk8(" x 0,0", "side to move \"x\", expected one letter: w or b"),
      Bk8(" r 0,0", "side to move \"r\", expected one letter: w or b"),
      Bk8(" W 0,0", "side to move \"W\""),
      Bk8(" wb 0,0", "side to move \"wb\""),
      Bk8(" 1 0,0", "side to move \"1\""),
      Bk8(" w 0", "has 1 numbers, expected 2"),
      Bk8(" w 0,0,0", "has 3 numbers, expected 2"),
      Bk8(" w 0,0,", "has 3 numbers, expected 2"),
      Bk8(" w ,0", "move count 1 \"\""),
      Bk8(" w +1,+1", "move count 1 \"+1\""),
      Bk8(" w -1,0", "move count 1 \"-1\""),
      Bk8(" w 0,-1", "move count 2 \"-1\""),
      Bk8(" w 0x1,0", "move count 1"),
      Bk8(" w 1.0,1", "move count 1"),
      Bk8(" w 9223372036854775808,9223372036854775808",
          "move count 1 \"9223372036854775808\", expected a decimal number "
          "from 0 to 9223372036854775807"),
      Bk8(" w 00000000000000000001,1", "move count 1 \"00000000000000000001\""),
      Bk8(" w 99999999999999999999,1", "move count 1 \"99999999999999999999\""),
      Bk8(" w 0;0", "has 1 numbers"),
      Bk8(" w 1,0", "move count of 'b' is 0, expected 1"),
      Bk8(" w 0,1", "move count of 'b' is 1, expected 0"),
      Bk8(" b 0,0", "move count of 'w' is 0, expected 1"),
      Bk8(" b 1,1", "move count of 'w' is 1, expected 2"),
      Bk8(" b 2,0", "move count of 'w' is 2, expected 1"),
      Pos("4bbbb/5bbb/5bbb/7b/w7/ww6/www5/wwww4 w 0,0",
          "has 11 'b' pieces, expected 10"),
      Pos("4bbbb/5bbb/6bb/7b/8/ww6/www5/wwww4 w 0,0",
          "has 9 'w' pieces, expected 10"),
      Pos("8/8/8/8/8/8/8/8 w 0,0", "has 0 'w' pieces, expected 10"),
      Pos("rrrr8bbbb/rrrr8bbbb/rrr10bbb/rr12bb/16/16/16/16/16/16/16/16/ww12gg/"
          "www10ggg/wwww8gggg/wwww8gggg w 0,0",
          "has 2 numbers, expected 4", "classic-16x16-4p"),
      Pos("rr4bb/8/8/8/r5bg/w7/1ww5/6gg r 3,3,3,2", "eliminated", "4p-exit"),
      Pos("rr4bb/8/8/8/r5bg/w7/1ww5/6gg g 2,3,3,2",
          "move count of 'w' is 2, expected 3", "4p-exit"),
      Pos("rr4bb/8/8/8/r5bg/w7/1ww5/6gg g 3,4,3,2",
          "move count of 'r' is 4, expected 3", "4p-exit"),
      Pos("rr4bb/8/8/8/r5bg/w7/1ww5/6g1 g 3,3,3,2",
          "has 2 'g' pieces, expected 3", "4p-exit"),
      Pos(long_position, "longer than 4096 characters"),
      // Presets.
      Named("brainking-9x9", "no such preset"),
      Named("", "no such preset"),
      Named("BrainKing-8x8", "no such preset"),
      Named("brainking-8x8 ", "no such preset"),
      Named("classic", "expected one of brainking-8x8"),
      // Custom variant fields.
      SpecRow(Spec(3, 2, {1}), "board_size 3: expected 4 to 16"),
      SpecRow(Spec(17, 2, {1}), "board_size 17: expected 4 to 16"),
      SpecRow(Spec(0, 2, {1}), "board_size 0"),
      SpecRow(Spec(-8, 2, {1}), "board_size -8"),
      SpecRow(Spec(8, 3, {1}), "seat_count 3: expected 2 (w, b) or 4"),
      SpecRow(Spec(8, 1, {1}), "seat_count 1"),
      SpecRow(Spec(8, 0, {1}), "seat_count 0"),
      SpecRow(Spec(8, 5, {1}), "seat_count 5"),
      SpecRow(Spec(8, 2, {}), "camp_rows []: expected at least one row"),
      SpecRow(Spec(8, 2, {0}), "row 1 has length 0, expected 1 to 8"),
      SpecRow(Spec(8, 2, {3, 0}), "row 2 has length 0, expected 1 to 8"),
      SpecRow(Spec(8, 2, {-1}), "row 1 has length -1"),
      SpecRow(Spec(8, 2, {2, 3}),
              "row 2 (3) is longer than row 1 (2), expected non-increasing"),
      SpecRow(Spec(8, 2, {4, 3, 3, 4}), "row 4 (4) is longer than row 3 (3)"),
      SpecRow(Spec(8, 2, {9}), "row 1 has length 9, expected 1 to 8"),
      SpecRow(Spec(4, 2, {1, 1, 1, 1, 1}),
              "5 rows do not fit a board of 4 ranks"),
      SpecRow(Spec(4, 2, {4, 4, 1}), "overlap on a 4x4 board"),
      SpecRow(Spec(4, 2, {4, 3, 2, 1}), "overlap"),
      SpecRow(Spec(4, 4, {3}), "south-west and south-east camps overlap"),
      SpecRow(Spec(4, 4, {2, 2, 2}), "south-west and north-west camps overlap"),
      SpecRow(Spec(5, 4, {3, 3}), "overlap on a 5x5 board"),
      SpecRow(Spec(16, 2, {16, 16, 16, 16, 16, 16, 16, 16, 1}), "overlap"),
      SpecRow(Spec(8, 2, {1}, -1), "home_exit_limit -1: expected 0 (off) to"),
      SpecRow(Spec(8, 2, {1}, 1000001), "home_exit_limit 1000001"),
      SpecRow(Spec(8, 2, {1}, 0, false, false, -5),
              "move_cap -5: expected 0 (off) to"),
      SpecRow(Spec(8, 2, {1}, 0, false, false, 2000000), "move_cap 2000000"),
      // Records: a malformed move anywhere makes the record malformed.
      Rec("a1-c3 h8-f6 x9", "ply 3"),
      Rec("A1-c3", "ply 1"),
      Rec("a1-c3 -", "ply 2"),
      Rec("a1-c3 h8-f6 c3-e5 ", "ply 4"),
  };
  return rows;
}

// Whether a message can be expected to quote `input` verbatim.
bool Quotable(const std::string& input) {
  if (input.empty() || input.size() > 80) return false;
  for (char c : input) {
    const unsigned char u = static_cast<unsigned char>(c);
    if (u < 0x20 || u >= 0x7f || c == '"' || c == '\\') return false;
  }
  return true;
}

absl::Status Attempt(const BadRow& row) {
  switch (row.kind) {
    case Kind::kSquare:
      return ParseSquare(row.input, std::stoi(row.context)).status();
    case Kind::kMove:
      return ParseMove(row.input, std::stoi(row.context)).status();
    case Kind::kPosition: {
      const Variant v = row.context == "4p-exit" ? Custom(Spec(8, 4, {2, 1}, 2))
                                                 : Preset(row.context);
      return ParsePosition(row.input, v).status();
    }
    case Kind::kPreset:
      return PresetVariant(row.input).status();
    case Kind::kSpec:
      return MakeVariant(row.spec).status();
    case Kind::kRecord: {
      const Variant v = Preset("brainking-8x8");
      const std::vector<std::string> moves = absl::StrSplit(row.input, ' ');
      return AdjudicateRecord(v, StartPosition(v), moves).status();
    }
  }
  return absl::OkStatus();
}

TEST(Section8BadInput, MalformedInputsAreRejectedWithExplainingMessages) {
  const std::vector<BadRow> rows = BadRows();
  EXPECT_GE(rows.size(), 60u);
  for (const BadRow& row : rows) {
    SCOPED_TRACE(std::string(KindName(row.kind)) + " " +
                 QuoteForError(row.input) + " (" + row.context + ")");
    const absl::Status status = Attempt(row);
    ASSERT_FALSE(status.ok());
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
    const std::string message(status.message());
    EXPECT_THAT(message, HasSubstr(row.want));
    // Section 8: the message names the field and the offending text (what
    // was expected: see the next test).
    EXPECT_THAT(message, HasSubstr(KindName(row.kind)));
    if (row.kind != Kind::kRecord && Quotable(row.input)) {
      EXPECT_THAT(message, HasSubstr("\"" + row.input + "\""));
    }
    // Messages stay bounded and printable whatever the input.
    EXPECT_LT(message.size(), 600u);
    for (char c : message) {
      const unsigned char u = static_cast<unsigned char>(c);
      EXPECT_TRUE(u >= 0x20 && u != 0x7f) << "control character in message";
    }
  }
}

TEST(Section8BadInput, EveryMessageSaysWhatWasExpected) {
  for (const BadRow& row : BadRows()) {
    const absl::Status status = Attempt(row);
    ASSERT_FALSE(status.ok()) << QuoteForError(row.input);
    EXPECT_THAT(std::string(status.message()), HasSubstr("expected"))
        << KindName(row.kind) << " " << QuoteForError(row.input);
  }
}

TEST(Section8BadInput, QuoteForErrorEscapesAndBounds) {
  EXPECT_EQ(QuoteForError("a1"), "\"a1\"");
  EXPECT_EQ(QuoteForError("a\n\t\"\\"), "\"a\\n\\t\\\"\\\\\"");
  EXPECT_EQ(QuoteForError(std::string("\x01", 1)), "\"\\x01\"");
  const std::string quoted = QuoteForError(std::string(1000, 'x'));
  EXPECT_LT(quoted.size(), 120u);
  EXPECT_THAT(quoted, HasSubstr("1000 bytes"));
}

TEST(Section8BadInput, ValidInputsNextToTheBadOnesAreAccepted) {
  // Guards the table above against rejecting for the wrong reason.
  EXPECT_TRUE(ParseSquare("h8", 8).ok());
  EXPECT_TRUE(ParseSquare("p16", 16).ok());
  EXPECT_TRUE(ParseSquare("d4", 4).ok());
  EXPECT_TRUE(ParseMove("a1-b2", 8).ok());
  EXPECT_TRUE(ParseMove("pass", 8).ok());
  EXPECT_TRUE(ParseMove("p16-o15", 16).ok());
  EXPECT_TRUE(PresetVariant("brainking-8x8").ok());
  EXPECT_TRUE(ParsePosition(kBk8Start, Preset("brainking-8x8")).ok());
  EXPECT_TRUE(
      ParsePosition(std::string(kBk8Board) + " b 1,0", Preset("brainking-8x8"))
          .ok());
  EXPECT_TRUE(ParsePosition("rr4bb/8/8/8/r5bg/w7/1ww5/6gg g 3,3,3,2",
                            Custom(Spec(8, 4, {2, 1}, 2)))
                  .ok());
  EXPECT_TRUE(MakeVariant(Spec(16, 2, {16, 16, 16, 16, 16, 16, 16, 16})).ok());
  EXPECT_TRUE(MakeVariant(Spec(4, 4, {1, 1})).ok());
  EXPECT_TRUE(
      MakeVariant(Spec(8, 2, {1}, 1000000, false, false, 1000000)).ok());
}

}  // namespace
}  // namespace halma
