// The settings table and what is made from it: validation naming the
// setting, the environment and the flags (an explicit flag wins over the
// variable, which wins over the default), and the Markdown table of
// docs/configuration.md (whose file a ctest checks with
// halma_settings_table --check).
#include "service/config/settings.h"

#include <string>

#include "absl/flags/parse.h"
#include "absl/flags/reflection.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/config/settings_flags.h"
#include "service/config/settings_markdown.h"

namespace halma::service {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

TEST(SettingsTest, ValidationNamesTheSettingAndItsValue) {
  EXPECT_TRUE(ValidateSettings(Settings()).ok());
  struct Case {
    void (*edit)(Settings&);
    const char* message_start;
  };
  const Case cases[] = {
      {[](Settings& s) { s.port = 70000; }, "port 70000: expected 0 to 65535"},
      {[](Settings& s) { s.max_record_moves = 0; }, "max_record_moves 0"},
      {[](Settings& s) { s.grace_period_seconds = -1; },
       "grace_period_seconds -1"},
      {[](Settings& s) { s.max_memory_bytes = -1; }, "max_memory_bytes -1"},
      {[](Settings& s) { s.max_metadata_bytes = 10; },
       "max_metadata_bytes 10: expected 1024 to"},
      {[](Settings& s) { s.max_perft_depth = 65; },
       "max_perft_depth 65: expected 0 to 64"},
      {[](Settings& s) { s.max_queue_length = -1; }, "max_queue_length -1"},
      {[](Settings& s) { s.max_queue_wait_ms = -5; }, "max_queue_wait_ms -5"},
      {[](Settings& s) { s.host = ""; }, "host: empty"},
      {[](Settings& s) { s.tls_cert = "a.pem"; }, "tls_cert and tls_key"},
  };
  for (const Case& c : cases) {
    Settings settings;
    c.edit(settings);
    const absl::Status status = ValidateSettings(settings);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument)
        << c.message_start;
    EXPECT_THAT(std::string(status.message()), StartsWith(c.message_start));
  }
}

TEST(SettingsTest, EnvironmentOverridesDefaultsAndFlagsOverrideEnvironment) {
  absl::FlagSaver saver;
  auto env = [](const char* name) -> const char* {
    const std::string n = name;
    if (n == "HALMA_PORT") return "6000";
    if (n == "HALMA_MAX_RECORD_MOVES") return "77";
    if (n == "HALMA_REFLECTION") return "false";
    if (n == "HALMA_HOST") return "127.0.0.1";
    if (n == "HALMA_MAX_MEMORY_BYTES") return "5000000000";
    if (n == "HALMA_MAX_QUEUE_WAIT_MS") return "250";
    if (n == "HALMA_FRONT_PROXY") return "/usr/sbin/nghttpx";
    return nullptr;
  };
  ASSERT_TRUE(ApplyEnvironmentToFlags(env).ok());
  Settings settings = SettingsFromFlags();
  EXPECT_EQ(settings.port, 6000);
  EXPECT_EQ(settings.max_record_moves, 77);
  EXPECT_FALSE(settings.reflection);
  EXPECT_EQ(settings.host, "127.0.0.1");
  EXPECT_EQ(settings.max_memory_bytes, 5000000000);  // Beyond 32 bits.
  EXPECT_EQ(settings.max_queue_wait_ms, 250);
  EXPECT_EQ(settings.front_proxy, "/usr/sbin/nghttpx");
  EXPECT_EQ(settings.grace_period_seconds,
            setting_default::grace_period_seconds);  // No variable.

  // An explicit flag wins over the variable.
  char arg0[] = "halma_server";
  char arg1[] = "--port=7000";
  char* argv[] = {arg0, arg1};
  absl::ParseCommandLine(2, argv);
  settings = SettingsFromFlags();
  EXPECT_EQ(settings.port, 7000);
  EXPECT_EQ(settings.max_record_moves, 77);
}

TEST(SettingsTest, BadEnvironmentValuesNameTheVariable) {
  absl::FlagSaver saver;
  auto env = [](const char* name) -> const char* {
    return std::string(name) == "HALMA_PORT" ? "fifty" : nullptr;
  };
  absl::Status status = ApplyEnvironmentToFlags(env);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()),
              StartsWith("HALMA_PORT=\"fifty\""));
  EXPECT_THAT(std::string(status.message()), HasSubstr("(for --port)"));
}

TEST(SettingsMarkdownTest, OneRowPerSettingWithItsVariableAndDefault) {
  const std::string table = SettingsMarkdown();
  EXPECT_THAT(table, StartsWith(std::string(kSettingsTableBegin) + "\n"));
  EXPECT_THAT(table,
              HasSubstr("| `--max_queue_wait_ms` | `HALMA_MAX_QUEUE_WAIT_MS` | "
                        "1000 | 0 to 1000000000 | admission gate | "));
  EXPECT_THAT(table, HasSubstr("| `--front_proxy` | `HALMA_FRONT_PROXY` | "
                               "none |  | front proxy | "));
  EXPECT_THAT(table, HasSubstr("| `--http` | `HALMA_HTTP` | `true` |  | "));
  int rows = 0;
  for (char c : table) rows += c == '\n';
  // The markers, the header and its rule, and a row per setting.
  EXPECT_EQ(rows, 4 + static_cast<int>(SettingTable().size()));
}

TEST(SettingsMarkdownTest, ReplacesTheBlockBetweenTheMarkersOnly) {
  const std::string document =
      absl::StrCat("# Title\n\ntext before\n\n", kSettingsTableBegin,
                   "\nold table\n", kSettingsTableEnd, "\n\ntext after\n");
  absl::StatusOr<std::string> updated = WithSettingsMarkdown(document);
  ASSERT_TRUE(updated.ok()) << updated.status();
  EXPECT_EQ(*updated, absl::StrCat("# Title\n\ntext before\n\n",
                                   SettingsMarkdown(), "\ntext after\n"));
  EXPECT_EQ(*WithSettingsMarkdown(*updated), *updated);  // Stable.
  EXPECT_EQ(WithSettingsMarkdown("no markers").status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace halma::service
