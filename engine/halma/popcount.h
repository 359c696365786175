// Population counts of the engine's bit sets, with the popcnt instruction on
// the CPUs that have it, chosen once for every caller.
//
// The build targets any x86-64 CPU (plain -O2, no -march), where
// std::popcount compiles to a call to a library routine of about 15
// instructions per word. Code that counts bits in bulk (CountBits below,
// MoveSet::Count, perft's last ply) is compiled twice, once with
// HALMA_POPCNT_TARGET, where std::popcount is the instruction, and once
// without, and calls the one that CpuHasPopcnt chooses: CPUID is read once,
// when the first count is made (at start-up in practice), and each caller
// keeps its choice in a function pointer. One binary for any x86-64 CPU,
// and the popcnt code on every CPU made since about 2008. (GCC's
// target_clones would do the same through an ifunc, but Clang 14 mishandles
// it on member functions, and an ifunc resolver runs before ThreadSanitizer
// is ready.)
#ifndef HALMA_POPCOUNT_H_
#define HALMA_POPCOUNT_H_

#include <bit>
#include <cstdint>

#if defined(__x86_64__) || defined(__i386__)
#define HALMA_POPCNT_TARGET __attribute__((target("popcnt")))
#else
#define HALMA_POPCNT_TARGET
#endif

namespace halma {

// Whether this CPU has the popcnt instruction (CPUID, read once).
bool CpuHasPopcnt();

// Picks the popcnt build of a bulk count or the plain one, once per
// caller: `static const auto count = PopcntChoice(WithPopcnt, Plain);`.
template <typename Fn>
Fn PopcntChoice(Fn with_popcnt, Fn plain) {
  return CpuHasPopcnt() ? with_popcnt : plain;
}

// The set bits of words[0..count-1].
int CountBits(const std::uint64_t* words, int count);

// The set bits of a 4-bit set (SeatSet), without a library call on any CPU.
inline constexpr int CountBits4(unsigned bits) {
  return static_cast<int>((0x4332322132212110ULL >> ((bits & 15) * 4)) & 15);
}

}  // namespace halma

#endif  // HALMA_POPCOUNT_H_
