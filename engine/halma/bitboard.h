// A set of squares as four 64-bit words, one per parity class (square.h),
// with the bit operations and grid shifts move generation is built from.
#ifndef HALMA_BITBOARD_H_
#define HALMA_BITBOARD_H_

#include <bit>
#include <cstdint>
#include <type_traits>

#include "halma/popcount.h"
#include "halma/square.h"

namespace halma {

// A set of squares of the 16x16 frame: one 64-bit word per parity class.
struct Bitboard {
  std::uint64_t word[4] = {0, 0, 0, 0};

  constexpr bool Test(Square s) const { return (word[s >> 6] >> (s & 63)) & 1; }
  constexpr void Set(Square s) { word[s >> 6] |= std::uint64_t{1} << (s & 63); }
  constexpr void Clear(Square s) {
    word[s >> 6] &= ~(std::uint64_t{1} << (s & 63));
  }
  constexpr bool Any() const {
    return (word[0] | word[1] | word[2] | word[3]) != 0;
  }
  // With popcnt where the CPU has it (popcount.h).
  constexpr int Count() const {
    if (std::is_constant_evaluated()) {
      return std::popcount(word[0]) + std::popcount(word[1]) +
             std::popcount(word[2]) + std::popcount(word[3]);
    }
    return CountBits(word, 4);
  }
  friend constexpr Bitboard operator&(Bitboard a, const Bitboard& b) {
    for (int i = 0; i < 4; ++i) a.word[i] &= b.word[i];
    return a;
  }
  friend constexpr Bitboard operator|(Bitboard a, const Bitboard& b) {
    for (int i = 0; i < 4; ++i) a.word[i] |= b.word[i];
    return a;
  }
  friend constexpr Bitboard operator^(Bitboard a, const Bitboard& b) {
    for (int i = 0; i < 4; ++i) a.word[i] ^= b.word[i];
    return a;
  }
  constexpr Bitboard operator~() const {
    return Bitboard{{~word[0], ~word[1], ~word[2], ~word[3]}};
  }
  constexpr Bitboard& operator&=(const Bitboard& b) {
    return *this = *this & b;
  }
  constexpr Bitboard& operator|=(const Bitboard& b) {
    return *this = *this | b;
  }
  friend constexpr bool operator==(const Bitboard& a, const Bitboard& b) {
    return a.word[0] == b.word[0] && a.word[1] == b.word[1] &&
           a.word[2] == b.word[2] && a.word[3] == b.word[3];
  }
};

// Calls fn(square) for every square of `b`, in index order.
template <typename Fn>
inline void ForEachSquare(const Bitboard& b, Fn&& fn) {
  for (int cls = 0; cls < 4; ++cls) {
    for (std::uint64_t w = b.word[cls]; w != 0; w &= w - 1) {
      fn(FromClass(cls, std::countr_zero(w)));
    }
  }
}

// Shifts an 8x8 class grid by (dx, dy), each in -1..1, dropping what falls
// off the grid.
inline constexpr std::uint64_t kGridFileA = 0x0101010101010101ULL;
inline constexpr std::uint64_t kGridFileH = 0x8080808080808080ULL;

inline constexpr std::uint64_t ShiftGrid(std::uint64_t b, int dx, int dy) {
  if (dx > 0) b = (b << 1) & ~kGridFileA;
  if (dx < 0) b = (b >> 1) & ~kGridFileH;
  if (dy > 0) b <<= 8;
  if (dy < 0) b >>= 8;
  return b;
}

// A king move in direction d of a class grid as a bit shift, and a shift by
// a constant number of bits (positive: towards higher indices) of a grid
// word or of a vector of grid words. Callers mask what wraps around.
constexpr int GridShift(int d) { return 8 * kDirY[d] + kDirX[d]; }
template <int kShift, typename Bits>
inline constexpr Bits ShiftBits(Bits b) {
  if constexpr (kShift >= 0) {
    return b << kShift;
  } else {
    return b >> -kShift;
  }
}

}  // namespace halma

#endif  // HALMA_BITBOARD_H_
