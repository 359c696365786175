// Rate-limited logging of library messages caused by clients.
//
// Protobuf logs an ERROR line for every request with a malformed string
// field (invalid UTF-8), so a client could fill the log at will: 20,000
// requests gave 4.5 MB in 6 s. These lines go through a limiter instead:
// at most `burst` lines per `period`, then one line saying how many were
// dropped when the next period starts logging again.
#ifndef HALMA_SERVICE_LOG_LIMITER_H_
#define HALMA_SERVICE_LOG_LIMITER_H_

#include <cstdint>
#include <functional>
#include <mutex>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"

namespace halma::service {

class LogLimiter {
 public:
  // `write` receives whole lines without the newline.
  LogLimiter(int burst, absl::Duration period,
             std::function<void(const std::string&)> write);

  // Writes `line` unless this period's burst is spent (then counts it).
  void Log(const std::string& line, absl::Time now = absl::Now());
  std::int64_t dropped_total() const;

 private:
  const int burst_;
  const absl::Duration period_;
  const std::function<void(const std::string&)> write_;
  // std::mutex rather than absl::Mutex: Debian's Abseil is not built for
  // ThreadSanitizer, which then cannot see its locking (the tsan preset).
  mutable std::mutex mu_;
  absl::Time period_start_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();
  int written_ ABSL_GUARDED_BY(mu_) = 0;
  std::int64_t dropped_ ABSL_GUARDED_BY(mu_) = 0;
  std::int64_t dropped_total_ ABSL_GUARDED_BY(mu_) = 0;
};

// Routes protobuf's log messages through a limiter of 5 lines a minute
// that writes to stderr. Call once, early in main().
void LimitProtobufLogging();

}  // namespace halma::service

#endif  // HALMA_SERVICE_LOG_LIMITER_H_
