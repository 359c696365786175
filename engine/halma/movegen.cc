#include "halma/movegen.h"

#include <algorithm>
#include <array>

namespace halma {
namespace {

// Every uint8_t is a square of the 16x16 frame, so "none" needs a wider type.
constexpr std::int16_t kNoSquare = -1;

// kNeighbour[s][d]: the square next to s in direction d, or kNoSquare off
// the 16x16 frame. Smaller boards are cut by their on-board mask.
constexpr std::array<std::array<std::int16_t, kDirectionCount>, kSquareCount>
MakeNeighbourTable() {
  std::array<std::array<std::int16_t, kDirectionCount>, kSquareCount> t{};
  for (int s = 0; s < kSquareCount; ++s) {
    const int x = FileOf(static_cast<Square>(s));
    const int y = RankOf(static_cast<Square>(s));
    for (int d = 0; d < kDirectionCount; ++d) {
      const int nx = x + kDirX[d], ny = y + kDirY[d];
      const bool inside =
          nx >= 0 && ny >= 0 && nx < kMaxBoardSize && ny < kMaxBoardSize;
      t[s][d] = inside ? MakeSquare(nx, ny) : kNoSquare;
    }
  }
  return t;
}
constexpr auto kNeighbour = MakeNeighbourTable();

// One breadth-first layer of the jump closure: every square one hop from
// the frontier, before the landing squares are filtered.
inline std::uint64_t Expand(const std::uint64_t* jumpable, std::uint64_t f) {
  return ShiftGridDir<0>(f & jumpable[0]) | ShiftGridDir<1>(f & jumpable[1]) |
         ShiftGridDir<2>(f & jumpable[2]) | ShiftGridDir<3>(f & jumpable[3]) |
         ShiftGridDir<4>(f & jumpable[4]) | ShiftGridDir<5>(f & jumpable[5]) |
         ShiftGridDir<6>(f & jumpable[6]) | ShiftGridDir<7>(f & jumpable[7]);
}

// The jump closure of one piece, layer by layer: layer[k] holds the squares
// (of the origin's class) whose fewest-hop count is k; layer[0] is the origin.
struct Closure {
  int depth = 0;  // Number of hop layers found.
  std::uint64_t layer[kMaxPathSquares];
};

// Target lock: once a chain stands in the target camp it may only land in
// it. `target` is the class word of the moving seat's target camp, or 0
// when the lock is off.
inline void JumpClosure(const JumpBoard& board, int cls, std::uint64_t origin,
                        std::uint64_t target, Closure* out) {
  const std::uint64_t* jumpable = board.jumpable[cls];
  std::uint64_t avail = board.empty[cls];
  std::uint64_t visited = origin;
  std::uint64_t frontier = origin;
  out->layer[0] = origin;
  int depth = 0;
  if (target == 0 || (origin & target)) {
    if (origin & target) avail &= target;
    for (;;) {
      const std::uint64_t next = Expand(jumpable, frontier) & avail & ~visited;
      if (next == 0) break;
      out->layer[++depth] = next;
      visited |= next;
      frontier = next;
    }
  } else {
    for (;;) {
      std::uint64_t next = Expand(jumpable, frontier & ~target);
      if (frontier & target)
        next |= Expand(jumpable, frontier & target) & target;
      next &= avail & ~visited;
      if (next == 0) break;
      out->layer[++depth] = next;
      visited |= next;
      frontier = next;
    }
  }
  out->depth = depth;
}

// Walks a fewest-hop path back from `dest` (in layer `hops`) to the origin
// and writes it origin first to `path` (hops + 1 squares).
inline void BacktrackPath(const JumpBoard& board, int cls, const Closure& c,
                          int dest_index, int hops, std::uint64_t target,
                          Square* path) {
  const std::uint64_t* jumpable = board.jumpable[cls];
  std::uint64_t at = std::uint64_t{1} << dest_index;
  path[hops] = FromClass(cls, dest_index);
  for (int k = hops; k > 0; --k) {
    const bool at_outside = (at & target) == 0;
    for (int d = 0; d < kDirectionCount; ++d) {
      const std::uint64_t prev = ShiftGrid(at, -kDirX[d], -kDirY[d]);
      if ((prev & c.layer[k - 1] & jumpable[d]) == 0) continue;
      // Under target lock a hop from inside the target must stay inside.
      if (at_outside && (prev & target)) continue;
      at = prev;
      break;
    }
    path[k - 1] = FromClass(cls, std::countr_zero(at));
  }
}

template <bool kWithPaths>
void Generate(const Variant& variant, const Position& position, Seat seat,
              MoveFilter filter, MoveList* list, MovePaths* paths) {
  const JumpBoard board(variant, position);
  const Bitboard target_camp =
      variant.spec.target_lock ? variant.TargetCamp(seat) : Bitboard{};
  Bitboard movers = position.pieces[SeatIndex(seat)];
  if (filter.only_origin) {
    const bool has = movers.Test(filter.origin);
    movers = Bitboard{};
    if (has) movers.Set(filter.origin);
  }
  int n = 0;
  int used = 0;
  Closure closure;
  ForEachSquare(movers, [&](Square origin) {
    const bool locked = target_camp.Test(origin);
    // Steps land on the neighbouring classes.
    for (int d = 0; d < kDirectionCount; ++d) {
      const std::int16_t next = kNeighbour[origin][d];
      if (next == kNoSquare) continue;
      const Square to = static_cast<Square>(next);
      if (!board.empty_squares.Test(to)) continue;
      if (locked && !target_camp.Test(to)) continue;
      if constexpr (kWithPaths) {
        paths->offset[n] = used;
        paths->squares[used++] = origin;
        paths->squares[used++] = to;
      }
      list->moves[n++] = LegalMove{origin, to, 0};
    }
    // Jumps stay in the origin's class.
    const int cls = ClassOf(origin);
    const std::uint64_t target = target_camp.word[cls];
    JumpClosure(board, cls, std::uint64_t{1} << ClassIndexOf(origin), target,
                &closure);
    for (int k = 1; k <= closure.depth; ++k) {
      for (std::uint64_t w = closure.layer[k]; w != 0; w &= w - 1) {
        const int index = std::countr_zero(w);
        if constexpr (kWithPaths) {
          paths->offset[n] = used;
          BacktrackPath(board, cls, closure, index, k, target,
                        paths->squares + used);
          used += k + 1;
        }
        list->moves[n++] = LegalMove{origin, FromClass(cls, index),
                                     static_cast<std::uint8_t>(k)};
      }
    }
  });
  list->size = n;
  if constexpr (kWithPaths) paths->offset[n] = used;
}

}  // namespace

JumpBoard::JumpBoard(const Variant& variant, const Position& position) {
  const Bitboard occupied = position.Occupied();
  empty_squares = variant.on_board & ~occupied;
  for (int cls = 0; cls < 4; ++cls) {
    const int px = cls & 1, py = cls >> 1;
    empty[cls] = empty_squares.word[cls];
    for (int d = 0; d < kDirectionCount; ++d) {
      const int dx = kDirX[d], dy = kDirY[d];
      // The jumped square lies in the neighbouring class, at an offset of
      // (ox, oy) in that class's grid.
      const int over = cls ^ ((dy & 1) << 1) ^ (dx & 1);
      const int ox = dx == 0 ? 0 : (dx > 0 ? px : px - 1);
      const int oy = dy == 0 ? 0 : (dy > 0 ? py : py - 1);
      jumpable[cls][d] = ShiftGrid(occupied.word[over], -ox, -oy);
    }
  }
}

void GenerateLegalMoves(const Variant& variant, const Position& position,
                        Seat seat, MoveList* list, MoveFilter filter) {
  Generate<false>(variant, position, seat, filter, list, nullptr);
}

void GenerateLegalMovesWithPaths(const Variant& variant,
                                 const Position& position, Seat seat,
                                 MoveList* list, MovePaths* paths,
                                 MoveFilter filter) {
  Generate<true>(variant, position, seat, filter, list, paths);
}

bool HasLegalMove(const Variant& variant, const Position& position, Seat seat) {
  const JumpBoard board(variant, position);
  const Bitboard target_camp =
      variant.spec.target_lock ? variant.TargetCamp(seat) : Bitboard{};
  bool found = false;
  ForEachSquare(position.pieces[SeatIndex(seat)], [&](Square origin) {
    if (found) return;
    const bool locked = target_camp.Test(origin);
    for (int d = 0; d < kDirectionCount; ++d) {
      const std::int16_t next = kNeighbour[origin][d];
      if (next == kNoSquare) continue;
      const Square to = static_cast<Square>(next);
      if (!board.empty_squares.Test(to)) continue;
      if (locked && !target_camp.Test(to)) continue;
      found = true;
      return;
    }
    const int cls = ClassOf(origin);
    std::uint64_t avail = board.empty[cls];
    if (locked) avail &= target_camp.word[cls];
    if (Expand(board.jumpable[cls], std::uint64_t{1} << ClassIndexOf(origin)) &
        avail) {
      found = true;
    }
  });
  return found;
}

int FewestHopPath(const Variant& variant, const Position& position,
                  Square origin, Square destination,
                  Square path[kMaxPathSquares], bool ignore_target_lock) {
  Seat seat;
  if (!position.PieceAt(origin, &seat)) return 0;
  const JumpBoard board(variant, position);
  if (!board.empty_squares.Test(destination)) return 0;
  const bool lock = variant.spec.target_lock && !ignore_target_lock;
  const Bitboard target_camp = lock ? variant.TargetCamp(seat) : Bitboard{};
  for (int d = 0; d < kDirectionCount; ++d) {
    if (kNeighbour[origin][d] != destination) continue;
    if (target_camp.Test(origin) && !target_camp.Test(destination)) return 0;
    path[0] = origin;
    path[1] = destination;
    return 2;
  }
  const int cls = ClassOf(origin);
  if (ClassOf(destination) != cls) return 0;
  Closure closure;
  const std::uint64_t target = target_camp.word[cls];
  JumpClosure(board, cls, std::uint64_t{1} << ClassIndexOf(origin), target,
              &closure);
  const std::uint64_t dest_bit = std::uint64_t{1} << ClassIndexOf(destination);
  for (int k = 1; k <= closure.depth; ++k) {
    if (closure.layer[k] & dest_bit) {
      BacktrackPath(board, cls, closure, ClassIndexOf(destination), k, target,
                    path);
      return k + 1;
    }
  }
  return 0;
}

bool MoveOrder(const LegalMove& a, const LegalMove& b) {
  const auto key = [](const LegalMove& m) {
    return (FileOf(m.origin) << 24) | (RankOf(m.origin) << 16) |
           (FileOf(m.destination) << 8) | RankOf(m.destination);
  };
  return key(a) < key(b);
}

void SortMoves(MoveList* list) {
  std::sort(list->moves, list->moves + list->size, MoveOrder);
}

}  // namespace halma
