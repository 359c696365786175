#include "halma/flood_fill.h"

#include "halma/bitboard.h"

namespace halma {
namespace {

using Lanes = std::uint64_t __attribute__((vector_size(16)));

inline Lanes Expand(const Lanes* landing, Lanes f) {
  return ((ShiftBits<GridShift(0)>(f) & landing[0]) |
          (ShiftBits<GridShift(1)>(f) & landing[1])) |
         ((ShiftBits<GridShift(2)>(f) & landing[2]) |
          (ShiftBits<GridShift(3)>(f) & landing[3])) |
         (((ShiftBits<GridShift(4)>(f) & landing[4]) |
           (ShiftBits<GridShift(5)>(f) & landing[5])) |
          ((ShiftBits<GridShift(6)>(f) & landing[6]) |
           (ShiftBits<GridShift(7)>(f) & landing[7])));
}

}  // namespace

int FloodFillQuad(const std::uint64_t (*landing)[kDirectionCount],
                  const std::uint64_t origins[4], const std::uint8_t classes[4],
                  std::uint64_t* out) {
  Lanes mask_a[kDirectionCount], mask_b[kDirectionCount];
  for (int d = 0; d < kDirectionCount; ++d) {
    mask_a[d] = Lanes{landing[classes[0]][d], landing[classes[1]][d]};
    mask_b[d] = Lanes{landing[classes[2]][d], landing[classes[3]][d]};
  }
  Lanes frontier_a{origins[0], origins[1]}, frontier_b{origins[2], origins[3]};
  Lanes visited_a = frontier_a, visited_b = frontier_b;
  int k = 0;
  for (;;) {
    const Lanes next_a = Expand(mask_a, frontier_a) & ~visited_a;
    const Lanes next_b = Expand(mask_b, frontier_b) & ~visited_b;
    const Lanes any = next_a | next_b;
    if ((any[0] | any[1]) == 0) return k;
    __builtin_memcpy(out + 4 * k, &next_a, sizeof next_a);
    __builtin_memcpy(out + 4 * k + 2, &next_b, sizeof next_b);
    ++k;
    visited_a |= next_a;
    visited_b |= next_b;
    frontier_a = next_a;
    frontier_b = next_b;
  }
}

}  // namespace halma
