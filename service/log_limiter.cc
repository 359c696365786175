#include "service/log_limiter.h"

#include <cstdio>
#include <utility>

#include "absl/strings/str_cat.h"
#include "google/protobuf/stubs/logging.h"

namespace halma::service {

LogLimiter::LogLimiter(int burst, absl::Duration period,
                       std::function<void(const std::string&)> write)
    : burst_(burst), period_(period), write_(std::move(write)) {}

void LogLimiter::Log(const std::string& line, absl::Time now) {
  std::string dropped_note;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (now - period_start_ >= period_) {
      if (dropped_ > 0) {
        dropped_note =
            absl::StrCat("(", dropped_, " similar lines dropped in the last ",
                         absl::FormatDuration(period_), ")");
      }
      period_start_ = now;
      written_ = 0;
      dropped_ = 0;
    }
    if (written_ >= burst_) {
      ++dropped_;
      ++dropped_total_;
      return;
    }
    ++written_;
  }
  if (!dropped_note.empty()) write_(dropped_note);
  write_(line);
}

std::int64_t LogLimiter::dropped_total() const {
  std::lock_guard<std::mutex> lock(mu_);
  return dropped_total_;
}

namespace {

LogLimiter& ProtobufLimiter() {
  static LogLimiter* limiter =
      new LogLimiter(5, absl::Minutes(1), [](const std::string& line) {
        const std::string text = line + "\n";
        fwrite(text.data(), 1, text.size(), stderr);
        fflush(stderr);
      });
  return *limiter;
}

void HandleProtobufLog(google::protobuf::LogLevel level, const char* filename,
                       int line, const std::string& message) {
  static const char* const kLevels[] = {"INFO", "WARNING", "ERROR", "FATAL"};
  const char* name = level >= 0 && level <= 3 ? kLevels[level] : "LOG";
  ProtobufLimiter().Log(absl::StrCat("[libprotobuf ", name, " ", filename, ":",
                                     line, "] ", message));
}

}  // namespace

void LimitProtobufLogging() {
  google::protobuf::SetLogHandler(&HandleProtobufLog);
}

}  // namespace halma::service
