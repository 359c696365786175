// The engine's Perft (halma/perft.h) against a plain perft on the reference
// implementation (reference_perft.h, its own move generation and status):
// the start of every preset, midgame positions of every preset, custom
// variants near their ends (four players with the home-exit rule and
// eliminations, round completion, a move cap, target lock), forced passes
// and finished games; the split by first move against the reference's own
// list, in its order; depth 0; the checkpoint, the depth range and the
// move-count guard; and the published tables of docs/perft.md, whose
// small-depth entries are recounted here by both.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "halma/flood_fill.h"
#include "halma/notation.h"
#include "halma/perft.h"
#include "halma/position.h"
#include "halma/game_status.h"
#include "halma/variant.h"
#include "reference.h"
#include "reference_perft.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define HALMA_PERFT_TEST_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define HALMA_PERFT_TEST_SANITIZED 1
#endif

namespace halma {
namespace {

namespace ref = halma_ref;

// Under a sanitizer (or HALMA_DIFFERENTIAL_SCALE below 1, as the sanitizer
// presets set) every depth is one less: there the point is memory and
// undefined behaviour on every path, which small counts reach too.
bool Reduced() {
#ifdef HALMA_PERFT_TEST_SANITIZED
  return true;
#else
  const char* text = std::getenv("HALMA_DIFFERENTIAL_SCALE");
  return text != nullptr && std::atof(text) > 0 && std::atof(text) < 1;
#endif
}
int Depth(int depth) { return Reduced() ? std::max(1, depth - 1) : depth; }

absl::Status Ok() { return absl::OkStatus(); }

absl::StatusOr<PerftResult> EnginePerft(const Variant& v, const Position& p,
                                        int depth, bool split = false) {
  return Perft(v, p, depth, split, Ok);
}

// A variant on both sides: the engine's and the reference's.
struct Both {
  std::string label;
  Variant variant;
  ref::Rules rules;
};

Both PresetBoth(const std::string& name) {
  Both b;
  b.label = name;
  absl::StatusOr<Variant> v = PresetVariant(name);
  EXPECT_TRUE(v.ok()) << v.status();
  if (v.ok()) b.variant = *v;
  EXPECT_TRUE(ref::PresetRules(name, &b.rules)) << name;
  return b;
}

Both CustomBoth(const std::string& label, int n, int seats,
                std::vector<int> rows, int home_exit, bool round_completion,
                bool target_lock, int move_cap) {
  Both b;
  b.label = label;
  VariantSpec spec;
  spec.board_size = n;
  spec.seat_count = seats;
  spec.camp_rows = rows;
  spec.home_exit_limit = home_exit;
  spec.round_completion = round_completion;
  spec.target_lock = target_lock;
  spec.move_cap = move_cap;
  absl::StatusOr<Variant> v = MakeVariant(spec);
  EXPECT_TRUE(v.ok()) << v.status();
  if (v.ok()) b.variant = *v;
  std::string why;
  EXPECT_TRUE(ref::MakeRules(n, seats, rows, home_exit, round_completion,
                             target_lock, move_cap, &b.rules, &why))
      << why;
  return b;
}

// Perft of `text` at every depth 0..max_depth by the engine and by the
// reference, which must agree; at max_depth also split by first move, entry
// by entry against the reference's list (its order is the reference's own
// sort, origin then destination, file first). Returns the engine's counts.
std::vector<std::uint64_t> ExpectAgrees(const Both& b, const std::string& text,
                                        int max_depth,
                                        ref::PerftStats* stats = nullptr) {
  SCOPED_TRACE(absl::StrCat(b.label, " ", text));
  std::vector<std::uint64_t> counts;
  absl::StatusOr<Position> position = ParsePosition(text, b.variant);
  ref::Board board;
  std::string why;
  if (!position.ok() || !ref::ParseBoard(b.rules, text, &board, &why)) {
    ADD_FAILURE() << "bad fixture: " << position.status() << " " << why;
    return counts;
  }
  for (int depth = 0; depth <= max_depth; ++depth) {
    absl::StatusOr<PerftResult> engine =
        EnginePerft(b.variant, *position, depth, depth == max_depth);
    if (!engine.ok()) {
      ADD_FAILURE() << "depth " << depth << ": " << engine.status();
      return counts;
    }
    counts.push_back(engine->nodes);
    if (depth < max_depth) {
      EXPECT_TRUE(engine->first_moves.empty());
      EXPECT_EQ(engine->nodes,
                ref::ReferencePerft(b.rules, board, depth, stats))
          << "depth " << depth;
      continue;
    }
    // The split: the reference's list, entry by entry, and its sum.
    const std::vector<ref::ReferenceFirstMove> expected =
        ref::ReferencePerftSplit(b.rules, board, depth);
    std::uint64_t expected_total = depth == 0 ? 1 : 0, split_sum = 0;
    for (const ref::ReferenceFirstMove& m : expected) {
      expected_total += m.nodes;
    }
    EXPECT_EQ(engine->nodes, expected_total) << "depth " << depth;
    if (stats != nullptr) ref::ReferencePerft(b.rules, board, depth, stats);
    if (engine->first_moves.size() != expected.size()) {
      ADD_FAILURE() << "depth " << depth << ": " << engine->first_moves.size()
                    << " first moves, the reference has " << expected.size();
      return counts;
    }
    for (size_t i = 0; i < expected.size(); ++i) {
      const PerftFirstMove& got = engine->first_moves[i];
      const ref::ReferenceFirstMove& want = expected[i];
      const bool pass = want.from.x < 0;
      EXPECT_EQ(got.is_pass, pass) << "entry " << i;
      if (!pass) {
        EXPECT_EQ(FormatSquare(got.origin), ref::SquareName(want.from))
            << "entry " << i;
        EXPECT_EQ(FormatSquare(got.destination), ref::SquareName(want.to))
            << "entry " << i;
      }
      EXPECT_EQ(got.nodes, want.nodes)
          << "entry " << i << " " << ref::SquareName(want.from) << "-"
          << ref::SquareName(want.to);
      split_sum += got.nodes;
    }
    if (depth > 0) {
      EXPECT_EQ(split_sum, engine->nodes);
    }
  }
  return counts;
}

// Positions of seeded reference playouts (the reference's ChooseMove), every
// `every` plies from `first` on, at most `count` of them, and for games
// that end, the last `tail` positions before the end.
std::vector<std::string> Playout(const ref::Rules& rules, std::uint32_t seed,
                                 int first, int every, int count, int tail,
                                 int greedy_percent, bool lazy = false) {
  std::mt19937 rng(seed);
  ref::PlayoutPolicy policy[4];
  for (int i = 0; i < rules.SeatCount(); ++i) {
    policy[i].greedy_percent = greedy_percent;
    // Seats after the first keep one piece at home (the home-exit rule).
    if (lazy && i > 0) {
      const char s = rules.seats[i];
      for (int y = 0; y < rules.n && !policy[i].has_lazy; ++y) {
        for (int x = 0; x < rules.n && !policy[i].has_lazy; ++x) {
          if (rules.InHome(s, x, y)) {
            policy[i].has_lazy = true;
            policy[i].lazy = ref::Sq{x, y};
          }
        }
      }
    }
  }
  ref::Board board = ref::StartBoard(rules);
  std::vector<std::string> seen, out;
  std::vector<ref::Move> moves;
  for (int ply = 0; ply < 2000; ++ply) {
    if (ref::Evaluate(rules, board).over) break;
    seen.push_back(ref::FormatBoard(rules, board));
    if (ply >= first && (ply - first) % every == 0 &&
        static_cast<int>(out.size()) < count) {
      out.push_back(seen.back());
    }
    ref::LegalMoves(rules, board, board.to_move, &moves);
    if (moves.empty()) {
      board = ref::ApplyPass(rules, board);
      continue;
    }
    const int i = ref::ChooseMove(rules, board, board.to_move, moves,
                                  policy[rules.TurnIndex(board.to_move)], &rng);
    board = ref::ApplyMove(rules, board, moves[i].from, moves[i].to);
  }
  if (ref::Evaluate(rules, board).over) {
    for (int i = std::max(0, static_cast<int>(seen.size()) - tail);
         i < static_cast<int>(seen.size()); ++i) {
      out.push_back(seen[i]);
    }
  }
  return out;
}

// The flood-fill kernels this CPU can run (flood_fill.h): the counts must
// not depend on the kernel.
std::vector<FloodFillKernel> Kernels() {
  std::vector<FloodFillKernel> out;
  const FloodFillKernel active = ActiveFloodFillKernel();
  for (FloodFillKernel k :
       {FloodFillKernel::kAvx2, FloodFillKernel::kBaseline}) {
    if (SetFloodFillKernel(k)) out.push_back(k);
  }
  SetFloodFillKernel(active);
  return out;
}

class KernelScope {
 public:
  explicit KernelScope(FloodFillKernel kernel)
      : saved_(ActiveFloodFillKernel()) {
    SetFloodFillKernel(kernel);
  }
  ~KernelScope() { SetFloodFillKernel(saved_); }

 private:
  FloodFillKernel saved_;
};

TEST(Perft, StartOfEveryPreset) {
  for (FloodFillKernel kernel : Kernels()) {
    SCOPED_TRACE(FloodFillKernelName(kernel));
    const KernelScope scope(kernel);
    for (const std::string& name : PresetNames()) {
      const Both b = PresetBoth(name);
      const int depth = Depth(b.variant.size <= 8 ? 4 : 3);
      const std::string start =
          FormatPosition(StartPosition(b.variant), b.variant);
      const std::vector<std::uint64_t> counts = ExpectAgrees(b, start, depth);
      ASSERT_FALSE(counts.empty());
      EXPECT_EQ(counts[0], 1u);
    }
  }
}

TEST(Perft, MidgamesOfEveryPreset) {
  for (FloodFillKernel kernel : Kernels()) {
    SCOPED_TRACE(FloodFillKernelName(kernel));
    const KernelScope scope(kernel);
    for (const std::string& name : PresetNames()) {
      const Both b = PresetBoth(name);
      const int depth = Depth(b.variant.size <= 8 ? 3 : 2);
      const std::vector<std::string> positions =
          Playout(b.rules, 7, b.variant.size >= 16 ? 30 : 12, 17, 3, 0, 70);
      ASSERT_EQ(positions.size(), 3u) << name;
      for (const std::string& text : positions) ExpectAgrees(b, text, depth);
    }
  }
}

// Games played to their end on small boards, and perft from their last
// positions, deep enough to run into the end: the counts agree and the
// reference saw each rule decide games inside the counted trees.
TEST(Perft, CustomVariantsNearTheirEnds) {
  struct Custom {
    const char* label;
    int n, seats;
    std::vector<int> rows;
    int home_exit;
    bool round_completion, target_lock;
    int move_cap;
    int tail, depth;  // Last positions of each game, perft depth.
    bool lazy;        // Seats after the first keep a piece at home.
    std::vector<std::string> expect_rules;  // Rules that must end games.
    bool expect_round_completion, expect_eliminated;
  };
  // clang-format off
  const Custom customs[] = {
      {"6x6 round completion", 6, 2, {3, 2, 1}, 0, true, false, 0,
       4, 4, false, {"target-filled"}, true, false},
      {"8x8 four seats, home exit 5", 8, 4, {2, 1}, 5, false, false, 0,
       6, 4, true, {"home-exit"}, false, true},
      {"6x6 four seats, round completion, home exit 8", 6, 4, {2, 1}, 8, true,
       false, 0,
       8, 4, true, {"home-exit"}, true, true},
      {"6x6 move cap 9", 6, 2, {2, 1}, 0, false, false, 9,
       6, 4, false, {"move-cap"}, false, false},
      {"7x7 target lock", 7, 2, {3, 2, 1}, 0, false, true, 0,
       6, 4, false, {"target-filled"}, false, false},
      {"8x8 two seats, home exit 6", 8, 2, {3, 2, 1}, 6, false, false, 0,
       4, 3, true, {"home-exit"}, false, false},
  };
  // clang-format on
  for (const Custom& c : customs) {
    SCOPED_TRACE(c.label);
    const Both both = CustomBoth(c.label, c.n, c.seats, c.rows, c.home_exit,
                                 c.round_completion, c.target_lock, c.move_cap);
    ref::PerftStats stats;
    for (std::uint32_t seed = 1; seed <= (Reduced() ? 1u : 2u); ++seed) {
      const std::vector<std::string> positions =
          Playout(both.rules, seed, 1 << 30, 1, 0, c.tail, 85, c.lazy);
      EXPECT_FALSE(positions.empty()) << "the playout did not end";
      for (const std::string& text : positions) {
        ExpectAgrees(both, text, Depth(c.depth), &stats);
      }
    }
    std::printf(
        "%s: %llu positions, %llu must pass, %llu round-completion "
        "turns, %llu with eliminated seats, %llu draws, over:",
        c.label, static_cast<unsigned long long>(stats.positions),
        static_cast<unsigned long long>(stats.must_pass),
        static_cast<unsigned long long>(stats.round_completion_turns),
        static_cast<unsigned long long>(stats.eliminated),
        static_cast<unsigned long long>(stats.draws));
    for (const auto& [rule, n] : stats.over) {
      std::printf(" %s %llu", rule.c_str(), static_cast<unsigned long long>(n));
    }
    std::printf("\n");
    // The smaller runs of the sanitizer builds may miss some of these.
    if (Reduced()) continue;
    for (const std::string& rule : c.expect_rules) {
      EXPECT_GT(stats.over[rule], 0u) << rule;
    }
    if (c.expect_round_completion) {
      EXPECT_GT(stats.round_completion_turns, 0u);
    }
    if (c.expect_eliminated) {
      EXPECT_GT(stats.eliminated, 0u);
    }
  }
}

// Hand-checked positions of the status tests: a forced pass (two and four
// seats) and games already over.
TEST(Perft, ForcedPassesAndFinishedGames) {
  const Both lock4 =
      CustomBoth("4x4 [4,3] target lock", 4, 2, {4, 3}, 0, false, true, 0);
  const Both four =
      CustomBoth("4x4 four seats", 4, 4, {2, 1}, 0, false, false, 0);
  ref::PerftStats stats;
  ExpectAgrees(lock4, "wwww/1bww/bbb1/bwbb w 20,20", Depth(6), &stats);
  ExpectAgrees(four, "4/rrrb/ggbb/wwwg w 5,5,5,5", Depth(5), &stats);
  EXPECT_GT(stats.must_pass, 0u);

  // The split of a forced pass is the single pass.
  const Position stuck =
      ParsePosition("wwww/1bww/bbb1/bwbb w 20,20", lock4.variant).value();
  absl::StatusOr<PerftResult> split =
      EnginePerft(lock4.variant, stuck, 3, true);
  ASSERT_TRUE(split.ok()) << split.status();
  ASSERT_EQ(split->first_moves.size(), 1u);
  EXPECT_TRUE(split->first_moves[0].is_pass);
  EXPECT_EQ(split->first_moves[0].nodes, split->nodes);

  // Over (everyone stuck; round completion; the full board before any
  // move): no moves, so 0 at every depth from 1, and 1 at depth 0.
  const Both ig = PresetBoth("iggamecenter-10x10");
  const Both full = CustomBoth("4x4 [4,4]", 4, 2, {4, 4}, 0, false, false, 0);
  struct Over {
    const Both* both;
    std::string text;
  };
  const Over overs[] = {
      {&lock4, "wwbw/1www/bbb1/bwbb w 20,20"},
      {&ig, "5wwwww/6wwww/7www/8ww/9w/b9/bb8/bbb7/bbbb6/bbbbb5 w 41,41"},
      {&ig, "5wwwww/6wwww/7www/8ww/1b7w/10/bb8/bbb7/bbbb6/bbbbb5 w 41,41"},
      {&full, "bbbb/bbbb/wwww/wwww w 0,0"},
  };
  for (const Over& o : overs) {
    ref::Board board;
    ASSERT_TRUE(ref::ParseBoard(o.both->rules, o.text, &board)) << o.text;
    ASSERT_TRUE(ref::Evaluate(o.both->rules, board).over) << o.text;
    const std::vector<std::uint64_t> counts = ExpectAgrees(*o.both, o.text, 3);
    EXPECT_EQ(counts, (std::vector<std::uint64_t>{1, 0, 0, 0})) << o.text;
    const Position p = ParsePosition(o.text, o.both->variant).value();
    absl::StatusOr<PerftResult> deep =
        EnginePerft(o.both->variant, p, kMaxPerftDepth, true);
    ASSERT_TRUE(deep.ok()) << deep.status();
    EXPECT_EQ(deep->nodes, 0u);
    EXPECT_TRUE(deep->first_moves.empty());
  }
}

TEST(Perft, DepthZeroIsOneAndTheSplitIsEmpty) {
  for (const std::string& name : PresetNames()) {
    const Both b = PresetBoth(name);
    for (bool split : {false, true}) {
      absl::StatusOr<PerftResult> r =
          EnginePerft(b.variant, StartPosition(b.variant), 0, split);
      ASSERT_TRUE(r.ok()) << r.status();
      EXPECT_EQ(r->nodes, 1u);
      EXPECT_TRUE(r->first_moves.empty());
    }
  }
}

TEST(Perft, DepthOutOfRangeIsInvalidArgument) {
  const Both b = PresetBoth("brainking-8x8");
  const Position start = StartPosition(b.variant);
  for (int depth : {-1, kMaxPerftDepth + 1, -1000000, 1 << 30}) {
    absl::StatusOr<PerftResult> r = EnginePerft(b.variant, start, depth);
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument) << depth;
  }
}

TEST(Perft, CheckpointIsCalledEveryFewThousandNodesAndStopsTheCount) {
  const Both b = PresetBoth("brainking-8x8");
  const Position start = StartPosition(b.variant);
  const int depth = Depth(5);
  // Positions visited at depths below the last (no passes or finished games
  // this close to the start): each costs one move generation.
  std::uint64_t visited = 0;
  for (int d = 0; d < depth; ++d)
    visited += EnginePerft(b.variant, start, d)->nodes;
  int calls = 0;
  absl::StatusOr<PerftResult> counted =
      Perft(b.variant, start, depth, false, [&calls] {
        ++calls;
        return absl::OkStatus();
      });
  ASSERT_TRUE(counted.ok()) << counted.status();
  EXPECT_GE(static_cast<std::uint64_t>(calls), visited / 8192 + 1)
      << visited << " positions visited";

  // A checkpoint that says stop on its third call: that status comes back,
  // and the checkpoint is not called again.
  for (bool split : {false, true}) {
    int seen = 0;
    absl::StatusOr<PerftResult> stopped =
        Perft(b.variant, start, depth, split, [&seen] {
          return ++seen == 3 ? absl::DeadlineExceededError("deadline")
                             : absl::OkStatus();
        });
    EXPECT_EQ(stopped.status().code(), absl::StatusCode::kDeadlineExceeded);
    EXPECT_EQ(stopped.status().message(), "deadline");
    EXPECT_EQ(seen, 3);
  }
  // Cancelled before the count starts.
  absl::StatusOr<PerftResult> cancelled = Perft(
      b.variant, start, 1, false, [] { return absl::CancelledError("gone"); });
  EXPECT_EQ(cancelled.status().code(), absl::StatusCode::kCancelled);
}

// A seat whose count is already 2^63 - 1 cannot have another move counted
// (docs/rules.md): its moves are still counted at depth 1, but a perft that
// would play one is INVALID_ARGUMENT, like ValidateMove.
TEST(Perft, AMoveThatCannotBeCounted) {
  const Both b =
      CustomBoth("8x8 [4,3,2,1]", 8, 2, {4, 3, 2, 1}, 0, false, false, 0);
  const std::string board = "4bbbb/5bbb/6bb/7b/w7/ww6/www5/wwww4";
  const std::string max = absl::StrCat(kMaxMoveCount);
  const Position p =
      ParsePosition(absl::StrCat(board, " w ", max, ",", max), b.variant)
          .value();
  ref::Board small;
  ASSERT_TRUE(ref::ParseBoard(b.rules, board + " w 0,0", &small));
  absl::StatusOr<PerftResult> one = EnginePerft(b.variant, p, 1, true);
  ASSERT_TRUE(one.ok()) << one.status();
  EXPECT_EQ(one->nodes, ref::LegalMoves(b.rules, small, 'w').size());
  EXPECT_EQ(one->first_moves.size(), one->nodes);
  for (bool split : {false, true}) {
    absl::StatusOr<PerftResult> two = EnginePerft(b.variant, p, 2, split);
    EXPECT_EQ(two.status().code(), absl::StatusCode::kInvalidArgument);
  }
}

// docs/perft.md: every entry small enough is recounted by the engine, and
// the smaller ones by the reference too.
struct DocEntry {
  std::string preset;
  std::string position;
  int depth = 0;
  std::uint64_t nodes = 0;
};

std::vector<DocEntry> ReadPerftDoc() {
  std::ifstream in(HALMA_PERFT_DOC);
  EXPECT_TRUE(in) << "cannot read " << HALMA_PERFT_DOC;
  std::vector<DocEntry> out;
  std::string line, preset, position;
  while (std::getline(in, line)) {
    // "**<preset>, <label>** `<position>`" opens a position's table.
    if (line.rfind("**", 0) == 0) {
      const size_t comma = line.find(',');
      const size_t tick = line.find('`');
      const size_t end = line.rfind('`');
      if (comma == std::string::npos || tick == std::string::npos ||
          end <= tick) {
        continue;
      }
      preset = line.substr(2, comma - 2);
      position = line.substr(tick + 1, end - tick - 1);
      continue;
    }
    // "| depth | nodes | ..." rows.
    if (line.rfind("| ", 0) != 0 || position.empty()) continue;
    std::istringstream row(line.substr(2));
    DocEntry e;
    char bar = 0;
    if (!(row >> e.depth >> bar >> e.nodes) || bar != '|') continue;
    e.preset = preset;
    e.position = position;
    out.push_back(e);
  }
  return out;
}

TEST(PerftDoc, PublishedTablesAgreeWithTheEngineAndTheReference) {
  const std::vector<DocEntry> entries = ReadPerftDoc();
  // Every preset: the start and three midgame positions.
  for (const std::string& name : PresetNames()) {
    std::vector<std::string> positions;
    for (const DocEntry& e : entries) {
      if (e.preset == name && std::find(positions.begin(), positions.end(),
                                        e.position) == positions.end()) {
        positions.push_back(e.position);
      }
    }
    EXPECT_GE(positions.size(), 4u) << name;
    if (!positions.empty()) {
      const Both b = PresetBoth(name);
      EXPECT_EQ(positions[0],
                FormatPosition(StartPosition(b.variant), b.variant))
          << name << ": the first table is the start position";
    }
  }
  const std::uint64_t engine_limit = Reduced() ? 2000000 : 30000000;
  const std::uint64_t reference_limit = Reduced() ? 100000 : 1000000;
  int engine_checked = 0, reference_checked = 0;
  for (const DocEntry& e : entries) {
    if (e.nodes > engine_limit) continue;
    SCOPED_TRACE(absl::StrCat(e.preset, " ", e.position, " depth ", e.depth));
    const Both b = PresetBoth(e.preset);
    absl::StatusOr<Position> p = ParsePosition(e.position, b.variant);
    ASSERT_TRUE(p.ok()) << p.status();
    absl::StatusOr<PerftResult> r = EnginePerft(b.variant, *p, e.depth);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->nodes, e.nodes);
    ++engine_checked;
    if (e.nodes > reference_limit) continue;
    ref::Board board;
    ASSERT_TRUE(ref::ParseBoard(b.rules, e.position, &board));
    EXPECT_EQ(ref::ReferencePerft(b.rules, board, e.depth), e.nodes);
    ++reference_checked;
  }
  std::printf(
      "docs/perft.md: %zu entries, %d recounted by the engine, %d by "
      "the reference\n",
      entries.size(), engine_checked, reference_checked);
  EXPECT_GE(reference_checked, 5 * 4 * 2);  // Depths 1 and 2 at least.
}

}  // namespace
}  // namespace halma
