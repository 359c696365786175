// The flood-fill kernels (engine/halma/flood_fill.h) against a plain
// breadth-first search, on random masks: every kernel this CPU can run must
// give the same layers, lane by lane. RULES.md section 3.3: the fewest hops
// of a jump move is the layer its destination first appears in.
#include "halma/flood_fill.h"

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
  const bool avx2 = __builtin_cpu_supports("avx2");
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
