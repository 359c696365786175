#include "halma/bot/camp_escape.h"

namespace halma::bot {

bool CanLeaveCamp(int board_size, const Bitboard& occupied,
                  const Bitboard& camp, Square from) {
  // The piece's own square is empty once it has moved.
  Bitboard blocked = occupied;
  blocked.Clear(from);
  const auto on_board = [board_size](int x, int y) {
    return x >= 0 && y >= 0 && x < board_size && y < board_size;
  };
  Bitboard seen;
  seen.Set(from);
  Square queue[kSquareCount];
  int head = 0, tail = 0;
  queue[tail++] = from;
  while (head < tail) {
    const Square at = queue[head++];
    const int x = FileOf(at), y = RankOf(at);
    for (int d = 0; d < kDirectionCount; ++d) {
      const int nx = x + kDirX[d], ny = y + kDirY[d];
      if (!on_board(nx, ny)) continue;
      Square to = MakeSquare(nx, ny);
      if (blocked.Test(to)) {
        // A hop over the occupied neighbour.
        const int hx = nx + kDirX[d], hy = ny + kDirY[d];
        if (!on_board(hx, hy)) continue;
        to = MakeSquare(hx, hy);
        if (blocked.Test(to)) continue;
      }
      if (!camp.Test(to)) return true;
      if (seen.Test(to)) continue;
      seen.Set(to);
      queue[tail++] = to;
    }
  }
  return false;
}

}  // namespace halma::bot
