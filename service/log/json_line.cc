#include "service/log/json_line.h"

#include <charconv>
#include <cmath>
#include <cstddef>

#include "absl/strings/str_cat.h"

namespace halma::service {
namespace {

constexpr char kHex[] = "0123456789abcdef";
constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// The length of the valid UTF-8 sequence at the start of `s`, or 0 when it
// is not valid; in that case `*bad` is how many bytes to replace by one
// U+FFFD (the lead byte and the continuation bytes that were acceptable).
std::size_t ValidUtf8Prefix(std::string_view s, std::size_t* bad) {
  const auto b = [&](std::size_t i) {
    return static_cast<unsigned char>(s[i]);
  };
  const unsigned char lead = b(0);
  std::size_t n = 0;
  // The range of the second byte is narrower for some leads: that is what
  // rules out overlong forms, surrogates and code points past U+10FFFF.
  unsigned char lo = 0x80, hi = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    n = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    n = 3;
    if (lead == 0xE0) lo = 0xA0;
    if (lead == 0xED) hi = 0x9F;
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    n = 4;
    if (lead == 0xF0) lo = 0x90;
    if (lead == 0xF4) hi = 0x8F;
  } else {
    *bad = 1;
    return 0;
  }
  for (std::size_t i = 1; i < n; ++i) {
    const bool ok = i < s.size() && b(i) >= (i == 1 ? lo : 0x80) &&
                    b(i) <= (i == 1 ? hi : 0xBF);
    if (!ok) {
      *bad = i;
      return 0;
    }
  }
  return n;
}

}  // namespace

void AppendJsonString(std::string* out, std::string_view s) {
  out->push_back('"');
  std::size_t i = 0;
  while (i < s.size()) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      std::size_t bad = 0;
      const std::size_t n = ValidUtf8Prefix(s.substr(i), &bad);
      if (n > 0) {
        out->append(s.substr(i, n));
        i += n;
      } else {
        out->append(kReplacement);
        i += bad;
      }
      continue;
    }
    switch (c) {
      case '"':
        out->append("\\\"");
        break;
      case '\\':
        out->append("\\\\");
        break;
      case '\n':
        out->append("\\n");
        break;
      case '\r':
        out->append("\\r");
        break;
      case '\t':
        out->append("\\t");
        break;
      default:
        if (c < 0x20) {
          out->append("\\u00");
          out->push_back(kHex[c >> 4]);
          out->push_back(kHex[c & 0xF]);
        } else {
          out->push_back(static_cast<char>(c));
        }
    }
    ++i;
  }
  out->push_back('"');
}

std::string FormatLogTime(absl::Time t) {
  return absl::FormatTime("%Y-%m-%dT%H:%M:%E6SZ", t, absl::UTCTimeZone());
}

namespace {

// Appends one LogValue alternative as JSON.
struct AppendVisitor {
  std::string* out;
  void operator()(bool v) { out->append(v ? "true" : "false"); }
  void operator()(std::int64_t v) { absl::StrAppend(out, v); }
  void operator()(std::uint64_t v) { absl::StrAppend(out, v); }
  void operator()(double v) {
    // JSON has no NaN or infinity.
    if (!std::isfinite(v)) {
      out->append("null");
      return;
    }
    // Shortest round-trip form; always a valid JSON number ("1e+20").
    char buf[32];
    const auto r = std::to_chars(buf, buf + sizeof(buf), v);
    out->append(buf, r.ptr);
  }
  void operator()(std::string_view v) { AppendJsonString(out, v); }
  void operator()(absl::Span<const std::string> v) { List(v); }
  void operator()(absl::Span<const std::string_view> v) { List(v); }
  template <typename Span>
  void List(Span v) {
    out->push_back('[');
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (i > 0) out->push_back(',');
      AppendJsonString(out, v[i]);
    }
    out->push_back(']');
  }
};

}  // namespace

void LogValue::AppendTo(std::string* out) const {
  std::visit(AppendVisitor{out}, v_);
}

JsonLine::JsonLine(std::string_view level, std::string_view event,
                   absl::Time now) {
  text_.reserve(128);
  text_.append("{\"time\":\"");
  text_.append(FormatLogTime(now));
  text_.append("\",\"level\":");
  AppendJsonString(&text_, level);
  text_.append(",\"event\":");
  AppendJsonString(&text_, event);
}

JsonLine& JsonLine::Add(std::string_view key, const LogValue& value) {
  text_.push_back(',');
  AppendJsonString(&text_, key);
  text_.push_back(':');
  value.AppendTo(&text_);
  return *this;
}

JsonLine& JsonLine::Add(LogFields fields) {
  for (const LogField& f : fields) Add(f.key, f.value);
  return *this;
}

}  // namespace halma::service
