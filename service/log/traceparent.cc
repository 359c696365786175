#include "service/log/traceparent.h"

#include <cstddef>

namespace halma::service {
namespace {

// Lowercase only: the spec's HEXDIGLC, and a receiver must not accept
// uppercase (it would make one trace id look like two).
bool IsLowerHex(std::string_view s) {
  for (const char c : s) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

bool AllZero(std::string_view s) {
  return s.find_first_not_of('0') == std::string_view::npos;
}

std::string_view TrimOws(std::string_view s) {
  const std::size_t begin = s.find_first_not_of(" \t");
  if (begin == std::string_view::npos) return {};
  return s.substr(begin, s.find_last_not_of(" \t") - begin + 1);
}

}  // namespace

std::optional<std::string> TraceIdFromTraceparent(std::string_view header) {
  const std::string_view s = TrimOws(header);
  // 00-<32>-<16>-<2>: 2 + 1 + 32 + 1 + 16 + 1 + 2.
  constexpr std::size_t kLength = 55;
  if (s.size() < kLength) return std::nullopt;
  if (s[2] != '-' || s[35] != '-' || s[52] != '-') return std::nullopt;
  const std::string_view version = s.substr(0, 2);
  const std::string_view trace_id = s.substr(3, 32);
  const std::string_view parent_id = s.substr(36, 16);
  const std::string_view flags = s.substr(53, 2);
  if (!IsLowerHex(version) || !IsLowerHex(trace_id) || !IsLowerHex(parent_id) ||
      !IsLowerHex(flags)) {
    return std::nullopt;
  }
  if (version == "ff") return std::nullopt;
  // Version 00 is exactly 55 characters; a later version may add fields,
  // but only after another '-'.
  if (s.size() > kLength && (version == "00" || s[kLength] != '-')) {
    return std::nullopt;
  }
  if (AllZero(trace_id) || AllZero(parent_id)) return std::nullopt;
  return std::string(trace_id);
}

}  // namespace halma::service
