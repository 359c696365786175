// Writes the benchmark's fixed position sets: bench/data/<preset>.txt, dense
// midgame positions (many long jump chains), and bench/data/typical/
// <preset>.txt, positions from any ply, both taken from seeded, mostly
// greedy playouts of the reference implementation. The files are committed;
// rerun this only to regenerate them (the output depends only on the seeds):
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

// Plays one seeded game and returns its positions with their measures.
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
  return all;
}

// Deepest chains first; ties in playout order (a total order, so that the
// selection is the same with every standard library).
bool Deeper(const Candidate& a, const Candidate& b) {
  if (a.mean_hops != b.mean_hops) return a.mean_hops > b.mean_hops;
  return a.game != b.game ? a.game < b.game : a.ply < b.ply;
}

// The middle of a game: 30% to 70% of its length.
std::vector<Candidate> Middle(const std::vector<Candidate>& all) {
  const size_t n = all.size();
  return std::vector<Candidate>(all.begin() + n * 3 / 10,
                                all.begin() + n * 7 / 10);
}

bool Write(const std::string& path, const std::string& name,
           const halma::Variant& variant, const std::vector<Candidate>& pool,
           const std::string& what, long games) {
  double hops = 0, moves = 0, jumps = 0;
  for (const Candidate& c : pool) {
    // Every position must be well-formed for the engine too.
    if (!halma::ParsePosition(c.text, variant).ok()) {
      std::fprintf(stderr, "%s: engine rejects %s\n", name.c_str(),
                   c.text.c_str());
      return false;
    }
    hops += c.mean_hops;
    moves += c.moves;
    jumps += c.jumps;
  }
  const double n = static_cast<double>(pool.size());
  std::ofstream out(path);
  if (!out) {
    std::fprintf(stderr, "cannot write %s\n", path.c_str());
    return false;
  }
  char header[512];
  std::snprintf(header, sizeof(header),
                "# %s: %d %s for halma_bench, written by "
                "halma_make_positions (seeded greedy playouts of the "
                "reference, %ld games).\n# Side to move: mean %.1f legal "
                "moves, %.1f of them jumps, mean fewest hops of the jumps "
                "%.2f.\n",
                name.c_str(), static_cast<int>(pool.size()), what.c_str(),
                games, moves / n, jumps / n, hops / n);
  out << header;
  for (const Candidate& c : pool) out << c.text << "\n";
  std::printf("%s", header);
  return true;
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
    // Dense: per game, the kPerGame positions of the middle of the game
    // with the deepest chains; then the deepest of those overall.
    // Typical: two positions of each game drawn uniformly from all its plies.
    std::vector<Candidate> pool, typical;
    const long games = (3 * wanted) / kPerGame + 1;
    std::mt19937 pick(seed);
    for (long g = 0; g < games; ++g) {
      const std::vector<Candidate> all = PlayGame(rules, seed, g, ply_cap);
      if (!all.empty() && static_cast<int>(typical.size()) < wanted) {
        for (int k = 0; k < 2; ++k) typical.push_back(all[pick() % all.size()]);
      }
      std::vector<Candidate> mid = Middle(all);
      std::sort(mid.begin(), mid.end(), Deeper);
      if (static_cast<int>(mid.size()) > kPerGame) mid.resize(kPerGame);
      pool.insert(pool.end(), mid.begin(), mid.end());
    }
    std::sort(pool.begin(), pool.end(), Deeper);
    if (static_cast<int>(pool.size()) > wanted) pool.resize(wanted);
    if (static_cast<int>(typical.size()) > wanted) typical.resize(wanted);
    // Keep playout order in the file (game, then ply).
    const auto by_game = [](const Candidate& a, const Candidate& b) {
      return a.game != b.game ? a.game < b.game : a.ply < b.ply;
    };
    std::sort(pool.begin(), pool.end(), by_game);
    std::sort(typical.begin(), typical.end(), by_game);
    if (!Write(dir + "/" + name + ".txt", name, *variant, pool,
               "dense midgame positions", games) ||
        !Write(dir + "/typical/" + name + ".txt", name, *variant, typical,
               "typical positions (any ply)", games)) {
      return 1;
    }
  }
  return 0;
}
