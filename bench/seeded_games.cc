#include "seeded_games.h"

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <random>
#include <utility>

#include "halma/game_status.h"
#include "halma/move_check.h"
#include "halma/notation.h"

namespace halma::bench {
namespace {

// Steps (on the board's diagonal grid) from `s` to the corner of `seat`'s
// target camp.
int DistanceToTarget(const Variant& variant, Seat seat, Square s) {
  const int far = variant.size - 1;
  const Corner corner = TargetCorner(seat);
  const int tx =
      corner == Corner::kNorthEast || corner == Corner::kSouthEast ? far : 0;
  const int ty =
      corner == Corner::kNorthWest || corner == Corner::kNorthEast ? far : 0;
  return std::abs(FileOf(s) - tx) + std::abs(RankOf(s) - ty);
}

// A move that most advances a piece toward its target corner (ties drawn
// at random), or any legal move `random_percent` of the time.
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

}  // namespace

std::string PathMove::Text() const {
  return FormatPath(path.data(), static_cast<int>(path.size()));
}

std::vector<PathMove> LegalMovesInAnswerOrder(const Variant& variant,
                                              const Position& position,
                                              MoveScratch* scratch) {
  GenerateLegalMovesWithPaths(variant, position, position.to_move,
                              &scratch->list, &scratch->paths);
  std::vector<int> order(scratch->list.size);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [scratch](int a, int b) {
    return MoveOrder(scratch->list.moves[a], scratch->list.moves[b]);
  });
  std::vector<PathMove> moves;
  moves.reserve(order.size());
  for (int i : order) {
    const Square* path = scratch->paths.Path(i);
    moves.push_back(
        {scratch->list.moves[i],
         std::vector<Square>(path, path + scratch->paths.Length(i))});
  }
  return moves;
}

std::vector<std::string> PlaySeededGame(const Variant& variant,
                                        std::uint32_t seed, int plies,
                                        MoveScratch* scratch) {
  std::mt19937 rng(seed);
  const int random_percent = 10 + static_cast<int>(rng() % 31);
  Position position = StartPosition(variant);
  std::vector<std::string> record;
  for (int ply = 1; ply <= plies; ++ply) {
    const GameStatus status = EvaluateStatus(variant, position);
    if (status.over) return {};
    MoveText text;
    std::vector<PathMove> moves;
    if (!status.must_pass) {
      moves = LegalMovesInAnswerOrder(variant, position, scratch);
    }
    if (moves.empty()) {
      text.is_pass = true;
      record.push_back("pass");
    } else {
      const PathMove& m =
          ChooseMove(variant, position.to_move, moves, random_percent, &rng);
      text.squares.assign(m.path.begin(), m.path.end());
      record.push_back(m.Text());
    }
    position = ApplyMove(variant, position, text);
  }
  return record;
}

std::vector<std::vector<std::string>> SeededRecords(const Variant& variant,
                                                    std::uint32_t set_seed,
                                                    int plies, int count,
                                                    MoveScratch* scratch,
                                                    int* played) {
  constexpr int kMaxGames = 5000;
  std::vector<std::vector<std::string>> records;
  int game = 0;
  for (; game < kMaxGames && static_cast<int>(records.size()) < count; ++game) {
    std::vector<std::string> moves = PlaySeededGame(
        variant, set_seed * 1000003u + static_cast<std::uint32_t>(game), plies,
        scratch);
    if (!moves.empty()) records.push_back(std::move(moves));
  }
  *played = game;
  return records;
}

}  // namespace halma::bench
