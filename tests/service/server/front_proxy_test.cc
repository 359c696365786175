// The nghttpx front proxy, in process: serving through it, the limits on
// its command line, connection ageing, and a shutdown that says
// NOT_SERVING and then finishes the calls in flight.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "gtest/gtest.h"
#include "tests/service/fixture/checkpoint_latch.h"
#include "tests/service/fixture/loopback_server.h"
#include "tests/service/fixture/played_records.h"

namespace halma::service {
namespace {

using ::grpc::StatusCode;
using ::grpc::health::v1::Health;
using ::grpc::health::v1::HealthCheckRequest;
using ::grpc::health::v1::HealthCheckResponse;
using ::testing::HasSubstr;

ServerConfig FrontConfig() {
  ServerConfig config = LoopbackConfig();
  config.front_proxy = HALMA_NGHTTPX;
  config.grace_period_seconds = 10;
  return config;
}

v1::AdjudicateRequest ShortRecord() {
  v1::AdjudicateRequest request;
  request.mutable_variant()->set_preset("brainking-8x8");
  request.add_moves("b1-d3");
  return request;
}

HealthCheckResponse::ServingStatus CheckHealth(Health::Stub& health,
                                               grpc::Status* status) {
  HealthCheckRequest request;
  HealthCheckResponse response;
  *status = health.Check(ContextWithDeadline(absl::Seconds(2)).get(), request,
                         &response);
  return response.status();
}

TEST(FrontProxyTest, ServesThroughNghttpxOnItsOwnPort) {
  std::unique_ptr<LoopbackServer> server = LoopbackServer::Start(FrontConfig());
  ASSERT_NE(server, nullptr);
  ASSERT_NE((*server)->front_proxy(), nullptr);
  EXPECT_THAT((*server)->ListeningLine(),
              HasSubstr(absl::StrCat("front_proxy ", HALMA_NGHTTPX, ";")));
  EXPECT_NE((*server)->port(), 0);
  Reply<v1::AdjudicateResponse> reply =
      server->Call(&Stub::Adjudicate, ShortRecord());
  ASSERT_TRUE(reply.status.ok()) << reply.status.error_message();
  EXPECT_EQ(reply.response.moves_played(), 1);
  // Errors come through unchanged.
  v1::AdjudicateRequest bad = ShortRecord();
  bad.set_moves(0, "z9");
  reply = server->Call(&Stub::Adjudicate, bad);
  EXPECT_EQ(reply.status.error_code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(reply.status.error_message(), HasSubstr("moves[0]"));
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

// SIGTERM's steps through the proxy: NOT_SERVING during the delay while
// calls are still served; then the listener closes, and a call whose
// request had arrived (held at a checkpoint until the listener has closed,
// so that it outlasts the delay) completes normally.
TEST(FrontProxyTest, ShutdownSaysNotServingThenFinishesCallsInFlight) {
  CheckpointLatch latch;
  ServerConfig config = FrontConfig();
  config.shutdown_delay_seconds = 1;
  config.checkpoint_hook = latch.Hook();
  std::unique_ptr<LoopbackServer> server = LoopbackServer::Start(config);
  ASSERT_NE(server, nullptr);
  grpc::Status status;
  ASSERT_EQ(CheckHealth(server->health(), &status),
            HealthCheckResponse::SERVING);

  const v1::AdjudicateRequest record = PlayedRecord("classic-16x16", 100, 3);
  BackgroundCall<v1::AdjudicateRequest, v1::AdjudicateResponse> in_flight(
      server->channel(), &Stub::Adjudicate, record);
  ASSERT_TRUE(latch.WaitUntilHeld(1));

  std::thread shutdown([&] { (*server)->Shutdown(); });
  ASSERT_TRUE(WaitUntil([&] {
    return (*server)->health().GetServingStatus("") ==
           HealthCheckResponse::NOT_SERVING;
  }));
  // During the delay: NOT_SERVING, answered (the listener is still open).
  EXPECT_EQ(CheckHealth(server->health(), &status),
            HealthCheckResponse::NOT_SERVING)
      << status.error_message();
  EXPECT_TRUE(status.ok()) << status.error_message();

  // After the delay the listener closes: a new connection is refused.
  ASSERT_TRUE(WaitUntil([&] {
    auto fresh = Health::NewStub(ChannelTo((*server)->address()));
    grpc::Status fresh_status;
    CheckHealth(*fresh, &fresh_status);
    return fresh_status.error_code() == StatusCode::UNAVAILABLE;
  }));
  // The call in flight completes normally, although it outlasted the delay.
  latch.Release();
  const grpc::Status& done = in_flight.Wait();
  EXPECT_TRUE(done.ok()) << done.error_message();
  EXPECT_EQ(in_flight.response().moves_played(), 100);
  shutdown.join();
  EXPECT_TRUE((*server)->front_proxy()->Exited());
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
  std::unique_ptr<LoopbackServer> server = LoopbackServer::Start(config);
  ASSERT_NE(server, nullptr);
  // A silent connection is sent GOAWAY and closed at its age (plus grace),
  // long before the idle timeout (30 s).
  const double closed = SecondsUntilClosed((*server)->port(), 15);
  EXPECT_LT(closed, 15);
  EXPECT_GE((*server)->front_proxy()->connection_ages(), 1);
  // A client calling throughout two more ageings reconnects and sees no
  // error.
  const int ages_before = (*server)->front_proxy()->connection_ages();
  int calls = 0;
  while ((*server)->front_proxy()->connection_ages() < ages_before + 2) {
    const Reply<v1::AdjudicateResponse> reply =
        server->Call(&Stub::Adjudicate, ShortRecord());
    ASSERT_TRUE(reply.status.ok()) << reply.status.error_message();
    ++calls;
    absl::SleepFor(absl::Milliseconds(10));
    ASSERT_LT(calls, 10000) << "the proxy stopped ageing connections";
  }
  EXPECT_GT(calls, 0);
}

TEST(FrontProxyTest, AMissingBinaryIsAStartUpError) {
  ServerConfig config = FrontConfig();
  config.front_proxy = "/nonexistent/nghttpx";
  absl::StatusOr<std::unique_ptr<HalmaServer>> server =
      HalmaServer::Start(config);
  ASSERT_FALSE(server.ok());
  EXPECT_EQ(server.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(server.status().message(), HasSubstr("/nonexistent/nghttpx"));
}

}  // namespace
}  // namespace halma::service
