// halma_bot_bench: the move-suggestion search on the engine benchmark's
// dense-midgame position sets (bench/data), beside the engine's own move
// generation on the same positions (docs/bot.md, "Speed"):
//
//   MoveSet/<preset>        GenerateMoveSet per position (the engine's
//                           figure of bench/halma_bench, for comparison).
//   Search/<preset>/<nodes> SuggestMove with a node budget, one position
//                           per iteration: nodes_per_second is the search
//                           speed (docs/bot.md, "What a node is"),
//                           expansions_per_second the positions whose
//                           moves it generated.
//   Level/<preset>/<level>  SuggestMove at a level: CPU time per answer.
//
// Every search also counts the heap allocations made inside SuggestMove
// (this binary replaces operator new): allocations_per_search must be 0;
// workspace_bytes is the memory the search's workspace holds.
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "halma/bot/levels.h"
#include "halma/bot/search.h"
#include "halma/movegen.h"
#include "halma/notation.h"
#include "halma/variant.h"

namespace {
std::atomic<long> allocations{0};
}  // namespace

// The replacements pair malloc with free; GCC cannot see that the
// replaced operator new is malloc.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void* operator new(std::size_t n) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) { return operator new(n); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

namespace {

struct Positions {
  halma::Variant variant;
  std::vector<halma::Position> positions;
};

// The first `limit` positions of bench/data/<preset>.txt.
const Positions& Load(const std::string& preset, size_t limit) {
  static auto* cache = new std::vector<std::pair<std::string, Positions>>;
  for (const auto& [name, p] : *cache) {
    if (name == preset) return p;
  }
  Positions out;
  out.variant = *halma::PresetVariant(preset);
  std::ifstream in(std::string(HALMA_BENCH_DATA_DIR) + "/" + preset + ".txt");
  std::string line;
  while (std::getline(in, line) && out.positions.size() < limit) {
    if (line.empty() || line[0] == '#') continue;
    absl::StatusOr<halma::Position> p = halma::ParsePosition(line, out.variant);
    if (p.ok() && !halma::EvaluateStatus(out.variant, *p).over) {
      out.positions.push_back(*p);
    }
  }
  if (out.positions.empty()) {
    std::fprintf(stderr, "no positions for %s\n", preset.c_str());
    std::exit(1);
  }
  cache->emplace_back(preset, std::move(out));
  return cache->back().second;
}

constexpr size_t kPositions = 100;

void BM_MoveSet(benchmark::State& state, const char* preset) {
  const Positions& d = Load(preset, kPositions);
  auto set = std::make_unique<halma::MoveSet>();
  size_t i = 0;
  for (auto _ : state) {
    const halma::Position& p = d.positions[i];
    halma::GenerateMoveSet(d.variant, p, p.to_move, set.get());
    benchmark::DoNotOptimize(set->jumper_count);
    if (++i == d.positions.size()) i = 0;
  }
  state.SetItemsProcessed(state.iterations());
}

void Run(benchmark::State& state, const char* preset,
         halma::bot::SearchOptions options) {
  const Positions& d = Load(preset, kPositions);
  halma::bot::SearchWorkspace workspace;
  // One answer first: a workspace rebuilds its evaluation tables for a
  // variant it has not seen (a copy of the variant's specification, the
  // one allocation a call may make); the searches measured allocate
  // nothing.
  {
    halma::bot::SearchOptions first = options;
    first.node_budget = 1000;
    first.level = 0;
    (void)halma::bot::SuggestMove(d.variant, d.positions[0], first, &workspace);
  }
  size_t i = 0;
  std::int64_t nodes = 0, expansions = 0;
  long searches = 0;
  const long allocations_before = allocations.load();
  for (auto _ : state) {
    options.seed = i;
    absl::StatusOr<halma::bot::SearchResult> r =
        halma::bot::SuggestMove(d.variant, d.positions[i], options, &workspace);
    if (!r.ok()) {
      state.SkipWithError(std::string(r.status().message()).c_str());
      return;
    }
    nodes += r->nodes;
    expansions += r->expansions;
    ++searches;
    if (++i == d.positions.size()) i = 0;
  }
  const long made = allocations.load() - allocations_before;
  state.SetItemsProcessed(nodes);
  state.counters["nodes_per_second"] = benchmark::Counter(
      static_cast<double>(nodes), benchmark::Counter::kIsRate);
  state.counters["expansions_per_second"] = benchmark::Counter(
      static_cast<double>(expansions), benchmark::Counter::kIsRate);
  state.counters["nodes_per_search"] =
      static_cast<double>(nodes) / static_cast<double>(searches);
  state.counters["allocations_per_search"] =
      static_cast<double>(made) / static_cast<double>(searches);
  state.counters["workspace_bytes"] =
      static_cast<double>(workspace.MemoryBytes());
}

void BM_Search(benchmark::State& state, const char* preset) {
  halma::bot::SearchOptions options;
  options.node_budget = state.range(0);
  Run(state, preset, options);
}

void BM_Level(benchmark::State& state, const char* preset) {
  halma::bot::SearchOptions options;
  options.level = static_cast<int>(state.range(0));
  Run(state, preset, options);
}

}  // namespace

BENCHMARK_CAPTURE(BM_MoveSet, classic_16x16, "classic-16x16");
BENCHMARK_CAPTURE(BM_MoveSet, brainking_10x10, "brainking-10x10");
BENCHMARK_CAPTURE(BM_Search, classic_16x16, "classic-16x16")
    ->Arg(1'000'000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Search, brainking_10x10, "brainking-10x10")
    ->Arg(1'000'000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Search, classic_16x16_4p, "classic-16x16-4p")
    ->Arg(1'000'000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Level, classic_16x16, "classic-16x16")
    ->Arg(halma::bot::kDefaultLevel)
    ->Arg(halma::bot::kTopLevel)
    ->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
