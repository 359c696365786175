#include "service/log/json_line.h"

#include <string>
#include <vector>

#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace halma::service {
namespace {

using ::testing::ElementsAre;

// 2026-12-01T20:00:00.123456Z
absl::Time FixedTime() {
  return absl::FromCivil(absl::CivilSecond(2026, 12, 1, 20, 0, 0),
                         absl::UTCTimeZone()) +
         absl::Microseconds(123456);
}

std::string Quoted(std::string_view s) {
  std::string out;
  AppendJsonString(&out, s);
  return out;
}

TEST(JsonLineTest, TimeLevelEventThenFieldsInOrderAdded) {
  const std::vector<std::string> addresses = {"a:1", "b\"2"};
  const std::string line = JsonLine("info", "server.start", FixedTime())
                               .Add("port", 50051)
                               .Add("host", "0.0.0.0")
                               .Add("tls", false)
                               .Add("ratio", 0.25)
                               .Add("big", std::uint64_t{18446744073709551615u})
                               .Add("neg", std::int64_t{-9223372036854775807})
                               .Add("addresses", addresses)
                               .Add({{"z", 1}, {"a", true}})
                               .text();
  EXPECT_EQ(line, R"({"time":"2026-12-01T20:00:00.123456Z","level":"info",)"
                  R"("event":"server.start","port":50051,"host":"0.0.0.0",)"
                  R"("tls":false,"ratio":0.25,"big":18446744073709551615,)"
                  R"("neg":-9223372036854775807,"addresses":["a:1","b\"2"],)"
                  R"("z":1,"a":true})");
  const nlohmann::ordered_json j = nlohmann::ordered_json::parse(line);
  std::vector<std::string> keys;
  for (const auto& [key, value] : j.items()) keys.push_back(key);
  EXPECT_THAT(keys, ElementsAre("time", "level", "event", "port", "host", "tls",
                                "ratio", "big", "neg", "addresses", "z", "a"));
}

TEST(JsonLineTest, TimeIsUtcWithMicroseconds) {
  EXPECT_EQ(FormatLogTime(FixedTime()), "2026-12-01T20:00:00.123456Z");
  EXPECT_EQ(FormatLogTime(absl::UnixEpoch()), "1970-01-01T00:00:00.000000Z");
}

TEST(JsonLineTest, NonFiniteDoublesAreNull) {
  const std::string line = JsonLine("info", "x", FixedTime())
                               .Add("nan", std::nan(""))
                               .Add("inf", 1.0 / 0.0)
                               .Add("big", 1e300)
                               .text();
  const auto j = nlohmann::json::parse(line);
  EXPECT_TRUE(j["nan"].is_null());
  EXPECT_TRUE(j["inf"].is_null());
  EXPECT_EQ(j["big"].get<double>(), 1e300);
}

TEST(JsonEscapeTest, QuotesBackslashAndControlCharacters) {
  EXPECT_EQ(Quoted("a\"b\\c"), R"("a\"b\\c")");
  EXPECT_EQ(Quoted("\n\r\t"), R"("\n\r\t")");
  EXPECT_EQ(Quoted(std::string_view("\0\x01\x1f\b\f", 5)),
            R"("\u0000\u0001\u001f\u0008\u000c")");
  EXPECT_EQ(Quoted("\x7f/"), "\"\x7f/\"");
  // Every byte value below 0x80 round-trips through a JSON parser.
  std::string all;
  for (int c = 0; c < 0x80; ++c) all.push_back(static_cast<char>(c));
  EXPECT_EQ(nlohmann::json::parse(Quoted(all)).get<std::string>(), all);
}

TEST(JsonEscapeTest, ValidUtf8IsKept) {
  const std::string text = "é ü 中 😀 \xEF\xBF\xBF \xF4\x8F\xBF\xBF";
  EXPECT_EQ(Quoted(text), "\"" + text + "\"");
  EXPECT_EQ(nlohmann::json::parse(Quoted(text)).get<std::string>(), text);
}

TEST(JsonEscapeTest, InvalidUtf8BecomesReplacementCharacter) {
  const std::string r = "\xEF\xBF\xBD";
  struct Case {
    std::string in, out;
  };
  const std::vector<Case> cases = {
      {"\xff", r},                          // never valid
      {"a\x80z", "a" + r + "z"},            // lone continuation byte
      {"\xC0\xAF", r + r},                  // overlong '/'
      {"\xE0\x80\xAF", r + r + r},          // overlong, E0 needs A0..BF next
      {"\xED\xA0\x80", r + r + r},          // UTF-16 surrogate
      {"\xF4\x90\x80\x80", r + r + r + r},  // past U+10FFFF
      {"\xE4\xB8", r},                      // truncated at the end: one U+FFFD
      {"\xE4\xB8z", r + "z"},               // truncated before ASCII
      {"\xF0\x9F\x98", r},                  // truncated 4-byte sequence
      {"\xC3", r},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(Quoted(c.in), "\"" + c.out + "\"")
        << testing::PrintToString(c.in);
  }
  // Whatever the bytes, the line parses.
  std::string noise;
  for (int i = 0; i < 4096; ++i) {
    noise.push_back(static_cast<char>((i * 7919 + i / 3) & 0xff));
  }
  const std::string line =
      JsonLine("warn", "x", FixedTime()).Add("message", noise).text();
  EXPECT_EQ(line.find('\n'), std::string::npos);
  EXPECT_NO_THROW(nlohmann::json::parse(line));
}

TEST(JsonEscapeTest, KeysAndEventsAreEscapedToo) {
  const std::string line =
      JsonLine("info", "ev\"\n", FixedTime()).Add("k\\\xff", 1).text();
  const auto j = nlohmann::json::parse(line);
  EXPECT_EQ(j["event"], "ev\"\n");
  EXPECT_EQ(j["k\\\xEF\xBF\xBD"], 1);
}

}  // namespace
}  // namespace halma::service
