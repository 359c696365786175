// The jump-closure kernel of move generation: the squares each piece's jump
// chains reach, layer by layer, several pieces at a time (SSE2 or AVX2,
// chosen at start-up).
#ifndef HALMA_FLOOD_FILL_H_
#define HALMA_FLOOD_FILL_H_

#include <cstdint>

#include "halma/square.h"

// The AVX2 code paths (this kernel and the mask preparation of movegen.cc)
// are compiled with a function attribute, so the build stays plain -O2 for
// any x86-64 CPU, and run only when the CPU reports AVX2, BMI1 and POPCNT
// (every AVX2 CPU has the other two; asking for them lets the compiler use
// tzcnt and popcnt there instead of library calls).
#if defined(__x86_64__) || defined(__i386__)
#define HALMA_HAVE_AVX2_KERNEL 1
#define HALMA_AVX2_TARGET __attribute__((target("avx2,bmi,popcnt")))
#endif

namespace halma {

// Jump closures, breadth first, several pieces at a time.
//
// A piece's jump chain stays in its parity class, an 8x8 grid in one word
// (see square.h). `landing[d][c]` holds the empty squares of class c that a
// hop in direction d can land on (it has a piece to jump over); the masks
// are zero wherever a shift would wrap around the grid, so one layer of the
// flood fill is eight shift-and-mask operations. The four classes of one
// direction are adjacent, so that a vector kernel gathers each lane's mask
// of a direction with one permute.
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
int FloodFillGroup(const std::uint64_t (*landing)[4],
                   const std::uint64_t* origins, const std::uint8_t* classes,
                   int lanes, std::uint64_t* out);
// The lanes of a group taken from `remaining` pieces: 4 with the baseline
// kernel (two SSE2 registers); with AVX2, 8 (two registers, two independent
// chains) while more than four remain, else 4 (one register).
int FloodFillGroupLanes(int remaining);
inline constexpr int kMaxFloodFillLanes = 16;

// One group of FloodFillPieces.
struct FloodFillGroupInfo {
  std::uint16_t first_piece;  // Index of its lane 0 in origins and classes.
  std::uint16_t first_word;   // Index of its layer 1, lane 0 in `out`.
  std::uint8_t lanes;
  std::uint8_t depth;  // Layers of its deepest lane.
};

// All `count` pieces, group after group, in one call so that the per-group
// work stays inside the kernel. Only rows 0..grid_rows - 1 of the class
// grids hold squares of the board; with at most four (boards up to 8x8) a
// lane needs 32 bits, and the kernels run twice the lanes per vector (8
// per AVX2 register, 4 per SSE2 one); with five, the AVX2 kernel may run
// three registers in a group.
// origins and classes need kMaxFloodFillLanes - 1 idle entries (origin 0,
// any class) after the last piece. Writes one FloodFillGroupInfo per group
// (the groups take the pieces in order) and returns the number of groups;
// the groups' layers follow each other in `out`, in the layout of
// FloodFillGroup, at most kMaxFloodFillLanes / 4 times the words of
// FloodFillGroupLanes groups.
int FloodFillPieces(const std::uint64_t (*landing)[4],
                    const std::uint64_t* origins, const std::uint8_t* classes,
                    int count, int grid_rows, std::uint64_t* out,
                    FloodFillGroupInfo* groups);

// How FloodFillGroup runs. The baseline kernel uses two SSE2 registers
// (every x86-64 CPU has SSE2; elsewhere the compiler's generic vectors).
// The AVX2 kernel holds four lanes per register in about the instructions
// SSE2 needs for two.
enum class FloodFillKernel { kBaseline, kAvx2 };

// The kernel in use: AVX2 when the CPU has it, else the baseline.
FloodFillKernel ActiveFloodFillKernel();
// Pins a kernel (for tests and benchmarks); false, and no change, when this
// CPU cannot run it. Not thread-safe: call before generating moves.
bool SetFloodFillKernel(FloodFillKernel kernel);
const char* FloodFillKernelName(FloodFillKernel kernel);

}  // namespace halma

#endif  // HALMA_FLOOD_FILL_H_
