// One structured log line: a JSON object on a single line.
//
// Field values often come from clients (method names, peers, protobuf's
// messages quoting request text), so every string is escaped and bytes that
// are not valid UTF-8 become U+FFFD: each line parses as JSON whatever was
// sent, and a log shipper never drops or splits one.
#ifndef HALMA_SERVICE_LOG_JSON_LINE_H_
#define HALMA_SERVICE_LOG_JSON_LINE_H_

#include <concepts>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "absl/types/span.h"

namespace halma::service {

// A field's value. Implicit constructors so that call sites read
// `{"port", 50051}`; the templates take every integer type exactly, which
// keeps an `int` from being ambiguous between int64, double and bool.
class LogValue {
 public:
  LogValue(bool v) : v_(v) {}  // NOLINT(google-explicit-constructor)
  template <std::signed_integral T>
  requires(!std::same_as<T, bool>) LogValue(T v)
      : v_(static_cast<std::int64_t>(v)) {}  // NOLINT
  template <std::unsigned_integral T>
  requires(!std::same_as<T, bool>) LogValue(T v)
      : v_(static_cast<std::uint64_t>(v)) {}  // NOLINT
  template <std::floating_point T>
  LogValue(T v) : v_(static_cast<double>(v)) {}  // NOLINT
  // Without this a string literal would convert to bool (pointer to bool is
  // a standard conversion and beats the one to string_view).
  LogValue(const char* v) : v_(std::string_view(v)) {}         // NOLINT
  LogValue(std::string_view v) : v_(v) {}                      // NOLINT
  LogValue(const std::string& v) : v_(std::string_view(v)) {}  // NOLINT
  // String arrays. The vector overloads because a vector to Span to
  // LogValue would be two user-defined conversions, which C++ does not chain.
  LogValue(absl::Span<const std::string> v) : v_(v) {}       // NOLINT
  LogValue(absl::Span<const std::string_view> v) : v_(v) {}  // NOLINT
  LogValue(const std::vector<std::string>& v)                // NOLINT
      : v_(absl::Span<const std::string>(v)) {}
  LogValue(const std::vector<std::string_view>& v)  // NOLINT
      : v_(absl::Span<const std::string_view>(v)) {}

  // Appends the JSON encoding to `out`.
  void AppendTo(std::string* out) const;

 private:
  std::variant<bool, std::int64_t, std::uint64_t, double, std::string_view,
               absl::Span<const std::string>,
               absl::Span<const std::string_view>>
      v_;
};

struct LogField {
  std::string_view key;
  LogValue value;
};

using LogFields = std::initializer_list<LogField>;

// Builds `{"time":...,"level":...,"event":...,<fields in order added>}`.
// Keys are not checked for duplicates: they come from code, not clients.
class JsonLine {
 public:
  JsonLine(std::string_view level, std::string_view event,
           absl::Time now = absl::Now());

  JsonLine& Add(std::string_view key, const LogValue& value);
  JsonLine& Add(LogFields fields);

  // The object without a trailing newline.
  std::string text() const { return text_ + "}"; }

 private:
  std::string text_;  // Without the closing brace, so Add can append.
};

// Appends `s` as a quoted JSON string: `"` and `\` escaped, control
// characters as \n, \t, ... or \u00XX, invalid UTF-8 replaced by U+FFFD
// (one per maximal invalid subsequence, as Unicode recommends).
void AppendJsonString(std::string* out, std::string_view s);

// RFC 3339 in UTC with microseconds: 2026-12-01T20:00:00.123456Z.
std::string FormatLogTime(absl::Time t);

}  // namespace halma::service

#endif  // HALMA_SERVICE_LOG_JSON_LINE_H_
