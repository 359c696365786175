// The admission gate on its own: slots, the first-come first-served queue,
// its three bounds (length, wait, the call's deadline) and their errors,
// cancellation, the blocking form, and the checkpoint. Waits are for the
// gate's answers, never for time to pass.
#include "service/admission/admission_gate.h"

#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>

#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/admission/limit_status.h"

namespace halma::service {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

// A Waiter that keeps what the gate told it.
class TestWaiter final : public AdmissionGate::Waiter {
 public:
  void Admit(AdmissionGate::Slot slot) override {
    std::lock_guard<std::mutex> lock(mu_);
    slot_ = std::move(slot);
    told_ = true;
    told_cv_.notify_all();
  }
  void Refuse(absl::Status status) override {
    std::lock_guard<std::mutex> lock(mu_);
    status_ = std::move(status);
    told_ = true;
    told_cv_.notify_all();
  }

  // Waits (at most a minute) until the gate has told it.
  bool WaitUntilTold() {
    std::unique_lock<std::mutex> lock(mu_);
    return told_cv_.wait_for(lock, std::chrono::minutes(1),
                             [this] { return told_; });
  }
  bool told() {
    std::lock_guard<std::mutex> lock(mu_);
    return told_;
  }
  AdmissionGate::Slot TakeSlot() {
    std::lock_guard<std::mutex> lock(mu_);
    return std::move(slot_);
  }
  absl::Status status() {
    std::lock_guard<std::mutex> lock(mu_);
    return status_;
  }

 private:
  std::mutex mu_;
  std::condition_variable told_cv_;
  bool told_ = false;
  AdmissionGate::Slot slot_;
  absl::Status status_;
};

AdmissionLimits Limits(int slots, int queue,
                       absl::Duration wait = absl::Minutes(1)) {
  return AdmissionLimits{.slots = slots,
                         .max_queue_length = queue,
                         .max_queue_wait = wait,
                         .max_call = absl::Seconds(10)};
}

const AdmissionGate::Call kCall{.method = "Adjudicate"};

TEST(AdmissionGateTest, FreeSlotsAreTakenAtOnceAndGivenBack) {
  AdmissionGate gate(Limits(2, 0));
  TestWaiter unused;
  absl::StatusOr<AdmissionGate::Slot> a = gate.Enter(kCall, &unused);
  absl::StatusOr<AdmissionGate::Slot> b = gate.Enter(kCall, &unused);
  ASSERT_TRUE(a.ok() && *a);
  ASSERT_TRUE(b.ok() && *b);
  EXPECT_EQ(a->waited(), absl::ZeroDuration());
  EXPECT_EQ(gate.in_use(), 2);
  a->Release();
  EXPECT_EQ(gate.in_use(), 1);
  *b = AdmissionGate::Slot();  // Moving over it releases it too.
  EXPECT_EQ(gate.in_use(), 0);
  EXPECT_FALSE(unused.told());
}

TEST(AdmissionGateTest, TryEnterTakesAFreeSlotAndNeverQueues) {
  AdmissionGate gate(Limits(1, 4));
  absl::StatusOr<AdmissionGate::Slot> held = gate.TryEnter(kCall);
  ASSERT_TRUE(held.ok() && *held);
  EXPECT_EQ(held->waited(), absl::ZeroDuration());
  EXPECT_EQ(gate.in_use(), 1);
  // Every slot busy: an empty slot, and nothing waits (the queue has room).
  absl::StatusOr<AdmissionGate::Slot> busy = gate.TryEnter(kCall);
  ASSERT_TRUE(busy.ok());
  EXPECT_FALSE(*busy);
  EXPECT_EQ(gate.waiting(), 0);
  // A freed slot goes to a waiter before any TryEnter.
  TestWaiter waiter;
  absl::StatusOr<AdmissionGate::Slot> queued = gate.Enter(kCall, &waiter);
  ASSERT_TRUE(queued.ok());
  EXPECT_FALSE(*queued);
  held->Release();
  ASSERT_TRUE(waiter.WaitUntilTold());
  absl::StatusOr<AdmissionGate::Slot> after = gate.TryEnter(kCall);
  ASSERT_TRUE(after.ok());
  EXPECT_FALSE(*after);
  waiter.TakeSlot().Release();
  EXPECT_EQ(gate.in_use(), 0);
  absl::StatusOr<AdmissionGate::Slot> free = gate.TryEnter(kCall);
  ASSERT_TRUE(free.ok() && *free);
  free->Release();
  gate.StopAll();
  const absl::Status stopped = gate.TryEnter({.method = "Perft"}).status();
  EXPECT_EQ(stopped.code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(stopped.message()),
              StartsWith("Perft: the server is shutting down"));
}

TEST(AdmissionGateTest, WithoutAQueueACallBeyondTheSlotsIsRefusedNamingThem) {
  AdmissionGate gate(Limits(1, 0));
  TestWaiter unused;
  absl::StatusOr<AdmissionGate::Slot> held = gate.Enter(kCall, &unused);
  ASSERT_TRUE(held.ok() && *held);
  absl::StatusOr<AdmissionGate::Slot> refused =
      gate.Enter({.method = "Perft"}, &unused);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(refused.status().message()),
              StartsWith("Perft: 1 calls are running already, this server's "
                         "limit (max_concurrent_adjudications)"));
  EXPECT_EQ(LimitOf(refused.status()), "max_concurrent_adjudications");
  ASSERT_TRUE(RetryAfterOf(refused.status()).has_value());
  EXPECT_GE(*RetryAfterOf(refused.status()), absl::Milliseconds(1));
  EXPECT_FALSE(unused.told());
}

TEST(AdmissionGateTest, FreedSlotsGoToTheWaitersInTheirOrder) {
  AdmissionGate gate(Limits(1, 2));
  TestWaiter unused, first, second;
  absl::StatusOr<AdmissionGate::Slot> held = gate.Enter(kCall, &unused);
  ASSERT_TRUE(held.ok() && *held);
  for (TestWaiter* waiter : {&first, &second}) {
    absl::StatusOr<AdmissionGate::Slot> queued = gate.Enter(kCall, waiter);
    ASSERT_TRUE(queued.ok());
    EXPECT_FALSE(*queued);  // Empty: it waits.
  }
  EXPECT_EQ(gate.waiting(), 2);
  held->Release();
  ASSERT_TRUE(first.WaitUntilTold());
  EXPECT_FALSE(second.told());
  AdmissionGate::Slot slot = first.TakeSlot();
  ASSERT_TRUE(slot);
  EXPECT_GT(slot.waited(), absl::ZeroDuration());
  EXPECT_EQ(gate.in_use(), 1);  // Handed on, never freed.
  EXPECT_EQ(gate.waiting(), 1);
  // A newcomer does not take the slot from the one waiting.
  TestWaiter late;
  absl::StatusOr<AdmissionGate::Slot> newcomer = gate.Enter(kCall, &late);
  ASSERT_TRUE(newcomer.ok());
  EXPECT_FALSE(*newcomer);
  slot.Release();
  ASSERT_TRUE(second.WaitUntilTold());
  AdmissionGate::Slot second_slot = second.TakeSlot();
  EXPECT_TRUE(second_slot);
  EXPECT_FALSE(late.told());
  gate.Cancel(&late, absl::CancelledError("gone"));
  EXPECT_TRUE(late.told());
  EXPECT_EQ(late.status().code(), absl::StatusCode::kCancelled);
}

TEST(AdmissionGateTest, BeyondTheQueuesLengthACallIsRefusedNamingIt) {
  AdmissionGate gate(Limits(1, 1));
  TestWaiter unused, waiting, refused_waiter;
  absl::StatusOr<AdmissionGate::Slot> held = gate.Enter(kCall, &unused);
  ASSERT_TRUE(gate.Enter(kCall, &waiting).ok());
  absl::StatusOr<AdmissionGate::Slot> refused =
      gate.Enter(kCall, &refused_waiter);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(refused.status().message()),
              StartsWith("Adjudicate: 1 calls are running "
                         "(max_concurrent_adjudications) and 1 are waiting "
                         "for a slot already, this server's limit "
                         "(max_queue_length); retry in about "));
  EXPECT_EQ(LimitOf(refused.status()), "max_queue_length");
  EXPECT_TRUE(RetryAfterOf(refused.status()).has_value());
  EXPECT_FALSE(refused_waiter.told());
  gate.Cancel(&waiting, absl::CancelledError("gone"));
}

TEST(AdmissionGateTest, AWaitLongerThanTheLimitIsRefusedNamingIt) {
  AdmissionGate gate(Limits(1, 4, absl::Milliseconds(20)));
  TestWaiter unused, waiter;
  absl::StatusOr<AdmissionGate::Slot> held = gate.Enter(kCall, &unused);
  const absl::Time entered = absl::Now();
  ASSERT_TRUE(gate.Enter(kCall, &waiter).ok());
  ASSERT_TRUE(waiter.WaitUntilTold());
  EXPECT_GE(absl::Now() - entered, absl::Milliseconds(20));
  const absl::Status status = waiter.status();
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(status.message()),
              StartsWith("Adjudicate: no slot came free within 20 ms, this "
                         "server's limit (max_queue_wait_ms;"));
  EXPECT_EQ(LimitOf(status), "max_queue_wait_ms");
  EXPECT_TRUE(RetryAfterOf(status).has_value());
  EXPECT_EQ(gate.waiting(), 0);
}

TEST(AdmissionGateTest, TheCallsDeadlineEndsItsWait) {
  AdmissionGate gate(Limits(1, 4));
  TestWaiter unused, waiter;
  absl::StatusOr<AdmissionGate::Slot> held = gate.Enter(kCall, &unused);
  ASSERT_TRUE(gate.Enter({.method = "Perft",
                          .deadline = absl::Now() + absl::Milliseconds(20)},
                         &waiter)
                  .ok());
  ASSERT_TRUE(waiter.WaitUntilTold());
  const absl::Status status = waiter.status();
  EXPECT_EQ(status.code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(std::string(status.message()),
              StartsWith("Perft: the deadline passed after "));
  EXPECT_FALSE(LimitOf(status).has_value());  // Not the server's limit.
  // A deadline already past, with no slot free, is refused at once.
  absl::StatusOr<AdmissionGate::Slot> past =
      gate.Enter({.method = "Perft", .deadline = absl::Now()}, &waiter);
  EXPECT_EQ(past.status().code(), absl::StatusCode::kDeadlineExceeded);
}

TEST(AdmissionGateTest, CancellingAWaiterRefusesItOnceAndOnlyWhileWaiting) {
  AdmissionGate gate(Limits(1, 4));
  TestWaiter unused, waiter;
  absl::StatusOr<AdmissionGate::Slot> held = gate.Enter(kCall, &unused);
  ASSERT_TRUE(gate.Enter(kCall, &waiter).ok());
  gate.Cancel(&waiter, absl::CancelledError("Adjudicate: gone"));
  ASSERT_TRUE(waiter.told());
  EXPECT_EQ(waiter.status().code(), absl::StatusCode::kCancelled);
  EXPECT_EQ(gate.waiting(), 0);
  // Told already: nothing more happens.
  gate.Cancel(&waiter, absl::InternalError("twice"));
  EXPECT_EQ(waiter.status().code(), absl::StatusCode::kCancelled);
  held->Release();
  EXPECT_EQ(gate.in_use(), 0);
}

TEST(AdmissionGateTest, WaitBlocksUntilASlotIsHandedOver) {
  AdmissionGate gate(Limits(1, 4));
  TestWaiter unused;
  absl::StatusOr<AdmissionGate::Slot> held = gate.Enter(kCall, &unused);
  std::optional<absl::StatusOr<AdmissionGate::Slot>> got;
  std::thread waiter([&] { got.emplace(gate.Wait(kCall)); });
  ASSERT_TRUE([&] {
    const absl::Time give_up = absl::Now() + absl::Minutes(1);
    while (gate.waiting() != 1 && absl::Now() < give_up) {
      absl::SleepFor(absl::Milliseconds(1));
    }
    return gate.waiting() == 1;
  }());
  held->Release();
  waiter.join();
  ASSERT_TRUE(got.has_value() && got->ok());
  EXPECT_TRUE(**got);
  EXPECT_EQ(gate.in_use(), 1);
}

TEST(AdmissionGateTest, StopAllRefusesTheWaitingAndTheNewAndStopsWork) {
  AdmissionGate gate(Limits(1, 4));
  TestWaiter unused, waiter;
  absl::StatusOr<AdmissionGate::Slot> held = gate.Enter(kCall, &unused);
  ASSERT_TRUE(gate.Enter(kCall, &waiter).ok());
  const auto never = [] { return false; };
  const Checkpoint checkpoint = gate.MakeCheckpoint(
      "Adjudicate", "replaying the record", absl::InfiniteFuture(), never);
  EXPECT_TRUE(checkpoint().ok());
  gate.StopAll();
  ASSERT_TRUE(waiter.told());
  EXPECT_EQ(waiter.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(checkpoint().code(), absl::StatusCode::kUnavailable);
  EXPECT_TRUE(checkpoint.stopped());
  EXPECT_EQ(gate.Enter(kCall, &unused).status().code(),
            absl::StatusCode::kUnavailable);
}

// --- The checkpoint ---------------------------------------------------------

TEST(CheckpointTest, OkUntilTheDeadlineThenNamesTheLimit) {
  bool cancelled = false;
  const auto is_cancelled = [&] { return cancelled; };
  const auto never = [] { return false; };
  const Checkpoint running("Adjudicate", "replaying the record",
                           absl::InfiniteFuture(), absl::Seconds(10),
                           is_cancelled);
  EXPECT_TRUE(running().ok());
  cancelled = true;
  EXPECT_EQ(running().code(), absl::StatusCode::kCancelled);
  EXPECT_EQ(std::string(running().message()), "Adjudicate: call cancelled");

  // The server's limit came first: named, and marked as refused by it.
  const Checkpoint limited("Perft", "counting", absl::InfiniteFuture(),
                           absl::ZeroDuration(), never);
  absl::SleepFor(absl::Milliseconds(1));
  const absl::Status late = limited();
  EXPECT_EQ(late.code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(std::string(late.message()),
              StartsWith("Perft: deadline exceeded while counting (the "
                         "client's deadline, or this server's limit of 0: "
                         "max_call_seconds)"));
  EXPECT_EQ(LimitOf(late), "max_call_seconds");

  // The client's deadline came first: not the server's limit.
  const Checkpoint client("Adjudicate", "replaying the record",
                          absl::Now() - absl::Seconds(1), absl::Seconds(10),
                          never);
  EXPECT_EQ(client().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_FALSE(LimitOf(client()).has_value());
}

TEST(CheckpointTest, TheHookRunsFirstOnTheWorkingThread) {
  int calls = 0;
  const CheckpointHook hook = [&](const Checkpoint& checkpoint) {
    ++calls;
    EXPECT_EQ(checkpoint.method(), "Adjudicate");
  };
  AdmissionLimits limits = Limits(1, 0);
  limits.checkpoint_hook = hook;
  AdmissionGate gate(limits);
  const auto never = [] { return false; };
  const Checkpoint checkpoint = gate.MakeCheckpoint(
      "Adjudicate", "replaying the record", absl::InfiniteFuture(), never);
  EXPECT_TRUE(checkpoint().ok());
  EXPECT_TRUE(checkpoint().ok());
  EXPECT_EQ(calls, 2);
  // max_call from when it was made.
  EXPECT_GT(checkpoint.deadline(), absl::Now() + absl::Seconds(5));
}

}  // namespace
}  // namespace halma::service
