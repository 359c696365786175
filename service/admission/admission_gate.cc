#include "service/admission/admission_gate.h"

#include <algorithm>
#include <chrono>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "service/admission/limit_status.h"

namespace halma::service {
namespace {

std::string Millis(absl::Duration duration) {
  return absl::StrCat(absl::ToInt64Milliseconds(duration), " ms");
}

// A Waiter for Wait(): the calling thread sleeps until it is told.
class BlockingWaiter final : public AdmissionGate::Waiter {
 public:
  void Admit(AdmissionGate::Slot slot) override {
    std::lock_guard<std::mutex> lock(mu_);
    slot_ = std::move(slot);
    told_ = true;
    told_cv_.notify_one();
  }
  void Refuse(absl::Status status) override {
    std::lock_guard<std::mutex> lock(mu_);
    status_ = std::move(status);
    told_ = true;
    told_cv_.notify_one();
  }

  absl::StatusOr<AdmissionGate::Slot> Result() {
    std::unique_lock<std::mutex> lock(mu_);
    told_cv_.wait(lock, [this] { return told_; });
    if (slot_) return std::move(slot_);
    return status_;
  }

 private:
  std::mutex mu_;
  std::condition_variable told_cv_;
  bool told_ = false;
  AdmissionGate::Slot slot_;
  absl::Status status_;
};

}  // namespace

AdmissionGate::Slot::Slot(Slot&& other) noexcept
    : gate_(std::exchange(other.gate_, nullptr)),
      waited_(other.waited_),
      since_(other.since_) {}

AdmissionGate::Slot& AdmissionGate::Slot::operator=(Slot&& other) noexcept {
  if (this != &other) {
    Release();
    gate_ = std::exchange(other.gate_, nullptr);
    waited_ = other.waited_;
    since_ = other.since_;
  }
  return *this;
}

AdmissionGate::Slot::~Slot() { Release(); }

void AdmissionGate::Slot::Release() {
  if (gate_ == nullptr) return;
  AdmissionGate* gate = std::exchange(gate_, nullptr);
  gate->Give(absl::Now() - since_);
}

AdmissionGate::AdmissionGate(AdmissionLimits limits)
    : limits_(std::move(limits)), expirer_([this] { Expire(); }) {}

AdmissionGate::~AdmissionGate() {
  std::vector<Waiter*> left;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    while (head_ != nullptr) {
      left.push_back(head_);
      Unlink(head_);
    }
  }
  expiry_changed_.notify_all();
  expirer_.join();
  for (Waiter* waiter : left) {
    waiter->Refuse(absl::UnavailableError(absl::StrCat(
        waiter->method_, ": the server stopped before a slot came free")));
  }
}

absl::Status AdmissionGate::StoppedError(const Call& call) const {
  if (!stopped_.load(std::memory_order_acquire)) return absl::OkStatus();
  return absl::UnavailableError(absl::StrCat(
      call.method, ": the server is shutting down; retry on another"));
}

bool AdmissionGate::TakeFreeSlotLocked() {
  // A free slot means nobody waits: freed slots go to waiters first.
  if (in_use_ >= limits_.slots) return false;
  ++in_use_;
  return true;
}

absl::StatusOr<AdmissionGate::Slot> AdmissionGate::TryEnter(const Call& call) {
  const absl::Time now = absl::Now();
  if (absl::Status stopped = StoppedError(call); !stopped.ok()) return stopped;
  std::lock_guard<std::mutex> lock(mu_);
  if (TakeFreeSlotLocked()) return Slot(this, absl::ZeroDuration(), now);
  return Slot();
}

absl::StatusOr<AdmissionGate::Slot> AdmissionGate::Enter(const Call& call,
                                                         Waiter* waiter) {
  const absl::Time now = absl::Now();
  if (absl::Status stopped = StoppedError(call); !stopped.ok()) return stopped;
  std::lock_guard<std::mutex> lock(mu_);
  if (TakeFreeSlotLocked()) return Slot(this, absl::ZeroDuration(), now);
  if (call.deadline <= now) {
    return absl::DeadlineExceededError(absl::StrCat(
        call.method, ": the deadline passed before a slot came free (",
        limits_.slots, " calls run at once: max_concurrent_adjudications)"));
  }
  if (waiting_ >= limits_.max_queue_length) {
    const absl::Duration retry = RetryDelayLocked();
    if (limits_.max_queue_length == 0) {
      return WithRetryAfter(
          WithLimit(absl::ResourceExhaustedError(absl::StrCat(
                        call.method, ": ", limits_.slots,
                        " calls are running already, this server's limit "
                        "(max_concurrent_adjudications), and none may wait "
                        "(max_queue_length 0); retry in about ",
                        Millis(retry))),
                    "max_concurrent_adjudications"),
          retry);
    }
    return WithRetryAfter(
        WithLimit(absl::ResourceExhaustedError(absl::StrCat(
                      call.method, ": ", limits_.slots,
                      " calls are running (max_concurrent_adjudications) and ",
                      waiting_,
                      " are waiting for a slot already, this server's limit "
                      "(max_queue_length); retry in about ",
                      Millis(retry))),
                  "max_queue_length"),
        retry);
  }
  waiter->queued_ = true;
  waiter->method_ = call.method;
  waiter->queued_at_ = now;
  waiter->deadline_ = call.deadline;
  waiter->previous_ = tail_;
  waiter->next_ = nullptr;
  (tail_ != nullptr ? tail_->next_ : head_) = waiter;
  tail_ = waiter;
  ++waiting_;
  const absl::Time expiry =
      std::min(now + limits_.max_queue_wait, call.deadline);
  waiter->expiry_ = expiries_.emplace(expiry, waiter);
  if (waiter->expiry_ == expiries_.begin()) expiry_changed_.notify_one();
  return Slot();
}

absl::StatusOr<AdmissionGate::Slot> AdmissionGate::Wait(const Call& call) {
  BlockingWaiter waiter;
  absl::StatusOr<Slot> entered = Enter(call, &waiter);
  if (!entered.ok() || *entered) return entered;
  return waiter.Result();
}

void AdmissionGate::Cancel(Waiter* waiter, absl::Status status) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!waiter->queued_) return;
    Unlink(waiter);
  }
  waiter->Refuse(std::move(status));
}

void AdmissionGate::StopAll() {
  stopped_.store(true, std::memory_order_release);
  std::vector<Waiter*> left;
  {
    std::lock_guard<std::mutex> lock(mu_);
    while (head_ != nullptr) {
      left.push_back(head_);
      Unlink(head_);
    }
  }
  for (Waiter* waiter : left) {
    waiter->Refuse(absl::UnavailableError(absl::StrCat(
        waiter->method_,
        ": the server is shutting down and its grace period is over")));
  }
}

Checkpoint AdmissionGate::MakeCheckpoint(
    absl::string_view method, absl::string_view work,
    absl::Time client_deadline, absl::FunctionRef<bool()> cancelled) const {
  return Checkpoint(method, work, client_deadline, limits_.max_call, cancelled,
                    &limits_.checkpoint_hook, &stopped_);
}

int AdmissionGate::in_use() const {
  std::lock_guard<std::mutex> lock(mu_);
  return in_use_;
}

int AdmissionGate::waiting() const {
  std::lock_guard<std::mutex> lock(mu_);
  return waiting_;
}

void AdmissionGate::Give(absl::Duration held) {
  Waiter* next = nullptr;
  absl::Time queued_at;
  const absl::Time now = absl::Now();
  {
    std::lock_guard<std::mutex> lock(mu_);
    mean_hold_ += (held - mean_hold_) / 8;
    if (head_ == nullptr) {
      --in_use_;
      return;
    }
    next = head_;
    queued_at = next->queued_at_;
    Unlink(next);
  }
  // The slot goes to the call that waited longest, without being freed.
  next->Admit(Slot(this, now - queued_at, now));
}

void AdmissionGate::Expire() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    if (expiries_.empty()) {
      expiry_changed_.wait(lock);
      continue;
    }
    const absl::Time now = absl::Now();
    const absl::Time first = expiries_.begin()->first;
    if (first > now) {
      expiry_changed_.wait_for(lock, absl::ToChronoNanoseconds(first - now));
      continue;
    }
    std::vector<std::pair<Waiter*, absl::Status>> expired;
    while (!expiries_.empty() && expiries_.begin()->first <= now) {
      Waiter* waiter = expiries_.begin()->second;
      const absl::Duration waited = now - waiter->queued_at_;
      if (waiter->deadline_ <= now) {
        expired.emplace_back(
            waiter, absl::DeadlineExceededError(absl::StrCat(
                        waiter->method_, ": the deadline passed after ",
                        Millis(waited), " waiting for a slot (", limits_.slots,
                        " calls run at once: max_concurrent_adjudications)")));
      } else {
        const absl::Duration retry = RetryDelayLocked();
        expired.emplace_back(
            waiter,
            WithRetryAfter(
                WithLimit(absl::ResourceExhaustedError(absl::StrCat(
                              waiter->method_, ": no slot came free within ",
                              Millis(limits_.max_queue_wait),
                              ", this server's limit (max_queue_wait_ms; ",
                              limits_.slots,
                              " calls run at once: "
                              "max_concurrent_adjudications); retry in about ",
                              Millis(retry))),
                          "max_queue_wait_ms"),
                retry));
      }
      Unlink(waiter);
    }
    lock.unlock();
    for (auto& [waiter, status] : expired) waiter->Refuse(std::move(status));
    lock.lock();
  }
}

absl::Duration AdmissionGate::RetryDelayLocked() const {
  // The time the calls ahead would take to run, at the recent mean.
  const absl::Duration drain =
      mean_hold_ * (waiting_ + 1) / std::max(1, limits_.slots);
  return std::clamp(drain, absl::Milliseconds(1), absl::Seconds(60));
}

void AdmissionGate::Unlink(Waiter* waiter) {
  (waiter->previous_ != nullptr ? waiter->previous_->next_ : head_) =
      waiter->next_;
  (waiter->next_ != nullptr ? waiter->next_->previous_ : tail_) =
      waiter->previous_;
  waiter->previous_ = waiter->next_ = nullptr;
  expiries_.erase(waiter->expiry_);
  waiter->queued_ = false;
  --waiting_;
}

}  // namespace halma::service
