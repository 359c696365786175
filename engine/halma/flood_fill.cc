#include "halma/flood_fill.h"

#include "halma/bitboard.h"

#ifdef HALMA_HAVE_AVX2_KERNEL
#include <immintrin.h>
#endif

namespace halma {
namespace {

// Baseline: four lanes in two 128-bit vectors (SSE2 on x86-64), two
// independent dependency chains.
using Lanes = std::uint64_t __attribute__((vector_size(16)));
// Narrow grids (flood_fill.h): four 32-bit lanes per vector.
using NarrowLanes = std::uint32_t __attribute__((vector_size(16)));

template <typename V>
inline V Expand(const V* landing, V f) {
  return ((ShiftBits<GridShift(0)>(f) & landing[0]) |
          (ShiftBits<GridShift(1)>(f) & landing[1])) |
         ((ShiftBits<GridShift(2)>(f) & landing[2]) |
          (ShiftBits<GridShift(3)>(f) & landing[3])) |
         (((ShiftBits<GridShift(4)>(f) & landing[4]) |
           (ShiftBits<GridShift(5)>(f) & landing[5])) |
          ((ShiftBits<GridShift(6)>(f) & landing[6]) |
           (ShiftBits<GridShift(7)>(f) & landing[7])));
}

int FloodFillQuadBaseline(const std::uint64_t (*landing)[4],
                          const std::uint64_t origins[4],
                          const std::uint8_t classes[4], std::uint64_t* out) {
  Lanes mask_a[kDirectionCount], mask_b[kDirectionCount];
  for (int d = 0; d < kDirectionCount; ++d) {
    mask_a[d] = Lanes{landing[d][classes[0]], landing[d][classes[1]]};
    mask_b[d] = Lanes{landing[d][classes[2]], landing[d][classes[3]]};
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

// Eight 32-bit lanes in two vectors, for grids of up to four rows.
int FloodFillNarrowBaseline(const std::uint64_t (*landing)[4],
                            const std::uint64_t origins[8],
                            const std::uint8_t classes[8], std::uint64_t* out) {
  const auto lanes = [](const std::uint64_t* words, const std::uint8_t* cls) {
    return NarrowLanes{static_cast<std::uint32_t>(words[cls[0]]),
                       static_cast<std::uint32_t>(words[cls[1]]),
                       static_cast<std::uint32_t>(words[cls[2]]),
                       static_cast<std::uint32_t>(words[cls[3]])};
  };
  NarrowLanes mask_a[kDirectionCount], mask_b[kDirectionCount];
  for (int d = 0; d < kDirectionCount; ++d) {
    mask_a[d] = lanes(landing[d], classes);
    mask_b[d] = lanes(landing[d], classes + 4);
  }
  constexpr std::uint8_t kInOrder[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  NarrowLanes frontier_a = lanes(origins, kInOrder);
  NarrowLanes frontier_b = lanes(origins, kInOrder + 4);
  NarrowLanes visited_a = frontier_a, visited_b = frontier_b;
  // Interleaved with zeros, four lanes are two 64-bit words.
  const NarrowLanes zero{};
  const auto widen = [&zero](NarrowLanes v, std::uint64_t* words) {
    // __builtin_shufflevector: both GCC (12 and later) and clang have it.
    const NarrowLanes low = __builtin_shufflevector(v, zero, 0, 4, 1, 5);
    const NarrowLanes high = __builtin_shufflevector(v, zero, 2, 6, 3, 7);
    __builtin_memcpy(words, &low, sizeof low);
    __builtin_memcpy(words + 2, &high, sizeof high);
  };
  int k = 0;
  for (;;) {
    const NarrowLanes next_a = Expand(mask_a, frontier_a) & ~visited_a;
    const NarrowLanes next_b = Expand(mask_b, frontier_b) & ~visited_b;
    const NarrowLanes any = next_a | next_b;
    Lanes any64;
    __builtin_memcpy(&any64, &any, sizeof any);
    if ((any64[0] | any64[1]) == 0) return k;
    widen(next_a, out + 8 * k);
    widen(next_b, out + 8 * k + 4);
    ++k;
    visited_a |= next_a;
    visited_b |= next_b;
    frontier_a = next_a;
    frontier_b = next_b;
  }
}

int FloodFillPiecesBaseline(const std::uint64_t (*landing)[4],
                            const std::uint64_t* origins,
                            const std::uint8_t* classes, int count,
                            int grid_rows, std::uint64_t* out,
                            FloodFillGroupInfo* groups) {
  // Boards up to 8x8: eight 32-bit lanes a group, else four 64-bit ones.
  // (Eight 64-bit lanes in four vectors were measured 3% faster on 10x10
  // and 3-10% slower on 16x16.)
  const int lanes = grid_rows <= 4 ? 8 : 4;
  int n = 0, used = 0;
  for (int g = 0; g < count; g += lanes) {
    const int layers = lanes == 8
                           ? FloodFillNarrowBaseline(landing, origins + g,
                                                     classes + g, out + used)
                           : FloodFillQuadBaseline(landing, origins + g,
                                                   classes + g, out + used);
    groups[n++] = FloodFillGroupInfo{
        static_cast<std::uint16_t>(g), static_cast<std::uint16_t>(used),
        static_cast<std::uint8_t>(lanes), static_cast<std::uint8_t>(layers)};
    used += lanes * layers;
  }
  return n;
}

#ifdef HALMA_HAVE_AVX2_KERNEL

template <int kShift>
HALMA_AVX2_TARGET inline __m256i Shift4(__m256i f) {
  if constexpr (kShift >= 0) {
    return _mm256_slli_epi64(f, kShift);
  } else {
    return _mm256_srli_epi64(f, -kShift);
  }
}

template <int kDir>
HALMA_AVX2_TARGET inline __m256i Hop4(const __m256i* landing, __m256i f) {
  return _mm256_and_si256(Shift4<GridShift(kDir)>(f), landing[kDir]);
}

HALMA_AVX2_TARGET inline __m256i Reach4(const __m256i* mask, __m256i f) {
  return _mm256_or_si256(
      _mm256_or_si256(_mm256_or_si256(Hop4<0>(mask, f), Hop4<1>(mask, f)),
                      _mm256_or_si256(Hop4<2>(mask, f), Hop4<3>(mask, f))),
      _mm256_or_si256(_mm256_or_si256(Hop4<4>(mask, f), Hop4<5>(mask, f)),
                      _mm256_or_si256(Hop4<6>(mask, f), Hop4<7>(mask, f))));
}

// The masks of four lanes: word classes[i] of each direction's four class
// words into lane i, one permute per direction. The permute moves 32-bit
// halves, so class c becomes the index pair (2c, 2c + 1).
HALMA_AVX2_TARGET inline void LaneMasks(const std::uint64_t (*landing)[4],
                                        const std::uint8_t classes[4],
                                        __m256i mask[kDirectionCount]) {
  std::uint32_t packed;
  __builtin_memcpy(&packed, classes, sizeof packed);
  const __m256i cls =
      _mm256_cvtepu8_epi64(_mm_cvtsi32_si128(static_cast<int>(packed)));
  const __m256i index =
      _mm256_add_epi32(_mm256_shuffle_epi32(_mm256_add_epi64(cls, cls), 0xA0),
                       _mm256_set_epi32(1, 0, 1, 0, 1, 0, 1, 0));
#pragma GCC unroll 8
  for (int d = 0; d < kDirectionCount; ++d) {
    mask[d] = _mm256_permutevar8x32_epi32(
        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(landing[d])),
        index);
  }
}

// Four lanes in one 256-bit register, for the last few pieces.
HALMA_AVX2_TARGET inline int FloodFillQuadAvx2(
    const std::uint64_t (*landing)[4], const std::uint64_t origins[4],
    const std::uint8_t classes[4], std::uint64_t* out) {
  __m256i mask[kDirectionCount];
  LaneMasks(landing, classes, mask);
  __m256i frontier =
      _mm256_loadu_si256(reinterpret_cast<const __m256i*>(origins));
  __m256i visited = frontier;
  int k = 0;
  for (;;) {
    const __m256i next = _mm256_andnot_si256(visited, Reach4(mask, frontier));
    if (_mm256_testz_si256(next, next)) return k;
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 4 * k), next);
    ++k;
    visited = _mm256_or_si256(visited, next);
    frontier = next;
  }
}

// Eight lanes in two 256-bit registers: two independent chains.
HALMA_AVX2_TARGET inline int FloodFillOctAvx2(const std::uint64_t (*landing)[4],
                                              const std::uint64_t origins[8],
                                              const std::uint8_t classes[8],
                                              std::uint64_t* out) {
  __m256i mask_a[kDirectionCount], mask_b[kDirectionCount];
  LaneMasks(landing, classes, mask_a);
  LaneMasks(landing, classes + 4, mask_b);
  __m256i frontier_a =
      _mm256_loadu_si256(reinterpret_cast<const __m256i*>(origins));
  __m256i frontier_b =
      _mm256_loadu_si256(reinterpret_cast<const __m256i*>(origins + 4));
  __m256i visited_a = frontier_a, visited_b = frontier_b;
  int k = 0;
  for (;;) {
    const __m256i next_a =
        _mm256_andnot_si256(visited_a, Reach4(mask_a, frontier_a));
    const __m256i next_b =
        _mm256_andnot_si256(visited_b, Reach4(mask_b, frontier_b));
    const __m256i any = _mm256_or_si256(next_a, next_b);
    if (_mm256_testz_si256(any, any)) return k;
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 8 * k), next_a);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 8 * k + 4), next_b);
    ++k;
    visited_a = _mm256_or_si256(visited_a, next_a);
    visited_b = _mm256_or_si256(visited_b, next_b);
    frontier_a = next_a;
    frontier_b = next_b;
  }
}

// Boards of up to 8x8 have class grids of up to four rows, bits 0..31 of
// the grid word, so a lane needs only 32 bits: eight lanes per register,
// twice as many per instruction. Shifts that carry a bit past bit 31 drop
// it, which is right, as every square there is off the board.
template <int kShift>
HALMA_AVX2_TARGET inline __m256i Shift8(__m256i f) {
  if constexpr (kShift >= 0) {
    return _mm256_slli_epi32(f, kShift);
  } else {
    return _mm256_srli_epi32(f, -kShift);
  }
}

template <int kDir>
HALMA_AVX2_TARGET inline __m256i Hop8(const __m256i* landing, __m256i f) {
  return _mm256_and_si256(Shift8<GridShift(kDir)>(f), landing[kDir]);
}

HALMA_AVX2_TARGET inline __m256i Reach8(const __m256i* mask, __m256i f) {
  return _mm256_or_si256(
      _mm256_or_si256(_mm256_or_si256(Hop8<0>(mask, f), Hop8<1>(mask, f)),
                      _mm256_or_si256(Hop8<2>(mask, f), Hop8<3>(mask, f))),
      _mm256_or_si256(_mm256_or_si256(Hop8<4>(mask, f), Hop8<5>(mask, f)),
                      _mm256_or_si256(Hop8<6>(mask, f), Hop8<7>(mask, f))));
}

// The 32-bit masks of eight lanes: the low half (index 2c) of class c's
// word.
HALMA_AVX2_TARGET inline void NarrowLaneMasks(const std::uint64_t (*landing)[4],
                                              const std::uint8_t classes[8],
                                              __m256i mask[kDirectionCount]) {
  const __m256i cls = _mm256_cvtepu8_epi32(
      _mm_loadl_epi64(reinterpret_cast<const __m128i*>(classes)));
  const __m256i index = _mm256_add_epi32(cls, cls);
#pragma GCC unroll 8
  for (int d = 0; d < kDirectionCount; ++d) {
    mask[d] = _mm256_permutevar8x32_epi32(
        _mm256_loadu_si256(reinterpret_cast<const __m256i*>(landing[d])),
        index);
  }
}

// Eight 64-bit words with their high halves zero, as eight 32-bit lanes.
HALMA_AVX2_TARGET inline __m256i Narrow(const std::uint64_t* words) {
  const __m256i low_halves = _mm256_set_epi32(6, 4, 2, 0, 6, 4, 2, 0);
  return _mm256_blend_epi32(
      _mm256_permutevar8x32_epi32(
          _mm256_loadu_si256(reinterpret_cast<const __m256i*>(words)),
          low_halves),
      _mm256_permutevar8x32_epi32(
          _mm256_loadu_si256(reinterpret_cast<const __m256i*>(words + 4)),
          low_halves),
      0xF0);
}

// Eight 32-bit lanes back as eight 64-bit words.
HALMA_AVX2_TARGET inline void Widen(__m256i lanes, std::uint64_t* words) {
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(words),
                      _mm256_cvtepu32_epi64(_mm256_castsi256_si128(lanes)));
  _mm256_storeu_si256(
      reinterpret_cast<__m256i*>(words + 4),
      _mm256_cvtepu32_epi64(_mm256_extracti128_si256(lanes, 1)));
}

HALMA_AVX2_TARGET inline int FloodFillNarrowOctAvx2(
    const std::uint64_t (*landing)[4], const std::uint64_t origins[8],
    const std::uint8_t classes[8], std::uint64_t* out) {
  __m256i mask[kDirectionCount];
  NarrowLaneMasks(landing, classes, mask);
  __m256i frontier = Narrow(origins);
  __m256i visited = frontier;
  int k = 0;
  for (;;) {
    const __m256i next = _mm256_andnot_si256(visited, Reach8(mask, frontier));
    if (_mm256_testz_si256(next, next)) return k;
    Widen(next, out + 8 * k);
    ++k;
    visited = _mm256_or_si256(visited, next);
    frontier = next;
  }
}

// Sixteen 32-bit lanes in two registers: two independent chains.
HALMA_AVX2_TARGET inline int FloodFillNarrowSixteenAvx2(
    const std::uint64_t (*landing)[4], const std::uint64_t origins[16],
    const std::uint8_t classes[16], std::uint64_t* out) {
  __m256i mask_a[kDirectionCount], mask_b[kDirectionCount];
  NarrowLaneMasks(landing, classes, mask_a);
  NarrowLaneMasks(landing, classes + 8, mask_b);
  __m256i frontier_a = Narrow(origins), frontier_b = Narrow(origins + 8);
  __m256i visited_a = frontier_a, visited_b = frontier_b;
  int k = 0;
  for (;;) {
    const __m256i next_a =
        _mm256_andnot_si256(visited_a, Reach8(mask_a, frontier_a));
    const __m256i next_b =
        _mm256_andnot_si256(visited_b, Reach8(mask_b, frontier_b));
    const __m256i any = _mm256_or_si256(next_a, next_b);
    if (_mm256_testz_si256(any, any)) return k;
    Widen(next_a, out + 16 * k);
    Widen(next_b, out + 16 * k + 8);
    ++k;
    visited_a = _mm256_or_si256(visited_a, next_a);
    visited_b = _mm256_or_si256(visited_b, next_b);
    frontier_a = next_a;
    frontier_b = next_b;
  }
}

// Twelve lanes in three 256-bit registers: three independent chains.
HALMA_AVX2_TARGET inline int FloodFillTwelveAvx2(
    const std::uint64_t (*landing)[4], const std::uint64_t origins[12],
    const std::uint8_t classes[12], std::uint64_t* out) {
  __m256i mask_a[kDirectionCount], mask_b[kDirectionCount],
      mask_c[kDirectionCount];
  LaneMasks(landing, classes, mask_a);
  LaneMasks(landing, classes + 4, mask_b);
  LaneMasks(landing, classes + 8, mask_c);
  __m256i frontier_a =
      _mm256_loadu_si256(reinterpret_cast<const __m256i*>(origins));
  __m256i frontier_b =
      _mm256_loadu_si256(reinterpret_cast<const __m256i*>(origins + 4));
  __m256i frontier_c =
      _mm256_loadu_si256(reinterpret_cast<const __m256i*>(origins + 8));
  __m256i visited_a = frontier_a, visited_b = frontier_b,
          visited_c = frontier_c;
  int k = 0;
  for (;;) {
    const __m256i next_a =
        _mm256_andnot_si256(visited_a, Reach4(mask_a, frontier_a));
    const __m256i next_b =
        _mm256_andnot_si256(visited_b, Reach4(mask_b, frontier_b));
    const __m256i next_c =
        _mm256_andnot_si256(visited_c, Reach4(mask_c, frontier_c));
    const __m256i any =
        _mm256_or_si256(_mm256_or_si256(next_a, next_b), next_c);
    if (_mm256_testz_si256(any, any)) return k;
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 12 * k), next_a);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 12 * k + 4), next_b);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + 12 * k + 8), next_c);
    ++k;
    visited_a = _mm256_or_si256(visited_a, next_a);
    visited_b = _mm256_or_si256(visited_b, next_b);
    visited_c = _mm256_or_si256(visited_c, next_c);
    frontier_a = next_a;
    frontier_b = next_b;
    frontier_c = next_c;
  }
}

HALMA_AVX2_TARGET int FloodFillGroupAvx2(const std::uint64_t (*landing)[4],
                                         const std::uint64_t* origins,
                                         const std::uint8_t* classes, int lanes,
                                         std::uint64_t* out) {
  return lanes == 8 ? FloodFillOctAvx2(landing, origins, classes, out)
                    : FloodFillQuadAvx2(landing, origins, classes, out);
}

// How FloodFillPiecesAvx2 forms groups, by the rows of the class grids.
enum class Grid {
  kNarrow,  // Up to 4 rows: 32-bit lanes, 8 or 16 per group.
  kSmall,   // 5 rows: 4, 8 or 12 lanes.
  kLarge,   // More: 4 or 8 lanes.
};

template <Grid kGrid>
HALMA_AVX2_TARGET int FloodFillPiecesAvx2(const std::uint64_t (*landing)[4],
                                          const std::uint64_t* origins,
                                          const std::uint8_t* classes,
                                          int count, std::uint64_t* out,
                                          FloodFillGroupInfo* groups) {
  // One register while it holds the remaining pieces, else two: a lane
  // idles at about the cost of a live one. On 5-row grids, 9 to 12 pieces
  // take three registers rather than two groups: the chains are short
  // there, so the second group's mispredicted exit costs more than the
  // passes the shallower pieces idle through (measured; on 16x16 it is the
  // other way round).
  int n = 0, used = 0;
  for (int g = 0; g < count;) {
    const int left = count - g;
    int lanes, layers;
    if constexpr (kGrid == Grid::kNarrow) {
      lanes = left > 8 ? 16 : 8;
      layers = left > 8 ? FloodFillNarrowSixteenAvx2(landing, origins + g,
                                                     classes + g, out + used)
                        : FloodFillNarrowOctAvx2(landing, origins + g,
                                                 classes + g, out + used);
    } else {
      if (kGrid == Grid::kSmall && left > 8 && left <= 12) {
        lanes = 12;
        layers =
            FloodFillTwelveAvx2(landing, origins + g, classes + g, out + used);
      } else if (left > 4) {
        lanes = 8;
        layers =
            FloodFillOctAvx2(landing, origins + g, classes + g, out + used);
      } else {
        lanes = 4;
        layers =
            FloodFillQuadAvx2(landing, origins + g, classes + g, out + used);
      }
    }
    groups[n++] = FloodFillGroupInfo{
        static_cast<std::uint16_t>(g), static_cast<std::uint16_t>(used),
        static_cast<std::uint8_t>(lanes), static_cast<std::uint8_t>(layers)};
    used += lanes * layers;
    g += lanes;
  }
  return n;
}

bool CpuHasAvx2() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi") &&
         __builtin_cpu_supports("popcnt");
}

#endif  // HALMA_HAVE_AVX2_KERNEL

FloodFillKernel BestKernel() {
#ifdef HALMA_HAVE_AVX2_KERNEL
  if (CpuHasAvx2()) return FloodFillKernel::kAvx2;
#endif
  return FloodFillKernel::kBaseline;
}

FloodFillKernel active_kernel = BestKernel();

}  // namespace

int FloodFillGroupLanes(int remaining) {
  return active_kernel == FloodFillKernel::kAvx2 && remaining > 4 ? 8 : 4;
}

int FloodFillGroup(const std::uint64_t (*landing)[4],
                   const std::uint64_t* origins, const std::uint8_t* classes,
                   int lanes, std::uint64_t* out) {
#ifdef HALMA_HAVE_AVX2_KERNEL
  if (active_kernel == FloodFillKernel::kAvx2) {
    return FloodFillGroupAvx2(landing, origins, classes, lanes, out);
  }
#endif
  return FloodFillQuadBaseline(landing, origins, classes, out);
}

int FloodFillPieces(const std::uint64_t (*landing)[4],
                    const std::uint64_t* origins, const std::uint8_t* classes,
                    int count, int grid_rows, std::uint64_t* out,
                    FloodFillGroupInfo* groups) {
#ifdef HALMA_HAVE_AVX2_KERNEL
  if (active_kernel == FloodFillKernel::kAvx2) {
    if (grid_rows <= 4) {
      return FloodFillPiecesAvx2<Grid::kNarrow>(landing, origins, classes,
                                                count, out, groups);
    }
    if (grid_rows == 5) {
      return FloodFillPiecesAvx2<Grid::kSmall>(landing, origins, classes, count,
                                               out, groups);
    }
    return FloodFillPiecesAvx2<Grid::kLarge>(landing, origins, classes, count,
                                             out, groups);
  }
#endif
  return FloodFillPiecesBaseline(landing, origins, classes, count, grid_rows,
                                 out, groups);
}

FloodFillKernel ActiveFloodFillKernel() { return active_kernel; }

bool SetFloodFillKernel(FloodFillKernel kernel) {
#ifdef HALMA_HAVE_AVX2_KERNEL
  if (kernel == FloodFillKernel::kAvx2 && !CpuHasAvx2()) return false;
#else
  if (kernel == FloodFillKernel::kAvx2) return false;
#endif
  active_kernel = kernel;
  return true;
}

const char* FloodFillKernelName(FloodFillKernel kernel) {
  return kernel == FloodFillKernel::kAvx2 ? "avx2" : "baseline";
}

}  // namespace halma
