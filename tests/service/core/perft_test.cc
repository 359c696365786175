// Perft from the rules core: its counts against what the other methods say
// (LegalMoves, ValidateMove) and its depth limit. (Its deadlines and its
// slot of the admission gate: tests/service/grpc/gated_calls_test.cc.)
#include <cstdint>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "halma/v1/halma.pb.h"
#include "service/core/rules_core.h"

namespace halma::service {
namespace {

using ::testing::HasSubstr;

class PerftTest : public ::testing::Test {
 protected:
  void Start(RulesOptions options = RulesOptions()) {
    core_ = std::make_unique<RulesCore>(options);
  }

  absl::Status Perft(const v1::PerftRequest& request,
                     v1::PerftResponse* response) {
    return core_->Perft(request, response);
  }

  v1::LegalMovesResponse LegalMoves(const std::string& preset,
                                    const std::string& position) {
    v1::LegalMovesRequest request;
    request.mutable_variant()->set_preset(preset);
    request.set_position(position);
    v1::LegalMovesResponse response;
    EXPECT_TRUE(core_->LegalMoves(request, &response).ok());
    return response;
  }

  std::string After(const std::string& preset, const std::string& position,
                    const std::string& move) {
    v1::ValidateMoveRequest request;
    request.mutable_variant()->set_preset(preset);
    request.set_position(position);
    request.set_move(move);
    v1::ValidateMoveResponse response;
    EXPECT_TRUE(core_->ValidateMove(request, &response).ok());
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

  std::unique_ptr<RulesCore> core_;
};

// Depth 1 is the number of legal moves; depth 2 the sum over them of the
// moves after each, as LegalMoves and ValidateMove tell; split by first
// move, the counts sum to the total and name LegalMoves' moves in order.
TEST_F(PerftTest, CountsAgreeWithLegalMovesAndValidateMove) {
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
TEST_F(PerftTest, FinishedGameCountsNothing) {
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

TEST_F(PerftTest, BadRequestsNameTheField) {
  Start(RulesOptions{.max_perft_depth = 3});
  v1::PerftRequest request;
  request.mutable_variant()->set_preset("brainking-8x8");
  for (const int depth : {-1, 4, 1000}) {
    request.set_depth(depth);
    v1::PerftResponse response;
    const absl::Status status = Perft(request, &response);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(std::string(status.message()),
              absl::StrCat("depth: ", depth,
                           ", expected 0 to 3 (this server's "
                           "max_perft_depth)"));
  }
  request.set_depth(1);
  request.set_position("w7/8 w 0,0");
  v1::PerftResponse response;
  absl::Status status = Perft(request, &response);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), HasSubstr("position"));
  request.clear_position();
  request.mutable_variant()->set_preset("nope");
  status = Perft(request, &response);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), HasSubstr("variant.preset"));
}

}  // namespace
}  // namespace halma::service
