// The admission gate: every expensive call (Adjudicate, each record of an
// AdjudicateStream, Perft) holds one of a few slots while it runs, so that
// they cannot take every CPU from the cheap calls and health checks.
//
// A call that finds every slot busy waits in a first-come first-served
// queue rather than being refused: two calls that overlap by a fraction of
// a millisecond are no reason for an error. The queue is bounded three
// ways: its length (max_queue_length), the longest wait (max_queue_wait_ms)
// and the call's own deadline. Only beyond them is a call refused, with
// RESOURCE_EXHAUSTED naming the limit and a hint of when to retry
// (limit_status.h), or DEADLINE_EXCEEDED.
//
// Transport-free: a waiting call is a Waiter, which the gate tells when it
// gets a slot or is refused. The gate never blocks the thread that enters
// it (gRPC's callback threads must not wait), except in Wait(), the form
// for threads of the caller's own (the HTTP listener's).
//
// Every slot freed goes straight to the call at the head of the queue, so a
// newcomer never takes a slot from a call that has waited.
#ifndef HALMA_SERVICE_ADMISSION_ADMISSION_GATE_H_
#define HALMA_SERVICE_ADMISSION_ADMISSION_GATE_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <thread>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "service/admission/checkpoint.h"

namespace halma::service {

struct AdmissionLimits {
  // Calls that run at once (max_concurrent_adjudications, resolved: >= 1).
  int slots = 1;
  // Calls that may wait at once; 0: none, every call beyond the slots is
  // refused at once.
  int max_queue_length = 0;
  // Longest wait for a slot.
  absl::Duration max_queue_wait = absl::Seconds(1);
  // Longest run with a slot (max_call_seconds), for the checkpoints.
  absl::Duration max_call = absl::Seconds(10);
  // Tests only (checkpoint.h).
  CheckpointHook checkpoint_hook;
};

class AdmissionGate {
 public:
  // A held slot, given back when destroyed (to the next waiter, if any).
  class Slot {
   public:
    Slot() = default;
    Slot(Slot&& other) noexcept;
    Slot& operator=(Slot&& other) noexcept;
    ~Slot();

    explicit operator bool() const { return gate_ != nullptr; }
    // How long the call waited for it (zero when it was free).
    absl::Duration waited() const { return waited_; }
    // Gives it back now.
    void Release();

   private:
    friend class AdmissionGate;
    Slot(AdmissionGate* gate, absl::Duration waited, absl::Time since)
        : gate_(gate), waited_(waited), since_(since) {}

    AdmissionGate* gate_ = nullptr;
    absl::Duration waited_;
    absl::Time since_;
  };

  // A call waiting for a slot. The gate calls exactly one of Admit and
  // Refuse, once, from whatever thread frees the slot, finds the wait over
  // or cancels it, and never with its lock held. Both must return at once:
  // a Waiter hands the work on (to a thread of its transport) rather than
  // doing it there.
  class Waiter {
   public:
    virtual void Admit(Slot slot) = 0;
    virtual void Refuse(absl::Status status) = 0;

   protected:
    ~Waiter() = default;

   private:
    friend class AdmissionGate;
    // Guarded by the gate's lock.
    Waiter* previous_ = nullptr;
    Waiter* next_ = nullptr;
    bool queued_ = false;
    absl::string_view method_;
    absl::Time queued_at_;
    absl::Time deadline_;
    std::multimap<absl::Time, Waiter*>::iterator expiry_;
  };

  // What the gate needs of a call.
  struct Call {
    // Named in errors: "Adjudicate", "Perft", "AdjudicateStream".
    absl::string_view method;
    // The client's deadline; absl::InfiniteFuture() for none.
    absl::Time deadline = absl::InfiniteFuture();
  };

  explicit AdmissionGate(AdmissionLimits limits);
  AdmissionGate(const AdmissionGate&) = delete;
  AdmissionGate& operator=(const AdmissionGate&) = delete;
  // Calls still waiting are refused (UNAVAILABLE).
  ~AdmissionGate();

  // A slot at once when one is free; otherwise `waiter` is queued and an
  // empty Slot returned (Admit or Refuse follows); or the refusal, when the
  // queue is full or the deadline has passed already. `waiter` must live
  // until it is told.
  absl::StatusOr<Slot> Enter(const Call& call, Waiter* waiter);

  // A slot at once when one is free, else an empty Slot (nothing queued);
  // the refusal when the server is stopping. For a caller that is cheaper
  // to run without a Waiter when the call need not wait (the gRPC edge's
  // unary calls, service/grpc/unary_calls.h).
  absl::StatusOr<Slot> TryEnter(const Call& call);

  // The same, blocking the calling thread until the call has a slot or is
  // refused. Only for threads that are the caller's own.
  absl::StatusOr<Slot> Wait(const Call& call);

  // Takes `waiter` out of the queue and refuses it with `status` (the
  // client went away). Nothing happens when it was told already.
  void Cancel(Waiter* waiter, absl::Status status);

  // The end of a shutdown's grace period: every checkpoint from now on
  // stops its work (UNAVAILABLE), every waiting call is refused, and so is
  // every new one. gRPC's own cancellation of the calls may not reach the
  // work in time: it is delivered on gRPC's callback threads, which the
  // work itself may be holding.
  void StopAll();

  // The checkpoint of work run with a slot: max_call from now, the test
  // hook. `cancelled` must outlive it.
  Checkpoint MakeCheckpoint(absl::string_view method, absl::string_view work,
                            absl::Time client_deadline,
                            absl::FunctionRef<bool()> cancelled) const;

  const AdmissionLimits& limits() const { return limits_; }
  int in_use() const;
  int waiting() const;

 private:
  // UNAVAILABLE naming the call's method once StopAll() was called.
  absl::Status StoppedError(const Call& call) const;
  // Takes a free slot, if any; requires mu_.
  bool TakeFreeSlotLocked();
  // Hands the slot on or frees it; `held` is how long it was held.
  void Give(absl::Duration held);
  void Expire();
  // The wait a retry should expect; requires mu_.
  absl::Duration RetryDelayLocked() const;
  void Unlink(Waiter* waiter);  // Requires mu_.

  const AdmissionLimits limits_;
  mutable std::mutex mu_;
  std::condition_variable expiry_changed_;
  int in_use_ = 0;                               // Guarded by mu_.
  int waiting_ = 0;                              // Guarded by mu_.
  Waiter* head_ = nullptr;                       // Guarded by mu_.
  Waiter* tail_ = nullptr;                       // Guarded by mu_.
  std::multimap<absl::Time, Waiter*> expiries_;  // Guarded by mu_.
  // Mean time a slot is held (exponentially weighted), for retry hints.
  absl::Duration mean_hold_ = absl::Milliseconds(1);  // Guarded by mu_.
  bool stopping_ = false;                             // Guarded by mu_.
  std::atomic<bool> stopped_{false};                  // StopAll() was called.
  std::thread expirer_;
};

}  // namespace halma::service

#endif  // HALMA_SERVICE_ADMISSION_ADMISSION_GATE_H_
