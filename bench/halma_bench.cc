// halma_bench: move generation on the fixed dense-midgame position sets of
// bench/data (written by halma_make_positions), per preset:
//
//   LegalSet/<preset>         GenerateLegalMoves: the (origin, destination)
//                             set with fewest-hop counts.
//   LegalWithPaths/<preset>   GenerateLegalMovesWithPaths: the same and one
//                             fewest-hop path per move.
//   Status/<preset>           EvaluateStatus (includes HasLegalMove).
//   ReferenceLegalSet/<preset> the reference implementation's legal set
//                             (tests/differential/reference.h).
//
// One benchmark iteration handles one position (cycling through the set), so
// the time column and the ns_per_position counter are the time per position.
// After the runs a table gives the medians (or means) and the engine's
// speed-up over the reference, measured in the same run.
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "halma/movegen.h"
#include "halma/notation.h"
#include "halma/status.h"
#include "halma/variant.h"
#include "reference.h"

namespace {

namespace ref = halma_ref;

struct PresetData {
  std::string name;
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

bool Load(const std::string& name, PresetData* out) {
  const std::string path =
      std::string(HALMA_BENCH_DATA_DIR) + "/" + name + ".txt";
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "cannot read %s\n", path.c_str());
    return false;
  }
  absl::StatusOr<halma::Variant> variant = halma::PresetVariant(name);
  if (!variant.ok() || !ref::PresetRules(name, &out->rules)) return false;
  out->name = name;
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

void SetCounters(benchmark::State& state, const PresetData& d) {
  state.SetItemsProcessed(state.iterations());
  // A rate counter inverted: (iterations * 1e-9) / seconds, inverted, is
  // nanoseconds per iteration, i.e. per position.
  state.counters["ns_per_position"] = benchmark::Counter(
      static_cast<double>(state.iterations()) * 1e-9,
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["moves_per_position"] = d.mean_moves;
}

void BM_LegalSet(benchmark::State& state, const PresetData* d) {
  auto list = std::make_unique<halma::MoveList>();
  const size_t n = d->positions.size();
  size_t i = 0;
  for (auto _ : state) {
    const halma::Position& p = d->positions[i];
    halma::GenerateLegalMoves(d->variant, p, p.to_move, list.get());
    benchmark::DoNotOptimize(list->size);
    benchmark::ClobberMemory();
    if (++i == n) i = 0;
  }
  SetCounters(state, *d);
}

void BM_LegalWithPaths(benchmark::State& state, const PresetData* d) {
  auto list = std::make_unique<halma::MoveList>();
  auto paths = std::make_unique<halma::MovePaths>();
  const size_t n = d->positions.size();
  size_t i = 0;
  for (auto _ : state) {
    const halma::Position& p = d->positions[i];
    halma::GenerateLegalMovesWithPaths(d->variant, p, p.to_move, list.get(),
                                       paths.get());
    benchmark::DoNotOptimize(list->size);
    benchmark::ClobberMemory();
    if (++i == n) i = 0;
  }
  SetCounters(state, *d);
}

void BM_Status(benchmark::State& state, const PresetData* d) {
  const size_t n = d->positions.size();
  size_t i = 0;
  for (auto _ : state) {
    halma::GameStatus s = halma::EvaluateStatus(d->variant, d->positions[i]);
    benchmark::DoNotOptimize(s);
    if (++i == n) i = 0;
  }
  SetCounters(state, *d);
}

void BM_ReferenceLegalSet(benchmark::State& state, const PresetData* d) {
  std::vector<ref::Move> moves;
  moves.reserve(4096);
  const size_t n = d->boards.size();
  size_t i = 0;
  for (auto _ : state) {
    const ref::Board& b = d->boards[i];
    ref::LegalMoves(d->rules, b, b.to_move, &moves);
    benchmark::DoNotOptimize(moves.data());
    benchmark::ClobberMemory();
    if (++i == n) i = 0;
  }
  SetCounters(state, *d);
}

// Keeps the console output and remembers ns per position per benchmark:
// the median aggregate when there are repetitions, else the run itself.
class TableReporter : public benchmark::ConsoleReporter {
 public:
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
  for (const std::string& name : ref::PresetNamesFromRules()) {
    PresetData d;
    if (!Load(name, &d)) return 1;
    Data().push_back(std::move(d));
  }
  for (const PresetData& d : Data()) {
    benchmark::RegisterBenchmark(("LegalSet/" + d.name).c_str(), BM_LegalSet,
                                 &d);
  }
  for (const PresetData& d : Data()) {
    benchmark::RegisterBenchmark(("LegalWithPaths/" + d.name).c_str(),
                                 BM_LegalWithPaths, &d);
  }
  for (const PresetData& d : Data()) {
    benchmark::RegisterBenchmark(("Status/" + d.name).c_str(), BM_Status, &d);
  }
  for (const PresetData& d : Data()) {
    benchmark::RegisterBenchmark(("ReferenceLegalSet/" + d.name).c_str(),
                                 BM_ReferenceLegalSet, &d);
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  TableReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();

  std::printf(
      "\nns per position (median of repetitions when run with them); "
      "speed-up = reference legal set / engine legal set\n");
  std::printf("%-20s %9s %10s %10s %10s %11s %9s  %s\n", "preset", "moves",
              "legal set", "with paths", "status", "reference", "speed-up",
              "targets (legal <= N ns, paths <= 2000 ns, speed-up >= 15)");
  for (const PresetData& d : Data()) {
    const double legal = reporter.Get("LegalSet/" + d.name);
    const double paths = reporter.Get("LegalWithPaths/" + d.name);
    const double status = reporter.Get("Status/" + d.name);
    const double reference = reporter.Get("ReferenceLegalSet/" + d.name);
    const double speedup = legal > 0 && reference > 0 ? reference / legal : 0;
    const double target = LegalSetTarget(d.name);
    std::string verdict;
    if (legal > 0 && target > 0) {
      verdict += legal <= target ? "legal ok"
                                 : "LEGAL MISSES " +
                                       std::to_string(static_cast<int>(target));
    } else if (legal > 0) {
      verdict += "legal (no target)";
    }
    if (paths > 0) verdict += paths <= 2000 ? ", paths ok" : ", PATHS MISS";
    if (speedup > 0)
      verdict += speedup >= 15 ? ", speed-up ok" : ", SPEED-UP MISSES";
    std::printf("%-20s %9.1f %10.1f %10.1f %10.1f %11.1f %8.1fx  %s\n",
                d.name.c_str(), d.mean_moves, legal, paths, status, reference,
                speedup, verdict.c_str());
  }
  return 0;
}
