#include "halma/flood_fill.h"

#include "halma/bitboard.h"

namespace halma {
namespace {

constexpr int kLanes = 2;
using Lanes = std::uint64_t __attribute__((vector_size(8 * kLanes)));

inline Lanes Expand(const Lanes* landing, Lanes f) {
  return (ShiftBits<GridShift(0)>(f) & landing[0]) |
         (ShiftBits<GridShift(1)>(f) & landing[1]) |
         (ShiftBits<GridShift(2)>(f) & landing[2]) |
         (ShiftBits<GridShift(3)>(f) & landing[3]) |
         (ShiftBits<GridShift(4)>(f) & landing[4]) |
         (ShiftBits<GridShift(5)>(f) & landing[5]) |
         (ShiftBits<GridShift(6)>(f) & landing[6]) |
         (ShiftBits<GridShift(7)>(f) & landing[7]);
}

inline bool IsZero(Lanes v) { return (v[0] | v[1]) == 0; }

// One group of up to kLanes pieces: returns the number of layers of the
// deepest and writes each lane's depth.
inline int FillGroup(const Lanes* landing, Lanes origins, std::uint64_t* out,
                     std::uint8_t depth[kLanes]) {
  Lanes visited = origins;
  Lanes frontier = origins;
  depth[0] = depth[1] = 0;
  int k = 0;
  for (;;) {
    const Lanes next = Expand(landing, frontier) & ~visited;
    if (IsZero(next)) return k;
    __builtin_memcpy(out + kLanes * k, &next, sizeof next);
    ++k;
    if (next[0]) depth[0] = static_cast<std::uint8_t>(k);
    if (next[1]) depth[1] = static_cast<std::uint8_t>(k);
    visited |= next;
    frontier = next;
  }
}

}  // namespace

int FloodFillClass(const std::uint64_t scalar_landing[kDirectionCount],
                   const std::uint64_t* origins, int count, std::uint64_t* out,
                   std::uint8_t* depth, std::uint16_t* first,
                   std::uint16_t* stride) {
  Lanes landing[kDirectionCount];
  for (int d = 0; d < kDirectionCount; ++d) {
    landing[d] = Lanes{scalar_landing[d], scalar_landing[d]};
  }
  int used = 0;
  for (int g = 0; g < count; g += kLanes) {
    const bool pair = g + 1 < count;
    const Lanes group{origins[g], pair ? origins[g + 1] : 0};
    std::uint8_t lane_depth[kLanes];
    const int layers = FillGroup(landing, group, out + used, lane_depth);
    for (int i = 0; i < kLanes && g + i < count; ++i) {
      depth[g + i] = lane_depth[i];
      first[g + i] = static_cast<std::uint16_t>(used + i);
      stride[g + i] = kLanes;
    }
    used += kLanes * layers;
  }
  return used;
}

}  // namespace halma
