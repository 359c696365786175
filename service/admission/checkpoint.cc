#include "service/admission/checkpoint.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "service/admission/limit_status.h"

namespace halma::service {

Checkpoint::Checkpoint(absl::string_view method, absl::string_view work,
                       absl::Time client_deadline, absl::Duration max_call,
                       absl::FunctionRef<bool()> cancelled,
                       const CheckpointHook* hook,
                       const std::atomic<bool>* stopped)
    : method_(method),
      work_(work),
      deadline_(std::min(client_deadline, absl::Now() + max_call)),
      server_limit_first_(deadline_ < client_deadline),
      max_call_(max_call),
      cancelled_(cancelled),
      hook_(hook != nullptr && *hook ? hook : nullptr),
      stopped_(stopped) {}

absl::Status Checkpoint::operator()() const {
  if (hook_ != nullptr) (*hook_)(*this);
  // The deadline first: gRPC cancels a call whose deadline has passed.
  if (absl::Now() > deadline_) {
    absl::Status status = absl::DeadlineExceededError(
        absl::StrCat(method_, ": deadline exceeded while ", work_,
                     " (the client's deadline, or this server's limit of ",
                     absl::FormatDuration(max_call_), ": max_call_seconds)"));
    // Counted as refused by the limit only when it, not the client's
    // deadline, ended the work.
    return server_limit_first_ ? WithLimit(status, "max_call_seconds") : status;
  }
  if (cancelled_()) {
    return absl::CancelledError(absl::StrCat(method_, ": call cancelled"));
  }
  if (stopped_ != nullptr && stopped_->load(std::memory_order_acquire)) {
    return absl::UnavailableError(absl::StrCat(
        method_, ": the server is shutting down and its grace period is over"));
  }
  return absl::OkStatus();
}

}  // namespace halma::service
