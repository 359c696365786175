// Expensive calls over gRPC (Adjudicate, Perft): the admission gate's
// queue, its bounds and their errors, and the checkpoint that stops a
// replay or a count mid-way (the client's deadline, a cancellation, the
// server's max_call_seconds). Work is held at its checkpoints by a hook
// (CheckpointLatch), never sized from the machine's speed.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "halma/game.h"
#include "tests/metrics/metrics_test_util.h"
#include "tests/service/fixture/checkpoint_latch.h"
#include "tests/service/fixture/loopback_server.h"

namespace halma::service {
namespace {

using ::grpc::StatusCode;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using AdjudicateCall =
    BackgroundCall<v1::AdjudicateRequest, v1::AdjudicateResponse>;

// A record of `checkpoints` times the replay's checkpoint interval of
// legal plies (iggamecenter-10x10 has no home-exit rule and no move cap,
// so the game never ends): two-hop chains back and forth, as shorthand.
v1::AdjudicateRequest LongRecord(int checkpoints = 50) {
  v1::AdjudicateRequest request;
  request.mutable_variant()->set_preset("iggamecenter-10x10");
  request.set_start_position(
      "bbbbbbbbbb/6bbbb/10/6b3/10/10/3w6/10/wwwww5/w1wwwwwwww w 0,0");
  const char* cycle[] = {"a1-e5", "j10-f6", "e5-a1", "f6-j10"};
  for (int i = 0; i < checkpoints * kCheckpointInterval; ++i) {
    request.add_moves(cycle[i % 4]);
  }
  return request;
}

// A record with no checkpoint at all: a call that is only held in the
// queue, never at a checkpoint.
v1::AdjudicateRequest ShortRecord() {
  v1::AdjudicateRequest request;
  request.mutable_variant()->set_preset("brainking-8x8");
  request.add_moves("b1-d3");
  return request;
}

v1::PerftRequest DeepPerft() {
  v1::PerftRequest request;
  request.mutable_variant()->set_preset("classic-16x16");
  request.set_depth(6);
  return request;
}

double Rejected(LoopbackServer& server, const std::string& limit) {
  return metrics::Value(server->metrics().Collect(),
                        "halma_rejected_calls_total", {{"limit", limit}});
}

double Calls(LoopbackServer& server, const std::string& method,
             const std::string& code) {
  return metrics::Value(server->metrics().Collect(), "halma_rpc_calls_total",
                        {{"method", "halma.v1.HalmaRules/" + method},
                         {"code", code},
                         {"protocol", "grpc"}});
}

// --- The queue ---------------------------------------------------------------

// Two calls that overlap are both answered: the second waits for the slot
// instead of being refused, and its wait is measured.
TEST(AdmissionQueueTest, ACallFindingEverySlotBusyWaitsAndIsAnswered) {
  CheckpointLatch latch;
  std::unique_ptr<LoopbackServer> server =
      LoopbackServer::Start(OneSlotHeldBy(latch));
  ASSERT_NE(server, nullptr);
  AdjudicateCall running(server->channel(), &Stub::Adjudicate, LongRecord());
  ASSERT_TRUE(latch.WaitUntilHeld(1));
  AdjudicateCall waiting(server->channel(), &Stub::Adjudicate, ShortRecord());
  ASSERT_TRUE(WaitUntil([&] { return (*server)->gate().waiting() == 1; }));
  // Cheap calls are not held back by it.
  v1::LegalMovesRequest legal;
  legal.mutable_variant()->set_preset("brainking-8x8");
  const Reply<v1::LegalMovesResponse> moves =
      server->Call(&Stub::LegalMoves, legal);
  ASSERT_TRUE(moves.status.ok()) << moves.status.error_message();
  EXPECT_GT(moves.response.count(), 0);
  EXPECT_EQ((*server)->gate().waiting(), 1);

  latch.Release();
  ASSERT_TRUE(running.Wait().ok()) << running.Wait().error_message();
  EXPECT_EQ(running.response().moves_played(), LongRecord().moves_size());
  ASSERT_TRUE(waiting.Wait().ok()) << waiting.Wait().error_message();
  EXPECT_EQ(waiting.response().moves_played(), 1);
  EXPECT_EQ(Calls(*server, "Adjudicate", "OK"), 2);
  EXPECT_EQ(
      metrics::HistogramCount(server->server().metrics().Collect(),
                              {{"method", "halma.v1.HalmaRules/Adjudicate"}},
                              "halma_admission_wait_seconds"),
      2);
  EXPECT_EQ(Rejected(*server, "max_queue_length"), 0);
}

// Beyond the queue's length a call is refused at once, with an error that
// names the method and the limit, and a retry hint.
TEST(AdmissionQueueTest, BeyondTheQueueLengthACallIsRefusedNamingTheLimit) {
  CheckpointLatch latch;
  ServerConfig config = OneSlotHeldBy(latch);
  config.max_queue_length = 1;
  std::unique_ptr<LoopbackServer> server = LoopbackServer::Start(config);
  ASSERT_NE(server, nullptr);
  AdjudicateCall running(server->channel(), &Stub::Adjudicate, LongRecord());
  ASSERT_TRUE(latch.WaitUntilHeld(1));
  AdjudicateCall waiting(server->channel(), &Stub::Adjudicate, ShortRecord());
  ASSERT_TRUE(WaitUntil([&] { return (*server)->gate().waiting() == 1; }));

  const Reply<v1::AdjudicateResponse> refused =
      server->Call(&Stub::Adjudicate, ShortRecord());
  EXPECT_EQ(refused.status.error_code(), StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(refused.status.error_message(), StartsWith("Adjudicate: "));
  EXPECT_THAT(refused.status.error_message(), HasSubstr("(max_queue_length)"));
  EXPECT_THAT(refused.status.error_message(),
              HasSubstr("max_concurrent_adjudications"));
  int pushback_ms = 0;
  EXPECT_TRUE(absl::SimpleAtoi(refused.retry_pushback_ms, &pushback_ms))
      << "grpc-retry-pushback-ms: '" << refused.retry_pushback_ms << "'";
  EXPECT_GE(pushback_ms, 1);
  EXPECT_EQ(Rejected(*server, "max_queue_length"), 1);

  latch.Release();
  EXPECT_TRUE(running.Wait().ok());
  EXPECT_TRUE(waiting.Wait().ok());
}

// Without a queue, every call beyond the slots is refused at once; the
// error names the method that was refused (Perft here, while an Adjudicate
// holds the slot) and the slots' limit.
TEST(AdmissionQueueTest, WithoutAQueueARefusalNamesItsMethodAndTheSlots) {
  CheckpointLatch latch;
  ServerConfig config = OneSlotHeldBy(latch);
  config.max_queue_length = 0;
  std::unique_ptr<LoopbackServer> server = LoopbackServer::Start(config);
  ASSERT_NE(server, nullptr);
  AdjudicateCall running(server->channel(), &Stub::Adjudicate, LongRecord());
  ASSERT_TRUE(latch.WaitUntilHeld(1));

  v1::PerftRequest quick;
  quick.mutable_variant()->set_preset("brainking-8x8");
  quick.set_depth(1);
  const Reply<v1::PerftResponse> refused = server->Call(&Stub::Perft, quick);
  EXPECT_EQ(refused.status.error_code(), StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(refused.status.error_message(), StartsWith("Perft: 1 calls"));
  EXPECT_THAT(refused.status.error_message(),
              HasSubstr("(max_concurrent_adjudications)"));
  EXPECT_FALSE(refused.retry_pushback_ms.empty());
  EXPECT_EQ(Rejected(*server, "max_concurrent_adjudications"), 1);

  latch.Release();
  EXPECT_TRUE(running.Wait().ok());
  // The slot is free again.
  EXPECT_TRUE(server->Call(&Stub::Perft, quick).status.ok());
}

// A call that waits longer than max_queue_wait_ms is refused naming it.
TEST(AdmissionQueueTest, AWaitLongerThanTheLimitIsRefusedNamingIt) {
  CheckpointLatch latch;
  ServerConfig config = OneSlotHeldBy(latch);
  config.max_queue_wait_ms = 50;
  std::unique_ptr<LoopbackServer> server = LoopbackServer::Start(config);
  ASSERT_NE(server, nullptr);
  AdjudicateCall running(server->channel(), &Stub::Adjudicate, LongRecord());
  ASSERT_TRUE(latch.WaitUntilHeld(1));

  const Reply<v1::PerftResponse> refused =
      server->Call(&Stub::Perft, DeepPerft());
  EXPECT_EQ(refused.status.error_code(), StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(refused.status.error_message(),
              StartsWith("Perft: no slot came free within 50 ms"));
  EXPECT_THAT(refused.status.error_message(), HasSubstr("max_queue_wait_ms"));
  EXPECT_FALSE(refused.retry_pushback_ms.empty());
  EXPECT_EQ(Rejected(*server, "max_queue_wait_ms"), 1);
  EXPECT_EQ((*server)->gate().waiting(), 0);

  latch.Release();
  EXPECT_TRUE(running.Wait().ok());
}

// The client's deadline ends the wait too, as DEADLINE_EXCEEDED, whichever
// comes first: the server's own deadline or the client's cancellation when
// its clock says the deadline passed. gRPC rounds the time left up on the
// wire, so the client's deadline comes first: by about 10 ms for 2 s (which
// failed once in ten TSan runs when 10 ms was all the server allowed) and by
// about 100 ms for 10.001 s (which failed every time).
class QueueDeadlineTest : public testing::TestWithParam<int> {};

TEST_P(QueueDeadlineTest, TheClientsDeadlineEndsTheWait) {
  const absl::Duration deadline = absl::Milliseconds(GetParam());
  CheckpointLatch latch;
  std::unique_ptr<LoopbackServer> server =
      LoopbackServer::Start(OneSlotHeldBy(latch));
  ASSERT_NE(server, nullptr);
  AdjudicateCall running(server->channel(), &Stub::Adjudicate, LongRecord());
  ASSERT_TRUE(latch.WaitUntilHeld(1));

  const Reply<v1::AdjudicateResponse> late =
      server->Call(&Stub::Adjudicate, ShortRecord(), deadline);
  EXPECT_EQ(late.status.error_code(), StatusCode::DEADLINE_EXCEEDED);
  // The server takes it out of the queue and ends it.
  ASSERT_TRUE(WaitUntil([&] {
    return (*server)->gate().waiting() == 0 &&
           Calls(*server, "Adjudicate", "DEADLINE_EXCEEDED") == 1;
  }));
  EXPECT_EQ(Rejected(*server, "max_queue_wait_ms"), 0);

  latch.Release();
  EXPECT_TRUE(running.Wait().ok());
}

INSTANTIATE_TEST_SUITE_P(AdmissionQueueTest, QueueDeadlineTest,
                         testing::Values(100, 2000, 10001));

// A waiting call the client cancels leaves the queue at once.
TEST(AdmissionQueueTest, ACancelledWaitingCallLeavesTheQueue) {
  CheckpointLatch latch;
  std::unique_ptr<LoopbackServer> server =
      LoopbackServer::Start(OneSlotHeldBy(latch));
  ASSERT_NE(server, nullptr);
  AdjudicateCall running(server->channel(), &Stub::Adjudicate, LongRecord());
  ASSERT_TRUE(latch.WaitUntilHeld(1));
  AdjudicateCall waiting(server->channel(), &Stub::Adjudicate, ShortRecord());
  ASSERT_TRUE(WaitUntil([&] { return (*server)->gate().waiting() == 1; }));
  waiting.Cancel();
  EXPECT_EQ(waiting.Wait().error_code(), StatusCode::CANCELLED);
  ASSERT_TRUE(WaitUntil([&] {
    return (*server)->gate().waiting() == 0 &&
           (*server)->calls_in_progress() == 1;
  }));
  latch.Release();
  EXPECT_TRUE(running.Wait().ok());
}

// --- The checkpoint ---------------------------------------------------------

// A cancelled replay stops at its next checkpoint, mid-record.
TEST(CheckpointTest, CancellationStopsAReplayMidRecord) {
  CheckpointLatch latch(CheckpointLatch::Hold::kUntilCancelled);
  std::unique_ptr<LoopbackServer> server =
      LoopbackServer::Start(OneSlotHeldBy(latch));
  ASSERT_NE(server, nullptr);
  AdjudicateCall call(server->channel(), &Stub::Adjudicate, LongRecord());
  ASSERT_TRUE(latch.WaitUntilHeld(1));
  call.Cancel();
  EXPECT_EQ(call.Wait().error_code(), StatusCode::CANCELLED);
  EXPECT_TRUE(WaitUntil([&] {
    return (*server)->calls_in_progress() == 0 &&
           Calls(*server, "Adjudicate", "CANCELLED") == 1;
  }));
  // Stopped at the first of its 50 checkpoints.
  EXPECT_EQ(latch.reached(), 1);
}

// The client's deadline stops a replay at the checkpoint after it passes.
TEST(CheckpointTest, ClientDeadlineStopsAReplayMidRecord) {
  CheckpointLatch latch(CheckpointLatch::Hold::kUntilDeadline);
  std::unique_ptr<LoopbackServer> server =
      LoopbackServer::Start(OneSlotHeldBy(latch));
  ASSERT_NE(server, nullptr);
  AdjudicateCall call(server->channel(), &Stub::Adjudicate, LongRecord(),
                      kPassingDeadline);
  EXPECT_EQ(call.Wait().error_code(), StatusCode::DEADLINE_EXCEEDED);
  ASSERT_TRUE(WaitUntil([&] {
    return (*server)->calls_in_progress() == 0 &&
           Calls(*server, "Adjudicate", "DEADLINE_EXCEEDED") == 1;
  }));
  EXPECT_EQ(latch.reached(), 1);
  // The client's deadline, not the server's limit.
  EXPECT_EQ(Rejected(*server, "max_call_seconds"), 0);
}

// A call without a deadline of its own gets the server's maximum call time.
TEST(CheckpointTest, CallsWithoutADeadlineGetTheServerMaximum) {
  CheckpointLatch latch(CheckpointLatch::Hold::kUntilDeadline);
  ServerConfig config = OneSlotHeldBy(latch);
  config.max_call_seconds = 1;
  std::unique_ptr<LoopbackServer> server = LoopbackServer::Start(config);
  ASSERT_NE(server, nullptr);
  const Reply<v1::AdjudicateResponse> reply =
      server->Call(&Stub::Adjudicate, LongRecord());
  EXPECT_EQ(reply.status.error_code(), StatusCode::DEADLINE_EXCEEDED);
  EXPECT_THAT(reply.status.error_message(),
              StartsWith("Adjudicate: deadline exceeded while replaying the "
                         "record"));
  EXPECT_THAT(reply.status.error_message(), HasSubstr("max_call_seconds"));
  EXPECT_EQ(latch.reached(), 1);
  EXPECT_EQ(Rejected(*server, "max_call_seconds"), 1);
}

// Perft, the most expensive call there is, stops alike.
TEST(CheckpointTest, DeadlinesStopAPerftCount) {
  CheckpointLatch latch(CheckpointLatch::Hold::kUntilDeadline);
  ServerConfig config = OneSlotHeldBy(latch);
  config.max_call_seconds = 1;
  std::unique_ptr<LoopbackServer> server = LoopbackServer::Start(config);
  ASSERT_NE(server, nullptr);
  const Reply<v1::PerftResponse> limited =
      server->Call(&Stub::Perft, DeepPerft());
  EXPECT_EQ(limited.status.error_code(), StatusCode::DEADLINE_EXCEEDED);
  EXPECT_THAT(limited.status.error_message(),
              HasSubstr("Perft: deadline exceeded while counting"));
  EXPECT_THAT(limited.status.error_message(), HasSubstr("max_call_seconds"));
  EXPECT_TRUE(WaitUntil([&] {
    return (*server)->calls_in_progress() == 0 &&
           Calls(*server, "Perft", "DEADLINE_EXCEEDED") == 1;
  }));
  EXPECT_EQ(Rejected(*server, "max_call_seconds"), 1);

  // The client's own deadline, shorter than the server's limit (a server
  // whose limit is far off).
  CheckpointLatch client_latch(CheckpointLatch::Hold::kUntilDeadline);
  ServerConfig far_limit = OneSlotHeldBy(client_latch);
  far_limit.max_call_seconds = 600;
  std::unique_ptr<LoopbackServer> second = LoopbackServer::Start(far_limit);
  ASSERT_NE(second, nullptr);
  const Reply<v1::PerftResponse> client =
      second->Call(&Stub::Perft, DeepPerft(), kPassingDeadline);
  EXPECT_EQ(client.status.error_code(), StatusCode::DEADLINE_EXCEEDED);
  // The client gives up at its own deadline, before the server has seen the
  // call end: wait for the server's record of it, as the Adjudicate test does.
  EXPECT_TRUE(WaitUntil([&] {
    return (*second)->calls_in_progress() == 0 &&
           Calls(*second, "Perft", "DEADLINE_EXCEEDED") == 1;
  }));
  EXPECT_EQ(client_latch.reached(), 1);
  EXPECT_EQ(Rejected(*second, "max_call_seconds"), 0);
}

}  // namespace
}  // namespace halma::service
