// SuggestMove from the rules core alone: the checkpoint is consulted often
// enough that a deadline or a cancellation stops a search promptly
// (counted in nodes, not timed), memory is the pool's (one workspace per
// slot, the table size as set), and a core asked for more searches at once
// than it has workspaces refuses the extra one instead of allocating.
// (Through the edges and the admission gate:
// tests/service/grpc/suggest_move_test.cc.)
#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "halma/bot/search.h"
#include "halma/v1/halma.pb.h"
#include "service/core/rules_core.h"

namespace halma::service {
namespace {

using ::testing::HasSubstr;

v1::SuggestMoveRequest TopLevel() {
  v1::SuggestMoveRequest request;
  request.mutable_variant()->set_preset("classic-16x16");
  request.set_level(8);
  return request;
}

// Between two checkpoints the search visits at most bot::kCheckpointNodes
// nodes (about 0.1 ms at the search's speed, docs/bot.md): counted here
// over a whole top-level search.
TEST(SuggestMoveCoreTest, TheCheckpointIsConsultedEveryFewThousandNodes) {
  const RulesCore core;
  int checkpoints = 0;
  v1::SuggestMoveResponse response;
  ASSERT_TRUE(core.SuggestMove(TopLevel(), &response,
                               [&] {
                                 ++checkpoints;
                                 return absl::OkStatus();
                               })
                  .ok());
  ASSERT_GT(response.nodes(), 100'000);
  EXPECT_GE(checkpoints, response.nodes() / bot::kCheckpointNodes);
}

// The checkpoint's error ends the search at once: no further checkpoint,
// the error as the answer; with best_so_far, the best move found.
TEST(SuggestMoveCoreTest, TheCheckpointsErrorStopsTheSearch) {
  const RulesCore core;
  for (bool best_so_far : {false, true}) {
    v1::SuggestMoveRequest request = TopLevel();
    request.set_best_so_far(best_so_far);
    int checkpoints = 0;
    v1::SuggestMoveResponse response;
    const absl::Status status = core.SuggestMove(request, &response, [&] {
      return ++checkpoints < 3 ? absl::OkStatus()
                               : absl::DeadlineExceededError("past it");
    });
    EXPECT_EQ(checkpoints, 3);
    if (best_so_far) {
      ASSERT_TRUE(status.ok()) << status;
      EXPECT_EQ(response.stop_reason(), v1::STOP_REASON_INTERRUPTED);
      EXPECT_EQ(response.stop_message(), "past it");
      EXPECT_FALSE(response.move().path().empty());
      EXPECT_LE(response.nodes(), 3 * bot::kCheckpointNodes);
    } else {
      EXPECT_EQ(status, absl::DeadlineExceededError("past it"));
    }
  }
}

// The memory is allocated when the core is made: one workspace of
// 2^suggest_table_bits entries per slot.
TEST(SuggestMoveCoreTest, MemoryIsOneTablePerSlotAsSet) {
  const RulesCore small(
      RulesOptions{.suggest_workspaces = 2, .suggest_table_bits = 12});
  const RulesCore large(
      RulesOptions{.suggest_workspaces = 2, .suggest_table_bits = 16});
  const RulesCore three(
      RulesOptions{.suggest_workspaces = 3, .suggest_table_bits = 16});
  // 16 bytes per entry; the rest (move stacks) is the same in each.
  EXPECT_EQ(large.SuggestMemoryBytes() - small.SuggestMemoryBytes(),
            2u * 16u * ((1u << 16) - (1u << 12)));
  EXPECT_EQ(three.SuggestMemoryBytes() * 2, large.SuggestMemoryBytes() * 3);
  // A search allocates none: the same answer, the same memory afterwards.
  v1::SuggestMoveResponse response;
  ASSERT_TRUE(large.SuggestMove(TopLevel(), &response).ok());
  EXPECT_EQ(three.SuggestMemoryBytes() * 2, large.SuggestMemoryBytes() * 3);
}

// One workspace, two searches at once (the admission gate would not let
// that happen): the second is refused naming the limit.
TEST(SuggestMoveCoreTest, MoreSearchesThanWorkspacesAreRefused) {
  const RulesCore core(RulesOptions{.suggest_workspaces = 1});
  std::atomic<bool> held{false}, release{false};
  std::thread first([&] {
    v1::SuggestMoveResponse response;
    EXPECT_TRUE(core.SuggestMove(TopLevel(), &response,
                                 [&] {
                                   held = true;
                                   while (!release) std::this_thread::yield();
                                   return absl::OkStatus();
                                 })
                    .ok());
  });
  while (!held) std::this_thread::yield();
  v1::SuggestMoveResponse response;
  const absl::Status second = core.SuggestMove(TopLevel(), &response);
  release = true;
  first.join();
  EXPECT_EQ(second.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(second.message(), HasSubstr("max_concurrent_adjudications"));
  // Given back: the next one runs.
  EXPECT_TRUE(core.SuggestMove(TopLevel(), &response).ok());
}

}  // namespace
}  // namespace halma::service
