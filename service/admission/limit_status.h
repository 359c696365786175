// Errors that say which of the server's limits refused a call, and when a
// retry may succeed: carried as absl::Status payloads, so that the code
// that refuses stays transport-free and each edge turns them into its own
// protocol (gRPC's grpc-retry-pushback-ms trailer, HTTP's Retry-After) and
// the call observer counts the refusal by limit.
#ifndef HALMA_SERVICE_ADMISSION_LIMIT_STATUS_H_
#define HALMA_SERVICE_ADMISSION_LIMIT_STATUS_H_

#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"

namespace halma::service {

// `status` marked as refused by the setting named `limit`
// ("max_record_moves", "max_queue_length", ...).
absl::Status WithLimit(absl::Status status, absl::string_view limit);
// The setting that refused the call, if one did.
std::optional<std::string> LimitOf(const absl::Status& status);

// `status` with a hint that a retry after `delay` may succeed.
absl::Status WithRetryAfter(absl::Status status, absl::Duration delay);
// The hint, if there is one.
std::optional<absl::Duration> RetryAfterOf(const absl::Status& status);

}  // namespace halma::service

#endif  // HALMA_SERVICE_ADMISSION_LIMIT_STATUS_H_
