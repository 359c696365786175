// Graceful shutdown in process: calls accepted before it finish, those
// waiting for a slot of the admission gate included; new calls are refused.
#include <memory>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "tests/service/fixture/checkpoint_latch.h"
#include "tests/service/fixture/loopback_server.h"
#include "tests/service/fixture/played_records.h"

namespace halma::service {
namespace {

using AdjudicateCall =
    BackgroundCall<v1::AdjudicateRequest, v1::AdjudicateResponse>;

TEST(ShutdownTest, NewCallsFailAfterShutdown) {
  std::unique_ptr<LoopbackServer> server = LoopbackServer::Start();
  ASSERT_NE(server, nullptr);
  ASSERT_TRUE(
      server->Call(&Stub::ListVariants, v1::ListVariantsRequest()).status.ok());
  (*server)->Shutdown(absl::Seconds(5));
  (*server)->Wait();
  (*server)->Shutdown();  // Idempotent.
  EXPECT_FALSE(server
                   ->Call(&Stub::ListVariants, v1::ListVariantsRequest(),
                          absl::Seconds(5))
                   .status.ok());
}

// Calls running and calls waiting for a slot when the shutdown begins are
// all answered: accepted before it means finished within the grace
// period.
TEST(ShutdownTest, CallsWaitingForASlotAreAnswered) {
  CheckpointLatch latch;
  ServerConfig config = OneSlotHeldBy(latch);
  std::unique_ptr<LoopbackServer> server = LoopbackServer::Start(config);
  ASSERT_NE(server, nullptr);
  (*server)->set_shutdown_delay(absl::ZeroDuration());
  // 100 plies: one checkpoint, where the first call is held.
  const v1::AdjudicateRequest record = PlayedRecord("classic-16x16", 100, 5);
  ASSERT_EQ(record.moves_size(), 100);
  std::vector<std::unique_ptr<AdjudicateCall>> calls;
  calls.push_back(std::make_unique<AdjudicateCall>(server->channel(),
                                                   &Stub::Adjudicate, record));
  ASSERT_TRUE(latch.WaitUntilHeld(1));
  constexpr int kWaiting = 5;
  for (int i = 0; i < kWaiting; ++i) {
    calls.push_back(std::make_unique<AdjudicateCall>(
        server->channel(), &Stub::Adjudicate, record));
  }
  ASSERT_TRUE(
      WaitUntil([&] { return (*server)->gate().waiting() == kWaiting; }));
  EXPECT_EQ((*server)->calls_in_progress(), 1 + kWaiting);

  std::thread shutdown([&] { (*server)->Shutdown(absl::Seconds(60)); });
  // The shutdown has begun (health says so) while every call is in flight.
  ASSERT_TRUE(WaitUntil([&] {
    return (*server)->health().GetServingStatus("") ==
           grpc::health::v1::HealthCheckResponse::NOT_SERVING;
  }));
  latch.Release();
  for (const auto& call : calls) {
    ASSERT_TRUE(call->Wait().ok()) << call->Wait().error_message();
    EXPECT_EQ(call->response().moves_played(), 100);
  }
  shutdown.join();
  EXPECT_EQ((*server)->calls_in_progress(), 0);
  EXPECT_FALSE(
      server->Call(&Stub::Adjudicate, record, absl::Seconds(5)).status.ok());
}

// Work still running when the grace period ends stops at its next
// checkpoint, and the shutdown ends.
TEST(ShutdownTest, WorkStillRunningWhenTheGracePeriodEndsStops) {
  CheckpointLatch latch(CheckpointLatch::Hold::kUntilCancelled);
  ServerConfig config = LoopbackConfig();
  config.checkpoint_hook = latch.Hook();
  std::unique_ptr<LoopbackServer> server = LoopbackServer::Start(config);
  ASSERT_NE(server, nullptr);
  (*server)->set_shutdown_delay(absl::ZeroDuration());
  AdjudicateCall call(server->channel(), &Stub::Adjudicate,
                      PlayedRecord("classic-16x16", 100, 5));
  ASSERT_TRUE(latch.WaitUntilHeld(1));
  (*server)->Shutdown(absl::Milliseconds(200));
  EXPECT_FALSE(call.Wait().ok());
  EXPECT_EQ((*server)->calls_in_progress(), 0);
  EXPECT_EQ(latch.reached(), 1);
}

}  // namespace
}  // namespace halma::service
