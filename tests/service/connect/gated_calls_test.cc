// Expensive calls over the HTTP/JSON edge go through the same admission
// gate as gRPC's: a call that finds the slot busy waits for it (on the
// listener's thread) and is answered; a refusal is the protocol's
// resource_exhausted (HTTP 429) with Retry-After, counted by its limit.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "halma/game.h"
#include "nlohmann/json.hpp"
#include "tests/metrics/metrics_test_util.h"
#include "tests/service/fixture/checkpoint_latch.h"
#include "tests/service/fixture/loopback_server.h"

namespace halma::service {
namespace {

using ::testing::HasSubstr;

// One HTTP/1.1 POST on a connection of its own; the whole answer as sent.
std::string Post(int port, const std::string& path, const std::string& json) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr = {};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    close(fd);
    ADD_FAILURE() << "cannot connect to port " << port;
    return "";
  }
  const std::string request = absl::StrCat(
      "POST ", path, " HTTP/1.1\r\nHost: 127.0.0.1\r\n",
      "Content-Type: application/json\r\nContent-Length: ", json.size(),
      "\r\nConnection: close\r\n\r\n", json);
  EXPECT_EQ(send(fd, request.data(), request.size(), 0),
            static_cast<ssize_t>(request.size()));
  std::string answer;
  char buffer[4096];
  ssize_t n;
  while ((n = recv(fd, buffer, sizeof(buffer), 0)) > 0)
    answer.append(buffer, n);
  close(fd);
  return answer;
}

std::string Body(const std::string& answer) {
  const std::size_t end = answer.find("\r\n\r\n");
  return end == std::string::npos ? "" : answer.substr(end + 4);
}

// A record with checkpoints (held there) and one without (never held).
std::string LongRecordJson() {
  nlohmann::json request;
  request["variant"]["preset"] = "iggamecenter-10x10";
  request["startPosition"] =
      "bbbbbbbbbb/6bbbb/10/6b3/10/10/3w6/10/wwwww5/w1wwwwwwww w 0,0";
  const char* cycle[] = {"a1-e5", "j10-f6", "e5-a1", "f6-j10"};
  for (int i = 0; i < 4 * kCheckpointInterval; ++i) {
    request["moves"].push_back(cycle[i % 4]);
  }
  return request.dump();
}
constexpr char kShortRecordJson[] =
    R"({"variant": {"preset": "brainking-8x8"}, "moves": ["b1-d3"]})";
constexpr char kAdjudicate[] = "/halma.v1.HalmaRules/Adjudicate";

ServerConfig HttpOneSlot(CheckpointLatch& latch) {
  ServerConfig config = OneSlotHeldBy(latch);
  config.http = true;
  return config;
}

TEST(ConnectGatedCallsTest, ACallFindingTheSlotBusyWaitsAndIsAnswered) {
  CheckpointLatch latch;
  std::unique_ptr<LoopbackServer> server =
      LoopbackServer::Start(HttpOneSlot(latch));
  ASSERT_NE(server, nullptr);
  const int port = (*server)->http_port();
  std::string running, waiting;
  std::thread first(
      [&] { running = Post(port, kAdjudicate, LongRecordJson()); });
  ASSERT_TRUE(latch.WaitUntilHeld(1));
  std::thread second(
      [&] { waiting = Post(port, kAdjudicate, kShortRecordJson); });
  ASSERT_TRUE(WaitUntil([&] { return (*server)->gate().waiting() == 1; }));
  latch.Release();
  first.join();
  second.join();
  EXPECT_THAT(running, ::testing::StartsWith("HTTP/1.1 200"));
  EXPECT_EQ(nlohmann::json::parse(Body(running))["movesPlayed"],
            4 * kCheckpointInterval);
  EXPECT_THAT(waiting, ::testing::StartsWith("HTTP/1.1 200"));
  EXPECT_EQ(nlohmann::json::parse(Body(waiting))["movesPlayed"], 1);
}

TEST(ConnectGatedCallsTest, ARefusalIs429WithRetryAfterNamingTheLimit) {
  CheckpointLatch latch;
  ServerConfig config = HttpOneSlot(latch);
  config.max_queue_length = 0;
  std::unique_ptr<LoopbackServer> server = LoopbackServer::Start(config);
  ASSERT_NE(server, nullptr);
  const int port = (*server)->http_port();
  std::string running;
  std::thread first(
      [&] { running = Post(port, kAdjudicate, LongRecordJson()); });
  ASSERT_TRUE(latch.WaitUntilHeld(1));
  const std::string refused =
      Post(port, "/halma.v1.HalmaRules/Perft",
           R"({"variant": {"preset": "brainking-8x8"}, "depth": 1})");
  latch.Release();
  first.join();
  EXPECT_THAT(refused, ::testing::StartsWith("HTTP/1.1 429"));
  EXPECT_THAT(refused, HasSubstr("\r\nRetry-After: "));
  const nlohmann::json error = nlohmann::json::parse(Body(refused));
  EXPECT_EQ(error["code"], "resource_exhausted");
  EXPECT_THAT(error["message"].get<std::string>(),
              HasSubstr("Perft: 1 calls are running already"));
  EXPECT_THAT(error["message"].get<std::string>(),
              HasSubstr("(max_concurrent_adjudications)"));
  EXPECT_EQ(metrics::Value((*server)->metrics().Collect(),
                           "halma_rejected_calls_total",
                           {{"limit", "max_concurrent_adjudications"}}),
            1);
  EXPECT_EQ(
      metrics::Value((*server)->metrics().Collect(), "halma_rpc_calls_total",
                     {{"method", "halma.v1.HalmaRules/Perft"},
                      {"code", "RESOURCE_EXHAUSTED"},
                      {"protocol", "connect"}}),
      1);
  EXPECT_THAT(running, ::testing::StartsWith("HTTP/1.1 200"));
}

}  // namespace
}  // namespace halma::service
