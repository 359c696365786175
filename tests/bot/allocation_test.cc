// No allocation in a search (docs/bot.md, "Bounds"): this test binary
// replaces operator new with a counting one; after a workspace exists and
// has answered once, SuggestMove allocates nothing, at any budget, level,
// variant or number of candidates.
#include <atomic>
#include <cstdlib>
#include <new>

#include "gtest/gtest.h"
#include "halma/bot/levels.h"
#include "halma/bot/search.h"
#include "tests/bot/bot_test_util.h"

namespace {
std::atomic<long> allocations{0};
}  // namespace

// The replacements pair malloc with free; GCC cannot see that the replaced
// operator new is malloc.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void* operator new(std::size_t n) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t n) { return operator new(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  allocations.fetch_add(1, std::memory_order_relaxed);
  return std::malloc(n == 0 ? 1 : n);
}
void* operator new[](std::size_t n, const std::nothrow_t& t) noexcept {
  return operator new(n, t);
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

namespace halma::bot {
namespace {

TEST(AllocationTest, ASearchAllocatesNothing) {
  // The counter works.
  const long before_probe = allocations.load();
  ::operator delete(::operator new(8));
  ASSERT_EQ(allocations.load(), before_probe + 1);

  SearchWorkspace workspace;
  for (const auto& [name, variant] : bot_test::Variants()) {
    SCOPED_TRACE(name);
    const std::vector<Position> positions =
        bot_test::Playouts(variant, 1, 120, 17);
    std::vector<SearchOptions> requests;
    for (std::int64_t nodes : {1000, 60000}) {
      SearchOptions o;
      o.node_budget = nodes;
      o.candidates = 5;
      requests.push_back(o);
    }
    for (int level = kMinLevel; level <= 3; ++level) {
      SearchOptions o;
      o.level = level;
      requests.push_back(o);
    }
    // Once, so that the workspace has seen this variant (its evaluation
    // tables are rebuilt for a new variant, the one allocation a call may
    // make: a copy of the variant's specification).
    (void)SuggestMove(variant, positions[0], requests[0], &workspace);
    for (size_t i = 0; i < positions.size(); i += 11) {
      if (EvaluateStatus(variant, positions[i]).over) continue;
      for (const SearchOptions& options : requests) {
        const long before = allocations.load();
        absl::StatusOr<SearchResult> r =
            SuggestMove(variant, positions[i], options, &workspace);
        const long made = allocations.load() - before;
        ASSERT_TRUE(r.ok()) << r.status();
        EXPECT_EQ(made, 0) << "nodes " << r->nodes << ", level "
                           << options.level;
      }
    }
  }
}

}  // namespace
}  // namespace halma::bot
