// halma_perft_tables: the perft tables of docs/perft.md. For every preset,
// the start position and three midgame positions (after 1, 2 and 4 times
// `base` plies of a seeded playout of the reference implementation, base
// 10 on boards up to 10x10 and 20 on 16x16), perft at depth 1, 2, ...,
// each timed, until the next depth is predicted to take more than
// --limit_seconds (the last depth's time times the growth of the node
// count) or the whole run would pass --budget_seconds of CPU time. With
// --reference, every entry whose reference count is predicted to take at
// most --reference_seconds is counted again by the reference perft
// (tests/differential/reference_perft.h) and must agree.
//
//   halma_perft_tables [--limit_seconds=60] [--budget_seconds=1500]
//                      [--reference] [--reference_seconds=20]
//                      [--presets=a,b,...] > tables.md
//
// Prints the tables in Markdown on stdout and progress on stderr; exits 1
// when the engine and the reference disagree. Playouts use std::mt19937
// with fixed seeds and only rng() % k, so the positions are the same with
// every standard library.
#include <time.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "halma/notation.h"
#include "halma/perft.h"
#include "halma/position.h"
#include "halma/variant.h"
#include "reference.h"
#include "reference_perft.h"

namespace {

namespace ref = halma_ref;

struct Options {
  double limit_seconds = 60;
  double budget_seconds = 1500;
  bool reference = false;
  double reference_seconds = 20;
  std::vector<std::string> presets;
};

double CpuSeconds() {
  timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

double WallSeconds() {
  return std::chrono::duration<double>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

struct Sample {
  std::string label;
  std::string text;
};

// The start position and the positions after 1, 2 and 4 times `base` plies
// of one seeded playout (70 % greedy, the reference's ChooseMove). A game
// that ends earlier gives its last position still in progress.
std::vector<Sample> Positions(const std::string& preset, int preset_index) {
  ref::Rules rules;
  if (!ref::PresetRules(preset, &rules)) std::abort();
  const int base = rules.n >= 16 ? 20 : 10;
  std::vector<Sample> out;
  ref::Board board = ref::StartBoard(rules);
  out.push_back({"start", ref::FormatBoard(rules, board)});
  std::mt19937 rng(20261201u + static_cast<unsigned>(preset_index));
  ref::PlayoutPolicy policy;
  std::vector<ref::Move> moves;
  for (int ply = 1, next = 0; next < 3; ++ply) {
    ref::LegalMoves(rules, board, board.to_move, &moves);
    ref::Board after = moves.empty() ? ref::ApplyPass(rules, board) : [&] {
      const int i =
          ref::ChooseMove(rules, board, board.to_move, moves, policy, &rng);
      return ref::ApplyMove(rules, board, moves[i].from, moves[i].to);
    }();
    if (ref::Evaluate(rules, after).over) {
      out.push_back({absl::StrCat("after ", ply - 1,
                                  " plies (the game's last position in "
                                  "progress)"),
                     ref::FormatBoard(rules, board)});
      break;
    }
    board = after;
    if (ply == base << next) {
      out.push_back({absl::StrCat("after ", ply, " plies"),
                     ref::FormatBoard(rules, board)});
      ++next;
    }
  }
  return out;
}

struct Row {
  int depth;
  std::uint64_t nodes;
  double cpu;
  double wall;
  std::string reference;  // "agrees", "-" (not run) or "DIFFERS: n".
};

bool Run(const Options& options, double* spent, bool* mismatch) {
  std::vector<std::string> cut;
  for (int index = 0; index < static_cast<int>(halma::PresetNames().size());
       ++index) {
    const std::string& preset = halma::PresetNames()[index];
    if (!options.presets.empty()) {
      bool wanted = false;
      for (const std::string& p : options.presets) wanted |= p == preset;
      if (!wanted) continue;
    }
    absl::StatusOr<halma::Variant> variant = halma::PresetVariant(preset);
    ref::Rules rules;
    if (!variant.ok() || !ref::PresetRules(preset, &rules)) return false;
    std::printf("### %s\n\n", preset.c_str());
    for (const Sample& sample : Positions(preset, index)) {
      absl::StatusOr<halma::Position> position =
          halma::ParsePosition(sample.text, *variant);
      ref::Board board;
      if (!position.ok() || !ref::ParseBoard(rules, sample.text, &board)) {
        std::fprintf(stderr, "bad position %s\n", sample.text.c_str());
        return false;
      }
      std::printf("**%s, %s** `%s`\n\n", preset.c_str(), sample.label.c_str(),
                  sample.text.c_str());
      std::printf(
          "| depth | nodes | CPU seconds | wall seconds | reference |\n"
          "|---:|---:|---:|---:|---|\n");
      std::vector<Row> rows;
      double ref_last = 0;  // CPU seconds of the last reference count.
      bool ref_on = options.reference;
      std::string why_stopped;
      for (int depth = 1; depth <= halma::kMaxPerftDepth; ++depth) {
        if (!rows.empty()) {
          const Row& last = rows.back();
          const double growth =
              rows.size() >= 2 && rows[rows.size() - 2].nodes > 0
                  ? static_cast<double>(last.nodes) /
                        rows[rows.size() - 2].nodes
                  : static_cast<double>(last.nodes);
          const double predicted = last.cpu * growth;
          if (last.nodes == 0) {
            why_stopped = "no moves left";
            break;
          }
          if (predicted > options.limit_seconds) {
            char line[256];
            std::snprintf(line, sizeof(line),
                          "depth %d predicted %.0f s (> %.0f s)", depth,
                          predicted, options.limit_seconds);
            why_stopped = line;
            break;
          }
          if (*spent + predicted > options.budget_seconds) {
            char line[256];
            std::snprintf(line, sizeof(line),
                          "depth %d predicted %.0f s, past the run's CPU "
                          "budget of %.0f s",
                          depth, predicted, options.budget_seconds);
            why_stopped = line;
            break;
          }
          if (ref_on && ref_last * growth > options.reference_seconds) {
            ref_on = false;
          }
        }
        Row row{depth, 0, 0, 0, "-"};
        const double cpu0 = CpuSeconds(), wall0 = WallSeconds();
        absl::StatusOr<halma::PerftResult> result = halma::Perft(
            *variant, *position, depth, false, [] { return absl::OkStatus(); });
        row.cpu = CpuSeconds() - cpu0;
        row.wall = WallSeconds() - wall0;
        *spent += row.cpu;
        if (!result.ok()) {
          std::fprintf(stderr, "%s depth %d: %s\n", sample.text.c_str(), depth,
                       std::string(result.status().message()).c_str());
          return false;
        }
        row.nodes = result->nodes;
        if (ref_on) {
          const double r0 = CpuSeconds();
          const std::uint64_t expected =
              ref::ReferencePerft(rules, board, depth);
          ref_last = CpuSeconds() - r0;
          *spent += ref_last;
          row.reference = expected == row.nodes
                              ? "agrees"
                              : absl::StrCat("DIFFERS: ", expected);
          if (expected != row.nodes) *mismatch = true;
        }
        std::fprintf(stderr, "%s %s depth %d: %llu nodes, %.3f s (%s)\n",
                     preset.c_str(), sample.label.c_str(), depth,
                     static_cast<unsigned long long>(row.nodes), row.cpu,
                     row.reference.c_str());
        std::printf("| %d | %llu | %.3f | %.3f | %s |\n", depth,
                    static_cast<unsigned long long>(row.nodes), row.cpu,
                    row.wall, row.reference.c_str());
        std::fflush(stdout);
        rows.push_back(row);
      }
      std::printf("\nStopped before %s.\n\n", why_stopped.c_str());
      cut.push_back(preset + ", " + sample.label + ": " + why_stopped);
    }
  }
  std::printf("### Where each position stopped\n\n");
  for (const std::string& line : cut) std::printf("- %s\n", line.c_str());
  std::printf("\nCPU time of the whole run: %.0f s.\n", *spent);
  return true;
}

bool ParseFlag(const char* arg, const char* name, std::string* value) {
  const size_t n = std::strlen(name);
  if (std::strncmp(arg, name, n) != 0) return false;
  if (arg[n] == '\0') {
    *value = "";
    return true;
  }
  if (arg[n] != '=') return false;
  *value = arg + n + 1;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    std::string value;
    if (ParseFlag(argv[i], "--limit_seconds", &value)) {
      options.limit_seconds = std::atof(value.c_str());
    } else if (ParseFlag(argv[i], "--budget_seconds", &value)) {
      options.budget_seconds = std::atof(value.c_str());
    } else if (ParseFlag(argv[i], "--reference_seconds", &value)) {
      options.reference_seconds = std::atof(value.c_str());
    } else if (ParseFlag(argv[i], "--reference", &value)) {
      options.reference = true;
    } else if (ParseFlag(argv[i], "--presets", &value)) {
      for (size_t start = 0; start <= value.size();) {
        const size_t comma = value.find(',', start);
        const size_t end = comma == std::string::npos ? value.size() : comma;
        if (end > start)
          options.presets.push_back(value.substr(start, end - start));
        start = end + 1;
      }
    } else {
      std::fprintf(stderr, "unknown argument %s\n", argv[i]);
      return 2;
    }
  }
  double spent = 0;
  bool mismatch = false;
  if (!Run(options, &spent, &mismatch)) return 2;
  if (mismatch) {
    std::fprintf(stderr, "the engine and the reference disagree\n");
    return 1;
  }
  return 0;
}
