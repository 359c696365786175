// Population counts of the engine's bit sets, with the popcnt instruction on
// the CPUs that have it, chosen once at start-up for every caller.
//
// The build targets any x86-64 CPU (plain -O2, no -march), where
// std::popcount compiles to a call to a library routine of about 15
// instructions per word. The functions declared with HALMA_POPCNT_CLONES are
// compiled twice, with and without popcnt (GCC's and Clang's
// target_clones), and the dynamic loader picks one when the program starts,
// from the CPU's CPUID bits (an ifunc): one binary for any x86-64 CPU, and
// the popcnt code on every CPU made since about 2008. Inside such a function
// std::popcount is the instruction; code that counts bits in bulk (the move
// count of a MoveSet, perft's last ply) is written as such a function, and
// the rest counts through CountBits.
#ifndef HALMA_POPCOUNT_H_
#define HALMA_POPCOUNT_H_

#include <bit>
#include <cstdint>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define HALMA_POPCNT_CLONES __attribute__((target_clones("popcnt", "default")))
#else
#define HALMA_POPCNT_CLONES
#endif

namespace halma {

// The set bits of words[0..count-1].
int CountBits(const std::uint64_t* words, int count);

// The set bits of a 4-bit set (SeatSet), without a library call on any CPU.
inline constexpr int CountBits4(unsigned bits) {
  return static_cast<int>((0x4332322132212110ULL >> ((bits & 15) * 4)) & 15);
}

}  // namespace halma

#endif  // HALMA_POPCOUNT_H_
