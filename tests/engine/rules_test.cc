// Every rule of docs/rules.md sections 1 to 7 as a named test, through the
// engine's public API. Test suites are named after the section they check.
//
// Fixture positions are written as text (or drawn rank by rank, top rank
// first, '.' for an empty square) and parsed by the engine, so each one is
// a well-formed position: piece counts equal the camp size and the move
// counts fit alternate play (checked by hand in the comments).
#include <algorithm>
#include <array>
#include <cstdlib>
#include <deque>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "halma/record_replay.h"
#include "halma/move_check.h"
#include "halma/movegen.h"
#include "halma/notation.h"
#include "halma/position.h"
#include "halma/game_status.h"
#include "halma/variant.h"
#include "test_util.h"

namespace halma {
namespace {

using ::testing::HasSubstr;
using testing_util::Board;
using testing_util::Check;
using testing_util::Custom;
using testing_util::Drawn;
using testing_util::LegalSet;
using testing_util::MovePairs;
using testing_util::Parse;
using testing_util::Preset;
using testing_util::RandomGame;
using testing_util::Replay;
using testing_util::Seats;
using testing_util::SeatsText;
using testing_util::Spec;
using testing_util::Sq;

constexpr char kBrainKing8Start[] = "4bbbb/5bbb/6bb/7b/w7/ww6/www5/wwww4 w 0,0";

// ---------------------------------------------------------------------------
// Independent reference helpers (docs/rules.md sections 2 and 3, written from the
// rule text, not from the engine).

// The camp of `corner` per section 2: row i holds x = 0 .. rows[i]-1 for the
// south-west corner, mirrored for the others.
std::vector<std::pair<int, int>> CampSquares(int n,
                                             const std::vector<int>& rows,
                                             Corner corner) {
  std::vector<std::pair<int, int>> out;
  for (int i = 0; i < static_cast<int>(rows.size()); ++i) {
    for (int j = 0; j < rows[i]; ++j) {
      int x = j, y = i;
      if (corner == Corner::kSouthEast || corner == Corner::kNorthEast) {
        x = n - 1 - x;
      }
      if (corner == Corner::kNorthWest || corner == Corner::kNorthEast) {
        y = n - 1 - y;
      }
      out.emplace_back(x, y);
    }
  }
  return out;
}

Bitboard CampMask(int n, const std::vector<int>& rows, Corner corner) {
  Bitboard b;
  for (auto [x, y] : CampSquares(n, rows, corner)) b.Set(MakeSquare(x, y));
  return b;
}

// A brute-force legal-move generator written from section 3: steps to empty
// neighbours, and a breadth-first search over jump chains whose state is
// (square, has the chain stood in the target camp), with the mover's origin
// counted empty and never landed on again. Returns {(origin, destination)
// -> fewest hops}.
MovePairs BruteForceMoves(const Variant& v, const Position& p, Seat seat) {
  const int n = v.size;
  const Bitboard target = CampMask(n, v.spec.camp_rows, TargetCorner(seat));
  const bool lock = v.spec.target_lock;
  MovePairs out;
  for (int oy = 0; oy < n; ++oy) {
    for (int ox = 0; ox < n; ++ox) {
      Seat who;
      if (!p.PieceAt(MakeSquare(ox, oy), &who) || who != seat) continue;
      // Occupancy with the moving piece lifted off its origin.
      auto occupied = [&](int x, int y) {
        if (x == ox && y == oy) return false;
        Seat s;
        return p.PieceAt(MakeSquare(x, y), &s);
      };
      auto on_board = [&](int x, int y) {
        return x >= 0 && y >= 0 && x < n && y < n;
      };
      auto in_target = [&](int x, int y) {
        return target.Test(MakeSquare(x, y));
      };
      const std::string from = FormatSquare(MakeSquare(ox, oy));
      const bool start_locked = lock && in_target(ox, oy);
      for (int d = 0; d < kDirectionCount; ++d) {
        const int x = ox + kDirX[d], y = oy + kDirY[d];
        if (!on_board(x, y) || occupied(x, y)) continue;
        if (start_locked && !in_target(x, y)) continue;
        out[{from, FormatSquare(MakeSquare(x, y))}] = 0;
      }
      // dist[x][y][entered]
      std::array<std::array<std::array<int, 2>, 16>, 16> dist;
      for (auto& col : dist)
        for (auto& cell : col) cell = {-1, -1};
      std::deque<std::array<int, 3>> queue;
      dist[ox][oy][start_locked] = 0;
      queue.push_back({ox, oy, start_locked ? 1 : 0});
      while (!queue.empty()) {
        const auto [x, y, entered] = queue.front();
        queue.pop_front();
        for (int d = 0; d < kDirectionCount; ++d) {
          const int mx = x + kDirX[d], my = y + kDirY[d];
          const int lx = x + 2 * kDirX[d], ly = y + 2 * kDirY[d];
          if (!on_board(lx, ly) || !occupied(mx, my) || occupied(lx, ly)) {
            continue;
          }
          if (lx == ox && ly == oy) continue;  // never back to the origin
          if (entered && !in_target(lx, ly)) continue;
          const int now = entered || (lock && in_target(lx, ly)) ? 1 : 0;
          if (dist[lx][ly][now] >= 0) continue;
          dist[lx][ly][now] = dist[x][y][entered] + 1;
          queue.push_back({lx, ly, now});
        }
      }
      for (int y = 0; y < n; ++y) {
        for (int x = 0; x < n; ++x) {
          int best = -1;
          for (int e = 0; e < 2; ++e) {
            const int h = dist[x][y][e];
            if (h > 0 && (best < 0 || h < best)) best = h;
          }
          if (best > 0) out[{from, FormatSquare(MakeSquare(x, y))}] = best;
        }
      }
    }
  }
  return out;
}

// Checks a path hop by hop against section 3 with an independent reading
// of the board: a step is one square to an empty neighbour; a chain is hops
// over occupied squares (the origin counted empty) to empty squares, no
// square twice, and under target lock no landing outside the target once
// the chain has stood in it. Returns "" when valid, else the reason.
std::string PathProblem(const Variant& v, const Position& p, const Square* path,
                        int count) {
  if (count < 2) return "fewer than two squares";
  const Square origin = path[0];
  Seat mover;
  if (!p.PieceAt(origin, &mover)) return "empty origin";
  const Bitboard target =
      CampMask(v.size, v.spec.camp_rows, TargetCorner(mover));
  const bool lock = v.spec.target_lock;
  auto occupied = [&](int x, int y) {
    if (MakeSquare(x, y) == origin) return false;
    Seat s;
    return p.PieceAt(MakeSquare(x, y), &s);
  };
  bool in_target = lock && target.Test(origin);
  const int dx0 = FileOf(path[1]) - FileOf(origin);
  const int dy0 = RankOf(path[1]) - RankOf(origin);
  if (std::abs(dx0) <= 1 && std::abs(dy0) <= 1) {
    if (count != 2) return "a step combined with more squares";
    if (occupied(FileOf(path[1]), RankOf(path[1]))) return "step onto a piece";
    if (in_target && !target.Test(path[1])) return "step leaves target";
    return "";
  }
  Bitboard seen;
  seen.Set(origin);
  for (int i = 1; i < count; ++i) {
    const int ax = FileOf(path[i - 1]), ay = RankOf(path[i - 1]);
    const int bx = FileOf(path[i]), by = RankOf(path[i]);
    const int dx = bx - ax, dy = by - ay;
    if (!((dx == 0 || std::abs(dx) == 2) && (dy == 0 || std::abs(dy) == 2) &&
          (dx != 0 || dy != 0))) {
      return "leg " + std::to_string(i) + " is not a hop";
    }
    if (bx >= v.size || by >= v.size) return "off the board";
    if (!occupied(ax + dx / 2, ay + dy / 2)) return "nothing to jump";
    if (occupied(bx, by)) return "hop onto a piece";
    if (seen.Test(path[i])) return "square visited twice";
    if (in_target && !target.Test(path[i])) return "hop leaves target";
    if (lock && target.Test(path[i])) in_target = true;
    seen.Set(path[i]);
  }
  return "";
}

std::string PathText(const MoveCheck& c) { return FormatMove(c.path); }

// ---------------------------------------------------------------------------
// Variants used by the fixtures below.

// 8x8, two seats, camps [3,2,1]: w home a1 b1 c1 a2 b2 a3, b home f8 g8 h8
// g7 h7 h6 (w's target). No options.
Variant Open8() { return Custom(Spec(8, 2, {3, 2, 1})); }
// The same with target lock.
Variant Locked8() {
  return Custom(Spec(8, 2, {3, 2, 1}, 0, false, /*target_lock=*/true));
}

// D1 (Open8, w to move): w c3 d3 d4 e4 a1 b1; b f6 f8 g8 h8 h7 h6; g7 empty.
const std::vector<std::string> kD1 = {
    ".....bbb",  // 8
    ".......b",  // 7
    ".....b.b",  // 6
    "........",  // 5
    "...ww...",  // 4
    "..ww....",  // 3
    "........",  // 2
    "ww......",  // 1
};
Position D1(const Variant& v) { return Drawn(kD1, "w 4,4", v); }

// D2 (Locked8 / Open8, w to move): w g7 h6 (in w's target) c4 a1 b1 c1;
// b d5 f7 a6 a7 a8 b8. Target squares f8 g8 h8 h7 are empty.
const std::vector<std::string> kD2 = {
    "bb......",  // 8
    "b....bw.",  // 7
    "b......w",  // 6
    "...b....",  // 5
    "..w.....",  // 4
    "........",  // 3
    "........",  // 2
    "www.....",  // 1
};
Position D2(const Variant& v) { return Drawn(kD2, "w 10,10", v); }

// ===========================================================================
// Section 1: board, squares, seats.

TEST(Section1Board, SquareA1IsBottomLeftAndFilesRanksCount) {
  EXPECT_EQ(Sq("a1"), MakeSquare(0, 0));
  EXPECT_EQ(Sq("b1"), MakeSquare(1, 0));
  EXPECT_EQ(Sq("a2"), MakeSquare(0, 1));
  EXPECT_EQ(Sq("p16"), MakeSquare(15, 15));
  EXPECT_EQ(FileOf(Sq("j10")), 9);
  EXPECT_EQ(RankOf(Sq("j10")), 9);
}

TEST(Section1Board, SeatLettersHomeAndTargetCorners) {
  EXPECT_EQ(HomeCorner(Seat::kW), Corner::kSouthWest);
  EXPECT_EQ(HomeCorner(Seat::kR), Corner::kNorthWest);
  EXPECT_EQ(HomeCorner(Seat::kB), Corner::kNorthEast);
  EXPECT_EQ(HomeCorner(Seat::kG), Corner::kSouthEast);
  EXPECT_EQ(TargetCorner(Seat::kW), Corner::kNorthEast);
  EXPECT_EQ(TargetCorner(Seat::kR), Corner::kSouthEast);
  EXPECT_EQ(TargetCorner(Seat::kB), Corner::kSouthWest);
  EXPECT_EQ(TargetCorner(Seat::kG), Corner::kNorthWest);
  EXPECT_EQ(std::string("") + SeatLetter(Seat::kW) + SeatLetter(Seat::kR) +
                SeatLetter(Seat::kB) + SeatLetter(Seat::kG),
            "wrbg");
}

TEST(Section1Board, TwoPlayerGamesUseWAndBWithWFirst) {
  for (const std::string name : {"brainking-8x8", "brainking-10x10",
                                 "iggamecenter-10x10", "classic-16x16"}) {
    SCOPED_TRACE(name);
    const Variant v = Preset(name);
    EXPECT_EQ(SeatsText(v.in_play), "wb");
    EXPECT_EQ(v.seats[0], Seat::kW);
    EXPECT_EQ(v.seats[1], Seat::kB);
    EXPECT_EQ(StartPosition(v).to_move, Seat::kW);
  }
}

TEST(Section1Board, FourPlayerTurnOrderIsWRBG) {
  const Variant v = Preset("classic-16x16-4p");
  EXPECT_EQ(SeatsText(v.in_play), "wrbg");
  // w, r, b, g each make one move, then w again.
  const GameRecordResult r =
      Replay(v, StartPosition(v), {"d1-e2", "d16-e15", "m16-l15", "m1-l2"});
  ASSERT_EQ(r.illegal_ply, 0) << r.illegal_message;
  EXPECT_EQ(r.final_position.to_move, Seat::kW);
  for (int i = 0; i < kMaxSeats; ++i)
    EXPECT_EQ(r.final_position.move_count[i], 1);
  Position p = StartPosition(v);
  std::string order;
  for (const char* m : {"d1-e2", "d16-e15", "m16-l15", "m1-l2"}) {
    order += SeatLetter(p.to_move);
    const MoveCheck c = Check(v, p, m);
    ASSERT_EQ(c.verdict, MoveVerdict::kLegal) << m << ": " << c.message;
    p = c.after;
  }
  order += SeatLetter(p.to_move);
  EXPECT_EQ(order, "wrbgw");
}

// ===========================================================================
// Section 2: camps and the named variants.

TEST(Section2Camps, BrainKing8x8StartPositionIsTheRuleBookExample) {
  const Variant v = Preset("brainking-8x8");
  EXPECT_EQ(FormatPosition(StartPosition(v), v), kBrainKing8Start);
}

TEST(Section2Camps, StartPositionStringsOfTheOtherPresets) {
  const Variant bk10 = Preset("brainking-10x10");
  const Variant ig10 = Preset("iggamecenter-10x10");
  const Variant c16 = Preset("classic-16x16");
  const Variant c16x4 = Preset("classic-16x16-4p");
  const std::string ten =
      "5bbbbb/6bbbb/7bbb/8bb/9b/w9/ww8/www7/wwww6/wwwww5 w 0,0";
  EXPECT_EQ(FormatPosition(StartPosition(bk10), bk10), ten);
  EXPECT_EQ(FormatPosition(StartPosition(ig10), ig10), ten);
  EXPECT_EQ(FormatPosition(StartPosition(c16), c16),
            "11bbbbb/11bbbbb/12bbbb/13bbb/14bb/16/16/16/16/16/16/ww14/www13/"
            "wwww12/wwwww11/wwwww11 w 0,0");
  EXPECT_EQ(FormatPosition(StartPosition(c16x4), c16x4),
            "rrrr8bbbb/rrrr8bbbb/rrr10bbb/rr12bb/16/16/16/16/16/16/16/16/"
            "ww12gg/www10ggg/wwww8gggg/wwww8gggg w 0,0,0,0");
}

struct PresetRow {
  std::string name;
  int n;
  std::string seats;
  std::vector<int> rows;
  int pieces;
  int home_exit;
  bool round_completion;
  bool target_lock;
};

const std::vector<PresetRow>& PresetTable() {
  static const auto* rows = new std::vector<PresetRow>{
      {"brainking-8x8", 8, "wb", {4, 3, 2, 1}, 10, 30, false, false},
      {"brainking-10x10", 10, "wb", {5, 4, 3, 2, 1}, 15, 50, false, false},
      {"iggamecenter-10x10", 10, "wb", {5, 4, 3, 2, 1}, 15, 0, true, false},
      {"classic-16x16", 16, "wb", {5, 5, 4, 3, 2}, 19, 0, false, true},
      {"classic-16x16-4p", 16, "wrbg", {4, 4, 3, 2}, 13, 0, false, true},
  };
  return *rows;
}

TEST(Section2Camps, PresetTableMatchesTheRuleBook) {
  EXPECT_EQ(PresetNames().size(), PresetTable().size());
  for (const PresetRow& row : PresetTable()) {
    SCOPED_TRACE(row.name);
    const Variant v = Preset(row.name);
    EXPECT_EQ(v.size, row.n);
    EXPECT_EQ(SeatsText(v.in_play), row.seats);
    EXPECT_EQ(v.seat_count, static_cast<int>(row.seats.size()));
    EXPECT_EQ(v.spec.camp_rows, row.rows);
    EXPECT_EQ(v.pieces_per_seat, row.pieces);
    EXPECT_EQ(v.spec.home_exit_limit, row.home_exit);
    EXPECT_EQ(v.spec.round_completion, row.round_completion);
    EXPECT_EQ(v.spec.target_lock, row.target_lock);
    EXPECT_EQ(v.spec.move_cap, 0);
  }
}

TEST(Section2Camps, EverySeatStartsWithOnePieceOnEachSquareOfItsHomeCamp) {
  for (const PresetRow& row : PresetTable()) {
    SCOPED_TRACE(row.name);
    const Variant v = Preset(row.name);
    const Position p = StartPosition(v);
    EXPECT_EQ(p.to_move, Seat::kW);
    int total = 0;
    for (int i = 0; i < kMaxSeats; ++i) {
      const Seat s = SeatAt(i);
      EXPECT_EQ(p.move_count[i], 0);
      if (!v.in_play.Has(s)) {
        EXPECT_EQ(p.pieces[i].Count(), 0) << SeatLetter(s);
        continue;
      }
      const Bitboard home = CampMask(row.n, row.rows, HomeCorner(s));
      EXPECT_EQ(p.pieces[i].Count(), row.pieces) << SeatLetter(s);
      EXPECT_TRUE(p.pieces[i] == home) << SeatLetter(s);
      EXPECT_TRUE(v.HomeCamp(s) == home) << SeatLetter(s);
      EXPECT_TRUE(v.TargetCamp(s) == CampMask(row.n, row.rows, TargetCorner(s)))
          << SeatLetter(s);
      total += p.pieces[i].Count();
    }
    EXPECT_EQ(total, row.pieces * static_cast<int>(row.seats.size()));
  }
}

TEST(Section2Camps, CampShapeIsAStaircaseMirroredIntoEachCorner) {
  // brainking-8x8, rows [4,3,2,1]: spelled out square by square.
  const Variant v = Preset("brainking-8x8");
  auto mask = [](std::vector<std::string> squares) {
    Bitboard b;
    for (const auto& s : squares) b.Set(Sq(s));
    return b;
  };
  EXPECT_TRUE(
      v.camp[static_cast<int>(Corner::kSouthWest)] ==
      mask({"a1", "b1", "c1", "d1", "a2", "b2", "c2", "a3", "b3", "a4"}));
  EXPECT_TRUE(
      v.camp[static_cast<int>(Corner::kNorthWest)] ==
      mask({"a8", "b8", "c8", "d8", "a7", "b7", "c7", "a6", "b6", "a5"}));
  EXPECT_TRUE(
      v.camp[static_cast<int>(Corner::kNorthEast)] ==
      mask({"h8", "g8", "f8", "e8", "h7", "g7", "f7", "h6", "g6", "h5"}));
  EXPECT_TRUE(
      v.camp[static_cast<int>(Corner::kSouthEast)] ==
      mask({"h1", "g1", "f1", "e1", "h2", "g2", "f2", "h3", "g3", "h4"}));
  // A custom shape with equal rows: [3,3] on 6x6.
  const Variant c = Custom(Spec(6, 4, {3, 3}));
  EXPECT_TRUE(c.HomeCamp(Seat::kG) ==
              mask({"d1", "e1", "f1", "d2", "e2", "f2"}));
  EXPECT_TRUE(c.HomeCamp(Seat::kR) ==
              mask({"a6", "b6", "c6", "a5", "b5", "c5"}));
  EXPECT_EQ(c.pieces_per_seat, 6);
}

TEST(Section2Camps, CustomVariantAcceptsEveryFieldOfTheRuleBook) {
  const Variant v = Custom(Spec(12, 4, {4, 3, 3, 1}, 40, true, true, 200));
  EXPECT_EQ(v.size, 12);
  EXPECT_EQ(SeatsText(v.in_play), "wrbg");
  EXPECT_EQ(v.pieces_per_seat, 11);
  EXPECT_EQ(v.spec.home_exit_limit, 40);
  EXPECT_TRUE(v.spec.round_completion);
  EXPECT_TRUE(v.spec.target_lock);
  EXPECT_EQ(v.spec.move_cap, 200);
  // Smallest and largest boards; a full-width single row; equal rows.
  EXPECT_TRUE(MakeVariant(Spec(4, 2, {1})).ok());
  EXPECT_TRUE(MakeVariant(Spec(16, 2, {16, 16, 16, 16, 16, 16, 16, 16})).ok());
  EXPECT_TRUE(MakeVariant(Spec(4, 2, {4, 4})).ok());
  EXPECT_TRUE(MakeVariant(Spec(4, 4, {2, 2})).ok());
}

// ===========================================================================
// Section 3: moves.

TEST(Section3Moves, StepToAnEmptyNeighbour) {
  const Variant v = Open8();
  const Position p = D1(v);
  const MoveCheck c = Check(v, p, "c3-c4");
  ASSERT_EQ(c.verdict, MoveVerdict::kLegal) << c.message;
  EXPECT_EQ(c.hops, 0);
  EXPECT_EQ(PathText(c), "c3-c4");
  EXPECT_EQ(FormatPosition(c.after, v),
            Board({".....bbb", ".......b", ".....b.b", "........", "..www...",
                   "...w....", "........", "ww......"}) +
                " b 5,4");
}

TEST(Section3Moves, StepInAllEightDirections) {
  // A lone w piece in the middle of an open board has exactly 8 steps.
  const Variant v = Custom(Spec(8, 2, {1}));
  const Position q = Parse("7b/8/8/8/3w4/8/8/8 w 3,3", v);
  MovePairs want;
  for (const char* to : {"c3", "d3", "e3", "c4", "e4", "c5", "d5", "e5"}) {
    want[{"d4", to}] = 0;
  }
  EXPECT_EQ(LegalSet(v, q, Seat::kW), want);
}

TEST(Section3Moves, StepOntoAnOccupiedSquareIsIllegal) {
  const Variant v = Open8();
  const MoveCheck own = Check(v, D1(v), "c3-d3");
  EXPECT_EQ(own.verdict, MoveVerdict::kDestinationOccupied) << own.message;
  const Variant bk = Preset("brainking-8x8");
  const MoveCheck c = Check(bk, Parse(kBrainKing8Start, bk), "a1-b2");
  EXPECT_EQ(c.verdict, MoveVerdict::kDestinationOccupied) << c.message;
}

TEST(Section3Moves, SingleHopOverOwnPiece) {
  const Variant v = Open8();
  const MoveCheck c = Check(v, D1(v), "d3-d5");  // over d4
  ASSERT_EQ(c.verdict, MoveVerdict::kLegal) << c.message;
  EXPECT_EQ(c.hops, 1);
  EXPECT_EQ(PathText(c), "d3-d5");
}

TEST(Section3Moves, SingleHopOverOpposingPiece) {
  // w e5 hops over b f6 to g7 (D1 with the c3 piece on e5).
  const Variant v = Open8();
  const Position p = Drawn({".....bbb", ".......b", ".....b.b", "....w...",
                            "...ww...", "...w....", "........", "ww......"},
                           "w 4,4", v);
  const MoveCheck c = Check(v, p, "e5-g7");
  ASSERT_EQ(c.verdict, MoveVerdict::kLegal) << c.message;
  EXPECT_EQ(c.hops, 1);
  Seat jumped;
  ASSERT_TRUE(c.after.PieceAt(Sq("f6"), &jumped));
  EXPECT_EQ(jumped, Seat::kB);
}

TEST(Section3Moves, MultiHopOverOwnAndOpposingPiecesWhichStayOnTheBoard) {
  const Variant v = Open8();
  const Position p = D1(v);
  // c3 over d4 (w) to e5, then over f6 (b) to g7.
  const MoveCheck c = Check(v, p, "c3-e5-g7");
  ASSERT_EQ(c.verdict, MoveVerdict::kLegal) << c.message;
  EXPECT_EQ(c.hops, 2);
  EXPECT_EQ(PathText(c), "c3-e5-g7");
  Seat s;
  ASSERT_TRUE(c.after.PieceAt(Sq("g7"), &s));
  EXPECT_EQ(s, Seat::kW);
  EXPECT_FALSE(c.after.PieceAt(Sq("c3"), &s));
  EXPECT_FALSE(c.after.PieceAt(Sq("e5"), &s));
  ASSERT_TRUE(c.after.PieceAt(Sq("d4"), &s));
  EXPECT_EQ(s, Seat::kW);
  ASSERT_TRUE(c.after.PieceAt(Sq("f6"), &s));
  EXPECT_EQ(s, Seat::kB);
  EXPECT_EQ(c.after.pieces[SeatIndex(Seat::kW)].Count(), 6);
  EXPECT_EQ(c.after.pieces[SeatIndex(Seat::kB)].Count(), 6);
}

TEST(Section3Moves, ChainMayStopAfterAnyHopAndJumpingIsNotCompulsory) {
  const Variant v = Open8();
  const Position p = D1(v);
  // Stop after the first hop although a second is available.
  const MoveCheck first = Check(v, p, "c3-e5");
  EXPECT_EQ(first.verdict, MoveVerdict::kLegal) << first.message;
  EXPECT_EQ(first.hops, 1);
  // Step although hops are available.
  EXPECT_EQ(Check(v, p, "c3-b4").verdict, MoveVerdict::kLegal);
}

TEST(Section3Moves, NoSquareVisitedTwiceInAChain) {
  const Variant v = Open8();
  const Position p = D1(v);
  // Straight back to the origin.
  EXPECT_EQ(Check(v, p, "c3-e5-c3").verdict, MoveVerdict::kSquareVisitedTwice);
  // Back to an intermediate square.
  EXPECT_EQ(Check(v, p, "c3-e5-g7-e5").verdict,
            MoveVerdict::kSquareVisitedTwice);
  // A three-hop loop c3 -> e3 (over d3) -> e5 (over e4) -> c3 (over d4).
  EXPECT_EQ(Check(v, p, "c3-e3-e5-c3").verdict,
            MoveVerdict::kSquareVisitedTwice);
  // A two-square move onto its own origin.
  EXPECT_EQ(Check(v, p, "c3-c3").verdict, MoveVerdict::kSquareVisitedTwice);
  // The legal-move set never ends a move on its origin.
  for (const auto& [key, hops] : LegalSet(v, p, Seat::kW)) {
    EXPECT_NE(key.first, key.second);
  }
}

TEST(Section3Moves, OriginCountsEmptyOnceThePieceHasLeft) {
  // A hop's jumped square always lies in another (x mod 2, y mod 2) class
  // than the hopping piece, and a chain never leaves its origin's class, so
  // no hop can ever pass over the origin square; what the rule changes is
  // that the origin, once left, is an empty visited square: a chain that
  // lands on it again is refused because the square is visited twice, not
  // because it is occupied.
  const Variant v = Open8();
  const Position p = D1(v);
  const MoveCheck back = Check(v, p, "c3-e5-c3");
  EXPECT_EQ(back.verdict, MoveVerdict::kSquareVisitedTwice) << back.message;
  // A chain may come back past the origin: c3 -> e5 -> e3 -> c5 jumps d4
  // twice (jumped pieces are obstacles, not visited squares).
  const MoveCheck around = Check(v, p, "c3-e5-e3-c5");
  EXPECT_EQ(around.verdict, MoveVerdict::kLegal) << around.message;
  // Every generated path keeps the origin behind it.
  auto list = std::make_unique<MoveList>();
  auto paths = std::make_unique<MovePaths>();
  GenerateLegalMovesWithPaths(v, p, Seat::kW, list.get(), paths.get());
  for (int i = 0; i < list->size; ++i) {
    for (int k = 1; k < paths->Length(i); ++k) {
      EXPECT_NE(paths->Path(i)[k], paths->Path(i)[0]);
    }
  }
}

TEST(Section3Moves, StepAndHopsNeverCombine) {
  const Variant v = Preset("brainking-8x8");
  const Position p = Parse(kBrainKing8Start, v);
  // Hop then step.
  EXPECT_EQ(Check(v, p, "a1-c3-d4").verdict, MoveVerdict::kNotAHop);
  // Step then hop: c1-d2 is a step, no hop may follow it.
  EXPECT_EQ(Check(v, p, "c1-d2-b4").verdict, MoveVerdict::kNotAHop);
  // Two steps.
  EXPECT_EQ(Check(v, p, "d1-d2-d3").verdict, MoveVerdict::kNotAHop);
  // Hop (c1 over c2 to c3) then a step.
  EXPECT_EQ(Check(v, p, "c1-c3-c4").verdict, MoveVerdict::kNotAHop);
}

TEST(Section3Moves, TwoSquareShorthandNeighbourIsAStep) {
  const Variant v = Open8();
  const MoveCheck c = Check(v, D1(v), "e4-f5");
  ASSERT_EQ(c.verdict, MoveVerdict::kLegal) << c.message;
  EXPECT_EQ(c.hops, 0);
  EXPECT_EQ(PathText(c), "e4-f5");
  // A neighbour that is occupied is not reinterpreted as anything else.
  EXPECT_EQ(Check(v, D1(v), "c3-d4").verdict,
            MoveVerdict::kDestinationOccupied);
}

TEST(Section3Moves, TwoSquareShorthandTwoApartOnALineIsASingleHop) {
  const Variant v = Open8();
  const Position p = D1(v);
  const MoveCheck hop = Check(v, p, "c3-e3");  // over d3
  ASSERT_EQ(hop.verdict, MoveVerdict::kLegal) << hop.message;
  EXPECT_EQ(hop.hops, 1);
  EXPECT_EQ(PathText(hop), "c3-e3");
  // c5 is two apart from c3 on the c file with c4 empty: it is read as a
  // single hop (nothing to jump), even though the chain c3-e3-c5 reaches it.
  EXPECT_EQ(Check(v, p, "c3-e3-c5").verdict, MoveVerdict::kLegal);
  EXPECT_EQ(Check(v, p, "c3-c5").verdict, MoveVerdict::kNothingToJump);
  // Diagonal and horizontal hop shapes too.
  EXPECT_EQ(Check(v, p, "c3-a5").verdict, MoveVerdict::kNothingToJump);
  EXPECT_EQ(Check(v, p, "c3-a3").verdict, MoveVerdict::kNothingToJump);
}

TEST(Section3Moves, TwoSquareShorthandOtherwiseAnyChainNormalisedToFewestHops) {
  const Variant v = Open8();
  const Position p = D1(v);
  const MoveCheck c = Check(v, p, "c3-g7");
  ASSERT_EQ(c.verdict, MoveVerdict::kLegal) << c.message;
  EXPECT_EQ(c.hops, 2);
  EXPECT_EQ(PathText(c), "c3-e5-g7");
  EXPECT_EQ(Check(v, p, "e4-c4").verdict, MoveVerdict::kLegal);  // over d4
  // Not reachable: same parity class, no chain; another parity class.
  EXPECT_EQ(Check(v, p, "c3-g3").verdict, MoveVerdict::kUnreachable);
  EXPECT_EQ(Check(v, p, "c3-f5").verdict, MoveVerdict::kUnreachable);
  EXPECT_EQ(Check(v, p, "c3-c7").verdict, MoveVerdict::kUnreachable);
  // Occupied destination.
  EXPECT_EQ(Check(v, p, "c3-h8").verdict, MoveVerdict::kDestinationOccupied);
}

TEST(Section3Moves, FullPathIsCheckedAsGivenAndAnswerIsTheFewestHopPath) {
  const Variant v = Open8();
  const Position p = D1(v);
  // e5 is one hop from c3 (over d4); the two-hop path via e3 is legal too,
  // and the answer gives the one-hop path.
  const MoveCheck two = Check(v, p, "c3-e3-e5");
  ASSERT_EQ(two.verdict, MoveVerdict::kLegal) << two.message;
  EXPECT_EQ(two.hops, 1);
  EXPECT_EQ(PathText(two), "c3-e5");
  const MoveCheck three = Check(v, p, "c3-e3-e5-g7");
  ASSERT_EQ(three.verdict, MoveVerdict::kLegal) << three.message;
  EXPECT_EQ(three.hops, 2);
  EXPECT_EQ(PathText(three), "c3-e5-g7");
  EXPECT_TRUE(three.after == Check(v, p, "c3-e5-g7").after);
}

struct VerdictRow {
  std::string move;
  MoveVerdict verdict;
};

TEST(Section3Moves, EachIllegalReasonOnTheBrainKingStart) {
  const Variant v = Preset("brainking-8x8");
  const Position p = Parse(kBrainKing8Start, v);
  const std::vector<VerdictRow> rows = {
      {"e4-e5", MoveVerdict::kEmptyOrigin},
      {"e4-g6-e8", MoveVerdict::kEmptyOrigin},
      {"h8-g6", MoveVerdict::kNotYourPiece},
      {"h5-g5", MoveVerdict::kNotYourPiece},
      {"a1-b2", MoveVerdict::kDestinationOccupied},     // step
      {"a1-a3", MoveVerdict::kDestinationOccupied},     // hop over a2 onto a3
      {"c1-c3-a3", MoveVerdict::kDestinationOccupied},  // second hop
      {"d1-f1", MoveVerdict::kNothingToJump},
      {"d1-d3", MoveVerdict::kNothingToJump},
      {"a1-c3-c5", MoveVerdict::kNothingToJump},
      {"a1-c3-e5", MoveVerdict::kNothingToJump},
      {"c1-e1-e3", MoveVerdict::kNothingToJump},
      {"d1-d2-d3", MoveVerdict::kNotAHop},
      {"a1-c3-d4", MoveVerdict::kNotAHop},
      {"a1-c3-f6", MoveVerdict::kNotAHop},
      {"a1-c3-c6", MoveVerdict::kNotAHop},
      {"a1-c3-a1", MoveVerdict::kSquareVisitedTwice},
      {"b1-d3-b1", MoveVerdict::kSquareVisitedTwice},
      {"a2-c4-a2", MoveVerdict::kSquareVisitedTwice},
      {"a1-a1", MoveVerdict::kSquareVisitedTwice},
      {"d1-h1", MoveVerdict::kUnreachable},
      {"d1-e4", MoveVerdict::kUnreachable},
      {"a4-a8", MoveVerdict::kUnreachable},
      {"pass", MoveVerdict::kPassNotAllowed},
  };
  for (const VerdictRow& row : rows) {
    const MoveCheck c = Check(v, p, row.move);
    EXPECT_EQ(MoveVerdictName(c.verdict), MoveVerdictName(row.verdict))
        << row.move << ": " << c.message;
    EXPECT_FALSE(c.message.empty()) << row.move;
  }
  // The legal moves named in the rows above are indeed legal.
  for (const char* m : {"a1-c3", "c1-c3", "c1-e1", "b1-d3", "a2-c4", "d1-e2"}) {
    const MoveCheck c = Check(v, p, m);
    EXPECT_EQ(c.verdict, MoveVerdict::kLegal) << m << ": " << c.message;
    EXPECT_TRUE(c.message.empty());
  }
}

TEST(Section3Moves, IllegalMoveInARecordStopsTheReplayAtThatPly) {
  const Variant v = Preset("brainking-8x8");
  const GameRecordResult r =
      Replay(v, StartPosition(v), {"a1-c3", "c3-d4", "h8-g6"});
  EXPECT_EQ(r.illegal_ply, 2);
  EXPECT_EQ(r.illegal_verdict, MoveVerdict::kNotYourPiece);
  EXPECT_FALSE(r.illegal_message.empty());
  EXPECT_EQ(r.legal_moves_played, 1);
  EXPECT_FALSE(r.status.over);
  EXPECT_EQ(r.status.to_move, Seat::kB);
  EXPECT_EQ(FormatPosition(r.final_position, v),
            "4bbbb/5bbb/6bb/7b/w7/www5/www5/1www4 b 1,0");
}

// Target lock (section 3): once a piece stands in its target camp (at the
// start of its move or after any hop) it may not land outside it again.
TEST(Section3TargetLock, StepOutOfTheTargetCampIsIllegal) {
  const Variant v = Locked8();
  const Position p = D2(v);
  for (const char* m : {"h6-h5", "h6-g6", "h6-g5"}) {
    const MoveCheck c = Check(v, p, m);
    EXPECT_EQ(c.verdict, MoveVerdict::kLeavesTarget) << m << ": " << c.message;
  }
  EXPECT_EQ(Check(v, p, "h6-h7").verdict, MoveVerdict::kLegal);
  // A hop from inside the target to inside it is fine.
  EXPECT_EQ(Check(v, p, "h6-f8").verdict, MoveVerdict::kLegal);
  MoveFilter only;
  only.only_origin = true;
  only.origin = Sq("h6");
  EXPECT_EQ(LegalSet(v, p, Seat::kW, only),
            (MovePairs{{{"h6", "h7"}, 0}, {{"h6", "f8"}, 1}}));
}

TEST(Section3TargetLock, ChainThatEntersTheTargetMayNotLeaveIt) {
  const Variant v = Locked8();
  const Position p = D2(v);
  // c4 over d5 to e6, over f7 into g8 (target), over g7 out to g6.
  EXPECT_EQ(Check(v, p, "c4-e6-g8").verdict, MoveVerdict::kLegal);
  const MoveCheck out = Check(v, p, "c4-e6-g8-g6");
  EXPECT_EQ(out.verdict, MoveVerdict::kLeavesTarget) << out.message;
  // The shorthand to g6 could only go through the target.
  const MoveCheck shorthand = Check(v, p, "c4-g6");
  EXPECT_EQ(shorthand.verdict, MoveVerdict::kLeavesTarget) << shorthand.message;
  MoveFilter only;
  only.only_origin = true;
  only.origin = Sq("c4");
  MovePairs want = {{{"c4", "e6"}, 1}, {{"c4", "g8"}, 2}};
  for (const char* to : {"b3", "c3", "d3", "b4", "d4", "b5", "c5"}) {
    want[{"c4", to}] = 0;
  }
  EXPECT_EQ(LegalSet(v, p, Seat::kW, only), want);
}

TEST(Section3TargetLock, WithoutTargetLockPiecesLeaveTheTargetFreely) {
  const Variant v = Open8();
  const Position p = D2(v);
  for (const char* m : {"h6-h5", "h6-g6", "h6-g5", "c4-e6-g8-g6"}) {
    const MoveCheck c = Check(v, p, m);
    EXPECT_EQ(c.verdict, MoveVerdict::kLegal) << m << ": " << c.message;
  }
  const MoveCheck shorthand = Check(v, p, "c4-g6");
  ASSERT_EQ(shorthand.verdict, MoveVerdict::kLegal) << shorthand.message;
  EXPECT_EQ(PathText(shorthand), "c4-e6-g8-g6");
  MoveFilter only;
  only.only_origin = true;
  only.origin = Sq("h6");
  // h6 over g7 to f8, over f7 to f6, over g7 to h8.
  EXPECT_EQ(LegalSet(v, p, Seat::kW, only), (MovePairs{{{"h6", "h7"}, 0},
                                                       {{"h6", "g6"}, 0},
                                                       {{"h6", "g5"}, 0},
                                                       {{"h6", "h5"}, 0},
                                                       {{"h6", "f8"}, 1},
                                                       {{"h6", "f6"}, 2},
                                                       {{"h6", "h8"}, 3}}));
  only.origin = Sq("c4");
  MovePairs want = {{{"c4", "e6"}, 1},
                    {{"c4", "g8"}, 2},
                    {{"c4", "g6"}, 3},
                    {{"c4", "e8"}, 4}};
  for (const char* to : {"b3", "c3", "d3", "b4", "d4", "b5", "c5"}) {
    want[{"c4", to}] = 0;
  }
  EXPECT_EQ(LegalSet(v, p, Seat::kW, only), want);
}

TEST(Section3TargetLock, PiecesPassThroughAndStopInAnyOtherCamp) {
  const Variant v = Locked8();
  const Position p = D2(v);
  // w pieces at home move freely; the lock concerns only the own target.
  EXPECT_EQ(Check(v, p, "a1-a2").verdict, MoveVerdict::kLegal);
  EXPECT_EQ(Check(v, p, "c1-d2").verdict, MoveVerdict::kLegal);
  // b's pieces stand in the north-west (not a camp in play) and move out.
  const Position b_to_move = Drawn(kD2, "b 11,10", v);
  EXPECT_EQ(Check(v, b_to_move, "b8-c8").verdict, MoveVerdict::kLegal);
  // A w piece moving back into its own home camp is allowed (no home-exit
  // limit in this variant).
  const Position back =
      Parse(Board({"bb......", "b....bw.", "b......w", "...b....", "..w.....",
                   "........", ".w......", "w.w....."}) +
                " w 10,10",
            v);
  EXPECT_EQ(Check(v, back, "b2-b1").verdict, MoveVerdict::kLegal);
}

// The forced pass: the only legal move of a seat that has no other.
// Variant: 4x4, camps [4,3], target lock. w's target is a4 b4 c4 d4 b3 c3
// d3, b's is a1 b1 c1 d1 a2 b2 c2. Position: w fills its target except b3
// (a b piece) and is locked in; w's b1 is walled in by b pieces; b3 can
// step to a3.
Variant Locked4() { return Custom(Spec(4, 2, {4, 3}, 0, false, true)); }
constexpr char kWMustPass[] = "wwww/1bww/bbb1/bwbb w 20,20";

TEST(Section3Pass, PassIsTheOnlyLegalMoveWhenStuck) {
  const Variant v = Locked4();
  const Position p = Parse(kWMustPass, v);
  EXPECT_TRUE(LegalSet(v, p, Seat::kW).empty());
  EXPECT_FALSE(HasLegalMove(v, p, Seat::kW));
  EXPECT_TRUE(HasLegalMove(v, p, Seat::kB));
  const GameStatus status = EvaluateStatus(v, p);
  EXPECT_FALSE(status.over);
  EXPECT_TRUE(status.must_pass);
  EXPECT_EQ(Check(v, p, "b1-c2").verdict, MoveVerdict::kDestinationOccupied);
  EXPECT_EQ(Check(v, p, "a4-a3").verdict, MoveVerdict::kLeavesTarget);
  EXPECT_EQ(Check(v, p, "c3-d2").verdict, MoveVerdict::kLeavesTarget);
  const MoveCheck pass = Check(v, p, "pass");
  ASSERT_EQ(pass.verdict, MoveVerdict::kLegal) << pass.message;
  EXPECT_TRUE(pass.path.is_pass);
}

TEST(Section3Pass, PassChangesNothingButCountsAsTheSeatsMove) {
  const Variant v = Locked4();
  const Position p = Parse(kWMustPass, v);
  const MoveCheck pass = Check(v, p, "pass");
  ASSERT_EQ(pass.verdict, MoveVerdict::kLegal);
  EXPECT_EQ(FormatPosition(pass.after, v), "wwww/1bww/bbb1/bwbb b 21,20");
  // b has moves, so b may not pass.
  EXPECT_EQ(Check(v, pass.after, "pass").verdict, MoveVerdict::kPassNotAllowed);
  const GameRecordResult r = Replay(v, p, {"pass", "b3-a3"});
  EXPECT_EQ(r.illegal_ply, 0) << r.illegal_message;
  EXPECT_EQ(r.legal_moves_played, 2);
  EXPECT_FALSE(r.status.over);
  EXPECT_EQ(FormatPosition(r.final_position, v), "wwww/b1ww/bbb1/bwbb w 21,21");
}

TEST(Section3Pass, PassInAFourPlayerGame) {
  // 4x4, four seats, camps [2,1]. w a1 b1 c1 is walled in; the top rank is
  // empty so r, b and g can move.
  const Variant v = Custom(Spec(4, 4, {2, 1}));
  const Position p = Parse("4/rrrb/ggbb/wwwg w 5,5,5,5", v);
  const GameStatus status = EvaluateStatus(v, p);
  EXPECT_FALSE(status.over);
  EXPECT_TRUE(status.must_pass);
  EXPECT_EQ(Check(v, p, "a1-b2").verdict, MoveVerdict::kDestinationOccupied);
  const MoveCheck pass = Check(v, p, "pass");
  ASSERT_EQ(pass.verdict, MoveVerdict::kLegal) << pass.message;
  EXPECT_EQ(FormatPosition(pass.after, v), "4/rrrb/ggbb/wwwg r 6,5,5,5");
}

// ===========================================================================
// Legal-move sets (section 3, last paragraph).

TEST(Section3LegalMoves, BrainKingStartHasTheHandCountedMoves) {
  const Variant v = Preset("brainking-8x8");
  const MovePairs got = LegalSet(v, StartPosition(v), Seat::kW);
  EXPECT_EQ(testing_util::LegalSetFromMoveSet(v, StartPosition(v), Seat::kW),
            got);
  const MovePairs want = {
      // Steps.
      {{"c1", "d2"}, 0},
      {{"d1", "d2"}, 0},
      {{"d1", "e1"}, 0},
      {{"d1", "e2"}, 0},
      {{"b2", "c3"}, 0},
      {{"c2", "d2"}, 0},
      {{"c2", "c3"}, 0},
      {{"c2", "d3"}, 0},
      {{"a3", "b4"}, 0},
      {{"b3", "c3"}, 0},
      {{"b3", "b4"}, 0},
      {{"b3", "c4"}, 0},
      {{"a4", "b4"}, 0},
      {{"a4", "a5"}, 0},
      {{"a4", "b5"}, 0},
      // Single hops (no chain continues from any of them).
      {{"a1", "c3"}, 1},
      {{"b1", "d3"}, 1},
      {{"c1", "c3"}, 1},
      {{"c1", "e1"}, 1},
      {{"a2", "c4"}, 1},
      {{"b2", "b4"}, 1},
      {{"b2", "d2"}, 1},
      {{"a3", "a5"}, 1},
      {{"a3", "c3"}, 1},
  };
  EXPECT_EQ(got, want);
}

TEST(Section3LegalMoves, DistinctOriginDestinationPairsWithFewestHops) {
  const Variant v = Open8();
  const Position p = D1(v);
  MoveFilter only;
  only.only_origin = true;
  only.origin = Sq("c3");
  // e5 is reached in one hop (over d4) and in two (via e3): listed once,
  // with 1. g7 and c5 need two hops.
  MovePairs want = {{{"c3", "e5"}, 1},
                    {{"c3", "e3"}, 1},
                    {{"c3", "g7"}, 2},
                    {{"c3", "c5"}, 2}};
  for (const char* to : {"b2", "c2", "d2", "b3", "b4", "c4"}) {
    want[{"c3", to}] = 0;
  }
  EXPECT_EQ(LegalSet(v, p, Seat::kW, only), want);
}

TEST(Section3LegalMoves, OnlyOriginFilterRestrictsToOnePiece) {
  const Variant v = Open8();
  const Position p = D1(v);
  const MovePairs all = LegalSet(v, p, Seat::kW);
  MovePairs union_of_filtered;
  for (const char* origin : {"c3", "d3", "d4", "e4", "a1", "b1"}) {
    MoveFilter only;
    only.only_origin = true;
    only.origin = Sq(origin);
    const MovePairs one = LegalSet(v, p, Seat::kW, only);
    EXPECT_FALSE(one.empty()) << origin;
    for (const auto& [key, hops] : one) {
      EXPECT_EQ(key.first, origin);
      union_of_filtered[key] = hops;
    }
  }
  EXPECT_EQ(union_of_filtered, all);
  // An empty square or another seat's piece yields no moves.
  for (const char* origin : {"e5", "f6", "h8"}) {
    MoveFilter only;
    only.only_origin = true;
    only.origin = Sq(origin);
    EXPECT_TRUE(LegalSet(v, p, Seat::kW, only).empty()) << origin;
    EXPECT_TRUE(testing_util::LegalSetFromMoveSet(v, p, Seat::kW, only).empty())
        << origin;
  }
  // The bitboard form (GenerateMoveSet) filters the same way.
  for (const char* origin : {"c3", "d3", "d4", "e4", "a1", "b1"}) {
    MoveFilter only;
    only.only_origin = true;
    only.origin = Sq(origin);
    EXPECT_EQ(testing_util::LegalSetFromMoveSet(v, p, Seat::kW, only),
              LegalSet(v, p, Seat::kW, only))
        << origin;
  }
}

// Checks every path of GenerateLegalMovesWithPaths against the rules hop by
// hop and against the brute-force fewest-hop count.
void ExpectValidFewestHopPaths(const Variant& v, const Position& p, Seat seat,
                               const MovePairs& brute) {
  auto list = std::make_unique<MoveList>();
  auto paths = std::make_unique<MovePaths>();
  GenerateLegalMovesWithPaths(v, p, seat, list.get(), paths.get());
  ASSERT_EQ(static_cast<size_t>(list->size), brute.size())
      << FormatPosition(p, v);
  for (int i = 0; i < list->size; ++i) {
    const LegalMove& m = list->moves[i];
    const Square* path = paths->Path(i);
    const int len = paths->Length(i);
    const std::string text = FormatPath(path, len);
    ASSERT_EQ(path[0], m.origin) << text;
    ASSERT_EQ(path[len - 1], m.destination) << text;
    EXPECT_EQ(len, m.hops == 0 ? 2 : m.hops + 1) << text;
    EXPECT_EQ(PathProblem(v, p, path, len), "")
        << FormatPosition(p, v) << " " << text;
    const auto it =
        brute.find({FormatSquare(m.origin), FormatSquare(m.destination)});
    ASSERT_NE(it, brute.end()) << text;
    EXPECT_EQ(m.hops, it->second) << FormatPosition(p, v) << " " << text;
  }
}

TEST(Section3LegalMoves, PathsAreValidFewestHopPaths) {
  const Variant v = Open8();
  const Position p = D1(v);
  ExpectValidFewestHopPaths(v, p, Seat::kW, BruteForceMoves(v, p, Seat::kW));
  const Variant locked = Locked8();
  const Position q = D2(locked);
  ExpectValidFewestHopPaths(locked, q, Seat::kW,
                            BruteForceMoves(locked, q, Seat::kW));
  const Variant bk = Preset("brainking-8x8");
  const Position s = StartPosition(bk);
  ExpectValidFewestHopPaths(bk, s, Seat::kW, BruteForceMoves(bk, s, Seat::kW));
}

// Random games (seeded) on every preset and on custom variants with and
// without target lock: the engine's legal-move set equals the brute-force
// set, every path is a valid fewest-hop path, and CheckMove accepts both
// the path and the two-square shorthand of every move with the same answer.
TEST(Section3LegalMoves, MatchBruteForceOnRandomGames) {
  std::vector<Variant> variants;
  for (const std::string& name : PresetNames())
    variants.push_back(Preset(name));
  variants.push_back(Custom(Spec(8, 2, {3, 2, 1}, 0, false, true)));
  variants.push_back(Custom(Spec(6, 4, {2, 1}, 0, false, true)));
  variants.push_back(Custom(Spec(12, 2, {6, 5, 4, 3, 2, 1}, 0, true, true)));
  variants.push_back(Custom(Spec(5, 2, {4, 2}, 0, false, false)));
  std::mt19937 rng(20240607);
  auto list = std::make_unique<MoveList>();
  auto paths = std::make_unique<MovePaths>();
  int positions = 0;
  int locked_positions = 0;  // some seat has 2+ pieces under target lock
  for (const Variant& v : variants) {
    SCOPED_TRACE(v.spec.name.empty() ? "custom" : v.spec.name);
    for (double greedy : {0.0, 0.6, 0.9}) {
      const std::vector<Position> game =
          RandomGame(v, StartPosition(v), 160, &rng, greedy);
      for (size_t k = 0; k < game.size(); k += 3) {
        const Position& p = game[k];
        ++positions;
        if (v.spec.target_lock) {
          for (int i = 0; i < v.seat_count; ++i) {
            const Seat seat = v.seats[i];
            if ((p.pieces[SeatIndex(seat)] & v.TargetCamp(seat)).Count() >= 2) {
              ++locked_positions;
              break;
            }
          }
        }
        for (int i = 0; i < v.seat_count; ++i) {
          const Seat seat = v.seats[i];
          const MovePairs brute = BruteForceMoves(v, p, seat);
          const MovePairs got = LegalSet(v, p, seat);
          ASSERT_EQ(got, brute)
              << FormatPosition(p, v) << " seat " << SeatLetter(seat);
          ASSERT_EQ(testing_util::LegalSetFromMoveSet(v, p, seat), brute)
              << FormatPosition(p, v) << " seat " << SeatLetter(seat);
          EXPECT_EQ(HasLegalMove(v, p, seat), !brute.empty());
        }
        ExpectValidFewestHopPaths(v, p, p.to_move,
                                  BruteForceMoves(v, p, p.to_move));
        // CheckMove agrees with generation on a sample of moves.
        const GameStatus status = EvaluateStatus(v, p);
        if (status.over) continue;
        GenerateLegalMovesWithPaths(v, p, p.to_move, list.get(), paths.get());
        for (int i = 0; i < list->size; i += 7) {
          const LegalMove& m = list->moves[i];
          MoveText full;
          full.squares.assign(paths->Path(i),
                              paths->Path(i) + paths->Length(i));
          const MoveCheck a = CheckMove(v, p, status, full);
          ASSERT_EQ(a.verdict, MoveVerdict::kLegal)
              << FormatPosition(p, v) << " " << FormatMove(full) << ": "
              << a.message;
          EXPECT_EQ(a.hops, m.hops);
          EXPECT_EQ(FormatMove(a.path), FormatMove(full));
          MoveText two;
          two.squares = {m.origin, m.destination};
          const MoveCheck b = CheckMove(v, p, status, two);
          const int dx = std::abs(FileOf(m.destination) - FileOf(m.origin));
          const int dy = std::abs(RankOf(m.destination) - RankOf(m.origin));
          if (m.hops > 1 && (dx == 0 || dx == 2) && (dy == 0 || dy == 2)) {
            // Two apart on a line: the shorthand means the single hop
            // (section 4), which a longer chain does not make legal.
            EXPECT_EQ(b.verdict, MoveVerdict::kNothingToJump)
                << FormatPosition(p, v) << " " << FormatMove(two);
            continue;
          }
          ASSERT_EQ(b.verdict, MoveVerdict::kLegal)
              << FormatPosition(p, v) << " " << FormatMove(two) << ": "
              << b.message;
          EXPECT_EQ(b.hops, m.hops) << FormatMove(two);
          EXPECT_EQ(static_cast<int>(b.path.squares.size()),
                    m.hops == 0 ? 2 : m.hops + 1);
          EXPECT_TRUE(a.after == b.after);
        }
        // A two-square move to a destination not in the set is illegal.
        const MovePairs legal = LegalSet(v, p, p.to_move);
        for (int tries = 0; tries < 6; ++tries) {
          const Bitboard own = p.pieces[SeatIndex(p.to_move)];
          std::vector<Square> mine;
          ForEachSquare(own, [&](Square s) { mine.push_back(s); });
          const Square from = mine[rng() % mine.size()];
          const Square to = MakeSquare(rng() % v.size, rng() % v.size);
          if (legal.count({FormatSquare(from), FormatSquare(to)})) continue;
          MoveText two;
          two.squares = {from, to};
          EXPECT_NE(CheckMove(v, p, status, two).verdict, MoveVerdict::kLegal)
              << FormatPosition(p, v) << " " << FormatMove(two);
        }
      }
    }
  }
  EXPECT_GT(positions, 300);
  EXPECT_GT(locked_positions, 30);
}

// ===========================================================================
// Section 5: how a game ends.

// brainking-8x8: w has nine pieces in its target (the north-east camp) and
// steps f5-g6 to fill it. b has nine in its own target and one on e4.
constexpr char kWAboutToFinish8[] =
    "4wwww/5www/7w/5w1w/4b3/bb6/bbb5/bbbb4 w 25,25";

TEST(Section5TargetFilled, RoundCompletionOffFinisherWinsAtOnce) {
  const Variant v = Preset("brainking-8x8");
  const GameRecordResult r = Replay(v, Parse(kWAboutToFinish8, v), {"f5-g6"});
  ASSERT_EQ(r.illegal_ply, 0) << r.illegal_message;
  EXPECT_TRUE(r.status.over);
  EXPECT_EQ(SeatsText(r.status.winners), "w");
  EXPECT_FALSE(r.status.IsDraw());
  EXPECT_EQ(r.status.rule, DecidingRule::kTargetFilled);
  EXPECT_EQ(r.deciding_ply, 1);
  EXPECT_EQ(SeatsText(r.status.finished), "w");
}

TEST(Section5TargetFilled, NotFinishedWhileOnePieceIsOutside) {
  const Variant v = Preset("brainking-8x8");
  const GameRecordResult r = Replay(v, Parse(kWAboutToFinish8, v), {"f5-f6"});
  ASSERT_EQ(r.illegal_ply, 0) << r.illegal_message;
  EXPECT_FALSE(r.status.over);
  EXPECT_TRUE(r.status.finished.Empty());
}

// iggamecenter-10x10: w needs j5-j6 to fill its target, b needs a6-a5.
constexpr char kBothAboutToFinish10[] =
    "5wwwww/6wwww/7www/8ww/b9/9w/bb8/bbb7/bbbb6/bbbbb5";

TEST(Section5RoundCompletion, WFinishesThenBFinishesWithItsExtraMoveIsADraw) {
  const Variant v = Preset("iggamecenter-10x10");
  const Position start =
      Parse(std::string(kBothAboutToFinish10) + " w 40,40", v);
  const GameRecordResult after_w = Replay(v, start, {"j5-j6"});
  EXPECT_FALSE(after_w.status.over);
  EXPECT_EQ(after_w.status.to_move, Seat::kB);
  EXPECT_TRUE(after_w.status.round_completion_turn);
  EXPECT_EQ(SeatsText(after_w.status.finished), "w");
  EXPECT_EQ(after_w.deciding_ply, 0);
  const GameRecordResult r = Replay(v, start, {"j5-j6", "a6-a5"});
  ASSERT_EQ(r.illegal_ply, 0) << r.illegal_message;
  EXPECT_TRUE(r.status.over);
  EXPECT_TRUE(r.status.IsDraw());
  EXPECT_EQ(SeatsText(r.status.winners), "wb");
  EXPECT_EQ(r.status.rule, DecidingRule::kTargetFilled);
  EXPECT_EQ(r.deciding_ply, 2);
}

TEST(Section5RoundCompletion, WFinishesAndBDoesNotWWins) {
  const Variant v = Preset("iggamecenter-10x10");
  const Position start =
      Parse(std::string(kBothAboutToFinish10) + " w 40,40", v);
  const GameRecordResult r = Replay(v, start, {"j5-j6", "a6-b6"});
  ASSERT_EQ(r.illegal_ply, 0) << r.illegal_message;
  EXPECT_TRUE(r.status.over);
  EXPECT_FALSE(r.status.IsDraw());
  EXPECT_EQ(SeatsText(r.status.winners), "w");
  EXPECT_EQ(r.status.rule, DecidingRule::kTargetFilled);
  EXPECT_EQ(r.deciding_ply, 2);
}

TEST(Section5RoundCompletion, BFinishingOnItsOwnTurnWins) {
  const Variant v = Preset("iggamecenter-10x10");
  const Position start =
      Parse(std::string(kBothAboutToFinish10) + " b 41,40", v);
  const GameRecordResult r = Replay(v, start, {"a6-a5"});
  ASSERT_EQ(r.illegal_ply, 0) << r.illegal_message;
  EXPECT_TRUE(r.status.over);
  EXPECT_EQ(SeatsText(r.status.winners), "b");
  EXPECT_EQ(r.status.rule, DecidingRule::kTargetFilled);
  EXPECT_EQ(r.deciding_ply, 1);
}

TEST(Section5RoundCompletion, OffInBrainKing10WFinishingWinsAtOnce) {
  const Variant v = Preset("brainking-10x10");
  const Position start =
      Parse(std::string(kBothAboutToFinish10) + " w 40,40", v);
  const GameRecordResult r = Replay(v, start, {"j5-j6", "a6-a5"});
  EXPECT_TRUE(r.status.over);
  EXPECT_EQ(SeatsText(r.status.winners), "w");
  EXPECT_EQ(r.deciding_ply, 1);
  EXPECT_EQ(r.illegal_ply, 2);
  EXPECT_EQ(r.illegal_verdict, MoveVerdict::kGameOver);
}

// Round completion generalised to four seats: 8x8, camps [1] (one piece
// each; w a1 -> h8, r a8 -> h1, b h8 -> a1, g h1 -> a8).
Variant FourSeatRoundCompletion() {
  return Custom(Spec(8, 4, {1}, 0, /*round_completion=*/true));
}

TEST(Section5RoundCompletion, FourSeatsTheRoundIsPlayedOutAndFinishersDraw) {
  const Variant v = FourSeatRoundCompletion();
  const Position start = Parse("8/6w1/8/3r4/4g3/8/1b6/8 w 5,5,5,5", v);
  const GameRecordResult one = Replay(v, start, {"g7-h8"});
  EXPECT_FALSE(one.status.over);
  EXPECT_EQ(one.status.to_move, Seat::kR);
  EXPECT_TRUE(one.status.round_completion_turn);
  const GameRecordResult three = Replay(v, start, {"g7-h8", "d5-d6", "b2-a1"});
  EXPECT_FALSE(three.status.over);
  EXPECT_EQ(three.status.to_move, Seat::kG);
  EXPECT_TRUE(three.status.round_completion_turn);
  EXPECT_EQ(SeatsText(three.status.finished), "wb");
  const GameRecordResult r =
      Replay(v, start, {"g7-h8", "d5-d6", "b2-a1", "e4-e5"});
  EXPECT_TRUE(r.status.over);
  EXPECT_TRUE(r.status.IsDraw());
  EXPECT_EQ(SeatsText(r.status.winners), "wb");
  EXPECT_EQ(r.status.rule, DecidingRule::kTargetFilled);
  EXPECT_EQ(r.deciding_ply, 4);
  const GameRecordResult alone =
      Replay(v, start, {"g7-h8", "d5-d6", "b2-b3", "e4-e5"});
  EXPECT_TRUE(alone.status.over);
  EXPECT_EQ(SeatsText(alone.status.winners), "w");
  EXPECT_EQ(alone.deciding_ply, 4);
}

TEST(Section5TargetFilled, FourSeatsRoundCompletionOffFinisherWinsAtOnce) {
  const Variant v = Custom(Spec(8, 4, {1}));
  const Position start = Parse("8/6w1/8/3r4/4g3/8/1b6/8 w 5,5,5,5", v);
  const GameRecordResult r = Replay(v, start, {"g7-h8", "d5-d6"});
  EXPECT_TRUE(r.status.over);
  EXPECT_EQ(SeatsText(r.status.winners), "w");
  EXPECT_EQ(r.status.rule, DecidingRule::kTargetFilled);
  EXPECT_EQ(r.deciding_ply, 1);
  EXPECT_EQ(r.illegal_ply, 2);
  EXPECT_EQ(r.final_position.to_move, Seat::kR);
}

TEST(Section5RoundCompletion, FourSeatsMidRoundFinisherOnlyLaterSeatsMove) {
  const Variant v = FourSeatRoundCompletion();
  // r on g2 steps to h1 (its target) as the round's second move; b and g
  // still move, w has already moved in this round.
  const Position start = Parse("8/8/8/3w4/4g3/8/1b4r1/8 w 5,5,5,5", v);
  const GameRecordResult two = Replay(v, start, {"d5-d6", "g2-h1"});
  EXPECT_FALSE(two.status.over);
  EXPECT_TRUE(two.status.round_completion_turn);
  EXPECT_EQ(two.status.to_move, Seat::kB);
  const GameRecordResult r =
      Replay(v, start, {"d5-d6", "g2-h1", "b2-b3", "e4-e5"});
  EXPECT_TRUE(r.status.over);
  EXPECT_EQ(SeatsText(r.status.winners), "r");
  EXPECT_EQ(r.deciding_ply, 4);
  const GameRecordResult d =
      Replay(v, start, {"d5-d6", "g2-h1", "b2-a1", "e4-e5"});
  EXPECT_TRUE(d.status.over);
  EXPECT_EQ(SeatsText(d.status.winners), "rb");
  EXPECT_EQ(d.deciding_ply, 4);
}

// Home-exit rule, brainking-8x8 (L = 30). w's a4 is still at home; the rest
// of w and all of b have left home.
constexpr char kHomeExitBoard[] = "8/8/bbbbb3/bbbbb3/w3wwww/3wwwww/8/8";

TEST(Section5HomeExit, PieceStillAtHomeAfterMoreThanLMovesLoses) {
  const Variant v = Preset("brainking-8x8");
  const Position p = Parse(std::string(kHomeExitBoard) + " w 30,30", v);
  const GameRecordResult r = Replay(v, p, {"h4-h5"});  // w's 31st move
  ASSERT_EQ(r.illegal_ply, 0) << r.illegal_message;
  EXPECT_TRUE(r.status.over);
  EXPECT_EQ(SeatsText(r.status.winners), "b");
  EXPECT_EQ(r.status.rule, DecidingRule::kHomeExit);
  EXPECT_EQ(r.deciding_ply, 1);
}

TEST(Section5HomeExit, LeavingHomeWithTheMoveAfterTheLimitIsInTime) {
  const Variant v = Preset("brainking-8x8");
  const Position p = Parse(std::string(kHomeExitBoard) + " w 30,30", v);
  const GameRecordResult r = Replay(v, p, {"a4-b4"});
  ASSERT_EQ(r.illegal_ply, 0) << r.illegal_message;
  EXPECT_FALSE(r.status.over);
}

TEST(Section5HomeExit, ExactlyLMovesIsNotYetMoreThanL) {
  const Variant v = Preset("brainking-8x8");
  const Position p = Parse(std::string(kHomeExitBoard) + " w 29,29", v);
  const GameRecordResult thirty = Replay(v, p, {"h4-h5", "a6-a7"});
  ASSERT_EQ(thirty.illegal_ply, 0) << thirty.illegal_message;
  EXPECT_FALSE(thirty.status.over);
  const GameRecordResult r = Replay(v, p, {"h4-h5", "a6-a7", "h5-h6"});
  EXPECT_TRUE(r.status.over);
  EXPECT_EQ(SeatsText(r.status.winners), "b");
  EXPECT_EQ(r.status.rule, DecidingRule::kHomeExit);
  EXPECT_EQ(r.deciding_ply, 3);
}

TEST(Section5HomeExit, PieceMovedBackHomeAfterTheLimitLoses) {
  const Variant v = Preset("brainking-8x8");
  const Position p = Parse("8/8/bbbbb3/bbbbb3/2w1wwww/3wwwww/8/8 w 35,35", v);
  const GameRecordResult back = Replay(v, p, {"c4-b3"});
  EXPECT_TRUE(back.status.over);
  EXPECT_EQ(SeatsText(back.status.winners), "b");
  EXPECT_EQ(back.status.rule, DecidingRule::kHomeExit);
  EXPECT_EQ(back.deciding_ply, 1);
  const GameRecordResult elsewhere = Replay(v, p, {"c4-b4"});
  EXPECT_FALSE(elsewhere.status.over);
}

TEST(Section5HomeExit, AppliesToBAfterItsOwnMove) {
  const Variant v = Preset("brainking-8x8");
  // b's h5 is still at home; b makes its 31st move elsewhere.
  const Position p = Parse("8/8/bbbbb3/bbbb3b/2w1wwww/3wwwww/8/8 b 31,30", v);
  const GameRecordResult r = Replay(v, p, {"a6-a7"});
  EXPECT_TRUE(r.status.over);
  EXPECT_EQ(SeatsText(r.status.winners), "w");
  EXPECT_EQ(r.status.rule, DecidingRule::kHomeExit);
  const GameRecordResult out = Replay(v, p, {"h5-g5"});
  EXPECT_FALSE(out.status.over);
}

TEST(Section5HomeExit, OffWhenTheLimitIsZero) {
  const Variant v = Preset("iggamecenter-10x10");
  // w's a1 has never moved after 100 moves.
  const Position p =
      Parse("5bbbbb/6bbbb/7bbb/8bb/9b/w9/ww8/www7/wwww6/wwwww5 w 100,100", v);
  const GameRecordResult r = Replay(v, p, {"e1-f2", "f10-e9"});
  EXPECT_FALSE(r.status.over);
}

TEST(Section5MoveCap, EverySeatReachingTheCapWithNoResultIsADraw) {
  const Variant v = Custom(Spec(8, 2, {4, 3, 2, 1}, 0, false, false, 2));
  const GameRecordResult three =
      Replay(v, StartPosition(v), {"d1-e2", "e8-d7", "e2-e3"});
  EXPECT_FALSE(three.status.over);
  const GameRecordResult r =
      Replay(v, StartPosition(v), {"d1-e2", "e8-d7", "e2-e3", "d7-d6"});
  ASSERT_EQ(r.illegal_ply, 0) << r.illegal_message;
  EXPECT_TRUE(r.status.over);
  EXPECT_TRUE(r.status.IsDraw());
  EXPECT_EQ(SeatsText(r.status.winners), "wb");
  EXPECT_EQ(r.status.rule, DecidingRule::kMoveCap);
  EXPECT_EQ(r.deciding_ply, 4);
  const GameRecordResult more = Replay(
      v, StartPosition(v), {"d1-e2", "e8-d7", "e2-e3", "d7-d6", "e3-e4"});
  EXPECT_EQ(more.illegal_ply, 5);
  EXPECT_EQ(more.illegal_verdict, MoveVerdict::kGameOver);
}

TEST(Section5MoveCap, OnlySeatsStillPlayingMustReachTheCap) {
  // Four seats, camps [2,1], home-exit limit 2, cap 4: r is eliminated with
  // 3 moves; the game is drawn when w, b and g have made 4.
  const Variant v = Custom(Spec(8, 4, {2, 1}, 2, false, false, 4));
  const std::vector<std::string> moves = {
      "a2-a3", "a7-a6", "h7-h6", "h2-h3", "b1-c2", "b8-c7", "g8-f7", "g1-f2",
      "a1-b2", "a6-a5", "h8-g7", "h1-g2", "c2-d3", "g7-g6", "g2-g3"};
  const GameRecordResult r = Replay(v, StartPosition(v), moves);
  ASSERT_EQ(r.illegal_ply, 0) << r.illegal_message;
  EXPECT_TRUE(r.status.over);
  EXPECT_EQ(r.status.rule, DecidingRule::kMoveCap);
  EXPECT_EQ(SeatsText(r.status.winners), "wbg");
  EXPECT_EQ(r.deciding_ply, 15);
}

TEST(Section5MoveCap, TargetFilledOnTheCappedMoveComesFirst) {
  // 8x8, camps [2,1], cap 10: b (9 moves) can fill its target with b3-a2.
  const Variant v = Custom(Spec(8, 2, {2, 1}, 0, false, false, 10));
  const Position p = Parse("8/8/8/8/3www2/1b6/8/bb6 b 10,9", v);
  const GameRecordResult win = Replay(v, p, {"b3-a2"});
  EXPECT_TRUE(win.status.over);
  EXPECT_EQ(SeatsText(win.status.winners), "b");
  EXPECT_EQ(win.status.rule, DecidingRule::kTargetFilled);
  const GameRecordResult draw = Replay(v, p, {"b3-b4"});
  EXPECT_TRUE(draw.status.over);
  EXPECT_EQ(SeatsText(draw.status.winners), "wb");
  EXPECT_EQ(draw.status.rule, DecidingRule::kMoveCap);
  EXPECT_EQ(draw.deciding_ply, 1);
}

TEST(Section5EveryoneStuck, NoSeatCanMoveAfterAMoveIsADraw) {
  // Locked 4x4: b steps d2-c2 into its target; then w's target is full of
  // locked w pieces plus b's c4, b's target is full plus w's b1, and c4 and
  // b1 are walled in. Nobody can move.
  const Variant v = Locked4();
  const Position p = Parse("wwbw/1www/bb1b/bwbb b 20,19", v);
  EXPECT_FALSE(EvaluateStatus(v, p).over);
  const GameRecordResult r = Replay(v, p, {"d2-c2"});
  ASSERT_EQ(r.illegal_ply, 0) << r.illegal_message;
  EXPECT_TRUE(r.status.over);
  EXPECT_TRUE(r.status.IsDraw());
  EXPECT_EQ(SeatsText(r.status.winners), "wb");
  EXPECT_EQ(r.status.rule, DecidingRule::kEveryoneStuck);
  EXPECT_EQ(r.deciding_ply, 1);
  EXPECT_EQ(FormatPosition(r.final_position, v), "wwbw/1www/bbb1/bwbb w 20,20");
}

TEST(Section5EveryoneStuck, FullBoardStartIsDecidedAtPlyZero) {
  // 4x4 with camps [4,4]: the two camps fill the board.
  const Variant v = Custom(Spec(4, 2, {4, 4}));
  const Position start = StartPosition(v);
  EXPECT_EQ(FormatPosition(start, v), "bbbb/bbbb/wwww/wwww w 0,0");
  const GameStatus s = EvaluateStatus(v, start);
  EXPECT_TRUE(s.over);
  EXPECT_EQ(s.rule, DecidingRule::kEveryoneStuck);
  EXPECT_EQ(SeatsText(s.winners), "wb");
}

// Four-player elimination: 8x8, four seats, camps [2,1] (w a1 b1 a2, r a8
// b8 a7, b h8 g8 h7, g h1 g1 h2), home-exit limit 2.
Variant FourSeatHomeExit() { return Custom(Spec(8, 4, {2, 1}, 2)); }

TEST(Section5FourPlayer, EliminatedSeatStaysAsObstaclesAndLosesItsTurns) {
  const Variant v = FourSeatHomeExit();
  const std::vector<std::string> moves = {
      "a2-a3", "a7-a6", "h7-h6", "h2-h3",  // round 1
      "b1-c2", "b8-c7", "g8-f7", "g1-f2",  // round 2
      "a1-b2", "a6-a5", "h8-g7", "h1-g2",  // round 3: r keeps a8 at home
      "c2-d3",                             // round 4: w, then b (r skipped)
  };
  const GameRecordResult at10 =
      Replay(v, StartPosition(v),
             std::vector<std::string>(moves.begin(), moves.begin() + 10));
  ASSERT_EQ(at10.illegal_ply, 0) << at10.illegal_message;
  EXPECT_FALSE(at10.status.over);
  EXPECT_EQ(SeatsText(at10.status.eliminated), "r");
  EXPECT_EQ(at10.status.to_move, Seat::kB);
  const GameRecordResult r = Replay(v, StartPosition(v), moves);
  ASSERT_EQ(r.illegal_ply, 0) << r.illegal_message;
  EXPECT_FALSE(r.status.over);
  EXPECT_EQ(r.status.to_move, Seat::kB);
  EXPECT_EQ(SeatsText(r.status.eliminated), "r");
  // r's pieces are still on the board, its count stays at 3.
  const Position& p = r.final_position;
  Seat s;
  for (const char* sq : {"a8", "c7", "a5"}) {
    ASSERT_TRUE(p.PieceAt(Sq(sq), &s)) << sq;
    EXPECT_EQ(s, Seat::kR) << sq;
  }
  EXPECT_EQ(FormatPosition(p, v).substr(FormatPosition(p, v).find(' ')),
            " b 4,3,3,3");
  // r may not move any more.
  EXPECT_EQ(Check(v, p, "a5-a4").verdict, MoveVerdict::kNotYourPiece);
  // Play continues b, g, w, b, ... and never gives r the move.
  std::string order;
  Position q = p;
  for (const char* m : {"g7-g6", "g2-g3", "d3-d4", "g6-g5", "g3-g4"}) {
    order += SeatLetter(q.to_move);
    const MoveCheck c = Check(v, q, m);
    ASSERT_EQ(c.verdict, MoveVerdict::kLegal) << m << ": " << c.message;
    q = c.after;
  }
  order += SeatLetter(q.to_move);
  EXPECT_EQ(order, "bgwbgw");
}

TEST(Section5FourPlayer, LastSeatStandingWins) {
  const Variant v = FourSeatHomeExit();
  const std::vector<std::string> moves = {
      "a2-a3", "a7-a6", "h7-h6", "h2-h3",  // round 1
      "b1-c2", "a6-a5", "h6-h5", "h3-h4",  // round 2
      "a1-b2", "a5-a4", "h5-g4", "h4-h5",  // round 3: r, b, g keep pieces home
  };
  const GameRecordResult eleven =
      Replay(v, StartPosition(v),
             std::vector<std::string>(moves.begin(), moves.begin() + 11));
  EXPECT_FALSE(eleven.status.over);
  EXPECT_EQ(SeatsText(eleven.status.eliminated), "rb");
  EXPECT_EQ(eleven.status.to_move, Seat::kG);
  const GameRecordResult r = Replay(v, StartPosition(v), moves);
  ASSERT_EQ(r.illegal_ply, 0) << r.illegal_message;
  EXPECT_TRUE(r.status.over);
  EXPECT_EQ(SeatsText(r.status.winners), "w");
  EXPECT_EQ(r.status.rule, DecidingRule::kHomeExit);
  EXPECT_EQ(r.deciding_ply, 12);
  EXPECT_EQ(SeatsText(r.status.eliminated), "rbg");
  // Section 7: the position after the deciding move names the next seat.
  EXPECT_EQ(r.final_position.to_move, Seat::kW);
}

TEST(Section5FourPlayer, EliminationIsNotALossOfTheWholeGame) {
  // In a four-player game a home-exit break eliminates one seat only.
  const Variant v = FourSeatHomeExit();
  const GameRecordResult r =
      Replay(v, StartPosition(v),
             {"a2-a3", "a7-a6", "h7-h6", "h2-h3", "b1-c2", "b8-c7", "g8-f7",
              "g1-f2", "a1-b2", "a6-a5"});
  EXPECT_FALSE(r.status.over);
  EXPECT_TRUE(r.status.winners.Empty());
}

// An independent referee for section 5, written from the rule text: it
// follows a game move by move, keeps its own record of the round's
// finishers and of eliminated seats, and says after every move what the
// status must be. Random games (seeded, mostly heading for the targets) on
// small variants reach every ending; EvaluateStatus must agree throughout.
struct Referee {
  const Variant& v;
  SeatSet eliminated;
  SeatSet round_finishers;

  bool AllIn(const Position& p, Seat s, Corner corner) const {
    const Bitboard camp = CampMask(v.size, v.spec.camp_rows, corner);
    return (p.pieces[SeatIndex(s)] & ~camp).Any() == false;
  }
  bool AnyIn(const Position& p, Seat s, Corner corner) const {
    const Bitboard camp = CampMask(v.size, v.spec.camp_rows, corner);
    return (p.pieces[SeatIndex(s)] & camp).Any();
  }
  SeatSet Playing() const {
    SeatSet out = v.in_play;
    for (int i = 0; i < kMaxSeats; ++i) {
      if (eliminated.Has(SeatAt(i))) out.Remove(SeatAt(i));
    }
    return out;
  }
  int Index(Seat s) const {
    for (int i = 0; i < v.seat_count; ++i) {
      if (v.seats[i] == s) return i;
    }
    return -1;
  }

  // The status after seat `s` made the move that produced `p`.
  GameStatus After(Seat s, const Position& p) {
    GameStatus want;
    auto over = [&](SeatSet winners, DecidingRule rule) {
      want.over = true;
      want.winners = winners;
      want.rule = rule;
      return want;
    };
    bool later = false;  // a seat still playing moves after s this round
    for (int i = Index(s) + 1; i < v.seat_count; ++i) {
      if (Playing().Has(v.seats[i])) later = true;
    }
    // 1. Target filled.
    if (AllIn(p, s, TargetCorner(s))) {
      if (!v.spec.round_completion) {
        SeatSet one;
        one.Add(s);
        return over(one, DecidingRule::kTargetFilled);
      }
      round_finishers.Add(s);
    }
    if (v.spec.round_completion && !round_finishers.Empty() && !later) {
      return over(round_finishers, DecidingRule::kTargetFilled);
    }
    if (!later) round_finishers = SeatSet{};
    // 2. Home-exit rule.
    const int limit = v.spec.home_exit_limit;
    if (limit > 0 && p.move_count[SeatIndex(s)] > limit &&
        AnyIn(p, s, HomeCorner(s))) {
      if (v.seat_count == 2) {
        SeatSet other = v.in_play;
        other.Remove(s);
        return over(other, DecidingRule::kHomeExit);
      }
      eliminated.Add(s);
      if (Playing().Count() == 1) {
        return over(Playing(), DecidingRule::kHomeExit);
      }
    }
    // 3. Move cap.
    if (v.spec.move_cap > 0) {
      bool all = true;
      for (int i = 0; i < v.seat_count; ++i) {
        if (Playing().Has(v.seats[i]) &&
            p.move_count[SeatIndex(v.seats[i])] < v.spec.move_cap) {
          all = false;
        }
      }
      if (all) return over(Playing(), DecidingRule::kMoveCap);
    }
    // The next seat still playing.
    Seat next = s;
    for (int k = 1; k <= v.seat_count; ++k) {
      next = v.seats[(Index(s) + k) % v.seat_count];
      if (Playing().Has(next)) break;
    }
    want.to_move = next;
    want.round_completion_turn = !round_finishers.Empty();
    want.must_pass = BruteForceMoves(v, p, next).empty();
    // 4. Everyone stuck (a seat owed a round-completion turn still gets
    // it: the engine's documented reading, see status.h).
    if (!want.round_completion_turn) {
      bool any = false;
      for (int i = 0; i < v.seat_count; ++i) {
        if (Playing().Has(v.seats[i]) &&
            !BruteForceMoves(v, p, v.seats[i]).empty()) {
          any = true;
        }
      }
      if (!any) return over(Playing(), DecidingRule::kEveryoneStuck);
    }
    return want;
  }
};

TEST(Section5Endings, MatchAnIndependentRefereeOnRandomGames) {
  const std::vector<VariantSpec> specs = {
      Spec(6, 2, {2, 1}, 0, true),
      Spec(6, 2, {2, 1}, 6),
      Spec(6, 4, {1}, 3, true),
      Spec(8, 4, {2, 1}, 3, false, true),
      Spec(8, 4, {2, 1}, 4, true, false),
      Spec(5, 2, {3, 1}, 0, false, true, 12),
      Spec(4, 2, {3, 2}, 0, true, true),
      Spec(4, 4, {1}, 2, true, false, 9),
      Spec(8, 2, {4, 3, 2, 1}, 30),
  };
  std::map<DecidingRule, int> endings;
  int draws = 0;
  for (size_t k = 0; k < specs.size(); ++k) {
    const Variant v = Custom(specs[k]);
    for (int seed = 0; seed < 12; ++seed) {
      SCOPED_TRACE("variant " + std::to_string(k) + " seed " +
                   std::to_string(seed));
      std::mt19937 rng(1000 * k + seed);
      const double greedy = seed % 3 == 0 ? 0.5 : 0.95;
      Referee referee{v, {}, {}};
      Position pos = StartPosition(v);
      auto list = std::make_unique<MoveList>();
      auto paths = std::make_unique<MovePaths>();
      for (int ply = 1; ply <= 400; ++ply) {
        const GameStatus status = EvaluateStatus(v, pos);
        ASSERT_FALSE(status.over);
        const Seat mover = pos.to_move;
        GenerateLegalMovesWithPaths(v, pos, mover, list.get(), paths.get());
        MoveText move;
        if (list->size == 0) {
          move.is_pass = true;
        } else {
          int best = -1000, chosen = rng() % list->size;
          if (std::uniform_real_distribution<double>(0, 1)(rng) < greedy) {
            for (int i = 0; i < list->size; ++i) {
              const LegalMove& m = list->moves[i];
              const int gain =
                  testing_util::DistanceToTarget(v, mover, m.origin) -
                  testing_util::DistanceToTarget(v, mover, m.destination);
              if (gain > best || (gain == best && rng() % 2)) {
                best = gain;
                chosen = i;
              }
            }
          }
          move.squares.assign(paths->Path(chosen),
                              paths->Path(chosen) + paths->Length(chosen));
        }
        const MoveCheck check = CheckMove(v, pos, status, move);
        ASSERT_EQ(check.verdict, MoveVerdict::kLegal) << check.message;
        pos = check.after;
        const GameStatus want = referee.After(mover, pos);
        const GameStatus got = EvaluateStatus(v, pos);
        const std::string where = "ply " + std::to_string(ply) + " " +
                                  FormatMove(move) + " -> " +
                                  FormatPosition(pos, v);
        ASSERT_EQ(got.over, want.over) << where;
        if (want.over) {
          EXPECT_EQ(SeatsText(got.winners), SeatsText(want.winners)) << where;
          EXPECT_EQ(DecidingRuleName(got.rule), DecidingRuleName(want.rule))
              << where;
          ++endings[want.rule];
          if (want.winners.Count() > 1) ++draws;
          break;
        }
        ASSERT_EQ(pos.to_move, want.to_move) << where;
        EXPECT_EQ(got.to_move, want.to_move) << where;
        EXPECT_EQ(got.round_completion_turn, want.round_completion_turn)
            << where;
        EXPECT_EQ(got.must_pass, want.must_pass) << where;
        EXPECT_EQ(SeatsText(got.eliminated), SeatsText(referee.eliminated))
            << where;
      }
    }
  }
  for (const auto& [rule, count] : endings) {
    RecordProperty(DecidingRuleName(rule), count);
  }
  RecordProperty("draws", draws);
  // The games reached the endings this test is meant to cover.
  EXPECT_GT(endings[DecidingRule::kTargetFilled], 10);
  EXPECT_GT(endings[DecidingRule::kHomeExit], 3);
  EXPECT_GT(endings[DecidingRule::kMoveCap], 0);
  EXPECT_GT(draws, 0);
}

// ===========================================================================
// Section 7: conventions in answers.

TEST(Section7Plies, DecidingPlyIsTheOneBasedIndexOfTheDecidingMove) {
  const Variant v = Preset("brainking-8x8");
  const Position p = Parse(kWAboutToFinish8, v);
  // Two ordinary moves, then w finishes at ply 3.
  const GameRecordResult r = Replay(v, p, {"f5-f6", "e4-e5", "f6-g6"});
  ASSERT_EQ(r.illegal_ply, 0) << r.illegal_message;
  EXPECT_TRUE(r.status.over);
  EXPECT_EQ(r.deciding_ply, 3);
  EXPECT_EQ(r.legal_moves_played, 3);
}

TEST(Section7Plies, MovesAfterTheDecidingMoveAreGameOver) {
  const Variant v = Preset("brainking-8x8");
  const GameRecordResult r =
      Replay(v, Parse(kWAboutToFinish8, v), {"f5-g6", "e4-e5", "pass"});
  EXPECT_TRUE(r.status.over);
  EXPECT_EQ(r.deciding_ply, 1);
  EXPECT_EQ(r.illegal_ply, 2);
  EXPECT_EQ(r.illegal_verdict, MoveVerdict::kGameOver);
  EXPECT_EQ(r.legal_moves_played, 1);
  // A decided position refuses every move, pass included.
  const GameStatus over = EvaluateStatus(v, r.final_position);
  for (const char* m : {"e4-e5", "pass", "h8-h7", "a1-a2"}) {
    EXPECT_EQ(
        CheckMove(v, r.final_position, over, testing_util::Move(m, 8)).verdict,
        MoveVerdict::kGameOver)
        << m;
  }
}

TEST(Section7Plies, PlyZeroWhenTheStartIsAlreadyDecided) {
  const Variant v = Preset("brainking-8x8");
  // The position right after w filled its target.
  const Position decided =
      Parse("4wwww/5www/6ww/7w/4b3/bb6/bbb5/bbbb4 b 26,25", v);
  const GameRecordResult none = Replay(v, decided, {});
  EXPECT_TRUE(none.status.over);
  EXPECT_EQ(SeatsText(none.status.winners), "w");
  EXPECT_EQ(none.deciding_ply, 0);
  const GameRecordResult one = Replay(v, decided, {"e4-e5"});
  EXPECT_EQ(one.deciding_ply, 0);
  EXPECT_EQ(one.illegal_ply, 1);
  EXPECT_EQ(one.illegal_verdict, MoveVerdict::kGameOver);
  // The same with a start position decided before any move.
  const Variant full = Custom(Spec(4, 2, {4, 4}));
  const GameRecordResult stuck = Replay(full, StartPosition(full), {"pass"});
  EXPECT_TRUE(stuck.status.over);
  EXPECT_EQ(stuck.status.rule, DecidingRule::kEveryoneStuck);
  EXPECT_EQ(stuck.deciding_ply, 0);
  EXPECT_EQ(stuck.illegal_ply, 1);
  EXPECT_EQ(stuck.illegal_verdict, MoveVerdict::kGameOver);
}

TEST(Section7Plies, PlyZeroWhileStillInProgress) {
  const Variant v = Preset("brainking-8x8");
  const GameRecordResult r = Replay(v, StartPosition(v), {"a1-c3", "h8-f6"});
  EXPECT_FALSE(r.status.over);
  EXPECT_EQ(r.deciding_ply, 0);
  EXPECT_EQ(r.legal_moves_played, 2);
}

TEST(Section7Plies, PositionAfterTheDecidingMoveNamesTheNextSeat) {
  const Variant v = Preset("brainking-8x8");
  const GameRecordResult r = Replay(v, Parse(kWAboutToFinish8, v), {"f5-g6"});
  EXPECT_EQ(r.final_position.to_move, Seat::kB);
  const std::string text = FormatPosition(r.final_position, v);
  EXPECT_EQ(text, "4wwww/5www/6ww/7w/4b3/bb6/bbb5/bbbb4 b 26,25");
  // Its status derives again from the position alone.
  const GameStatus again = EvaluateStatus(v, Parse(text, v));
  EXPECT_TRUE(again.over);
  EXPECT_EQ(SeatsText(again.winners), "w");
  EXPECT_EQ(again.rule, DecidingRule::kTargetFilled);
  // Round completion: the draw is decided by b's move, and w is next.
  const Variant ig = Preset("iggamecenter-10x10");
  const GameRecordResult d =
      Replay(ig, Parse(std::string(kBothAboutToFinish10) + " w 40,40", ig),
             {"j5-j6", "a6-a5"});
  EXPECT_EQ(FormatPosition(d.final_position, ig),
            "5wwwww/6wwww/7www/8ww/9w/b9/bb8/bbb7/bbbb6/bbbbb5 w 41,41");
  const GameStatus draw = EvaluateStatus(ig, d.final_position);
  EXPECT_TRUE(draw.IsDraw());
  // Home-exit loss: b is named next although the game is over.
  const GameRecordResult h =
      Replay(v, Parse(std::string(kHomeExitBoard) + " w 30,30", v), {"h4-h5"});
  EXPECT_EQ(h.final_position.to_move, Seat::kB);
  EXPECT_TRUE(EvaluateStatus(v, h.final_position).over);
}

TEST(Section7Plies, MalformedMoveInARecordIsAnErrorNamingThePly) {
  const Variant v = Preset("brainking-8x8");
  const absl::StatusOr<GameRecordResult> r =
      AdjudicateRecord(v, StartPosition(v), {"a1-c3", "h8-h6", "x9"});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("ply 3"));
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("x9"));
}

}  // namespace
}  // namespace halma
