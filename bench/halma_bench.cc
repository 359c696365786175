// halma_bench: move generation on the fixed dense-midgame position sets of
// bench/data (written by halma_make_positions), per preset:
//
//   MoveSet/<preset>          GenerateMoveSet: the legal (origin,
//                             destination) set with fewest-hop counts in the
//                             engine's bitboard form.
//   MoveSetBaseline/<preset>  The same with the baseline (SSE2) flood-fill
//                             kernel pinned, as on a CPU without AVX2.
//   LegalSet/<preset>         GenerateLegalMoves: the same set as a list.
//   LegalWithPaths/<preset>   GenerateLegalMovesWithPaths: the same and one
//                             fewest-hop path per move.
//   Status/<preset>           EvaluateStatus (includes HasLegalMove).
//   ReferenceLegalSet/<preset> the reference implementation's legal set
//                             (tests/differential/reference.h).
//
// One benchmark iteration handles one position (cycling through the set), so
// the CPU time column and the time_per_position counter are the time per
// position.
// After the runs a table gives the medians (or means) and the engine's
// speed-up over the reference, measured in the same run.
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "benchmark/benchmark.h"
#include "halma/flood_fill.h"
#include "halma/game_status.h"
#include "halma/movegen.h"
#include "halma/notation.h"
#include "halma/perft.h"
#include "halma/position.h"
#include "halma/variant.h"
#include "reference.h"

namespace {

namespace ref = halma_ref;

struct PresetData {
  std::string preset;  // The variant.
  std::string name;    // The preset, or "<preset>/typical" for that set.
  halma::Variant variant;
  ref::Rules rules;
  std::vector<halma::Position> positions;
  std::vector<ref::Board> boards;
  double mean_moves = 0;
};

std::vector<PresetData>& Data() {
  static auto* data = new std::vector<PresetData>;
  return *data;
}

bool Load(const std::string& name, bool typical, PresetData* out) {
  const std::string path = std::string(HALMA_BENCH_DATA_DIR) +
                           (typical ? "/typical/" : "/") + name + ".txt";
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", path.c_str());
    return false;
  }
  absl::StatusOr<halma::Variant> variant = halma::PresetVariant(name);
  if (!variant.ok() || !ref::PresetRules(name, &out->rules)) return false;
  out->preset = name;
  out->name = typical ? name + "/typical" : name;
  out->variant = *variant;
  std::string line;
  long moves = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    absl::StatusOr<halma::Position> pos =
        halma::ParsePosition(line, out->variant);
    ref::Board board;
    if (!pos.ok() || !ref::ParseBoard(out->rules, line, &board)) {
      std::fprintf(stderr, "%s: bad position %s\n", path.c_str(), line.c_str());
      return false;
    }
    out->positions.push_back(*pos);
    out->boards.push_back(board);
    moves += static_cast<long>(
        ref::LegalMoves(out->rules, board, board.to_move).size());
  }
  if (out->positions.empty()) return false;
  out->mean_moves = static_cast<double>(moves) / out->positions.size();
  return true;
}

// Per position: one benchmark iteration handles one position, so the CPU
// time per iteration is the time per position. The counter repeats it as
// an inverted rate (CPU seconds per position, printed with an SI prefix,
// e.g. "197n" for 197 ns).
class PerPosition {
 public:
  void Report(benchmark::State& state, const PresetData& d) const {
    state.SetItemsProcessed(state.iterations());
    state.counters["time_per_position"] = benchmark::Counter(
        static_cast<double>(state.iterations()),
        benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
    state.counters["moves_per_position"] = d.mean_moves;
  }
};

void BM_MoveSet(benchmark::State& state, const PresetData* d) {
  auto set = std::make_unique<halma::MoveSet>();
  const size_t n = d->positions.size();
  size_t i = 0;
  const PerPosition timer;
  for (auto _ : state) {
    const halma::Position& p = d->positions[i];
    halma::GenerateMoveSet(d->variant, p, p.to_move, set.get());
    benchmark::DoNotOptimize(set->jumper_count);
    benchmark::ClobberMemory();
    if (++i == n) i = 0;
  }
  timer.Report(state, *d);
}

// The same with the baseline flood-fill kernel pinned (flood_fill.h): what
// a CPU without AVX2 gets.
void BM_MoveSetBaseline(benchmark::State& state, const PresetData* d) {
  const halma::FloodFillKernel saved = halma::ActiveFloodFillKernel();
  halma::SetFloodFillKernel(halma::FloodFillKernel::kBaseline);
  BM_MoveSet(state, d);
  halma::SetFloodFillKernel(saved);
}

void BM_LegalSet(benchmark::State& state, const PresetData* d) {
  auto list = std::make_unique<halma::MoveList>();
  const size_t n = d->positions.size();
  size_t i = 0;
  const PerPosition timer;
  for (auto _ : state) {
    const halma::Position& p = d->positions[i];
    halma::GenerateLegalMoves(d->variant, p, p.to_move, list.get());
    benchmark::DoNotOptimize(list->size);
    benchmark::ClobberMemory();
    if (++i == n) i = 0;
  }
  timer.Report(state, *d);
}

void BM_LegalWithPaths(benchmark::State& state, const PresetData* d) {
  auto list = std::make_unique<halma::MoveList>();
  auto paths = std::make_unique<halma::MovePaths>();
  const size_t n = d->positions.size();
  size_t i = 0;
  const PerPosition timer;
  for (auto _ : state) {
    const halma::Position& p = d->positions[i];
    halma::GenerateLegalMovesWithPaths(d->variant, p, p.to_move, list.get(),
                                       paths.get());
    benchmark::DoNotOptimize(list->size);
    benchmark::ClobberMemory();
    if (++i == n) i = 0;
  }
  timer.Report(state, *d);
}

void BM_Status(benchmark::State& state, const PresetData* d) {
  const size_t n = d->positions.size();
  size_t i = 0;
  const PerPosition timer;
  for (auto _ : state) {
    halma::GameStatus s = halma::EvaluateStatus(d->variant, d->positions[i]);
    benchmark::DoNotOptimize(s);
    if (++i == n) i = 0;
  }
  timer.Report(state, *d);
}

void BM_ReferenceLegalSet(benchmark::State& state, const PresetData* d) {
  std::vector<ref::Move> moves;
  moves.reserve(4096);
  const size_t n = d->boards.size();
  size_t i = 0;
  const PerPosition timer;
  for (auto _ : state) {
    const ref::Board& b = d->boards[i];
    ref::LegalMoves(d->rules, b, b.to_move, &moves);
    benchmark::DoNotOptimize(moves.data());
    benchmark::ClobberMemory();
    if (++i == n) i = 0;
  }
  timer.Report(state, *d);
}

// Keeps the console output and remembers ns per position per benchmark:
// the median aggregate when there are repetitions, else the run itself.
class TableReporter : public benchmark::ConsoleReporter {
 public:
  TableReporter()
      : ConsoleReporter(isatty(fileno(stdout)) ? OO_ColorTabular : OO_Tabular) {
  }

  void ReportRuns(const std::vector<Run>& runs) override {
    ConsoleReporter::ReportRuns(runs);
    for (const Run& run : runs) {
      if (run.error_occurred) continue;
      const std::string name = run.run_name.str();
      const double ns = run.GetAdjustedCPUTime() *
                        (run.time_unit == benchmark::kNanosecond    ? 1.0
                         : run.time_unit == benchmark::kMicrosecond ? 1e3
                         : run.time_unit == benchmark::kMillisecond ? 1e6
                                                                    : 1e9);
      if (run.run_type == Run::RT_Aggregate) {
        if (run.aggregate_name == "median") median_[name] = ns;
      } else {
        single_[name].push_back(ns);
      }
    }
  }

  double Get(const std::string& name) const {
    if (auto it = median_.find(name); it != median_.end()) return it->second;
    if (auto it = single_.find(name); it != single_.end()) {
      std::vector<double> v = it->second;
      std::sort(v.begin(), v.end());
      return v[v.size() / 2];
    }
    return -1;
  }

 private:
  std::map<std::string, double> median_;
  std::map<std::string, std::vector<double>> single_;
};

// The targets for the legal set, in ns per position.
double LegalSetTarget(const std::string& preset) {
  if (preset == "brainking-8x8") return 150;
  if (preset == "brainking-10x10" || preset == "iggamecenter-10x10") return 180;
  if (preset == "classic-16x16") return 200;
  return 0;  // No target given for four players.
}

}  // namespace

int main(int argc, char** argv) {
  // Data() must not reallocate once benchmarks point into it.
  Data().reserve(2 * ref::PresetNamesFromRules().size());
  for (bool typical : {false, true}) {
    for (const std::string& name : ref::PresetNamesFromRules()) {
      PresetData d;
      if (!Load(name, typical, &d)) return 1;
      Data().push_back(std::move(d));
    }
  }
  const std::pair<const char*, void (*)(benchmark::State&, const PresetData*)>
      kinds[] = {{"MoveSet/", BM_MoveSet},
                 {"MoveSetBaseline/", BM_MoveSetBaseline},
                 {"LegalSet/", BM_LegalSet},
                 {"LegalWithPaths/", BM_LegalWithPaths},
                 {"Status/", BM_Status},
                 {"ReferenceLegalSet/", BM_ReferenceLegalSet}};
  for (const auto& [prefix, fn] : kinds) {
    for (const PresetData& d : Data()) {
      benchmark::RegisterBenchmark((prefix + d.name).c_str(), fn, &d);
    }
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  TableReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();

  std::printf(
      "\nns per position (CPU time; the median of the repetitions when run "
      "with them). Flood-fill kernel: %s (\"baseline\" column: the SSE2 "
      "kernel pinned).\n"
      "speed-up = reference legal set / engine, for the move set and for "
      "the list.\n"
      "Targets: move set <= 150 ns (8x8), 180 ns (10x10), 200 ns (16x16 "
      "two players); with paths <= 2000 ns; speed-up >= 15x.\n"
      "\"/typical\" rows: positions from any ply rather than dense "
      "midgames.\n\n",
      halma::FloodFillKernelName(halma::ActiveFloodFillKernel()));
  std::printf(
      "| %-26s | %5s | %8s | %8s | %8s | %10s | %6s | %9s | %8s | %8s |\n",
      "preset", "moves", "move set", "baseline", "list", "with paths", "status",
      "reference", "speed-up", "(list)");
  std::printf("|%s|%s:|%s:|%s:|%s:|%s:|%s:|%s:|%s:|%s:|\n",
              "----------------------------", "------", "---------",
              "---------", "---------", "-----------", "-------", "----------",
              "---------", "---------");
  std::string misses, notes;
  for (const PresetData& d : Data()) {
    const double set = reporter.Get("MoveSet/" + d.name);
    const double baseline = reporter.Get("MoveSetBaseline/" + d.name);
    const double legal = reporter.Get("LegalSet/" + d.name);
    const double paths = reporter.Get("LegalWithPaths/" + d.name);
    const double status = reporter.Get("Status/" + d.name);
    const double reference = reporter.Get("ReferenceLegalSet/" + d.name);
    const double speedup = legal > 0 && reference > 0 ? reference / legal : 0;
    const double speedup_set = set > 0 && reference > 0 ? reference / set : 0;
    const auto cell = [](double v, const char* suffix) {
      if (v <= 0) return std::string("-");
      char buf[32];
      std::snprintf(buf, sizeof(buf), "%.*f%s", suffix[0] == 'x' ? 1 : 0, v,
                    suffix);
      return std::string(buf);
    };
    std::printf(
        "| %-26s | %5.0f | %8s | %8s | %8s | %10s | %6s | %9s | %8s | %8s "
        "|\n",
        d.name.c_str(), d.mean_moves, cell(set, "").c_str(),
        cell(baseline, "").c_str(), cell(legal, "").c_str(),
        cell(paths, "").c_str(), cell(status, "").c_str(),
        cell(reference, "").c_str(), cell(speedup_set, "x").c_str(),
        cell(speedup, "x").c_str());
    if (d.name != d.preset) continue;  // Targets are for the dense sets.
    const double target = LegalSetTarget(d.preset);
    char line[256];
    if (target > 0 && set > target) {
      std::snprintf(line, sizeof(line), "  %s: move set %.0f ns > %.0f ns\n",
                    d.name.c_str(), set, target);
      misses += line;
    }
    if (target > 0 && baseline > target) {
      std::snprintf(line, sizeof(line),
                    "  %s: baseline kernel %.0f ns > %.0f ns\n", d.name.c_str(),
                    baseline, target);
      notes += line;
    }
    if (paths > 2000) {
      std::snprintf(line, sizeof(line), "  %s: with paths %.0f ns > 2000 ns\n",
                    d.name.c_str(), paths);
      misses += line;
    }
    if (speedup > 0 && speedup < 15) {
      std::snprintf(line, sizeof(line),
                    "  %s: speed-up %.1fx < 15x (of the move set %.1fx)\n",
                    d.name.c_str(), speedup, speedup_set);
      misses += line;
    }
  }
  std::printf("\n%s\n", misses.empty()
                            ? "All targets met."
                            : ("Targets missed:\n" + misses).c_str());
  if (!notes.empty()) {
    std::printf("Over the targets without AVX2 (for information):\n%s\n",
                notes.c_str());
  }
  return 0;
}

// Perft (halma/perft.h) of a preset's start position, counting the last ply
// in bulk. Counters: nodes (the count) per second and its inverse, the time
// per node; and the time per position whose moves were generated (every
// position above the last ply, each one move generation and status).
namespace {

void BM_Perft(benchmark::State& state, const char* preset, int depth) {
  absl::StatusOr<halma::Variant> variant = halma::PresetVariant(preset);
  if (!variant.ok()) {
    state.SkipWithError("unknown preset");
    return;
  }
  const halma::Position start = halma::StartPosition(*variant);
  const auto ok = [] { return absl::OkStatus(); };
  std::uint64_t generated = 0;
  for (int d = 0; d < depth; ++d) {
    generated += halma::Perft(*variant, start, d, false, ok)->nodes;
  }
  std::uint64_t nodes = 0;
  for (auto _ : state) {
    absl::StatusOr<halma::PerftResult> r =
        halma::Perft(*variant, start, depth, false, ok);
    nodes = r->nodes;
    benchmark::DoNotOptimize(nodes);
  }
  const double n = static_cast<double>(state.iterations());
  state.counters["nodes"] = static_cast<double>(nodes);
  state.counters["nodes_per_second"] =
      benchmark::Counter(n * nodes, benchmark::Counter::kIsRate);
  state.counters["time_per_node"] = benchmark::Counter(
      n * nodes, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["time_per_generated_position"] = benchmark::Counter(
      n * generated, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

BENCHMARK_CAPTURE(BM_Perft, brainking_8x8_depth4, "brainking-8x8", 4)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Perft, brainking_10x10_depth4, "brainking-10x10", 4)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Perft, classic_16x16_depth3, "classic-16x16", 3)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Perft, classic_16x16_depth4, "classic-16x16", 4)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_Perft, classic_16x16_4p_depth4, "classic-16x16-4p", 4)
    ->Unit(benchmark::kMillisecond);

}  // namespace
