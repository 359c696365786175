// halma_make_records: writes the game records that the replay benchmarks
// (halma_bench's Replay cases, bench/replay_callgrind.sh) replay:
//
//   halma_make_records <dir>
//
// writes <dir>/classic-16x16-300.txt and <dir>/brainking-8x8-60.txt, 16
// records each: the records of the service benchmark's Adjudicate
// scenarios (bench/service/make_payloads.cc, seed 20240909 and the next),
// played the same way with the engine alone. Each game is seeded; each ply
// takes, 10-40% of the time (per game), a random legal move, and otherwise
// a move that most advances a piece toward its target corner (ties at
// random), written as its full fewest-hop path; games decided before their
// last ply are skipped. std::mt19937 and rng() % k only, so the files are
// the same with every standard library. Rerun only to regenerate them.
//
// File format: lines starting with '#' are comments; every other line is
// one record, its moves separated by single spaces, from the variant's
// start position.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "halma/game_status.h"
#include "halma/move_check.h"
#include "halma/movegen.h"
#include "halma/notation.h"
#include "halma/position.h"
#include "halma/variant.h"

namespace {

using halma::LegalMove;
using halma::Position;
using halma::Seat;
using halma::Square;
using halma::Variant;

constexpr std::uint32_t kSeed = 20240909u;  // make_payloads' --seed.
constexpr int kRecords = 16;                // make_payloads' --distinct.

struct Scratch {
  halma::MoveList list;
  halma::MovePaths paths;
};

struct PathMove {
  LegalMove move;
  std::vector<Square> path;
};

// The legal moves in answer order, each with its fewest-hop path.
std::vector<PathMove> LegalMovesOf(const Variant& variant,
                                   const Position& position, Scratch* s) {
  halma::GenerateLegalMovesWithPaths(variant, position, position.to_move,
                                     &s->list, &s->paths);
  std::vector<int> order(s->list.size);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [s](int a, int b) {
    return halma::MoveOrder(s->list.moves[a], s->list.moves[b]);
  });
  std::vector<PathMove> moves;
  for (int i : order) {
    const Square* path = s->paths.Path(i);
    moves.push_back({s->list.moves[i],
                     std::vector<Square>(path, path + s->paths.Length(i))});
  }
  return moves;
}

int DistanceToTarget(const Variant& variant, Seat seat, Square s) {
  const int far = variant.size - 1;
  const halma::Corner corner = halma::TargetCorner(seat);
  const int tx =
      corner == halma::Corner::kNorthEast || corner == halma::Corner::kSouthEast
          ? far
          : 0;
  const int ty =
      corner == halma::Corner::kNorthWest || corner == halma::Corner::kNorthEast
          ? far
          : 0;
  return std::abs(halma::FileOf(s) - tx) + std::abs(halma::RankOf(s) - ty);
}

const PathMove& ChooseMove(const Variant& variant, Seat seat,
                           const std::vector<PathMove>& moves,
                           int random_percent, std::mt19937* rng) {
  if (static_cast<int>((*rng)() % 100) < random_percent) {
    return moves[(*rng)() % moves.size()];
  }
  int best_gain = -1000;
  std::vector<int> best;
  for (int i = 0; i < static_cast<int>(moves.size()); ++i) {
    const int gain = DistanceToTarget(variant, seat, moves[i].move.origin) -
                     DistanceToTarget(variant, seat, moves[i].move.destination);
    if (gain > best_gain) {
      best_gain = gain;
      best.clear();
    }
    if (gain == best_gain) best.push_back(i);
  }
  return moves[best[(*rng)() % best.size()]];
}

// `plies` moves of a seeded game, or none when it ends before its last.
std::vector<std::string> PlayGame(const Variant& variant, std::uint32_t seed,
                                  int plies, Scratch* scratch) {
  std::mt19937 rng(seed);
  const int random_percent = 10 + static_cast<int>(rng() % 31);
  Position position = halma::StartPosition(variant);
  std::vector<std::string> record;
  for (int ply = 1; ply <= plies; ++ply) {
    const halma::GameStatus status = halma::EvaluateStatus(variant, position);
    if (status.over) return {};
    halma::MoveText text;
    std::vector<PathMove> moves;
    if (!status.must_pass) moves = LegalMovesOf(variant, position, scratch);
    if (moves.empty()) {
      text.is_pass = true;
      record.push_back("pass");
    } else {
      const PathMove& m =
          ChooseMove(variant, position.to_move, moves, random_percent, &rng);
      text.squares.assign(m.path.begin(), m.path.end());
      record.push_back(
          halma::FormatPath(m.path.data(), static_cast<int>(m.path.size())));
    }
    position = halma::ApplyMove(variant, position, text);
  }
  return record;
}

bool Write(const std::string& dir, const std::string& preset, int plies,
           std::uint32_t seed, Scratch* scratch) {
  const Variant variant = *halma::PresetVariant(preset);
  const std::string path =
      dir + "/" + preset + "-" + std::to_string(plies) + ".txt";
  std::ofstream out(path);
  if (!out) {
    std::fprintf(stderr, "cannot write %s\n", path.c_str());
    return false;
  }
  std::vector<std::vector<std::string>> records;
  int games = 0;
  for (; games < 5000 && static_cast<int>(records.size()) < kRecords; ++games) {
    std::vector<std::string> moves =
        PlayGame(variant, seed * 1000003u + static_cast<std::uint32_t>(games),
                 plies, scratch);
    if (!moves.empty()) records.push_back(std::move(moves));
  }
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
  auto scratch = std::make_unique<Scratch>();
  const bool ok = Write(argv[1], "classic-16x16", 300, kSeed, scratch.get()) &&
                  Write(argv[1], "brainking-8x8", 60, kSeed + 1, scratch.get());
  return ok ? 0 : 1;
}
