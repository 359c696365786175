#ifndef HALMA_FLOOD_FILL_H_
#define HALMA_FLOOD_FILL_H_

#include <cstdint>

#include "halma/square.h"

namespace halma {

// Jump closures, breadth first, several pieces at a time.
//
// A piece's jump chain stays in its parity class, an 8x8 grid in one word
// (see square.h). `landing[c][d]` holds the empty squares of class c that a
// hop in direction d can land on (it has a piece to jump over); the masks
// are zero wherever a shift would wrap around the grid, so one layer of the
// flood fill is eight shift-and-mask operations.
//
// The pieces of a group (its lanes) run in lockstep, each with the masks of
// its own piece's class, so pieces of different classes share a group. Lane
// i starts from origins[i] (one bit; 0 leaves the lane idle) in class
// classes[i]. With L lanes, layer k of lane i (the squares whose fewest-hop
// count is k) is written to out[L * (k - 1) + i]. Returns the number of
// layers of the deepest lane; a shallower lane's layers beyond its own depth
// are zero. A group ends with a data-dependent branch, which the CPU
// mispredicts, so the fewer groups the better, as long as few lanes idle.
//
// `lanes` must be FloodFillGroupLanes(remaining) for the pieces left.
int FloodFillGroup(const std::uint64_t (*landing)[kDirectionCount],
                   const std::uint64_t* origins, const std::uint8_t* classes,
                   int lanes, std::uint64_t* out);
// The lanes of a group taken from `remaining` pieces: 4 with the baseline
// kernel (two SSE2 registers); with AVX2, 8 (two registers, two independent
// chains) while more than four remain, else 4 (one register).
int FloodFillGroupLanes(int remaining);
inline constexpr int kMaxFloodFillLanes = 8;

// How FloodFillGroup runs. The baseline kernel uses two SSE2 registers
// (every x86-64 CPU has SSE2; elsewhere the compiler's generic vectors).
// The AVX2 kernel holds four lanes per register in about the instructions
// SSE2 needs for two. It is compiled with a function attribute (the build
// stays plain -O2) and used only when the CPU reports AVX2, so one binary
// runs on any x86-64 CPU.
enum class FloodFillKernel { kBaseline, kAvx2 };

// The kernel in use: AVX2 when the CPU has it, else the baseline.
FloodFillKernel ActiveFloodFillKernel();
// Pins a kernel (for tests and benchmarks); false, and no change, when this
// CPU cannot run it. Not thread-safe: call before generating moves.
bool SetFloodFillKernel(FloodFillKernel kernel);
const char* FloodFillKernelName(FloodFillKernel kernel);

}  // namespace halma

#endif  // HALMA_FLOOD_FILL_H_
