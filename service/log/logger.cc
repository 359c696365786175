#include "service/log/logger.h"

#include <errno.h>
#include <unistd.h>

#include <atomic>
#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"
#include "google/protobuf/stubs/logging.h"

namespace halma::service {

void FdSink::Write(std::string_view line) {
  const char* p = line.data();
  std::size_t left = line.size();
  while (left > 0) {
    const ssize_t n = ::write(fd_, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      return;  // Nowhere to report a failing stderr.
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
}

void MemorySink::Write(std::string_view line) {
  if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
  std::lock_guard<std::mutex> lock(mu_);
  lines_.emplace_back(line);
}

std::vector<std::string> MemorySink::lines() const {
  std::lock_guard<std::mutex> lock(mu_);
  return lines_;
}

Logger::Logger(std::unique_ptr<LogSink> sink)
    : Logger(std::move(sink), Options()) {}

Logger::Logger(std::unique_ptr<LogSink> sink, Options options)
    : sink_(sink != nullptr ? std::move(sink) : std::make_unique<FdSink>()),
      options_(std::move(options)),
      access_log_(options_.access_log) {}

void Logger::WriteLocked(const std::string& text) {
  std::string line;
  line.reserve(text.size() + 1);
  line.append(text).push_back('\n');
  sink_->Write(line);
}

void Logger::Write(const JsonLine& line) {
  const std::string text = line.text();
  std::lock_guard<std::mutex> lock(mu_);
  WriteLocked(text);
}

void Logger::Info(std::string_view event, LogFields fields) {
  Write(JsonLine("info", event, Now()).Add(fields));
}

void Logger::Warn(std::string_view event, LogFields fields) {
  Write(JsonLine("warn", event, Now()).Add(fields));
}

void Logger::Error(std::string_view event, LogFields fields) {
  Write(JsonLine("error", event, Now()).Add(fields));
}

void Logger::WarnLimited(std::string_view key, std::string_view event,
                         LogFields fields) {
  Limited("warn", key, event, fields);
}

std::string Logger::DroppedLine(std::string_view key, std::int64_t dropped,
                                absl::Time now) const {
  return JsonLine("warn", "log.dropped", now)
      .Add({{"key", key},
            {"dropped", dropped},
            {"period_seconds", absl::ToDoubleSeconds(options_.limit_period)}})
      .text();
}

void Logger::Limited(std::string_view level, std::string_view key,
                     std::string_view event, LogFields fields) {
  const absl::Time now = Now();
  std::lock_guard<std::mutex> lock(mu_);
  auto it = keys_.find(key);
  if (it == keys_.end()) {
    it = keys_.size() < kMaxKeys ? keys_.emplace(key, KeyState()).first
                                 : keys_.try_emplace("(overflow)").first;
  }
  KeyState& state = it->second;
  if (now - state.period_start >= options_.limit_period) {
    if (state.dropped > 0)
      WriteLocked(DroppedLine(it->first, state.dropped, now));
    state = KeyState{.period_start = now};
  }
  if (state.written >= options_.limit_burst) {
    // The flood path: no formatting, just a count.
    ++state.dropped;
    ++dropped_total_;
    return;
  }
  ++state.written;
  WriteLocked(JsonLine(level, event, now).Add(fields).text());
}

void Logger::FlushDropped() {
  const absl::Time now = Now();
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& [key, state] : keys_) {
    if (state.dropped == 0) continue;
    WriteLocked(DroppedLine(key, state.dropped, now));
    state.dropped = 0;
  }
}

std::int64_t Logger::dropped_total() const {
  std::lock_guard<std::mutex> lock(mu_);
  return dropped_total_;
}

void Logger::Access(const AccessRecord& r) {
  if (!access_log_enabled()) return;
  // Milliseconds with microsecond resolution: short, and what dashboards
  // expect, where nanosecond digits would only be noise.
  const double latency_ms =
      std::round(absl::ToDoubleMicroseconds(r.latency)) / 1000.0;
  JsonLine line("info", "access", Now());
  line.Add({{"protocol", r.protocol},
            {"method", r.method},
            {"code", r.code},
            {"latency_ms", latency_ms},
            {"peer", r.peer},
            {"request_bytes", r.request_bytes},
            {"response_bytes", r.response_bytes}});
  if (!r.variant.empty()) line.Add("variant", r.variant);
  if (!r.level.empty()) line.Add("suggest_level", r.level);
  if (!r.trace_id.empty()) line.Add("trace_id", r.trace_id);
  Write(line);
}

namespace {

std::atomic<Logger*> protobuf_logger{nullptr};

void HandleProtobufLog(google::protobuf::LogLevel level, const char* filename,
                       int line, const std::string& message) {
  Logger* logger = protobuf_logger.load(std::memory_order_acquire);
  if (logger == nullptr) return;
  static const char* const kLevels[] = {"INFO", "WARNING", "ERROR", "FATAL"};
  const char* name = level >= 0 && level <= 3 ? kLevels[level] : "LOG";
  const LogFields fields = {{"protobuf_level", name},
                            {"file", filename},
                            {"line", line},
                            {"message", message}};
  if (level >= google::protobuf::LOGLEVEL_FATAL) {
    logger->Write(JsonLine("error", "protobuf.log", logger->Now()).Add(fields));
    return;
  }
  logger->Limited("warn", absl::StrCat("protobuf:", filename, ":", line),
                  "protobuf.log", fields);
}

}  // namespace

void RouteProtobufLogsTo(Logger* logger) {
  protobuf_logger.store(logger, std::memory_order_release);
  // A handler that ignores everything while no logger is set, rather than
  // nullptr, so that a later RouteProtobufLogsTo needs no second
  // SetLogHandler (which is not thread-safe).
  google::protobuf::SetLogHandler(&HandleProtobufLog);
}

}  // namespace halma::service
