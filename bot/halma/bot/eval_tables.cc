#include "halma/bot/eval_tables.h"

#include <algorithm>
#include <cstdlib>

namespace halma::bot {
namespace {

// Coordinates in the frame whose origin is `corner` (x' and y' count
// squares away from the corner along the edges).
void CornerFrame(int size, Corner corner, Square s, int* x, int* y) {
  *x = FileOf(s);
  *y = RankOf(s);
  if (corner == Corner::kNorthEast || corner == Corner::kSouthEast) {
    *x = size - 1 - *x;
  }
  if (corner == Corner::kNorthEast || corner == Corner::kNorthWest) {
    *y = size - 1 - *y;
  }
}

}  // namespace

void BuildEvalTables(const Variant& variant, const EvalWeights& weights,
                     EvalTables* tables) {
  tables->weights = weights;
  tables->board_size = variant.size;
  tables->pieces_per_seat = variant.pieces_per_seat;
  tables->home_grace = weights.home_grace_percent * variant.size / 100;
  const int n = variant.size;
  for (int seat_index = 0; seat_index < kMaxSeats; ++seat_index) {
    const Seat seat = SeatAt(seat_index);
    const Corner corner = TargetCorner(seat);
    const Bitboard& camp = variant.TargetCamp(seat);
    tables->target[seat_index] = camp;
    tables->target_zone[seat_index] = Bitboard();
    for (int y = 0; y < n; ++y) {
      for (int x = 0; x < n; ++x) {
        bool near = false;
        ForEachSquare(camp, [&](Square c) {
          near = near ||
                 (std::abs(FileOf(c) - x) <= 2 && std::abs(RankOf(c) - y) <= 2);
        });
        if (near) tables->target_zone[seat_index].Set(MakeSquare(x, y));
      }
    }
    const Bitboard& home = variant.HomeCamp(seat);
    tables->home[seat_index] = home;
    ForEachSquare(home, [&](Square h) {
      int steps = 4 * kMaxBoardSize;
      for (int y = 0; y < n; ++y) {
        for (int x = 0; x < n; ++x) {
          if (home.Test(MakeSquare(x, y))) continue;
          steps = std::min(steps, std::max(std::abs(x - FileOf(h)),
                                           std::abs(y - RankOf(h))));
        }
      }
      tables->exit_steps[seat_index][h] = static_cast<std::uint8_t>(steps);
    });
    // The deepest camp square's distance, and the first ring outside.
    int camp_max = 0;
    ForEachSquare(camp, [&](Square c) {
      int x, y;
      CornerFrame(n, corner, c, &x, &y);
      camp_max = std::max(camp_max, x + y);
    });
    const int ring = camp_max + 1;
    int min_distance = 0;
    std::int32_t min_cost = 0;
    for (int s = 0; s < kSquareCount; ++s) {
      const Square square = static_cast<Square>(s);
      tables->distance[seat_index][s] = 0;
      tables->cost[seat_index][s] = 0;
      tables->corner_distance[seat_index][s] = 0;
      if (!home.Test(square)) tables->exit_steps[seat_index][s] = 0;
      if (FileOf(square) >= n || RankOf(square) >= n) continue;
      int x, y;
      CornerFrame(n, corner, square, &x, &y);
      const int manhattan = x + y;
      tables->corner_distance[seat_index][s] =
          static_cast<std::uint8_t>(manhattan);
      int v;
      int cost;
      if (camp.Test(square)) {
        v = manhattan;
        cost = weights.distance * v;
        min_distance += v;
        min_cost += cost;
      } else {
        int king_steps = 4 * kMaxBoardSize;
        ForEachSquare(camp, [&](Square c) {
          const int dx = std::abs(FileOf(c) - FileOf(square));
          const int dy = std::abs(RankOf(c) - RankOf(square));
          king_steps = std::min(king_steps, std::max(dx, dy));
        });
        v = std::max(manhattan, ring + king_steps - 1);
        const int behind = v - ring;
        cost = weights.distance * v + weights.straggler * behind * behind / 16 +
               weights.lateral * std::abs(x - y);
      }
      tables->distance[seat_index][s] = static_cast<std::int16_t>(v);
      tables->cost[seat_index][s] = cost;
    }
    for (int sq = 0; sq < kSquareCount; ++sq) {
      const Square square = static_cast<Square>(sq);
      tables->forward[seat_index][sq] = Bitboard();
      if (FileOf(square) >= n || RankOf(square) >= n) continue;
      for (int d = 0; d < kDirectionCount; ++d) {
        const int x = FileOf(square) + kDirX[d], y = RankOf(square) + kDirY[d];
        if (x < 0 || y < 0 || x >= n || y >= n) continue;
        const Square next = MakeSquare(x, y);
        if (tables->distance[seat_index][next] <
            tables->distance[seat_index][sq]) {
          tables->forward[seat_index][sq].Set(next);
        }
      }
    }
    if (variant.in_play.Has(seat)) {
      tables->min_distance_sum = min_distance;
      tables->min_cost_sum[seat_index] = min_cost;
    }
  }
}

std::int32_t HomeRate(const EvalTables& tables, std::int64_t moves) {
  if (moves <= tables.home_grace) return 0;
  return tables.weights.home_per_move *
         static_cast<std::int32_t>(
             std::min<std::int64_t>(moves - tables.home_grace, 1024));
}

std::int32_t ExitUrgency(const EvalTables& tables, int exit_limit, int at_home,
                         std::int64_t moves) {
  if (exit_limit == 0 || at_home == 0) return 0;
  // Each move takes at most one piece out, and after move exit_limit + 1
  // no piece may be left at home.
  const std::int64_t left = exit_limit + 1 - moves;
  const std::int64_t excess = at_home + tables.weights.exit_margin - left;
  if (excess <= 0) return 0;
  return tables.weights.exit_urgency *
         static_cast<std::int32_t>(std::min<std::int64_t>(excess, 256));
}

}  // namespace halma::bot
