// grpc.health.v1.Health over loopback: Check, and Watch through status
// changes and the server's shutdown.
#include <memory>
#include <string>
#include <thread>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "gtest/gtest.h"
#include "tests/service/fixture/loopback_server.h"

namespace halma::service {
namespace {

using ::grpc::StatusCode;
using ::grpc::health::v1::HealthCheckRequest;
using ::grpc::health::v1::HealthCheckResponse;
using ::testing::HasSubstr;

TEST(HealthCheckTest, ServingForTheServerAndTheRulesNotFoundForOthers) {
  std::unique_ptr<LoopbackServer> server = LoopbackServer::Start();
  ASSERT_NE(server, nullptr);
  for (const std::string service : {"", "halma.v1.HalmaRules"}) {
    HealthCheckRequest request;
    request.set_service(service);
    HealthCheckResponse response;
    grpc::Status status =
        server->health().Check(ContextWithDeadline().get(), request, &response);
    ASSERT_TRUE(status.ok()) << service << ": " << status.error_message();
    EXPECT_EQ(response.status(), HealthCheckResponse::SERVING) << service;
  }
  HealthCheckRequest unknown;
  unknown.set_service("no.such.Service");
  HealthCheckResponse response;
  grpc::Status status =
      server->health().Check(ContextWithDeadline().get(), unknown, &response);
  EXPECT_EQ(status.error_code(), StatusCode::NOT_FOUND);
  EXPECT_THAT(status.error_message(), HasSubstr("no.such.Service"));
}

TEST(HealthWatchTest, WatchSeesChangesThenNotServingOnShutdown) {
  std::unique_ptr<LoopbackServer> server = LoopbackServer::Start();
  ASSERT_NE(server, nullptr);

  grpc::ClientContext context;
  HealthCheckRequest request;
  request.set_service("halma.v1.HalmaRules");
  auto reader = server->health().Watch(&context, request);
  HealthCheckResponse response;
  ASSERT_TRUE(reader->Read(&response));
  EXPECT_EQ(response.status(), HealthCheckResponse::SERVING);

  (*server)->health().SetServingStatus("halma.v1.HalmaRules", false);
  ASSERT_TRUE(reader->Read(&response));
  EXPECT_EQ(response.status(), HealthCheckResponse::NOT_SERVING);
  (*server)->health().SetServingStatus("halma.v1.HalmaRules", true);
  ASSERT_TRUE(reader->Read(&response));
  EXPECT_EQ(response.status(), HealthCheckResponse::SERVING);

  // Shutdown: NOT_SERVING, then the stream ends, long before the grace
  // period (the open stream does not hold the shutdown up).
  const absl::Time start = absl::Now();
  std::thread stopper([&] { (*server)->Shutdown(absl::Seconds(60)); });
  ASSERT_TRUE(reader->Read(&response));
  EXPECT_EQ(response.status(), HealthCheckResponse::NOT_SERVING);
  EXPECT_FALSE(reader->Read(&response));
  EXPECT_TRUE(reader->Finish().ok());
  stopper.join();
  EXPECT_LT(absl::Now() - start, absl::Seconds(30));
  EXPECT_EQ((*server)->health().GetServingStatus(""),
            HealthCheckResponse::NOT_SERVING);
}

TEST(HealthWatchTest, WatchOfAnUnknownServiceStaysOpen) {
  std::unique_ptr<LoopbackServer> server = LoopbackServer::Start();
  ASSERT_NE(server, nullptr);
  grpc::ClientContext context;
  HealthCheckRequest request;
  request.set_service("later.Service");
  auto reader = server->health().Watch(&context, request);
  HealthCheckResponse response;
  ASSERT_TRUE(reader->Read(&response));
  EXPECT_EQ(response.status(), HealthCheckResponse::SERVICE_UNKNOWN);
  (*server)->health().SetServingStatus("later.Service", true);
  ASSERT_TRUE(reader->Read(&response));
  EXPECT_EQ(response.status(), HealthCheckResponse::SERVING);
  context.TryCancel();
  EXPECT_FALSE(reader->Read(&response));
  EXPECT_EQ(reader->Finish().error_code(), StatusCode::CANCELLED);
}

}  // namespace
}  // namespace halma::service
