#include "service/log/logger.h"

#include <unistd.h>

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "google/protobuf/wrappers.pb.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace halma::service {
namespace {

using ::testing::SizeIs;

// A logger on a MemorySink with a clock the test moves by hand.
struct TestLogger {
  explicit TestLogger(bool access_log = false) {
    auto owned = std::make_unique<MemorySink>();
    sink = owned.get();
    Logger::Options options;
    options.limit_burst = 3;
    options.limit_period = absl::Seconds(10);
    options.access_log = access_log;
    options.clock = [this] { return now; };
    logger = std::make_unique<Logger>(std::move(owned), std::move(options));
  }
  std::vector<nlohmann::json> Lines() const {
    std::vector<nlohmann::json> out;
    for (const std::string& line : sink->lines()) {
      out.push_back(nlohmann::json::parse(line));
    }
    return out;
  }

  absl::Time now = absl::FromUnixSeconds(1796155200);  // 2026-12-01T20:00Z
  MemorySink* sink;
  std::unique_ptr<Logger> logger;
};

TEST(LoggerTest, LevelsAndFields) {
  TestLogger t;
  t.logger->Info("server.start", {{"port", 50051}, {"tls", false}});
  t.logger->Warn("w");
  t.logger->Error("server.error", {{"message", "bad\n"}});
  const auto lines = t.Lines();
  ASSERT_THAT(lines, SizeIs(3));
  EXPECT_EQ(lines[0]["time"], "2026-12-01T20:00:00.000000Z");
  EXPECT_EQ(lines[0]["level"], "info");
  EXPECT_EQ(lines[0]["event"], "server.start");
  EXPECT_EQ(lines[0]["port"], 50051);
  EXPECT_EQ(lines[0]["tls"], false);
  EXPECT_EQ(lines[1]["level"], "warn");
  EXPECT_EQ(lines[2]["level"], "error");
  EXPECT_EQ(lines[2]["message"], "bad\n");
}

TEST(LoggerTest, WarnLimitedBurstThenDroppedCount) {
  TestLogger t;
  for (int i = 0; i < 10; ++i) t.logger->WarnLimited("k", "flood", {{"i", i}});
  // Another key has its own budget.
  t.logger->WarnLimited("other", "other");
  auto lines = t.Lines();
  ASSERT_THAT(lines, SizeIs(4));
  EXPECT_EQ(lines[0]["i"], 0);
  EXPECT_EQ(lines[2]["i"], 2);
  EXPECT_EQ(lines[3]["event"], "other");
  EXPECT_EQ(t.logger->dropped_total(), 7);

  // Still in the period: dropped, nothing written.
  t.now += absl::Seconds(9);
  t.logger->WarnLimited("k", "flood", {{"i", 10}});
  EXPECT_THAT(t.sink->lines(), SizeIs(4));

  // The next period's first line is preceded by the count.
  t.now += absl::Seconds(1);
  t.logger->WarnLimited("k", "flood", {{"i", 11}});
  lines = t.Lines();
  ASSERT_THAT(lines, SizeIs(6));
  EXPECT_EQ(lines[4]["event"], "log.dropped");
  EXPECT_EQ(lines[4]["level"], "warn");
  EXPECT_EQ(lines[4]["key"], "k");
  EXPECT_EQ(lines[4]["dropped"], 8);
  EXPECT_EQ(lines[4]["period_seconds"], 10.0);
  EXPECT_EQ(lines[5]["i"], 11);
  EXPECT_EQ(t.logger->dropped_total(), 8);

  // Nothing dropped in that period: no count line in the next one.
  t.now += absl::Seconds(10);
  t.logger->WarnLimited("k", "flood", {{"i", 12}});
  lines = t.Lines();
  ASSERT_THAT(lines, SizeIs(7));
  EXPECT_EQ(lines[6]["i"], 12);
}

TEST(LoggerTest, FlushDroppedWritesPendingCounts) {
  TestLogger t;
  for (int i = 0; i < 5; ++i) t.logger->WarnLimited("k", "flood");
  t.logger->FlushDropped();
  t.logger->FlushDropped();  // Already reported: nothing more.
  const auto lines = t.Lines();
  ASSERT_THAT(lines, SizeIs(4));
  EXPECT_EQ(lines[3]["event"], "log.dropped");
  EXPECT_EQ(lines[3]["dropped"], 2);
}

TEST(LoggerTest, AccessLogOffByDefault) {
  TestLogger t;
  t.logger->Access({.protocol = "grpc", .method = "/m", .code = "OK"});
  EXPECT_THAT(t.sink->lines(), SizeIs(0));
  EXPECT_FALSE(t.logger->access_log_enabled());
}

TEST(LoggerTest, AccessRecordFields) {
  TestLogger t(/*access_log=*/true);
  const std::string trace = "4bf92f3577b34da6a3ce929d0e0e4736";
  t.logger->Access(
      {.protocol = "grpc",
       .method = "/halma.v1.HalmaRules/Adjudicate",
       .code = "INVALID_ARGUMENT",
       .latency = absl::Microseconds(1234) + absl::Nanoseconds(400),
       .peer = "ipv4:127.0.0.1:41234",
       .request_bytes = 120,
       .response_bytes = 0,
       .variant = "VARIANT_STANDARD",
       .trace_id = trace});
  // Client-chosen text (an unknown method) stays one valid line.
  t.logger->Access({.protocol = "connect",
                    .method = "/x\"\n\xff",
                    .code = "UNIMPLEMENTED",
                    .latency = absl::Milliseconds(2),
                    .peer = "127.0.0.1:9"});
  const auto lines = t.Lines();
  ASSERT_THAT(lines, SizeIs(2));
  const nlohmann::json& a = lines[0];
  EXPECT_EQ(a["level"], "info");
  EXPECT_EQ(a["event"], "access");
  EXPECT_EQ(a["protocol"], "grpc");
  EXPECT_EQ(a["method"], "/halma.v1.HalmaRules/Adjudicate");
  EXPECT_EQ(a["code"], "INVALID_ARGUMENT");
  EXPECT_EQ(a["latency_ms"], 1.234);
  EXPECT_EQ(a["peer"], "ipv4:127.0.0.1:41234");
  EXPECT_EQ(a["request_bytes"], 120);
  EXPECT_EQ(a["response_bytes"], 0);
  EXPECT_EQ(a["variant"], "VARIANT_STANDARD");
  EXPECT_EQ(a["trace_id"], trace);
  const nlohmann::json& b = lines[1];
  EXPECT_EQ(b["method"], "/x\"\n\xEF\xBF\xBD");
  EXPECT_EQ(b["latency_ms"], 2.0);
  EXPECT_FALSE(b.contains("variant"));
  EXPECT_FALSE(b.contains("trace_id"));
}

// 8 threads write long lines through one pipe at once; every line read back
// is whole, parses, and each thread's lines arrive in order.
TEST(LoggerTest, ConcurrentWritersNeverInterleave) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  std::string received;
  std::thread reader([&] {
    char buf[65536];
    ssize_t n;
    while ((n = read(fds[0], buf, sizeof(buf))) > 0) received.append(buf, n);
  });
  constexpr int kThreads = 8;
  constexpr int kLinesPerThread = 300;
  {
    Logger logger(std::make_unique<FdSink>(fds[1]));
    std::vector<std::thread> writers;
    for (int t = 0; t < kThreads; ++t) {
      writers.emplace_back([&logger, t] {
        // Longer than PIPE_BUF, so only the Logger's lock keeps lines whole.
        const std::string pad(6000, static_cast<char>('a' + t));
        for (int i = 0; i < kLinesPerThread; ++i) {
          logger.Info("tick", {{"thread", t}, {"i", i}, {"pad", pad}});
        }
      });
    }
    for (std::thread& w : writers) w.join();
  }
  close(fds[1]);
  reader.join();
  close(fds[0]);

  ASSERT_FALSE(received.empty());
  EXPECT_EQ(received.back(), '\n');
  received.pop_back();
  const std::vector<std::string> lines = absl::StrSplit(received, '\n');
  ASSERT_THAT(lines, SizeIs(kThreads * kLinesPerThread));
  std::vector<int> next(kThreads, 0);
  for (const std::string& line : lines) {
    const nlohmann::json j = nlohmann::json::parse(line);
    const int t = j["thread"];
    EXPECT_EQ(j["i"], next[t]++);
    EXPECT_EQ(j["pad"], std::string(6000, static_cast<char>('a' + t)));
  }
}

// protobuf logs an ERROR for each proto3 string with invalid UTF-8: routed,
// those become limited JSON lines.
TEST(RouteProtobufLogsTest, InvalidUtf8FloodIsLimited) {
  TestLogger t;
  RouteProtobufLogsTo(t.logger.get());
  // google.protobuf.StringValue{value: "\xff"} on the wire.
  const std::string wire("\x0a\x01\xff", 3);
  for (int i = 0; i < 20; ++i) {
    google::protobuf::StringValue value;
    EXPECT_FALSE(value.ParseFromString(wire));
  }
  t.now += absl::Seconds(10);
  google::protobuf::StringValue value;
  EXPECT_FALSE(value.ParseFromString(wire));
  RouteProtobufLogsTo(nullptr);
  EXPECT_FALSE(value.ParseFromString(wire));  // Discarded.

  const auto lines = t.Lines();
  ASSERT_THAT(lines, SizeIs(5));
  for (int i : {0, 1, 2, 4}) {
    EXPECT_EQ(lines[i]["event"], "protobuf.log");
    EXPECT_EQ(lines[i]["level"], "warn");
    EXPECT_EQ(lines[i]["protobuf_level"], "ERROR");
    EXPECT_THAT(lines[i]["message"].get<std::string>(),
                ::testing::HasSubstr("invalid UTF-8"));
  }
  EXPECT_EQ(lines[3]["event"], "log.dropped");
  EXPECT_EQ(lines[3]["dropped"], 17);
  EXPECT_THAT(lines[3]["key"].get<std::string>(),
              ::testing::StartsWith("protobuf:"));
}

}  // namespace
}  // namespace halma::service
