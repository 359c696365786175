// Perft over a real channel: its counts against what the other RPCs say
// (LegalMoves, ValidateMove), its depth limit, its deadline and its slot.
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "halma/v1/halma.grpc.pb.h"
#include "service/server.h"
#include "tests/service/test_server.h"

namespace halma::service {
namespace {

using ::testing::HasSubstr;

class PerftServiceTest : public ::testing::Test {
 protected:
  void Start(ServerConfig config = ServerConfig()) {
    config.host = "127.0.0.1";
    config.port = 0;
    server_ = MustStart(config);
    ASSERT_NE(server_, nullptr);
    stub_ = v1::HalmaRules::NewStub(ChannelTo(server_->address()));
  }

  grpc::Status Perft(const v1::PerftRequest& request,
                     v1::PerftResponse* response, int seconds = 60) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() +
                         std::chrono::seconds(seconds));
    return stub_->Perft(&context, request, response);
  }

  v1::LegalMovesResponse LegalMoves(const std::string& preset,
                                    const std::string& position) {
    v1::LegalMovesRequest request;
    request.mutable_variant()->set_preset(preset);
    request.set_position(position);
    v1::LegalMovesResponse response;
    grpc::ClientContext context;
    EXPECT_TRUE(stub_->LegalMoves(&context, request, &response).ok());
    return response;
  }

  std::string After(const std::string& preset, const std::string& position,
                    const std::string& move) {
    v1::ValidateMoveRequest request;
    request.mutable_variant()->set_preset(preset);
    request.set_position(position);
    request.set_move(move);
    v1::ValidateMoveResponse response;
    grpc::ClientContext context;
    EXPECT_TRUE(stub_->ValidateMove(&context, request, &response).ok());
    EXPECT_TRUE(response.legal()) << move;
    return response.position_after();
  }

  // The number of moves of a position as the other RPCs give it: its legal
  // moves, or 1 (pass) when it must pass, or 0 when the game is over.
  std::uint64_t MovesOf(const std::string& preset,
                        const std::string& position) {
    const v1::LegalMovesResponse legal = LegalMoves(preset, position);
    if (legal.status().state() != v1::GameStatus::STATE_IN_PROGRESS) return 0;
    if (legal.status().must_pass()) return 1;
    return static_cast<std::uint64_t>(legal.count());
  }

  std::unique_ptr<HalmaServer> server_;
  std::unique_ptr<v1::HalmaRules::Stub> stub_;
};

// Depth 1 is the number of legal moves; depth 2 the sum over them of the
// moves after each, as LegalMoves and ValidateMove tell; split by first
// move, the counts sum to the total and name LegalMoves' moves in order.
TEST_F(PerftServiceTest, CountsAgreeWithLegalMovesAndValidateMove) {
  Start();
  for (const std::string preset :
       {"brainking-8x8", "iggamecenter-10x10", "classic-16x16-4p"}) {
    SCOPED_TRACE(preset);
    const v1::LegalMovesResponse start = LegalMoves(preset, "");
    const std::string position = start.position();
    v1::PerftRequest request;
    request.mutable_variant()->set_preset(preset);
    request.set_depth(0);
    v1::PerftResponse response;
    ASSERT_TRUE(Perft(request, &response).ok());
    EXPECT_EQ(response.nodes(), 1u);

    request.set_depth(1);
    ASSERT_TRUE(Perft(request, &response).ok());
    EXPECT_EQ(response.nodes(), static_cast<std::uint64_t>(start.count()));

    request.set_depth(2);
    request.set_split_by_first_move(true);
    ASSERT_TRUE(Perft(request, &response).ok());
    ASSERT_EQ(response.first_moves_size(), start.count());
    std::uint64_t total = 0;
    for (int i = 0; i < start.count(); ++i) {
      const v1::Move& move = start.moves(i);
      EXPECT_EQ(response.first_moves(i).move(),
                absl::StrCat(move.origin(), "-", move.destination()));
      const std::uint64_t after =
          MovesOf(preset, After(preset, position, move.path()));
      EXPECT_EQ(response.first_moves(i).nodes(), after) << move.path();
      total += response.first_moves(i).nodes();
    }
    EXPECT_EQ(response.nodes(), total);
  }
}

// A finished game has no moves: every depth past 0 counts nothing.
TEST_F(PerftServiceTest, FinishedGameCountsNothing) {
  Start();
  // brainking-8x8: w's last move filled b's camp; b has one piece outside
  // w's camp.
  const std::string won = "4wwww/5www/6ww/7w/b7/bb6/bbb5/bbb1b3 b 41,40";
  const v1::LegalMovesResponse legal = LegalMoves("brainking-8x8", won);
  ASSERT_EQ(legal.status().state(), v1::GameStatus::STATE_WIN);
  v1::PerftRequest request;
  request.mutable_variant()->set_preset("brainking-8x8");
  request.set_position(won);
  for (const int depth : {0, 1, 3}) {
    request.set_depth(depth);
    v1::PerftResponse response;
    ASSERT_TRUE(Perft(request, &response).ok());
    EXPECT_EQ(response.nodes(), depth == 0 ? 1u : 0u);
  }
}

TEST_F(PerftServiceTest, BadRequestsNameTheField) {
  ServerConfig config;
  config.max_perft_depth = 3;
  Start(config);
  v1::PerftRequest request;
  request.mutable_variant()->set_preset("brainking-8x8");
  for (const int depth : {-1, 4, 1000}) {
    request.set_depth(depth);
    v1::PerftResponse response;
    const grpc::Status status = Perft(request, &response);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_EQ(status.error_message(),
              absl::StrCat("depth: ", depth,
                           ", expected 0 to 3 (this server's "
                           "max_perft_depth)"));
  }
  request.set_depth(1);
  request.set_position("w7/8 w 0,0");
  v1::PerftResponse response;
  grpc::Status status = Perft(request, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("position"));
  request.clear_position();
  request.mutable_variant()->set_preset("nope");
  status = Perft(request, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), HasSubstr("variant.preset"));
}

// The most expensive call there is stops at the client's deadline, and at
// the server's maximum call time when the client sets none.
TEST_F(PerftServiceTest, DeadlinesStopTheCount) {
  ServerConfig config;
  config.max_call_seconds = 1;
  Start(config);
  v1::PerftRequest request;
  request.mutable_variant()->set_preset("classic-16x16");
  request.set_depth(6);
  v1::PerftResponse response;
  absl::Time start = absl::Now();
  grpc::Status status = Perft(request, &response, /*seconds=*/60);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED);
  EXPECT_THAT(status.error_message(),
              HasSubstr("Perft: deadline exceeded while counting"));
  EXPECT_THAT(status.error_message(), HasSubstr("max_call_seconds"));
  EXPECT_LT(absl::Now() - start,
            absl::Seconds(1) + absl::Seconds(2) * kSanitizerSlowdown);
  // The client's own deadline, shorter than the server's limit.
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::milliseconds(300));
  start = absl::Now();
  status = stub_->Perft(&context, request, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED);
  EXPECT_LT(absl::Now() - start, absl::Seconds(1) * kSanitizerSlowdown);
}

// Perft holds a replay slot like Adjudicate: beyond the limit, refused at
// once.
TEST_F(PerftServiceTest, HoldsAReplaySlot) {
  ServerConfig config;
  config.max_concurrent_adjudications = 1;
  config.max_call_seconds = 3;
  Start(config);
  v1::PerftRequest slow;
  slow.mutable_variant()->set_preset("classic-16x16");
  slow.set_depth(6);
  std::thread first([&] {
    v1::PerftResponse response;
    EXPECT_EQ(Perft(slow, &response).error_code(),
              grpc::StatusCode::DEADLINE_EXCEEDED);
  });
  // Wait until the slow count holds the slot.
  const absl::Time give_up = absl::Now() + absl::Seconds(10);
  while (server_->rules().calls_in_progress() == 0 && absl::Now() < give_up) {
    absl::SleepFor(absl::Milliseconds(2));
  }
  absl::SleepFor(absl::Milliseconds(100));
  v1::PerftRequest quick;
  quick.mutable_variant()->set_preset("brainking-8x8");
  quick.set_depth(1);
  v1::PerftResponse response;
  const grpc::Status status = Perft(quick, &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(status.error_message(),
              HasSubstr("max_concurrent_adjudications"));
  first.join();
}

}  // namespace
}  // namespace halma::service
