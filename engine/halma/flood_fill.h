#ifndef HALMA_FLOOD_FILL_H_
#define HALMA_FLOOD_FILL_H_

#include <cstdint>

#include "halma/square.h"

namespace halma {

// The jump closures of several pieces of one parity class, breadth first.
//
// `landing[d]` holds the empty squares of the class's 8x8 grid that a hop in
// direction d can land on (it has a piece to jump over); the masks are zero
// wherever a shift would wrap around the grid, so one layer of the flood fill
// is eight shift-and-mask operations. Pieces are filled two at a time, side
// by side in the lanes of an SSE2 register (baseline x86-64), so that two
// flood fills cost the instructions of one. (Four lanes in AVX2 registers
// were measured too: no fewer instructions, since the deepest of four
// pieces sets the number of layers, and no faster.)
//
// For piece i (origin bit origins[i]), layer k (the squares whose fewest-hop
// count is k) is written to out[first[i] + (k - 1) * stride[i]] for k = 1 ..
// depth[i]. (Target lock is part of the landing masks.) Returns the number of
// words of `out` used, at most count_rounded_up_to_lanes * (deepest + 1).
int FloodFillClass(const std::uint64_t landing[kDirectionCount],
                   const std::uint64_t* origins, int count, std::uint64_t* out,
                   std::uint8_t* depth, std::uint16_t* first,
                   std::uint16_t* stride);

}  // namespace halma

#endif  // HALMA_FLOOD_FILL_H_
