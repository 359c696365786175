// SuggestMove over gRPC (issue 23): every suggestion is a legal move by the
// server's own LegalMoves and ValidateMove; the answer is a function of the
// request (across calls and across servers); malformed requests and
// budgets above the server's caps are errors naming the field; the search
// stops at a deadline or a cancellation at its next checkpoint, and with
// best_so_far answers with the best move found. Searches are held at
// their checkpoints by a hook (CheckpointLatch), never sized from the
// machine's speed.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "gtest/gtest.h"
#include "service/log/logger.h"
#include "tests/metrics/metrics_test_util.h"
#include "tests/service/fixture/checkpoint_latch.h"
#include "tests/service/fixture/loopback_server.h"

namespace halma::service {
namespace {

using ::grpc::StatusCode;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using SuggestCall =
    BackgroundCall<v1::SuggestMoveRequest, v1::SuggestMoveResponse>;

v1::Variant Preset(const std::string& name) {
  v1::Variant variant;
  variant.set_preset(name);
  return variant;
}

v1::Variant Custom(int size, int seats, std::vector<int> camp_rows,
                   int home_exit_limit = 0, bool target_lock = false) {
  v1::Variant variant;
  v1::VariantSpec* spec = variant.mutable_custom();
  spec->set_board_size(size);
  spec->set_seat_count(seats);
  for (int row : camp_rows) spec->add_camp_rows(row);
  spec->set_home_exit_limit(home_exit_limit);
  spec->set_target_lock(target_lock);
  return variant;
}

v1::SuggestMoveRequest Request(const v1::Variant& variant,
                               const std::string& position = "",
                               int level = 0) {
  v1::SuggestMoveRequest request;
  *request.mutable_variant() = variant;
  request.set_position(position);
  request.set_level(level);
  return request;
}

// A search the tests hold at its checkpoints: big enough that it reaches
// several (classic-16x16, the top level).
v1::SuggestMoveRequest LongSearch() {
  return Request(Preset("classic-16x16"), "", 8);
}

std::string Bytes(const v1::SuggestMoveResponse& response) {
  std::string bytes;
  google::protobuf::io::StringOutputStream stream(&bytes);
  google::protobuf::io::CodedOutputStream coded(&stream);
  coded.SetSerializationDeterministic(true);
  response.SerializeToCodedStream(&coded);
  coded.Trim();
  return bytes;
}

// The move is one that LegalMoves lists, exactly as it lists it (origin,
// destination, fewest-hop path, hops), or "pass" when LegalMoves says the
// side to move must pass; ValidateMove finds it legal.
void ExpectLegal(LoopbackServer& server, const v1::Variant& variant,
                 const std::string& position, const v1::Move& move) {
  SCOPED_TRACE(absl::StrCat("position \"", position, "\", move ", move.path()));
  v1::LegalMovesRequest legal_request;
  *legal_request.mutable_variant() = variant;
  legal_request.set_position(position);
  const Reply<v1::LegalMovesResponse> legal =
      server.Call(&Stub::LegalMoves, legal_request);
  ASSERT_TRUE(legal.status.ok()) << legal.status.error_message();
  if (move.path() == "pass") {
    EXPECT_TRUE(legal.response.status().must_pass());
    EXPECT_EQ(move.origin(), "");
    EXPECT_EQ(move.destination(), "");
    EXPECT_EQ(move.hops(), 0);
  } else {
    bool listed = false;
    for (const v1::Move& listed_move : legal.response.moves()) {
      if (listed_move.origin() == move.origin() &&
          listed_move.destination() == move.destination()) {
        listed = true;
        EXPECT_EQ(listed_move.path(), move.path());
        EXPECT_EQ(listed_move.hops(), move.hops());
      }
    }
    EXPECT_TRUE(listed) << "not among LegalMoves' " << legal.response.count();
  }
  v1::ValidateMoveRequest check;
  *check.mutable_variant() = variant;
  check.set_position(position);
  check.set_move(move.path());
  const Reply<v1::ValidateMoveResponse> valid =
      server.Call(&Stub::ValidateMove, check);
  ASSERT_TRUE(valid.status.ok()) << valid.status.error_message();
  EXPECT_TRUE(valid.response.legal()) << valid.response.message();
}

// The position after `path` (ValidateMove's).
std::string Play(LoopbackServer& server, const v1::Variant& variant,
                 const std::string& position, const std::string& path) {
  v1::ValidateMoveRequest check;
  *check.mutable_variant() = variant;
  check.set_position(position);
  check.set_move(path);
  const Reply<v1::ValidateMoveResponse> valid =
      server.Call(&Stub::ValidateMove, check);
  EXPECT_TRUE(valid.status.ok() && valid.response.legal()) << path;
  return valid.response.position_after();
}

bool GameOver(LoopbackServer& server, const v1::Variant& variant,
              const std::string& position) {
  v1::LegalMovesRequest request;
  *request.mutable_variant() = variant;
  request.set_position(position);
  const Reply<v1::LegalMovesResponse> legal =
      server.Call(&Stub::LegalMoves, request);
  return legal.status.ok() &&
         legal.response.status().state() != v1::GameStatus::STATE_IN_PROGRESS;
}

// --- Answers -----------------------------------------------------------------

// Games played through the API on every preset, a custom variant and a
// four-player custom variant: every suggestion and every candidate is legal,
// the candidates are distinct and as many as asked for, and the principal
// variation starts with the move.
TEST(SuggestMoveTest, EverySuggestionIsALegalMoveInPlayedGames) {
  std::unique_ptr<LoopbackServer> server = LoopbackServer::Start();
  ASSERT_NE(server, nullptr);
  std::vector<std::pair<v1::Variant, int>> variants;  // And seat counts.
  const Reply<v1::ListVariantsResponse> presets =
      server->Call(&Stub::ListVariants, v1::ListVariantsRequest());
  ASSERT_TRUE(presets.status.ok());
  for (const v1::VariantInfo& info : presets.response.variants()) {
    variants.emplace_back(Preset(info.name()), info.seats_size());
  }
  ASSERT_GE(variants.size(), 5u);
  variants.emplace_back(Custom(6, 2, {3, 2, 1}, 8), 2);
  variants.emplace_back(Custom(7, 4, {2, 1}, 0, true), 4);
  for (const auto& [variant, seats] : variants) {
    SCOPED_TRACE(variant.ShortDebugString());
    std::string position;
    for (int ply = 0; ply < 8 && !GameOver(*server, variant, position); ++ply) {
      v1::SuggestMoveRequest request = Request(variant, position, 1 + ply % 3);
      request.set_candidates(4);
      request.set_seed(ply);
      const Reply<v1::SuggestMoveResponse> reply =
          server->Call(&Stub::SuggestMove, request);
      ASSERT_TRUE(reply.status.ok()) << reply.status.error_message();
      const v1::SuggestMoveResponse& answer = reply.response;
      ExpectLegal(*server, variant, position, answer.move());
      EXPECT_EQ(answer.level(), 1 + ply % 3);
      EXPECT_EQ(answer.stop_reason() == v1::STOP_REASON_UNSPECIFIED, false);
      EXPECT_GT(answer.nodes(), 0);
      EXPECT_NE(answer.score().kind(), v1::MoveScore::KIND_UNSPECIFIED);
      ASSERT_GE(answer.candidates_size(), 1);
      EXPECT_LE(answer.candidates_size(), 4);
      bool chosen_listed = false;
      for (int i = 0; i < answer.candidates_size(); ++i) {
        ExpectLegal(*server, variant, position, answer.candidates(i).move());
        for (int j = 0; j < i; ++j) {
          EXPECT_NE(answer.candidates(i).move().path(),
                    answer.candidates(j).move().path());
        }
        chosen_listed |=
            answer.candidates(i).move().path() == answer.move().path();
      }
      EXPECT_TRUE(chosen_listed);
      ASSERT_GE(answer.principal_variation_size(), 1);
      EXPECT_EQ(answer.principal_variation(0).seat(), answer.mover());
      EXPECT_EQ(answer.turns_needed_size(), seats);
      position = Play(*server, variant, position, answer.move().path());
    }
  }
}

// The number of candidates is as asked when the position has that many
// moves, and the default level is 7.
TEST(SuggestMoveTest, CandidatesAsAskedAndTheDefaultLevel) {
  std::unique_ptr<LoopbackServer> server = LoopbackServer::Start();
  ASSERT_NE(server, nullptr);
  v1::SuggestMoveRequest request = Request(Preset("brainking-8x8"));
  request.set_candidates(16);
  const Reply<v1::SuggestMoveResponse> reply =
      server->Call(&Stub::SuggestMove, request);
  ASSERT_TRUE(reply.status.ok()) << reply.status.error_message();
  EXPECT_EQ(reply.response.level(), 7);
  EXPECT_EQ(reply.response.candidates_size(), 16);
  EXPECT_EQ(reply.response.mover(), v1::SEAT_W);
  EXPECT_EQ(reply.response.position(),
            "4bbbb/5bbb/6bb/7b/w7/ww6/www5/wwww4 w 0,0");
}

// A pass when the side to move has no other move (two and four seats).
TEST(SuggestMoveTest, APassWhenPassIsTheOnlyMove) {
  std::unique_ptr<LoopbackServer> server = LoopbackServer::Start();
  ASSERT_NE(server, nullptr);
  const std::pair<v1::Variant, std::string> cases[] = {
      {Custom(4, 2, {4, 3}, 0, true), "wwww/1bww/bbb1/bwbb w 20,20"},
      {Custom(4, 4, {2, 1}), "4/rrrb/ggbb/wwwg w 5,5,5,5"},
  };
  for (const auto& [variant, position] : cases) {
    for (int level = 1; level <= 8; level += 7) {
      const Reply<v1::SuggestMoveResponse> reply =
          server->Call(&Stub::SuggestMove, Request(variant, position, level));
      ASSERT_TRUE(reply.status.ok()) << reply.status.error_message();
      EXPECT_EQ(reply.response.move().path(), "pass");
      ExpectLegal(*server, variant, position, reply.response.move());
    }
  }
}

// A start position and moves (as Adjudicate takes them) get the answer of
// the position after them.
TEST(SuggestMoveTest, MovesFromAStartAnswerAsThePositionAfterThem) {
  std::unique_ptr<LoopbackServer> server = LoopbackServer::Start();
  ASSERT_NE(server, nullptr);
  const v1::Variant variant = Preset("classic-16x16-4p");
  v1::AdjudicateRequest record;
  *record.mutable_variant() = variant;
  std::string position;
  v1::SuggestMoveRequest with_moves = Request(variant, "", 3);
  for (int ply = 0; ply < 6; ++ply) {
    const Reply<v1::SuggestMoveResponse> reply =
        server->Call(&Stub::SuggestMove, Request(variant, position, 1));
    ASSERT_TRUE(reply.status.ok()) << reply.status.error_message();
    with_moves.add_moves(reply.response.move().path());
    position = Play(*server, variant, position, reply.response.move().path());
  }
  const Reply<v1::SuggestMoveResponse> from_moves =
      server->Call(&Stub::SuggestMove, with_moves);
  const Reply<v1::SuggestMoveResponse> from_position =
      server->Call(&Stub::SuggestMove, Request(variant, position, 3));
  ASSERT_TRUE(from_moves.status.ok()) << from_moves.status.error_message();
  ASSERT_TRUE(from_position.status.ok());
  EXPECT_EQ(Bytes(from_moves.response), Bytes(from_position.response));
  EXPECT_EQ(from_moves.response.turns_needed_size(), 4);
  ExpectLegal(*server, variant, position, from_moves.response.move());
}

// --- Determinism -------------------------------------------------------------

v1::SuggestMoveRequest MidgameRequest(int level, std::uint64_t seed) {
  v1::SuggestMoveRequest request = Request(Preset("classic-16x16"), "", level);
  // A few opening moves of both sides.
  for (const char* move : {"e1-f2", "l16-k15", "d3-e4", "m14-l13"}) {
    request.add_moves(move);
  }
  request.set_seed(seed);
  request.set_candidates(5);
  return request;
}

// The same request gets the same answer, byte for byte, however often it
// is asked, while other searches run on the other slots.
TEST(SuggestMoveDeterminismTest, TheSameRequestGetsTheSameAnswer) {
  std::unique_ptr<LoopbackServer> server = LoopbackServer::Start();
  ASSERT_NE(server, nullptr);
  for (int level : {1, 2, 5}) {
    const v1::SuggestMoveRequest request = MidgameRequest(level, 7);
    const Reply<v1::SuggestMoveResponse> first =
        server->Call(&Stub::SuggestMove, request);
    ASSERT_TRUE(first.status.ok()) << first.status.error_message();
    for (int i = 0; i < 3; ++i) {
      // Another search in between, so that a workspace's leftovers (its
      // table) would show.
      SuggestCall other(server->channel(), &Stub::SuggestMove,
                        MidgameRequest(level + 1, i));
      const Reply<v1::SuggestMoveResponse> again =
          server->Call(&Stub::SuggestMove, request);
      ASSERT_TRUE(other.Wait().ok()) << other.Wait().error_message();
      ASSERT_TRUE(again.status.ok()) << again.status.error_message();
      EXPECT_EQ(Bytes(again.response), Bytes(first.response)) << level;
    }
  }
  v1::SuggestMoveRequest budget = MidgameRequest(0, 3);
  budget.set_max_nodes(30'000);
  budget.set_max_depth(4);
  const Reply<v1::SuggestMoveResponse> one =
      server->Call(&Stub::SuggestMove, budget);
  const Reply<v1::SuggestMoveResponse> two =
      server->Call(&Stub::SuggestMove, budget);
  ASSERT_TRUE(one.status.ok()) << one.status.error_message();
  EXPECT_EQ(one.response.level(), 0);
  EXPECT_EQ(Bytes(one.response), Bytes(two.response));
}

// ... and the same on a server started afresh.
TEST(SuggestMoveDeterminismTest, TheSameAnswerAcrossServerRestarts) {
  std::vector<std::string> answers[2];
  for (int run = 0; run < 2; ++run) {
    ServerConfig config = LoopbackConfig();
    config.max_concurrent_adjudications = 1 + run;
    std::unique_ptr<LoopbackServer> server = LoopbackServer::Start(config);
    ASSERT_NE(server, nullptr);
    for (int level : {1, 4, 6}) {
      const Reply<v1::SuggestMoveResponse> reply =
          server->Call(&Stub::SuggestMove, MidgameRequest(level, 11));
      ASSERT_TRUE(reply.status.ok()) << reply.status.error_message();
      answers[run].push_back(Bytes(reply.response));
    }
  }
  EXPECT_EQ(answers[0], answers[1]);
}

// A node budget bounds the search; the seed is part of the request.
TEST(SuggestMoveTest, AnExplicitNodeBudgetBoundsTheSearch) {
  std::unique_ptr<LoopbackServer> server = LoopbackServer::Start();
  ASSERT_NE(server, nullptr);
  v1::SuggestMoveRequest request = MidgameRequest(0, 1);
  request.set_max_nodes(5'000);
  const Reply<v1::SuggestMoveResponse> reply =
      server->Call(&Stub::SuggestMove, request);
  ASSERT_TRUE(reply.status.ok()) << reply.status.error_message();
  EXPECT_EQ(reply.response.stop_reason(), v1::STOP_REASON_NODE_BUDGET);
  EXPECT_GT(reply.response.nodes(), 0);
  // The budget counts the chosen move's search; the hints' searches after
  // it are bounded by it too.
  EXPECT_LE(reply.response.nodes(), 2 * request.max_nodes());
}

// --- Errors ------------------------------------------------------------------

struct BadRequest {
  std::string what;
  v1::SuggestMoveRequest request;
  std::string message;  // The error message's start.
};

std::vector<BadRequest> BadRequests() {
  std::vector<BadRequest> out;
  auto add = [&out](std::string what, v1::SuggestMoveRequest request,
                    std::string message) {
    out.push_back({std::move(what), std::move(request), std::move(message)});
  };
  const v1::Variant variant = Preset("brainking-8x8");
  v1::SuggestMoveRequest r = Request(variant, "", 9);
  add("level above 8", r, "level: 9, expected 1 to 8");
  r = Request(variant, "", -1);
  add("negative level", r, "level: -1, expected 1 to 8");
  r = Request(variant);
  r.set_max_nodes(-5);
  add("negative max_nodes", r, "max_nodes: -5, expected 1 to ");
  r = Request(variant);
  r.set_max_time_ms(-1);
  add("negative max_time_ms", r, "max_time_ms: -1, expected 1 to ");
  r = Request(variant);
  r.set_candidates(17);
  add("17 candidates", r, "candidates: 17, expected 1 to 16");
  r = Request(variant);
  r.set_max_depth(3);
  add("max_depth alone", r, "max_depth: 3 given without max_nodes");
  r = Request(variant);
  r.set_max_nodes(1000);
  r.set_max_depth(49);
  add("max_depth above 48", r, "max_depth: 49, expected 1 to 48");
  r = Request(variant, "", 3);
  r.set_max_nodes(1000);
  add("level and max_nodes", r, "level: 3 given together with max_nodes");
  r = Request(variant, "4bbbbb/5bbb/6bb/7b/w7/ww6/www5/wwww4 w 0,0");
  add("malformed position", r, "position: ");
  r = Request(Preset("no-such-variant"));
  add("unknown preset", r, "variant.preset: ");
  r = Request(variant);
  r.add_moves("b1-d3");
  r.add_moves("zz");
  add("malformed move", r, "moves[1] (ply 2): ");
  r = Request(variant);
  r.add_moves("b1-d3");
  r.add_moves("b2-c3");
  add("illegal move", r, "moves[1] (ply 2): move \"b2-c3\" is illegal: ");
  // brainking-8x8's home-exit rule (30 moves): both sides still home after
  // 31 moves each.
  r = Request(variant, "4bbbb/5bbb/6bb/7b/w7/ww6/www5/wwww4 w 31,31");
  add("finished game", r, "position: the game is over (");
  return out;
}

TEST(SuggestMoveErrorsTest, MalformedRequestsAreErrorsNamingTheField) {
  std::unique_ptr<LoopbackServer> server = LoopbackServer::Start();
  ASSERT_NE(server, nullptr);
  ASSERT_TRUE(GameOver(*server, Preset("brainking-8x8"),
                       "4bbbb/5bbb/6bb/7b/w7/ww6/www5/wwww4 w 31,31"));
  for (const BadRequest& bad : BadRequests()) {
    const Reply<v1::SuggestMoveResponse> reply =
        server->Call(&Stub::SuggestMove, bad.request);
    EXPECT_EQ(reply.status.error_code(), StatusCode::INVALID_ARGUMENT)
        << bad.what;
    EXPECT_THAT(reply.status.error_message(), StartsWith(bad.message))
        << bad.what;
  }
}

// A game that ends within the request's moves: the error names `moves`.
TEST(SuggestMoveErrorsTest, AGameOverAfterTheMovesNamesTheMoves) {
  std::unique_ptr<LoopbackServer> server = LoopbackServer::Start();
  ASSERT_NE(server, nullptr);
  const v1::Variant variant = Preset("brainking-8x8");
  // brainking-8x8's home-exit rule: white's 31st move leaves pieces home.
  v1::SuggestMoveRequest request =
      Request(variant, "4bbbb/5bbb/6bb/7b/w7/ww6/www5/wwww4 w 30,30");
  request.add_moves("b1-d3");
  ASSERT_TRUE(GameOver(*server, variant,
                       Play(*server, variant, request.position(), "b1-d3")));
  const Reply<v1::SuggestMoveResponse> reply =
      server->Call(&Stub::SuggestMove, request);
  EXPECT_EQ(reply.status.error_code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(reply.status.error_message(),
              StartsWith("moves: the game is over ("));
}

// Budgets above the server's caps: INVALID_ARGUMENT naming the field, the
// cap and its setting, counted as refused by that limit.
TEST(SuggestMoveErrorsTest, BudgetsAboveTheServersCapsNameTheLimit) {
  ServerConfig config = LoopbackConfig();
  config.max_suggest_nodes = 50'000;
  config.max_suggest_time_ms = 500;
  std::unique_ptr<LoopbackServer> server = LoopbackServer::Start(config);
  ASSERT_NE(server, nullptr);
  v1::SuggestMoveRequest request = Request(Preset("brainking-8x8"));
  request.set_max_nodes(50'001);
  Reply<v1::SuggestMoveResponse> reply =
      server->Call(&Stub::SuggestMove, request);
  EXPECT_EQ(reply.status.error_code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(reply.status.error_message(),
            "max_nodes: 50001 is more than this server's limit of 50000 "
            "(max_suggest_nodes)");
  request.set_max_nodes(50'000);
  reply = server->Call(&Stub::SuggestMove, request);
  EXPECT_TRUE(reply.status.ok()) << reply.status.error_message();

  // Level 7 (the default) searches 100,000 nodes.
  reply = server->Call(&Stub::SuggestMove, Request(Preset("brainking-8x8")));
  EXPECT_EQ(reply.status.error_code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(reply.status.error_message(),
              StartsWith("level: level 7 searches "));
  EXPECT_THAT(reply.status.error_message(),
              HasSubstr("limit of 50000 (max_suggest_nodes)"));
  reply =
      server->Call(&Stub::SuggestMove, Request(Preset("brainking-8x8"), "", 4));
  EXPECT_TRUE(reply.status.ok()) << reply.status.error_message();

  request = Request(Preset("brainking-8x8"), "", 2);
  request.set_max_time_ms(501);
  reply = server->Call(&Stub::SuggestMove, request);
  EXPECT_EQ(reply.status.error_code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(reply.status.error_message(),
            "max_time_ms: 501 is more than this server's limit of 500 "
            "(max_suggest_time_ms)");
  const auto families = (*server)->metrics().Collect();
  EXPECT_EQ(metrics::Value(families, "halma_rejected_calls_total",
                           {{"limit", "max_suggest_nodes"}}),
            2);
  EXPECT_EQ(metrics::Value(families, "halma_rejected_calls_total",
                           {{"limit", "max_suggest_time_ms"}}),
            1);
}

// --- Deadlines and cancellation ----------------------------------------------

// The client's deadline passes during the search: the search stops at its
// checkpoint (the first one after the deadline: no later one is reached)
// and the call ends with DEADLINE_EXCEEDED naming the method.
TEST(SuggestMoveStopTest, TheDeadlineStopsTheSearch) {
  CheckpointLatch latch(CheckpointLatch::Hold::kUntilDeadline);
  std::unique_ptr<LoopbackServer> server =
      LoopbackServer::Start(OneSlotHeldBy(latch));
  ASSERT_NE(server, nullptr);
  const Reply<v1::SuggestMoveResponse> reply =
      server->Call(&Stub::SuggestMove, LongSearch(), kPassingDeadline);
  EXPECT_EQ(reply.status.error_code(), StatusCode::DEADLINE_EXCEEDED);
  // The server's own message when it ended the call first.
  if (reply.status.error_message() != "Deadline Exceeded") {
    EXPECT_THAT(reply.status.error_message(), StartsWith("SuggestMove: "));
  }
  // The client may give up before the server's search reaches its
  // checkpoint: wait for the server's side, then check it stopped there.
  ASSERT_TRUE(WaitUntil([&] {
    return latch.reached() >= 1 && (*server)->gate().in_use() == 0;
  }));
  EXPECT_EQ(latch.reached(), 1);
}

// The same with best_so_far: an answer, the best move found until the
// deadline, legal, marked as interrupted.
TEST(SuggestMoveStopTest, WithBestSoFarTheDeadlineGetsTheBestMoveFound) {
  CheckpointLatch latch(CheckpointLatch::Hold::kUntilDeadline);
  ServerConfig config = OneSlotHeldBy(latch);
  config.max_call_seconds = 1;
  std::unique_ptr<LoopbackServer> server = LoopbackServer::Start(config);
  ASSERT_NE(server, nullptr);
  v1::SuggestMoveRequest request = LongSearch();
  request.set_best_so_far(true);
  request.set_candidates(3);
  // No client deadline soon: the server's max_call_seconds ends the search.
  const Reply<v1::SuggestMoveResponse> reply =
      server->Call(&Stub::SuggestMove, request);
  ASSERT_TRUE(reply.status.ok()) << reply.status.error_message();
  EXPECT_EQ(reply.response.stop_reason(), v1::STOP_REASON_INTERRUPTED);
  EXPECT_THAT(reply.response.stop_message(), HasSubstr("max_call_seconds"));
  EXPECT_EQ(latch.reached(), 1);
  ExpectLegal(*server, request.variant(), "", reply.response.move());
  EXPECT_GE(reply.response.candidates_size(), 1);
}

// The client cancels: the search stops at its checkpoint with CANCELLED,
// and the slot is free for the next call.
TEST(SuggestMoveStopTest, ACancellationStopsTheSearch) {
  CheckpointLatch latch(CheckpointLatch::Hold::kUntilCancelled);
  std::unique_ptr<LoopbackServer> server =
      LoopbackServer::Start(OneSlotHeldBy(latch));
  ASSERT_NE(server, nullptr);
  SuggestCall call(server->channel(), &Stub::SuggestMove, LongSearch());
  ASSERT_TRUE(latch.WaitUntilHeld(1));
  call.Cancel();
  EXPECT_EQ(call.Wait().error_code(), StatusCode::CANCELLED);
  ASSERT_TRUE(WaitUntil([&] { return (*server)->gate().in_use() == 0; }));
  EXPECT_EQ(latch.reached(), 1);
  EXPECT_TRUE(WaitUntil([&] {
    return metrics::Value((*server)->metrics().Collect(),
                          "halma_rpc_calls_total",
                          {{"method", "halma.v1.HalmaRules/SuggestMove"},
                           {"code", "CANCELLED"},
                           {"protocol", "grpc"}}) == 1;
  }));
  latch.Release();
  const Reply<v1::SuggestMoveResponse> next =
      server->Call(&Stub::SuggestMove, Request(Preset("brainking-8x8"), "", 1));
  EXPECT_TRUE(next.status.ok()) << next.status.error_message();
}

// A search that waits in the admission queue behind another: both are
// answered, the second once the first has given its slot (and workspace)
// back.
TEST(SuggestMoveStopTest, ASearchWaitsForASlotAndIsAnswered) {
  CheckpointLatch latch;
  std::unique_ptr<LoopbackServer> server =
      LoopbackServer::Start(OneSlotHeldBy(latch));
  ASSERT_NE(server, nullptr);
  // Level 6 (depth 4) expands enough positions to reach a checkpoint;
  // levels 1 to 4 look one ply ahead and never do.
  SuggestCall running(server->channel(), &Stub::SuggestMove,
                      Request(Preset("classic-16x16"), "", 6));
  ASSERT_TRUE(latch.WaitUntilHeld(1));
  SuggestCall waiting(server->channel(), &Stub::SuggestMove,
                      Request(Preset("brainking-8x8"), "", 3));
  ASSERT_TRUE(WaitUntil([&] { return (*server)->gate().waiting() == 1; }));
  latch.Release();
  ASSERT_TRUE(running.Wait().ok()) << running.Wait().error_message();
  ASSERT_TRUE(waiting.Wait().ok()) << waiting.Wait().error_message();
  EXPECT_EQ(waiting.response().position(),
            "4bbbb/5bbb/6bb/7b/w7/ww6/www5/wwww4 w 0,0");
}

// --- Observation -------------------------------------------------------------

// halma_suggest_nodes counts the nodes by the level asked for, and the
// access log line carries the level.
TEST(SuggestMoveObservedTest, NodesByLevelAndTheLevelInTheAccessLog) {
  auto* sink = new MemorySink();
  Logger logger(std::unique_ptr<LogSink>(sink), {.access_log = true});
  ServerConfig config = LoopbackConfig();
  config.access_log = true;
  config.logger = &logger;
  std::unique_ptr<LoopbackServer> server = LoopbackServer::Start(config);
  ASSERT_NE(server, nullptr);
  const Reply<v1::SuggestMoveResponse> level3 = server->Call(
      &Stub::SuggestMove, Request(Preset("brainking-10x10"), "", 3));
  v1::SuggestMoveRequest budget = Request(Preset("brainking-10x10"));
  budget.set_max_nodes(2000);
  const Reply<v1::SuggestMoveResponse> budgeted =
      server->Call(&Stub::SuggestMove, budget);
  const Reply<v1::SuggestMoveResponse> by_default =
      server->Call(&Stub::SuggestMove, Request(Preset("brainking-8x8")));
  ASSERT_TRUE(level3.status.ok() && budgeted.status.ok() &&
              by_default.status.ok());
  const auto families = (*server)->metrics().Collect();
  const prometheus::ClientMetric* series =
      metrics::FindSeries(families, "halma_suggest_nodes", {{"level", "3"}});
  ASSERT_NE(series, nullptr);
  EXPECT_EQ(series->histogram.sample_count, 1u);
  EXPECT_EQ(series->histogram.sample_sum,
            static_cast<double>(level3.response.nodes()));
  EXPECT_EQ(metrics::HistogramCount(families, {{"level", "budget"}},
                                    "halma_suggest_nodes"),
            1);
  EXPECT_EQ(metrics::HistogramCount(families, {{"level", "default"}},
                                    "halma_suggest_nodes"),
            1);
  server->Stop();
  std::vector<std::string> levels;
  for (const std::string& line : sink->lines()) {
    if (line.find("\"method\":\"halma.v1.HalmaRules/SuggestMove\"") ==
        std::string::npos) {
      continue;
    }
    const std::string kKey = "\"suggest_level\":\"";
    const std::size_t at = line.find(kKey);
    ASSERT_NE(at, std::string::npos) << line;
    const std::size_t begin = at + kKey.size();
    levels.push_back(line.substr(begin, line.find('"', begin) - begin));
  }
  EXPECT_EQ(levels, (std::vector<std::string>{"3", "budget", "default"}));
}

}  // namespace
}  // namespace halma::service
