// The server's limits on work and time, and its front proxy, in process:
// bounded concurrent replays, deadlines and cancellation that stop a replay
// mid-record, the default maximum call duration, and the nghttpx front
// (serving, shutdown with NOT_SERVING and no call lost). The attacks
// themselves, against the binary, are in tests/attack/.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "halma/v1/halma.grpc.pb.h"
#include "service/front_proxy.h"
#include "service/log_limiter.h"
#include "service/server.h"
#include "tests/service/test_server.h"

namespace halma::service {
namespace {

using ::grpc::StatusCode;
using ::grpc::health::v1::Health;
using ::grpc::health::v1::HealthCheckRequest;
using ::grpc::health::v1::HealthCheckResponse;
using ::testing::HasSubstr;
using ::testing::Not;

// Parsing a move takes well under a microsecond, so a record of this many
// takes seconds to replay: long enough to be caught in the act (a tenth of
// it under the sanitizers, which take about as long for that).
// Replays run at a few million plies a second, about a fifth of that under
// the sanitizers (not a tenth: the engine's hot loops are light on memory
// accesses), so that a record of this length takes well over half a second.
constexpr int kSlowRecordMoves =
    HALMA_TEST_SANITIZED ? 2'000'000 / 5 : 2'000'000;

ServerConfig SlowCallsConfig() {
  ServerConfig config;
  config.host = "127.0.0.1";
  config.port = 0;
  config.max_message_bytes = 64 << 20;
  config.max_record_moves = kSlowRecordMoves;
  config.max_concurrent_adjudications = 1;
  config.max_call_seconds = 60;
  config.grace_period_seconds = 10;
  return config;
}

// An iggamecenter-10x10 record of `moves` plies, every one of them parsed
// and replayed (the variant has no home-exit rule and no move cap, so the
// game never ends): two-hop chains back and forth, written as shorthand so
// that each ply searches for its path (a1 over b2 and d4 to e5; j10 over
// i9 and g7 to f6).
v1::AdjudicateRequest SlowRecord(int moves) {
  v1::AdjudicateRequest request;
  request.mutable_variant()->set_preset("iggamecenter-10x10");
  request.set_start_position(
      "bbbbbbbbbb/6bbbb/10/6b3/10/10/3w6/10/wwwww5/w1wwwwwwww w 0,0");
  const char* cycle[] = {"a1-e5", "j10-f6", "e5-a1", "f6-j10"};
  for (int i = 0; i < moves; ++i) request.add_moves(cycle[i % 4]);
  return request;
}

v1::AdjudicateRequest ShortRecord() {
  v1::AdjudicateRequest request;
  request.mutable_variant()->set_preset("brainking-8x8");
  request.add_moves("b1-d3");
  return request;
}

// Waits (at most 30 s) until `count()` is `want`; returns whether it was.
template <typename Count>
bool WaitFor(Count count, int want) {
  const absl::Time give_up = absl::Now() + absl::Seconds(30);
  while (count() != want) {
    if (absl::Now() > give_up) return false;
    absl::SleepFor(absl::Milliseconds(2));
  }
  return true;
}

// An Adjudicate call running on its own thread.
class BackgroundCall {
 public:
  BackgroundCall(std::shared_ptr<grpc::Channel> channel,
                 v1::AdjudicateRequest request,
                 absl::Duration deadline = absl::InfiniteDuration())
      : stub_(v1::HalmaRules::NewStub(channel)), request_(std::move(request)) {
    if (deadline != absl::InfiniteDuration()) {
      context_.set_deadline(absl::ToChronoTime(absl::Now() + deadline));
    }
    thread_ = std::thread([this] {
      status_ = stub_->Adjudicate(&context_, request_, &response_);
      ended_ = absl::Now();
    });
  }
  ~BackgroundCall() {
    if (thread_.joinable()) thread_.join();
  }

  void Cancel() { context_.TryCancel(); }
  // Joins the call's thread (rather than waiting on an absl::Notification:
  // ThreadSanitizer sees a join, not Debian's uninstrumented Abseil).
  const grpc::Status& Wait() {
    if (thread_.joinable()) thread_.join();
    return status_;
  }
  absl::Time ended() const { return ended_; }
  const v1::AdjudicateResponse& response() const { return response_; }

 private:
  std::unique_ptr<v1::HalmaRules::Stub> stub_;
  v1::AdjudicateRequest request_;
  grpc::ClientContext context_;
  grpc::Status status_;
  v1::AdjudicateResponse response_;
  absl::Time ended_;
  std::thread thread_;
};

grpc::Status Call(v1::HalmaRules::Stub& stub,
                  const v1::AdjudicateRequest& request,
                  v1::AdjudicateResponse* response) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::seconds(30));
  return stub.Adjudicate(&context, request, response);
}

TEST(LimitsTest, ReplaysBeyondTheLimitAreRefusedAtOnceAndNameIt) {
  auto server = MustStart(SlowCallsConfig());
  ASSERT_NE(server, nullptr);
  auto channel = ChannelTo(server->address());
  const v1::AdjudicateRequest slow = SlowRecord(kSlowRecordMoves);
  BackgroundCall running(channel, slow);
  ASSERT_TRUE(WaitFor([&] { return server->rules().calls_in_progress(); }, 1));

  auto stub = v1::HalmaRules::NewStub(channel);
  v1::AdjudicateResponse response;
  const absl::Time sent = absl::Now();
  grpc::Status refused = Call(*stub, ShortRecord(), &response);
  EXPECT_EQ(refused.error_code(), StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(refused.error_message(),
              HasSubstr("max_concurrent_adjudications"));
  EXPECT_LT(absl::Now() - sent, absl::Milliseconds(500)) << "not queued";

  // Cheap calls are not held back by the replay.
  v1::LegalMovesRequest legal;
  legal.mutable_variant()->set_preset("brainking-8x8");
  v1::LegalMovesResponse moves;
  grpc::ClientContext context;
  EXPECT_TRUE(stub->LegalMoves(&context, legal, &moves).ok());
  EXPECT_GT(moves.count(), 0);

  running.Cancel();
  running.Wait();
  // The slot is free again.
  ASSERT_TRUE(WaitFor([&] { return server->rules().calls_in_progress(); }, 0));
  EXPECT_TRUE(Call(*stub, ShortRecord(), &response).ok());
  EXPECT_EQ(response.moves_played(), 1);
}

TEST(LimitsTest, CancellationStopsAReplayMidRecord) {
  auto server = MustStart(SlowCallsConfig());
  ASSERT_NE(server, nullptr);
  auto channel = ChannelTo(server->address());
  // How long the whole replay takes here: a fixed bound failed under
  // ThreadSanitizer on a loaded machine (516 ms against 300).
  const absl::Time t0 = absl::Now();
  {
    BackgroundCall full(channel, SlowRecord(kSlowRecordMoves));
    ASSERT_TRUE(full.Wait().ok()) << full.Wait().error_message();
  }
  const absl::Duration full_time = absl::Now() - t0;
  BackgroundCall call(channel, SlowRecord(kSlowRecordMoves));
  ASSERT_TRUE(WaitFor([&] { return server->rules().calls_in_progress(); }, 1));
  const absl::Time started = absl::Now();
  call.Cancel();
  EXPECT_EQ(call.Wait().error_code(), StatusCode::CANCELLED);
  // The server's handler returns within a checkpoint or two, not after the
  // whole record.
  ASSERT_TRUE(WaitFor([&] { return server->rules().calls_in_progress(); }, 0));
  EXPECT_LT(absl::Now() - started, full_time / 2);
}

TEST(LimitsTest, ClientDeadlineStopsAReplayMidRecord) {
  auto server = MustStart(SlowCallsConfig());
  ASSERT_NE(server, nullptr);
  auto channel = ChannelTo(server->address());
  // How long the whole replay takes here, to set a deadline well inside it.
  const absl::Time t0 = absl::Now();
  {
    BackgroundCall full(channel, SlowRecord(kSlowRecordMoves));
    ASSERT_TRUE(full.Wait().ok()) << full.Wait().error_message();
  }
  const absl::Duration full_time = absl::Now() - t0;
  ASSERT_GT(full_time, absl::Milliseconds(600));

  // A quarter: the machine may be busier during the first run than now.
  BackgroundCall call(channel, SlowRecord(kSlowRecordMoves), full_time / 4);
  EXPECT_EQ(call.Wait().error_code(), StatusCode::DEADLINE_EXCEEDED);
  // The server stopped too, well before the replay would have ended.
  ASSERT_TRUE(WaitFor([&] { return server->rules().calls_in_progress(); }, 0));
  EXPECT_LT(absl::Now() - call.ended(), full_time / 4);
}

TEST(LimitsTest, CallsWithoutADeadlineGetTheServerMaximum) {
  ServerConfig config = SlowCallsConfig();
  config.max_call_seconds = 1;
  config.max_record_moves = 3 * kSlowRecordMoves;
  auto server = MustStart(config);
  ASSERT_NE(server, nullptr);
  auto channel = ChannelTo(server->address());
  BackgroundCall call(channel, SlowRecord(3 * kSlowRecordMoves));
  ASSERT_TRUE(WaitFor([&] { return server->rules().calls_in_progress(); }, 1));
  const absl::Time started = absl::Now();
  const grpc::Status& status = call.Wait();
  EXPECT_EQ(status.error_code(), StatusCode::DEADLINE_EXCEEDED);
  EXPECT_THAT(status.error_message(), HasSubstr("max_call_seconds"));
  EXPECT_LT(absl::Now() - started, absl::Milliseconds(1800));
}

// --- The front proxy --------------------------------------------------------

ServerConfig FrontConfig() {
  ServerConfig config = SlowCallsConfig();
  config.front_proxy = HALMA_NGHTTPX;
  return config;
}

HealthCheckResponse::ServingStatus CheckHealth(Health::Stub& health,
                                               grpc::Status* status) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::seconds(2));
  HealthCheckRequest request;
  HealthCheckResponse response;
  *status = health.Check(&context, request, &response);
  return response.status();
}

TEST(FrontProxyTest, ServesThroughNghttpxOnItsOwnPort) {
  auto server = MustStart(FrontConfig());
  ASSERT_NE(server, nullptr);
  ASSERT_NE(server->front_proxy(), nullptr);
  EXPECT_THAT(server->ListeningLine(),
              HasSubstr(absl::StrCat("front_proxy ", HALMA_NGHTTPX)));
  EXPECT_NE(server->port(), 0);
  auto stub = v1::HalmaRules::NewStub(ChannelTo(server->address()));
  v1::AdjudicateResponse response;
  ASSERT_TRUE(Call(*stub, ShortRecord(), &response).ok());
  EXPECT_EQ(response.moves_played(), 1);
  // Errors come through unchanged.
  v1::AdjudicateRequest bad = ShortRecord();
  bad.set_moves(0, "z9");
  grpc::Status status = Call(*stub, bad, &response);
  EXPECT_EQ(status.error_code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("moves[0]"));
}

TEST(FrontProxyTest, ArgumentsCarryTheLimits) {
  const std::vector<std::string> args =
      FrontProxyArguments(FrontProxyOptions{.binary = "/usr/sbin/nghttpx",
                                            .listen_host = "::",
                                            .listen_port = 50051,
                                            .backend_port = 41000,
                                            .max_connections = 7,
                                            .max_concurrent_streams = 9,
                                            .idle_timeout_seconds = 11,
                                            .handshake_timeout_seconds = 3,
                                            .stream_read_timeout_seconds = 4,
                                            .max_metadata_bytes = 5000,
                                            .backend_timeout_seconds = 15});
  const auto has = [&](const std::string& arg) {
    return std::find(args.begin(), args.end(), arg) != args.end();
  };
  EXPECT_TRUE(has("--frontend=*,50051;no-tls"));
  EXPECT_TRUE(has("--backend=127.0.0.1,41000;;proto=h2"));
  EXPECT_TRUE(has("--worker-frontend-connections=7"));
  EXPECT_TRUE(has("--frontend-http2-max-concurrent-streams=9"));
  EXPECT_TRUE(has("--frontend-http2-read-timeout=11s"));
  EXPECT_TRUE(has("--frontend-read-timeout=3s"));
  EXPECT_TRUE(has("--stream-read-timeout=4s"));
  EXPECT_TRUE(has("--request-header-field-buffer=5000"));
  EXPECT_TRUE(has("--backend-read-timeout=15s"));
}

TEST(FrontProxyTest, ShutdownSaysNotServingThenFinishesCallsInFlight) {
  ServerConfig config = FrontConfig();
  config.shutdown_delay_seconds = 1;
  auto server = MustStart(config);
  ASSERT_NE(server, nullptr);
  auto channel = ChannelTo(server->address());
  auto health = Health::NewStub(channel);
  grpc::Status status;
  ASSERT_EQ(CheckHealth(*health, &status), HealthCheckResponse::SERVING);

  // A call whose request has fully arrived and is being replayed.
  BackgroundCall in_flight(channel, SlowRecord(kSlowRecordMoves));
  ASSERT_TRUE(WaitFor([&] { return server->rules().calls_in_progress(); }, 1));

  const absl::Time t0 = absl::Now();
  std::thread shutdown([&] { server->Shutdown(); });
  // During the delay: NOT_SERVING, and other calls still served.
  absl::SleepFor(absl::Milliseconds(100));
  int not_serving = 0;
  while (absl::Now() - t0 < absl::Milliseconds(800)) {
    EXPECT_EQ(CheckHealth(*health, &status), HealthCheckResponse::NOT_SERVING)
        << status.error_message();
    EXPECT_TRUE(status.ok());
    ++not_serving;
    absl::SleepFor(absl::Milliseconds(50));
  }
  EXPECT_GT(not_serving, 5);

  // The call in flight completes normally, although it outlasts the delay.
  const grpc::Status& done = in_flight.Wait();
  EXPECT_TRUE(done.ok()) << done.error_message();
  EXPECT_EQ(in_flight.response().moves_played(), kSlowRecordMoves);
  shutdown.join();
  EXPECT_LT(absl::Now() - t0, absl::Seconds(config.shutdown_delay_seconds +
                                            config.grace_period_seconds));
  EXPECT_TRUE(server->front_proxy()->Exited());
  // The listener is closed now.
  auto fresh = Health::NewStub(ChannelTo(server->address()));
  CheckHealth(*fresh, &status);
  EXPECT_EQ(status.error_code(), StatusCode::UNAVAILABLE);
}

// Seconds until the server closes a raw HTTP/2 connection that has sent its
// preface and SETTINGS and then stays silent (at most `limit`).
double SecondsUntilClosed(int port, double limit) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr = {};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  EXPECT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  const std::string hello = std::string("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n") +
                            std::string("\0\0\0\x04\0\0\0\0\0", 9);
  EXPECT_EQ(send(fd, hello.data(), hello.size(), 0),
            static_cast<ssize_t>(hello.size()));
  timeval tick = {0, 100 * 1000};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tick, sizeof(tick));
  const absl::Time start = absl::Now();
  char buffer[4096];
  while (absl::ToDoubleSeconds(absl::Now() - start) < limit) {
    const ssize_t n = recv(fd, buffer, sizeof(buffer), 0);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)) break;
  }
  close(fd);
  return absl::ToDoubleSeconds(absl::Now() - start);
}

TEST(FrontProxyTest, ConnectionsAreAgedAndCallsGoOn) {
  ServerConfig config = FrontConfig();
  config.max_connection_age_seconds = 1;
  config.max_connection_age_grace_seconds = 1;
  auto server = MustStart(config);
  ASSERT_NE(server, nullptr);
  // A silent connection is sent GOAWAY and closed at its age (plus grace),
  // long before the idle timeout (30 s).
  const double closed = SecondsUntilClosed(server->port(), 15);
  EXPECT_LT(closed, 4.0);
  EXPECT_GE(server->front_proxy()->connection_ages(), 1);
  // A client calling throughout reconnects and sees no error.
  auto stub = v1::HalmaRules::NewStub(ChannelTo(server->address()));
  const int ages_before = server->front_proxy()->connection_ages();
  const absl::Time end = absl::Now() + absl::Milliseconds(2500);
  int calls = 0;
  while (absl::Now() < end) {
    v1::AdjudicateResponse response;
    grpc::Status status = Call(*stub, ShortRecord(), &response);
    ASSERT_TRUE(status.ok()) << status.error_message();
    ++calls;
    absl::SleepFor(absl::Milliseconds(10));
  }
  EXPECT_GT(calls, 50);
  EXPECT_GE(server->front_proxy()->connection_ages(), ages_before + 2);
}

TEST(FrontProxyTest, AMissingBinaryIsAStartUpError) {
  ServerConfig config = FrontConfig();
  config.front_proxy = "/nonexistent/nghttpx";
  absl::StatusOr<std::unique_ptr<HalmaServer>> server = StartServer(config);
  ASSERT_FALSE(server.ok());
  EXPECT_EQ(server.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(server.status().message(), HasSubstr("/nonexistent/nghttpx"));
}

// --- Log flood
// ----------------------------------------------------------------

TEST(LogLimiterTest, AtMostABurstPerPeriodThenSaysHowManyWereDropped) {
  std::vector<std::string> lines;
  LogLimiter limiter(3, absl::Seconds(10),
                     [&](const std::string& line) { lines.push_back(line); });
  const absl::Time t0 = absl::FromUnixSeconds(1000);
  for (int i = 0; i < 100; ++i) {
    limiter.Log(absl::StrCat("line ", i), t0 + absl::Milliseconds(i));
  }
  EXPECT_EQ(lines, (std::vector<std::string>{"line 0", "line 1", "line 2"}));
  EXPECT_EQ(limiter.dropped_total(), 97);
  limiter.Log("later", t0 + absl::Seconds(11));
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_EQ(lines[3], "(97 similar lines dropped in the last 10s)");
  EXPECT_EQ(lines[4], "later");
}

TEST(LogLimiterTest, RequestsWithInvalidUtf8DoNotFloodTheLog) {
  LimitProtobufLogging();
  ServerConfig config = SlowCallsConfig();
  auto server = MustStart(config);
  ASSERT_NE(server, nullptr);
  grpc::GenericStub stub(ChannelTo(server->address()));
  // ValidateMoveRequest{variant: {preset: "brainking-8x8"}, move: "a1\xff"},
  // encoded by hand: field 1 (variant, a message holding field 1 = preset)
  // and field 3 (move).
  v1::ValidateMoveRequest request;
  request.mutable_variant()->set_preset("brainking-8x8");
  std::string bytes = request.SerializeAsString();
  const std::string move = "a1\xff";
  bytes += std::string("\x1a") + static_cast<char>(move.size()) + move;
  testing::internal::CaptureStderr();
  int answered = 0;
  for (int i = 0; i < 200; ++i) {
    const grpc::Status status =
        CallWithBytes(stub, "/halma.v1.HalmaRules/ValidateMove", bytes);
    if (!status.ok()) ++answered;
  }
  const std::string log = testing::internal::GetCapturedStderr();
  EXPECT_EQ(answered, 200);  // Every one is refused...
  int lines = 0;
  for (char c : log) lines += c == '\n';
  EXPECT_LE(lines, 6) << log;  // ...and the log holds a handful of lines.
}

}  // namespace
}  // namespace halma::service
