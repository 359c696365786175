// The one checkpoint of expensive work: the engine calls it every few
// dozen plies of a replay (kCheckpointInterval) and every few thousand
// nodes of a count, and stops with its error.
#ifndef HALMA_SERVICE_ADMISSION_CHECKPOINT_H_
#define HALMA_SERVICE_ADMISSION_CHECKPOINT_H_

#include <atomic>
#include <functional>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace halma::service {

class Checkpoint;

// Called at every checkpoint, before its checks, on the thread doing the
// work. For tests only: to hold work at a known point (until a deadline has
// passed, a client has cancelled, another call has queued) instead of
// sizing the work from the machine's speed. Unset in production.
using CheckpointHook = std::function<void(const Checkpoint&)>;

class Checkpoint {
 public:
  // `method` and `work` name what stops in the error ("Adjudicate",
  // "replaying the record"). The work may run until the earlier of
  // `client_deadline` (absl::InfiniteFuture() for none) and `max_call` from
  // now (the server's max_call_seconds); `cancelled` says whether the
  // client has gone. `cancelled` and `hook` must outlive the checkpoint.
  // `stopped`, when given, says the server has stopped all work (its
  // shutdown's grace period is over).
  Checkpoint(absl::string_view method, absl::string_view work,
             absl::Time client_deadline, absl::Duration max_call,
             absl::FunctionRef<bool()> cancelled,
             const CheckpointHook* hook = nullptr,
             const std::atomic<bool>* stopped = nullptr);

  // OK to go on; DEADLINE_EXCEEDED past the deadline, naming
  // max_call_seconds (and marked with that limit when the server's limit,
  // not the client's deadline, ended the work); CANCELLED when the client
  // has gone; UNAVAILABLE when the server has stopped all work.
  absl::Status operator()() const;

  absl::string_view method() const { return method_; }
  // When the work must stop.
  absl::Time deadline() const { return deadline_; }
  bool cancelled() const { return cancelled_(); }
  // Whether the server has stopped all work (AdmissionGate::StopAll).
  bool stopped() const {
    return stopped_ != nullptr && stopped_->load(std::memory_order_acquire);
  }

 private:
  absl::string_view method_;
  absl::string_view work_;
  absl::Time deadline_;
  bool server_limit_first_;
  absl::Duration max_call_;
  absl::FunctionRef<bool()> cancelled_;
  const CheckpointHook* hook_;
  const std::atomic<bool>* stopped_;
};

}  // namespace halma::service

#endif  // HALMA_SERVICE_ADMISSION_CHECKPOINT_H_
