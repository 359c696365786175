// The flood-fill kernels (engine/halma/flood_fill.h) against a plain
// breadth-first search, on random masks: every kernel this CPU can run must
// give the same layers, lane by lane. docs/rules.md section 3: the fewest hops
// of a jump move is the layer its destination first appears in.
#include "halma/flood_fill.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <random>
#include <vector>

#include "gtest/gtest.h"
#include "halma/bitboard.h"

namespace halma {
namespace {

// One hop from every square of `from`, one direction at a time.
std::uint64_t OneHop(const std::uint64_t landing[kDirectionCount],
                     std::uint64_t from) {
  std::uint64_t to = 0;
  for (int d = 0; d < kDirectionCount; ++d) {
    const int shift = GridShift(d);
    to |= (shift >= 0 ? from << shift : from >> -shift) & landing[d];
  }
  return to;
}

// Layers 1.. of a breadth-first search from `origin`.
std::vector<std::uint64_t> Layers(const std::uint64_t landing[kDirectionCount],
                                  std::uint64_t origin) {
  std::vector<std::uint64_t> layers;
  std::uint64_t seen = origin, frontier = origin;
  for (;;) {
    frontier = OneHop(landing, frontier) & ~seen;
    if (frontier == 0) return layers;
    layers.push_back(frontier);
    seen |= frontier;
  }
}

// Restores the kernel a test pinned.
class KernelScope {
 public:
  KernelScope() : saved_(ActiveFloodFillKernel()) {}
  ~KernelScope() { SetFloodFillKernel(saved_); }

 private:
  FloodFillKernel saved_;
};

void CheckKernel(FloodFillKernel kernel, int remaining) {
  KernelScope scope;
  ASSERT_TRUE(SetFloodFillKernel(kernel));
  ASSERT_EQ(ActiveFloodFillKernel(), kernel);
  const int lanes = FloodFillGroupLanes(remaining);
  ASSERT_LE(lanes, kMaxFloodFillLanes);
  std::mt19937_64 rng(20261129);
  std::vector<std::uint64_t> out(kMaxFloodFillLanes * 65);
  for (int trial = 0; trial < 4000; ++trial) {
    // Dense masks give long chains, sparse ones short chains and idle lanes.
    const int density = 1 + trial % 3;
    std::uint64_t landing[4][kDirectionCount];
    for (auto& cls : landing) {
      for (std::uint64_t& mask : cls) {
        mask = rng();
        for (int i = 1; i < density; ++i) mask |= rng();
      }
    }
    std::uint64_t origins[kMaxFloodFillLanes] = {};
    std::uint8_t classes[kMaxFloodFillLanes] = {};
    for (int i = 0; i < lanes; ++i) {
      classes[i] = static_cast<std::uint8_t>(rng() % 4);
      // About one lane in six is idle.
      origins[i] = rng() % 6 == 0 ? 0 : std::uint64_t{1} << (rng() % 64);
    }
    // The kernels take the masks direction-major.
    std::uint64_t by_direction[kDirectionCount][4];
    for (int c = 0; c < 4; ++c) {
      for (int d = 0; d < kDirectionCount; ++d) {
        by_direction[d][c] = landing[c][d];
      }
    }
    const int depth =
        FloodFillGroup(by_direction, origins, classes, lanes, out.data());
    int deepest = 0;
    for (int i = 0; i < lanes; ++i) {
      const std::vector<std::uint64_t> want =
          origins[i] == 0 ? std::vector<std::uint64_t>{}
                          : Layers(landing[classes[i]], origins[i]);
      deepest = std::max(deepest, static_cast<int>(want.size()));
      for (int k = 1; k <= depth; ++k) {
        const std::uint64_t expected =
            k <= static_cast<int>(want.size()) ? want[k - 1] : 0;
        ASSERT_EQ(out[lanes * (k - 1) + i], expected)
            << FloodFillKernelName(kernel) << " lanes " << lanes << " trial "
            << trial << " lane " << i << " layer " << k;
      }
    }
    ASSERT_EQ(depth, deepest) << "trial " << trial;
  }
}

// FloodFillPieces on `count` pieces, every piece against its own search,
// through the group records. With grid_rows <= 4 the masks and origins keep
// to rows 0..3 (bits 0..31), as on boards up to 8x8, where the AVX2 kernel
// runs 32-bit lanes.
void CheckPieces(FloodFillKernel kernel, int grid_rows) {
  KernelScope scope;
  ASSERT_TRUE(SetFloodFillKernel(kernel));
  const std::uint64_t rows =
      grid_rows >= 8 ? ~0ULL : (1ULL << (8 * grid_rows)) - 1;
  std::mt19937_64 rng(20261201 + grid_rows);
  constexpr int kMaxPieces = 40;
  std::vector<std::uint64_t> out(kMaxFloodFillLanes * 65 * kMaxPieces);
  for (int trial = 0; trial < 1000; ++trial) {
    const int density = 1 + trial % 3;
    std::uint64_t landing[4][kDirectionCount];
    std::uint64_t by_direction[kDirectionCount][4];
    for (int c = 0; c < 4; ++c) {
      for (int d = 0; d < kDirectionCount; ++d) {
        std::uint64_t mask = rng();
        for (int i = 1; i < density; ++i) mask |= rng();
        landing[c][d] = by_direction[d][c] = mask & rows;
      }
    }
    const int count = 1 + static_cast<int>(rng() % kMaxPieces);
    std::vector<std::uint64_t> origins(count + kMaxFloodFillLanes - 1, 0);
    std::vector<std::uint8_t> classes(count + kMaxFloodFillLanes - 1, 0);
    for (int j = 0; j < count; ++j) {
      classes[j] = static_cast<std::uint8_t>(rng() % 4);
      origins[j] = (std::uint64_t{1} << (rng() % 64)) & rows;
      if (origins[j] == 0) origins[j] = 1;
    }
    FloodFillGroupInfo groups[kMaxPieces];
    const int group_count =
        FloodFillPieces(by_direction, origins.data(), classes.data(), count,
                        grid_rows, out.data(), groups);
    int next_piece = 0;
    for (int g = 0; g < group_count; ++g) {
      const FloodFillGroupInfo& group = groups[g];
      ASSERT_EQ(group.first_piece, next_piece) << "trial " << trial;
      ASSERT_LE(group.lanes, kMaxFloodFillLanes);
      next_piece += group.lanes;
      int deepest = 0;
      for (int i = 0; i < group.lanes && group.first_piece + i < count; ++i) {
        const int j = group.first_piece + i;
        const std::vector<std::uint64_t> want =
            Layers(landing[classes[j]], origins[j]);
        deepest = std::max(deepest, static_cast<int>(want.size()));
        for (int k = 1; k <= group.depth; ++k) {
          const std::uint64_t expected =
              k <= static_cast<int>(want.size()) ? want[k - 1] : 0;
          ASSERT_EQ(out[group.first_word + group.lanes * (k - 1) + i], expected)
              << FloodFillKernelName(kernel) << " rows " << grid_rows
              << " trial " << trial << " piece " << j << " layer " << k;
        }
      }
      ASSERT_EQ(group.depth, deepest) << "trial " << trial;
    }
    ASSERT_GE(next_piece, count) << "trial " << trial;
  }
}

TEST(FloodFill, PiecesMatchBreadthFirstSearch) {
  CheckPieces(FloodFillKernel::kBaseline, 8);
  CheckPieces(FloodFillKernel::kBaseline, 4);
  KernelScope scope;
  if (!SetFloodFillKernel(FloodFillKernel::kAvx2)) {
    GTEST_SKIP() << "this CPU has no AVX2";
  }
  CheckPieces(FloodFillKernel::kAvx2, 8);
  CheckPieces(FloodFillKernel::kAvx2, 5);  // Twelve lanes for 9-12 pieces.
  CheckPieces(FloodFillKernel::kAvx2, 4);  // 32-bit lanes.
  CheckPieces(FloodFillKernel::kAvx2, 2);
}

TEST(FloodFill, BaselineKernelMatchesBreadthFirstSearch) {
  CheckKernel(FloodFillKernel::kBaseline, 4);
  CheckKernel(FloodFillKernel::kBaseline, 9);
}

TEST(FloodFill, Avx2KernelMatchesBreadthFirstSearchWhereAvailable) {
  KernelScope scope;
  if (!SetFloodFillKernel(FloodFillKernel::kAvx2)) {
    GTEST_SKIP() << "this CPU has no AVX2";
  }
  CheckKernel(FloodFillKernel::kAvx2, 3);  // One register, four lanes.
  CheckKernel(FloodFillKernel::kAvx2, 9);  // Two registers, eight lanes.
}

TEST(FloodFill, BestKernelIsActiveByDefault) {
#if defined(__x86_64__)
  __builtin_cpu_init();
  // The AVX2 paths also use BMI1 and POPCNT (flood_fill.h).
  const bool avx2 = __builtin_cpu_supports("avx2") &&
                    __builtin_cpu_supports("bmi") &&
                    __builtin_cpu_supports("popcnt");
#else
  const bool avx2 = false;
#endif
  EXPECT_EQ(ActiveFloodFillKernel(),
            avx2 ? FloodFillKernel::kAvx2 : FloodFillKernel::kBaseline);
  EXPECT_EQ(FloodFillGroupLanes(9), avx2 ? 8 : 4);
  EXPECT_EQ(FloodFillGroupLanes(5), avx2 ? 8 : 4);
  EXPECT_EQ(FloodFillGroupLanes(4), 4);
  EXPECT_EQ(FloodFillGroupLanes(1), 4);
}

}  // namespace
}  // namespace halma
