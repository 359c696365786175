#include "service/admission/limit_status.h"

#include <cstdint>

#include "absl/strings/cord.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace halma::service {
namespace {

// Payload type URLs: ours, never sent to a client as such.
constexpr absl::string_view kLimitPayload = "halma.service/limit";
constexpr absl::string_view kRetryAfterPayload = "halma.service/retry_after_us";

}  // namespace

absl::Status WithLimit(absl::Status status, absl::string_view limit) {
  status.SetPayload(kLimitPayload, absl::Cord(limit));
  return status;
}

std::optional<std::string> LimitOf(const absl::Status& status) {
  if (status.ok()) return std::nullopt;
  auto payload = status.GetPayload(kLimitPayload);
  if (!payload.has_value()) return std::nullopt;
  return std::string(*payload);
}

absl::Status WithRetryAfter(absl::Status status, absl::Duration delay) {
  status.SetPayload(kRetryAfterPayload,
                    absl::Cord(absl::StrCat(absl::ToInt64Microseconds(delay))));
  return status;
}

std::optional<absl::Duration> RetryAfterOf(const absl::Status& status) {
  if (status.ok()) return std::nullopt;
  auto payload = status.GetPayload(kRetryAfterPayload);
  std::int64_t micros = 0;
  if (!payload.has_value() ||
      !absl::SimpleAtoi(std::string(*payload), &micros)) {
    return std::nullopt;
  }
  return absl::Microseconds(micros);
}

}  // namespace halma::service
