// halma_make_records: writes the game records that the replay benchmarks
// (halma_bench's Replay cases, bench/replay_callgrind.sh) replay:
//
//   halma_make_records <dir>
//
// writes <dir>/classic-16x16-300.txt and <dir>/brainking-8x8-60.txt, 16
// records each: the records of the service benchmark's Adjudicate
// scenarios (bench/service/make_payloads.cc, seed 20240909), which play
// the same seeded games (bench/seeded_games.h); games decided before their
// last ply are skipped. Rerun only to regenerate them.
//
// File format: lines starting with '#' are comments; every other line is
// one record, its moves separated by single spaces, from the variant's
// start position.
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "halma/variant.h"
#include "seeded_games.h"

namespace {

using halma::Variant;

constexpr std::uint32_t kSeed = 20240909u;  // make_payloads' --seed.
constexpr int kRecords = 16;                // make_payloads' --distinct.

bool Write(const std::string& dir, const std::string& preset, int plies,
           std::uint32_t seed, halma::bench::MoveScratch* scratch) {
  const Variant variant = *halma::PresetVariant(preset);
  const std::string path =
      dir + "/" + preset + "-" + std::to_string(plies) + ".txt";
  std::ofstream out(path);
  if (!out) {
    std::fprintf(stderr, "cannot write %s\n", path.c_str());
    return false;
  }
  int games = 0;
  const std::vector<std::vector<std::string>> records =
      halma::bench::SeededRecords(variant, seed, plies, kRecords, scratch,
                                  &games);
  if (static_cast<int>(records.size()) < kRecords) {
    std::fprintf(stderr, "%s: too few games last %d plies\n", preset.c_str(),
                 plies);
    return false;
  }
  out << "# " << preset << ": " << kRecords << " records of " << plies
      << " moves from the start, written by halma_make_records "
         "(bench/make_records.cc): the first "
      << kRecords << " of " << games
      << " seeded games (greedy advance, 10-40% random moves) not decided "
         "before their last ply, as the service benchmark's Adjudicate "
         "scenario plays them.\n";
  for (const auto& moves : records) {
    for (size_t i = 0; i < moves.size(); ++i) {
      out << (i > 0 ? " " : "") << moves[i];
    }
    out << "\n";
  }
  return static_cast<bool>(out);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <dir>\n", argv[0]);
    return 2;
  }
  auto scratch = std::make_unique<halma::bench::MoveScratch>();
  const bool ok = Write(argv[1], "classic-16x16", 300, kSeed, scratch.get()) &&
                  Write(argv[1], "brainking-8x8", 60, kSeed + 1, scratch.get());
  return ok ? 0 : 1;
}
