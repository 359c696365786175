// Writes the benchmark's fixed position sets, bench/data/<preset>.txt: dense
// midgame positions (many long jump chains) taken from seeded, mostly greedy
// playouts of the reference implementation. The files are committed; rerun
// this only to regenerate them (the output depends only on the seeds):
//
//   halma_make_positions [output-dir] [positions-per-preset]
//
// Playouts use std::mt19937 with fixed seeds and only rng() % k, so the
// output is the same with every standard library.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "halma/notation.h"
#include "halma/variant.h"
#include "reference.h"

namespace {

namespace ref = halma_ref;

struct Candidate {
  double mean_hops = 0;  // Mean fewest-hop count over the jump moves.
  int moves = 0;
  int jumps = 0;
  long game = 0;
  int ply = 0;
  std::string text;
};

// Mean fewest hops of the side to move's jump moves.
Candidate Measure(const ref::Rules& rules, const ref::Board& board,
                  const std::vector<ref::Move>& moves) {
  Candidate c;
  long hops = 0;
  for (const ref::Move& m : moves) {
    if (m.hops == 0) continue;
    ++c.jumps;
    hops += m.hops;
  }
  c.moves = static_cast<int>(moves.size());
  c.mean_hops = c.jumps == 0 ? 0 : static_cast<double>(hops) / c.jumps;
  c.text = ref::FormatBoard(rules, board);
  return c;
}

// Plays one seeded game and returns its positions from the middle of the
// game (30% to 70% of its length) with their measures.
std::vector<Candidate> PlayGame(const ref::Rules& rules, std::uint32_t seed,
                                long game, int ply_cap) {
  std::mt19937 rng(seed * 1000003u + static_cast<std::uint32_t>(game));
  ref::PlayoutPolicy policy[4];
  for (int i = 0; i < rules.SeatCount(); ++i) {
    policy[i].greedy_percent = 80 + static_cast<int>(rng() % 16);
  }
  ref::Board board = ref::StartBoard(rules);
  std::vector<Candidate> all;
  std::vector<ref::Move> moves;
  for (int ply = 0; ply < ply_cap; ++ply) {
    if (ref::Evaluate(rules, board).over) break;
    ref::LegalMoves(rules, board, board.to_move, &moves);
    Candidate c = Measure(rules, board, moves);
    c.game = game;
    c.ply = ply;
    all.push_back(std::move(c));
    if (moves.empty()) {
      board = ref::ApplyPass(rules, board);
      continue;
    }
    const int i = ref::ChooseMove(rules, board, board.to_move, moves,
                                  policy[rules.TurnIndex(board.to_move)], &rng);
    board = ref::ApplyMove(rules, board, moves[i].from, moves[i].to);
  }
  const size_t n = all.size();
  return std::vector<Candidate>(all.begin() + n * 3 / 10,
                                all.begin() + n * 7 / 10);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string dir = argc > 1 ? argv[1] : "bench/data";
  const int wanted = argc > 2 ? std::atoi(argv[2]) : 1000;
  constexpr int kPerGame = 6;  // At most this many positions from one game.
  int preset_index = 0;
  for (const std::string& name : ref::PresetNamesFromRules()) {
    const std::uint32_t seed = 20240601u + 97u * preset_index++;
    ref::Rules rules;
    if (!ref::PresetRules(name, &rules)) return 1;
    absl::StatusOr<halma::Variant> variant = halma::PresetVariant(name);
    if (!variant.ok()) return 1;
    const int ply_cap = rules.SeatCount() * 400;
    // Per game: the kPerGame positions of the middle of the game with the
    // deepest chains. Then the deepest of those overall.
    std::vector<Candidate> pool;
    const long games = (3 * wanted) / kPerGame + 1;
    for (long g = 0; g < games; ++g) {
      std::vector<Candidate> mid = PlayGame(rules, seed, g, ply_cap);
      std::sort(mid.begin(), mid.end(),
                [](const Candidate& a, const Candidate& b) {
                  return a.mean_hops > b.mean_hops;
                });
      if (static_cast<int>(mid.size()) > kPerGame) mid.resize(kPerGame);
      pool.insert(pool.end(), mid.begin(), mid.end());
    }
    std::stable_sort(pool.begin(), pool.end(),
                     [](const Candidate& a, const Candidate& b) {
                       return a.mean_hops > b.mean_hops;
                     });
    if (static_cast<int>(pool.size()) > wanted) pool.resize(wanted);
    // Keep playout order in the file (game, then ply).
    std::sort(pool.begin(), pool.end(),
              [](const Candidate& a, const Candidate& b) {
                return a.game != b.game ? a.game < b.game : a.ply < b.ply;
              });
    double hops = 0, moves = 0, jumps = 0;
    for (const Candidate& c : pool) {
      // Every position must be well-formed for the engine too.
      if (!halma::ParsePosition(c.text, *variant).ok()) {
        std::fprintf(stderr, "%s: engine rejects %s\n", name.c_str(),
                     c.text.c_str());
        return 1;
      }
      hops += c.mean_hops;
      moves += c.moves;
      jumps += c.jumps;
    }
    const double n = static_cast<double>(pool.size());
    const std::string path = dir + "/" + name + ".txt";
    std::ofstream out(path);
    if (!out) {
      std::fprintf(stderr, "cannot write %s\n", path.c_str());
      return 1;
    }
    char header[512];
    std::snprintf(header, sizeof(header),
                  "# %s: %d dense midgame positions for halma_bench, written "
                  "by halma_make_positions (seeded greedy playouts of the "
                  "reference, %ld games).\n# Side to move: mean %.1f legal "
                  "moves, %.1f of them jumps, mean fewest hops of the jumps "
                  "%.2f.\n",
                  name.c_str(), static_cast<int>(pool.size()), games, moves / n,
                  jumps / n, hops / n);
    out << header;
    for (const Candidate& c : pool) out << c.text << "\n";
    std::printf("%s", header);
  }
  return 0;
}
