// ChainContinuations (chain_continuations.h) against the legal-move list
// and the move checker: from positions of random games of every preset (a
// fixed seed, played with the engine's legal moves), every legal jump
// move's fewest-hop path is built hop by hop from continuations, every
// continuation extends the chain to a legal move, and the continuations are
// exactly the squares s for which chain + s is legal (docs/rules.md section 3:
// target lock applies after every hop, so every prefix of a legal chain is
// itself legal).
#include "halma/chain_continuations.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "halma/move_check.h"
#include "halma/movegen.h"
#include "halma/notation.h"
#include "halma/position.h"
#include "halma/game_status.h"
#include "halma/variant.h"
#include "test_util.h"

namespace halma {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using testing_util::Custom;
using testing_util::Drawn;
using testing_util::Preset;
using testing_util::RandomGame;
using testing_util::Spec;
using testing_util::Sq;

using Chain = std::vector<Square>;

// The sanitizer presets shrink the randomised runs (CMakePresets.json).
double Scale() {
  const char* text = std::getenv("HALMA_DIFFERENTIAL_SCALE");
  if (text == nullptr) return 1.0;
  const double scale = std::atof(text);
  return scale > 0 && scale <= 1 ? scale : 1.0;
}

std::string Text(const Chain& chain) {
  return FormatPath(chain.data(), static_cast<int>(chain.size()));
}

std::vector<Square> Continuations(const Variant& v, const Position& p,
                                  const Chain& chain) {
  return ChainContinuations(v, p, chain.data(), static_cast<int>(chain.size()));
}

// The verdict of the move that visits `chain`, checked hop by hop (three or
// more squares) by the engine's move checker.
MoveVerdict Verdict(const Variant& v, const Position& p,
                    const GameStatus& status, const Chain& chain) {
  MoveText move;
  move.squares.assign(chain.begin(), chain.end());
  return CheckMove(v, p, status, move, MoveDetail::kPositionOnly).verdict;
}

bool InFileRankOrder(const std::vector<Square>& squares) {
  return std::is_sorted(squares.begin(), squares.end(), [](Square a, Square b) {
    return FileOf(a) != FileOf(b) ? FileOf(a) < FileOf(b)
                                  : RankOf(a) < RankOf(b);
  });
}

struct Totals {
  long positions = 0;
  long paths = 0;          // Legal jump moves whose path was rebuilt.
  long prefixes = 0;       // Distinct chains checked against CheckMove.
  long brute_squares = 0;  // Squares tried in the brute-force comparison.
  long walks = 0;          // Chains built hop by hop at random.
  long locked = 0;         // Chains whose continuations target lock cut.
};

// The squares one hop from the chain's end with target lock ignored: over
// an occupied square (the chain's origin counts as empty) onto an empty
// one not on the chain. Written out square by square from docs/rules.md, as an
// oracle for the lock's effect.
std::vector<Square> UnlockedHops(const Variant& v, const Position& p,
                                 const Chain& chain) {
  Position lifted = p;
  lifted.pieces[SeatIndex(p.to_move)].Clear(chain[0]);
  const Bitboard occupied = lifted.Occupied();
  const Square at = chain.back();
  std::vector<Square> out;
  for (int d = 0; d < kDirectionCount; ++d) {
    const int ox = FileOf(at) + kDirX[d], oy = RankOf(at) + kDirY[d];
    const int tx = ox + kDirX[d], ty = oy + kDirY[d];
    if (tx < 0 || ty < 0 || tx >= v.size || ty >= v.size) continue;
    const Square over = MakeSquare(ox, oy), to = MakeSquare(tx, ty);
    if (!occupied.Test(over) || occupied.Test(to)) continue;
    if (std::find(chain.begin(), chain.end(), to) != chain.end()) continue;
    out.push_back(to);
  }
  std::sort(out.begin(), out.end(), [](Square a, Square b) {
    return FileOf(a) != FileOf(b) ? FileOf(a) < FileOf(b)
                                  : RankOf(a) < RankOf(b);
  });
  return out;
}

// Every check of this file on one position (side to move, game not over).
// `full_board` tries every square of the board in the brute-force
// comparison; otherwise the squares within two files and ranks of the
// chain's end (any other leg is not a hop, docs/rules.md section 4).
void CheckPosition(const Variant& v, const Position& p, bool full_board,
                   std::mt19937* rng, Totals* totals) {
  const GameStatus status = EvaluateStatus(v, p);
  if (status.over) return;
  ++totals->positions;
  auto list = std::make_unique<MoveList>();
  auto paths = std::make_unique<MovePaths>();
  GenerateLegalMovesWithPaths(v, p, p.to_move, list.get(), paths.get());
  std::set<std::pair<Square, Square>> legal;
  std::set<std::pair<Square, Square>> single_hops;
  for (int i = 0; i < list->size; ++i) {
    const LegalMove& m = list->moves[i];
    legal.insert({m.origin, m.destination});
    if (m.hops == 1) single_hops.insert({m.origin, m.destination});
  }
  const Bitboard target = v.TargetCamp(p.to_move);

  // The origin alone: its continuations are its single hops.
  Bitboard movers = p.pieces[SeatIndex(p.to_move)];
  ForEachSquare(movers, [&](Square origin) {
    const std::vector<Square> first = Continuations(v, p, {origin});
    EXPECT_TRUE(InFileRankOrder(first));
    std::set<Square> expected;
    for (const auto& [from, to] : single_hops) {
      if (from == origin) expected.insert(to);
    }
    EXPECT_EQ(std::set<Square>(first.begin(), first.end()), expected)
        << FormatPosition(p, v) << " from " << FormatSquare(origin);
  });

  // Every legal jump move's path, hop by hop: each next square is among the
  // continuations of the chain so far.
  // Distinct chains, each as the string of its squares.
  std::set<std::string> prefixes;
  const auto add = [&prefixes](const Square* squares, int count) {
    prefixes.insert(std::string(squares, squares + count));
  };
  for (int i = 0; i < list->size; ++i) {
    if (list->moves[i].hops == 0) continue;
    ++totals->paths;
    const Square* path = paths->Path(i);
    const int length = paths->Length(i);
    for (int k = 1; k < length; ++k) {
      const Chain chain(path, path + k);
      const std::vector<Square> next = Continuations(v, p, chain);
      EXPECT_NE(std::find(next.begin(), next.end(), path[k]), next.end())
          << FormatPosition(p, v) << ": " << FormatSquare(path[k])
          << " is the next square of the legal move "
          << FormatPath(path, length) << " but not a continuation of "
          << Text(chain);
      if (k >= 2) add(path, k);
    }
    add(path, length);
  }

  // Each chain (at least one hop): every continuation gives a legal move
  // whose (origin, destination) is in the legal-move list, and a brute
  // force over squares finds no other s for which chain + s is legal.
  for (const std::string& key : prefixes) {
    const Chain chain(key.begin(), key.end());
    ++totals->prefixes;
    const std::vector<Square> next = Continuations(v, p, chain);
    EXPECT_TRUE(InFileRankOrder(next)) << Text(chain);
    const std::set<Square> next_set(next.begin(), next.end());
    EXPECT_EQ(next_set.size(), next.size()) << Text(chain);
    const Square at = chain.back();
    for (int y = 0; y < v.size; ++y) {
      for (int x = 0; x < v.size; ++x) {
        if (!full_board &&
            (std::abs(x - FileOf(at)) > 2 || std::abs(y - RankOf(at)) > 2)) {
          continue;
        }
        const Square s = MakeSquare(x, y);
        ++totals->brute_squares;
        Chain longer = chain;
        longer.push_back(s);
        const bool is_legal =
            Verdict(v, p, status, longer) == MoveVerdict::kLegal;
        EXPECT_EQ(is_legal, next_set.count(s) == 1)
            << FormatPosition(p, v) << ": " << Text(longer) << " is "
            << (is_legal ? "legal" : "illegal") << " but " << FormatSquare(s)
            << (is_legal ? " is not" : " is") << " a continuation of "
            << Text(chain);
        if (is_legal) {
          EXPECT_EQ(legal.count({chain.front(), s}), 1u)
              << Text(longer) << " is not in the legal-move list";
        }
      }
    }
    // Target lock, from docs/rules.md section 3: once the chain stands in the target camp
    // (it cannot have left it again), only hops inside it remain.
    const std::vector<Square> unlocked = UnlockedHops(v, p, chain);
    std::vector<Square> expected;
    const bool locked = v.spec.target_lock && target.Test(at);
    for (Square s : unlocked) {
      if (!locked || target.Test(s)) expected.push_back(s);
    }
    EXPECT_EQ(next, expected) << FormatPosition(p, v) << ": " << Text(chain);
    if (expected.size() < unlocked.size()) ++totals->locked;
  }

  // Chains built hop by hop at random from every piece that can jump, as a
  // player clicking would, until no continuation is left.
  ForEachSquare(movers, [&](Square origin) {
    Chain chain = {origin};
    for (;;) {
      const std::vector<Square> next = Continuations(v, p, chain);
      if (next.empty()) break;
      chain.push_back(next[std::uniform_int_distribution<size_t>(
          0, next.size() - 1)(*rng)]);
      EXPECT_EQ(Verdict(v, p, status, chain), MoveVerdict::kLegal)
          << FormatPosition(p, v) << ": " << Text(chain);
      EXPECT_EQ(legal.count({origin, chain.back()}), 1u)
          << FormatPosition(p, v) << ": " << Text(chain)
          << " is not in the legal-move list";
      ASSERT_LE(chain.size(), static_cast<size_t>(kMaxPathSquares));
    }
    if (chain.size() > 1) ++totals->walks;
  });
}

// Positions of a random game: one every `every` plies.
void CheckGames(const Variant& v, int games, int plies, int every,
                double greedy, unsigned seed, Totals* totals) {
  std::mt19937 rng(seed);
  for (int g = 0; g < games; ++g) {
    const std::vector<Position> game =
        RandomGame(v, StartPosition(v), plies, &rng, greedy);
    for (size_t i = 0; i < game.size(); i += every) {
      CheckPosition(v, game[i], /*full_board=*/i % (4 * every) == 0, &rng,
                    totals);
    }
  }
}

int Games(int count) { return std::max(1, static_cast<int>(count * Scale())); }

TEST(ChainContinuations, EveryPresetAgainstLegalMovesAndCheckMove) {
  for (const std::string& name : PresetNames()) {
    SCOPED_TRACE(name);
    const Variant v = Preset(name);
    Totals totals;
    // Wandering games and games that head for the targets (where the
    // lock of the 16x16 presets bites).
    CheckGames(v, Games(6), 120, 6, 0.0, 12, &totals);
    CheckGames(v, Games(6), v.size >= 16 ? 260 : 140, 8, 0.85, 34, &totals);
    EXPECT_GT(totals.positions, 10);
    EXPECT_GT(totals.paths, 100);
    EXPECT_GT(totals.walks, 10);
    if (v.spec.target_lock && Scale() == 1.0) {
      EXPECT_GT(totals.locked, 0);
    }
    std::printf(
        "%s: %ld positions, %ld jump paths, %ld chains, %ld squares tried, "
        "%ld random chains, %ld chains cut by target lock\n",
        name.c_str(), totals.positions, totals.paths, totals.prefixes,
        totals.brute_squares, totals.walks, totals.locked);
  }
}

TEST(ChainContinuations, CustomVariantsWithTargetLock) {
  const VariantSpec specs[] = {
      Spec(6, 2, {2, 1}, 0, false, /*target_lock=*/true),
      Spec(8, 4, {3, 2, 1}, 0, false, /*target_lock=*/true),
      Spec(9, 2, {4, 3, 2, 1}, 0, false, /*target_lock=*/true),
  };
  for (const VariantSpec& spec : specs) {
    const Variant v = Custom(spec);
    SCOPED_TRACE(
        absl::StrCat(v.size, "x", v.size, ", ", v.seat_count, " seats"));
    Totals totals;
    CheckGames(v, Games(4), 150, 3, 0.85, 56, &totals);
    EXPECT_GT(totals.paths, 10);
    if (Scale() == 1.0) {
      EXPECT_GT(totals.locked, 0);
    }
  }
}

// classic-16x16: w's piece on l12 hops over m13 into its target camp on
// n14. From there it may go on to p16 (over o15), but not to l14 (over m14)
// or n12 (over n13), which lie outside the camp, nor back to l12 (over
// m13), its origin. The other hops from n14 land on occupied squares.
std::vector<std::string> LockBoard(bool piece_on_n14) {
  return {
      "...........bbbb.",                                      // 16
      "...........bbbbb",                                      // 15
      piece_on_n14 ? "............bwbb" : "............b.bb",  // 14
      "............bbbb",                                      // 13
      piece_on_n14 ? "..............bb" : "...........w..bb",  // 12
      "................",                                      // 11
      "................",                                      // 10
      "........b.......",                                      // 9
      "................",                                      // 8
      "................",                                      // 7
      "................",                                      // 6
      "w...............",                                      // 5
      "www.............",                                      // 4
      "wwww............",                                      // 3
      "wwwww...........",                                      // 2
      "wwwww...........",                                      // 1
  };
}

TEST(ChainContinuations, TargetLockAfterAHopOnClassic16x16) {
  const Variant v = Preset("classic-16x16");
  const Position p = Drawn(LockBoard(false), "w 40,40", v);
  const GameStatus status = EvaluateStatus(v, p);
  ASSERT_FALSE(status.over);
  const Square l12 = Sq("l12"), n14 = Sq("n14"), p16 = Sq("p16");
  EXPECT_THAT(Continuations(v, p, {l12}), ElementsAre(n14));
  EXPECT_THAT(Continuations(v, p, {l12, n14}), ElementsAre(p16));
  EXPECT_THAT(Continuations(v, p, {l12, n14, p16}), IsEmpty());
  // What the move checker says of each hop from n14.
  EXPECT_EQ(Verdict(v, p, status, {l12, n14, p16}), MoveVerdict::kLegal);
  EXPECT_EQ(Verdict(v, p, status, {l12, n14, Sq("l14")}),
            MoveVerdict::kLeavesTarget);
  EXPECT_EQ(Verdict(v, p, status, {l12, n14, Sq("n12")}),
            MoveVerdict::kLeavesTarget);
  EXPECT_EQ(Verdict(v, p, status, {l12, n14, l12}),
            MoveVerdict::kSquareVisitedTwice);

  // The same board without target lock: the hops out of the camp return.
  const Variant unlocked = Custom(Spec(16, 2, {5, 5, 4, 3, 2}));
  const Position q = Drawn(LockBoard(false), "w 40,40", unlocked);
  EXPECT_THAT(Continuations(unlocked, q, {l12, n14}),
              ElementsAre(Sq("l14"), Sq("n12"), p16));
}

TEST(ChainContinuations, TargetLockFromTheStartOfTheMoveOnClassic16x16) {
  const Variant v = Preset("classic-16x16");
  const Position p = Drawn(LockBoard(true), "w 40,40", v);
  const Square n14 = Sq("n14"), p16 = Sq("p16");
  EXPECT_THAT(Continuations(v, p, {n14}), ElementsAre(p16));
  EXPECT_THAT(Continuations(v, p, {n14, p16}), IsEmpty());
  const Variant unlocked = Custom(Spec(16, 2, {5, 5, 4, 3, 2}));
  const Position q = Drawn(LockBoard(true), "w 40,40", unlocked);
  EXPECT_THAT(Continuations(unlocked, q, {n14}),
              ElementsAre(Sq("l12"), Sq("l14"), Sq("n12"), p16));
}

TEST(ChainContinuations, NoneAfterAStepOrWithoutAChain) {
  const Variant v = Preset("classic-16x16");
  const Position p = Drawn(LockBoard(false), "w 40,40", v);
  EXPECT_THAT(Continuations(v, p, {Sq("l12"), Sq("m12")}), IsEmpty());
  EXPECT_THAT(ChainContinuations(v, p, nullptr, 0), IsEmpty());
  // An empty origin has no piece to move.
  EXPECT_THAT(Continuations(v, p, {Sq("h8")}), IsEmpty());
}

}  // namespace
}  // namespace halma
