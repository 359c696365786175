// Starting a server: the bound ports, the start-up lines made from the
// settings table, and a port already taken.
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "halma/flood_fill.h"
#include "nlohmann/json.hpp"
#include "service/config/version.h"
#include "service/server/startup_lines.h"
#include "tests/service/fixture/loopback_server.h"

namespace halma::service {
namespace {

using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::StartsWith;

TEST(StartupTest, ListeningLineHasTheBoundPortsAndEverySetting) {
  ServerConfig config = LoopbackConfig();
  config.max_record_moves = 200;
  config.http = true;
  std::unique_ptr<LoopbackServer> server = LoopbackServer::Start(config);
  ASSERT_NE(server, nullptr);
  const std::string line = (*server)->ListeningLine();
  EXPECT_GT((*server)->port(), 0);
  EXPECT_GT((*server)->http_port(), 0);
  EXPECT_THAT(line,
              StartsWith(absl::StrCat(
                  "halma_server listening on 127.0.0.1:", (*server)->port(),
                  " (version ", Version(), "; tls off;")));
  EXPECT_THAT(line, HasSubstr("; max_record_moves 200;"));
  EXPECT_THAT(line, HasSubstr("; max_perft_depth 8;"));
  EXPECT_THAT(line, HasSubstr("; max_queue_wait_ms 1000;"));
  EXPECT_THAT(line, HasSubstr("; front_proxy none (unused: no front proxy);"));
  EXPECT_THAT(line, HasSubstr("; reflection on;"));
  // What tools read for the HTTP port, and the engine's kernel.
  EXPECT_THAT(
      line, HasSubstr(absl::StrCat("; http 127.0.0.1:", (*server)->http_port(),
                                   " (Connect protocol);")));
  EXPECT_THAT(line, EndsWith(absl::StrCat(
                        "; flood_fill ",
                        FloodFillKernelName(ActiveFloodFillKernel()), ")")));
  EXPECT_EQ(line.find('\n'), std::string::npos);
  // 0 (the number of CPUs) resolved.
  EXPECT_THAT(line,
              ::testing::Not(HasSubstr("max_concurrent_adjudications 0;")));
}

TEST(StartupTest, JsonLineHasEverySettingAsAField) {
  std::unique_ptr<LoopbackServer> server = LoopbackServer::Start();
  ASSERT_NE(server, nullptr);
  const nlohmann::json line = nlohmann::json::parse(
      StartupLine((*server)->settings(), (*server)->startup_facts()).text());
  EXPECT_EQ(line["event"], "server.start");
  EXPECT_EQ(line["message"], (*server)->ListeningLine());
  EXPECT_EQ(line["port"], (*server)->port());
  EXPECT_EQ(line["version"], Version());
  EXPECT_EQ(line["http_enabled"], false);
  for (const SettingInfo& setting : SettingTable()) {
    EXPECT_TRUE(line.contains(std::string(setting.name))) << setting.name;
  }
  EXPECT_EQ(line["max_queue_length"], (*server)->settings().max_queue_length);
}

TEST(StartupTest, APortAlreadyTakenIsUnavailable) {
  std::unique_ptr<LoopbackServer> server = LoopbackServer::Start();
  ASSERT_NE(server, nullptr);
  ServerConfig same = LoopbackConfig();
  same.port = (*server)->port();
  auto second = HalmaServer::Start(same);
  EXPECT_EQ(second.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(JoinHostPort("::", 5), "[::]:5");
  EXPECT_EQ(JoinHostPort("127.0.0.1", 5), "127.0.0.1:5");
}

}  // namespace
}  // namespace halma::service
