// The server's structured log: JSON lines (json_line.h) written whole to a
// sink, with per-key rate limiting for warnings and an optional access log.
//
// Anything a client can cause on every request (protobuf's UTF-8 errors,
// rejected calls) must go through WarnLimited or the access log, never
// Info/Warn/Error, or a client could fill the log at will (log_limiter.h
// measured 4.5 MB in 6 s).
#ifndef HALMA_SERVICE_LOG_LOGGER_H_
#define HALMA_SERVICE_LOG_LOGGER_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "service/log/json_line.h"

namespace halma::service {

// Receives whole lines, each ending in '\n'. Calls are serialized by the
// Logger, so a sink needs no locking of its own.
class LogSink {
 public:
  virtual ~LogSink() = default;
  virtual void Write(std::string_view line) = 0;
};

// One write(2) per line (retrying short writes), bypassing stdio's buffer:
// on stderr a line reaches the pipe in one piece, so it cannot interleave
// with gRPC's or the front proxy's output there (atomic up to PIPE_BUF,
// 4 KiB; longer lines are rare, and among ours the Logger serializes).
// Does not own the descriptor.
class FdSink : public LogSink {
 public:
  explicit FdSink(int fd = 2) : fd_(fd) {}
  void Write(std::string_view line) override;

 private:
  const int fd_;
};

// Keeps the lines (without '\n') for tests.
class MemorySink : public LogSink {
 public:
  void Write(std::string_view line) override;
  std::vector<std::string> lines() const;

 private:
  mutable std::mutex mu_;
  std::vector<std::string> lines_ ABSL_GUARDED_BY(mu_);
};

// One finished call. Views need only outlive the Access() call. Every
// member has a default, so designated initializers may leave any out.
struct AccessRecord {
  std::string_view protocol = {};  // "grpc" or "connect"
  std::string_view method = {};    // "/halma.v1.HalmaRules/Adjudicate"
  std::string_view code = {};      // "OK", "INVALID_ARGUMENT", ...
  absl::Duration latency = absl::ZeroDuration();
  std::string_view peer = {};
  std::int64_t request_bytes = 0;
  std::int64_t response_bytes = 0;
  std::string_view variant = {};  // Left out of the line when empty.
  // SuggestMove: the level asked for ("default", "1".."8", "budget"), as
  // the line's "suggest_level" ("level" is the line's severity); left out
  // when empty.
  std::string_view level = {};
  std::string_view trace_id = {};  // From traceparent; left out when empty.
};

class Logger {
 public:
  struct Options {
    // WarnLimited: at most `limit_burst` lines per key per `limit_period`.
    int limit_burst = 5;
    absl::Duration limit_period = absl::Minutes(1);
    bool access_log = false;
    // Time source for the lines and the limiter (tests pass a fake one).
    std::function<absl::Time()> clock = [] { return absl::Now(); };
  };

  // A null sink means FdSink on stderr.
  explicit Logger(std::unique_ptr<LogSink> sink = nullptr);
  Logger(std::unique_ptr<LogSink> sink, Options options);

  void Info(std::string_view event, LogFields fields = {});
  void Warn(std::string_view event, LogFields fields = {});
  void Error(std::string_view event, LogFields fields = {});
  // A line built by the caller (e.g. the startup line with every setting).
  void Write(const JsonLine& line);

  // At most limit_burst lines per `key` per period (key is chosen by the
  // code, e.g. "protobuf:wire_format_lite.cc:581", never by a client). The
  // first line logged in a later period is preceded by
  // {"event":"log.dropped","key":...,"dropped":K,...} when some were dropped.
  void WarnLimited(std::string_view key, std::string_view event,
                   LogFields fields = {});
  // The same at another level; level "error" for a server fault that a
  // client can trigger repeatedly.
  void Limited(std::string_view level, std::string_view key,
               std::string_view event, LogFields fields = {});
  // Writes the pending log.dropped lines (at shutdown, so counts from the
  // last period are not lost).
  void FlushDropped();
  std::int64_t dropped_total() const;

  // The access log: one line per call, only when enabled (check
  // access_log_enabled() first to skip building the record).
  bool access_log_enabled() const {
    return access_log_.load(std::memory_order_relaxed);
  }
  void set_access_log(bool on) {
    access_log_.store(on, std::memory_order_relaxed);
  }
  void Access(const AccessRecord& record);

  absl::Time Now() const { return options_.clock(); }

 private:
  struct KeyState {
    absl::Time period_start = absl::InfinitePast();
    int written = 0;
    std::int64_t dropped = 0;
  };
  // Keys are code constants, but a bug passing client text would grow the
  // map without bound; past this many, keys share one budget.
  static constexpr std::size_t kMaxKeys = 1024;

  void WriteLocked(const std::string& text) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  std::string DroppedLine(std::string_view key, std::int64_t dropped,
                          absl::Time now) const;

  const std::unique_ptr<LogSink> sink_;
  const Options options_;
  std::atomic<bool> access_log_;
  // std::mutex, not absl::Mutex: Debian's Abseil is not built for
  // ThreadSanitizer (see log_limiter.h).
  mutable std::mutex mu_;
  std::map<std::string, KeyState, std::less<>> keys_ ABSL_GUARDED_BY(mu_);
  std::int64_t dropped_total_ ABSL_GUARDED_BY(mu_) = 0;
};

// Sends protobuf's log messages to `logger` as JSON lines, each through
// Limited("warn", "protobuf:<file>:<line>", "protobuf.log", ...): a
// client's invalid UTF-8 makes protobuf log an ERROR per request. FATAL
// messages are written unlimited at level "error" (protobuf aborts next).
// Replaces LimitProtobufLogging(). `logger` must outlive every later
// protobuf call; nullptr discards protobuf's messages. Not thread-safe with
// protobuf's own logging (SetLogHandler is not): call early in main().
void RouteProtobufLogsTo(Logger* logger);

}  // namespace halma::service

#endif  // HALMA_SERVICE_LOG_LOGGER_H_
