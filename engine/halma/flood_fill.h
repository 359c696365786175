#ifndef HALMA_FLOOD_FILL_H_
#define HALMA_FLOOD_FILL_H_

#include <cstdint>

#include "halma/square.h"

namespace halma {

// Jump closures, breadth first, four pieces at a time.
//
// A piece's jump chain stays in its parity class, an 8x8 grid in one word
// (see square.h). `landing[c][d]` holds the empty squares of class c that a
// hop in direction d can land on (it has a piece to jump over); the masks
// are zero wherever a shift would wrap around the grid, so one layer of the
// flood fill is eight shift-and-mask operations.
//
// Four lanes run in lockstep in two SSE2 registers (baseline x86-64), each
// with the masks of its own piece's class, so pieces of different classes
// share a group and the two registers give the CPU two independent chains.
// Lane i starts from origins[i] (one bit; 0 leaves the lane idle) in class
// classes[i]. Layer k of lane i (the squares whose fewest-hop count is k) is
// written to out[4 * (k - 1) + i]. Returns the number of layers of the
// deepest lane; a shallower lane's layers beyond its own depth are zero.
int FloodFillQuad(const std::uint64_t (*landing)[kDirectionCount],
                  const std::uint64_t origins[4], const std::uint8_t classes[4],
                  std::uint64_t* out);

}  // namespace halma

#endif  // HALMA_FLOOD_FILL_H_
