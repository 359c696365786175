// In-process tests of halma_server: the server is started with the same
// code as the binary (StartServer) on 127.0.0.1 with a free port, and
// called over a real channel with the generated stubs.
#include "service/server.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <functional>
#include <iterator>
#include <memory>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/reflection.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/descriptor.pb.h"
#include "google/protobuf/dynamic_message.h"
#include "google/protobuf/message.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "halma/flood_fill.h"
#include "halma/notation.h"
#include "halma/v1/halma.grpc.pb.h"
#include "nlohmann/json.hpp"
#include "tests/testdata.h"
#include "service/server_flags.h"
#include "tests/service/test_server.h"

namespace halma::service {
namespace {

using ::grpc::StatusCode;
using ::grpc::health::v1::Health;
using ::grpc::health::v1::HealthCheckRequest;
using ::grpc::health::v1::HealthCheckResponse;
using ::nlohmann::json;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::StartsWith;

constexpr char kStart8[] = "4bbbb/5bbb/6bb/7b/w7/ww6/www5/wwww4 w 0,0";
constexpr int kTestMaxMessageBytes = 1 << 20;
constexpr int kTestMaxRecordMoves = 200;

// --- Helpers ---------------------------------------------------------------

std::vector<json> ReadVectors(const std::string& name) {
  return testdata::ReadJsonLines("vectors/" + name);
}

v1::Variant Preset(const std::string& name) {
  v1::Variant v;
  v.set_preset(name);
  return v;
}

// A vectors-file variant: a preset name or {"n", "seats", "camp", ...}.
v1::Variant VariantFromJson(const json& j) {
  if (j.is_string()) return Preset(j.get<std::string>());
  v1::Variant v;
  v1::VariantSpec* spec = v.mutable_custom();
  spec->set_board_size(j["n"]);
  spec->set_seat_count(j["seats"]);
  for (int row : j["camp"]) spec->add_camp_rows(row);
  spec->set_home_exit_limit(j["home_exit"]);
  spec->set_round_completion(j["round_completion"]);
  spec->set_target_lock(j["target_lock"]);
  spec->set_move_cap(j["move_cap"]);
  return v;
}

std::string Letter(v1::Seat seat) {
  switch (seat) {
    case v1::SEAT_W:
      return "w";
    case v1::SEAT_R:
      return "r";
    case v1::SEAT_B:
      return "b";
    case v1::SEAT_G:
      return "g";
    default:
      return "?";
  }
}

std::vector<std::string> Letters(
    const google::protobuf::RepeatedField<int>& seats) {
  std::vector<std::string> out;
  for (int s : seats) out.push_back(Letter(static_cast<v1::Seat>(s)));
  return out;
}

v1::DecidingRule RuleFromLabel(const std::string& label) {
  if (label == "target-filled") return v1::DECIDING_RULE_TARGET_FILLED;
  if (label == "home-exit") return v1::DECIDING_RULE_HOME_EXIT;
  if (label == "move-cap") return v1::DECIDING_RULE_MOVE_CAP;
  if (label == "all-passed") return v1::DECIDING_RULE_EVERYONE_STUCK;
  ADD_FAILURE() << "unknown rule label " << label;
  return v1::DECIDING_RULE_UNSPECIFIED;
}

v1::IllegalReason ReasonFromLabel(const std::string& label) {
  static const std::pair<const char*, v1::IllegalReason> kReasons[] = {
      {"game-over", v1::ILLEGAL_REASON_GAME_OVER},
      {"pass-not-allowed", v1::ILLEGAL_REASON_PASS_NOT_ALLOWED},
      {"empty-origin", v1::ILLEGAL_REASON_EMPTY_ORIGIN},
      {"not-your-piece", v1::ILLEGAL_REASON_NOT_YOUR_PIECE},
      {"destination-occupied", v1::ILLEGAL_REASON_DESTINATION_OCCUPIED},
      {"nothing-to-jump", v1::ILLEGAL_REASON_NOTHING_TO_JUMP},
      {"not-a-hop", v1::ILLEGAL_REASON_NOT_A_HOP},
      {"square-visited-twice", v1::ILLEGAL_REASON_SQUARE_VISITED_TWICE},
      {"leaves-target", v1::ILLEGAL_REASON_LEAVES_TARGET},
      {"unreachable", v1::ILLEGAL_REASON_UNREACHABLE},
  };
  for (const auto& [name, reason] : kReasons) {
    if (label == name) return reason;
  }
  ADD_FAILURE() << "unknown reason label " << label;
  return v1::ILLEGAL_REASON_UNSPECIFIED;
}

// (file, rank) of a square, for checking the answer order.
std::pair<int, int> FileRank(const std::string& square) {
  return {square[0] - 'a', std::stoi(square.substr(1))};
}

// Checks what the vectors' `expect` object says about a GameStatus.
void ExpectStatusMatches(const json& expect, const v1::GameStatus& status) {
  const std::string state = expect["status"];
  if (state == "in_progress") {
    EXPECT_EQ(status.state(), v1::GameStatus::STATE_IN_PROGRESS);
    EXPECT_EQ(Letter(status.to_move()), expect["to_move"].get<std::string>());
    EXPECT_EQ(status.round_completion_turn(), expect["rc_turn"].get<bool>());
    EXPECT_EQ(status.rule(), v1::DECIDING_RULE_UNSPECIFIED);
    EXPECT_EQ(status.ply(), 0);
    EXPECT_THAT(status.winners(), IsEmpty());
    return;
  }
  EXPECT_EQ(status.state(), state == "win" ? v1::GameStatus::STATE_WIN
                                           : v1::GameStatus::STATE_DRAW);
  std::vector<std::string> winners;
  for (const auto& w : expect["winners"]) winners.push_back(w);
  EXPECT_EQ(Letters(status.winners()), winners);
  EXPECT_EQ(status.rule(), RuleFromLabel(expect["rule"]));
  EXPECT_EQ(status.ply(), expect["ply"].get<int>());
}

template <typename Response>
struct Reply {
  grpc::Status status;
  Response response;
};

std::unique_ptr<grpc::ClientContext> Context() {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(std::chrono::system_clock::now() +
                        std::chrono::seconds(30));
  return context;
}

ServerConfig TestConfig() {
  ServerConfig config;
  config.host = "127.0.0.1";
  config.port = 0;
  config.max_message_bytes = kTestMaxMessageBytes;
  config.max_record_moves = kTestMaxRecordMoves;
  config.grace_period_seconds = 5;
  return config;
}

std::shared_ptr<grpc::Channel> ChannelTo(const HalmaServer& server) {
  return grpc::CreateChannel(server.address(),
                             grpc::InsecureChannelCredentials());
}

// --- The shared server -----------------------------------------------------

class ServerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    server_ = MustStart(TestConfig()).release();
    ASSERT_NE(server_, nullptr);
    channel_ = new std::shared_ptr<grpc::Channel>(ChannelTo(*server_));
    stub_ = v1::HalmaRules::NewStub(*channel_).release();
    health_ = Health::NewStub(*channel_).release();
  }
  static void TearDownTestSuite() {
    delete health_;
    delete stub_;
    delete channel_;
    delete server_;
  }

  static Reply<v1::ValidateMoveResponse> Validate(
      const v1::ValidateMoveRequest& request) {
    Reply<v1::ValidateMoveResponse> reply;
    reply.status =
        stub_->ValidateMove(Context().get(), request, &reply.response);
    return reply;
  }
  static Reply<v1::ValidateMoveResponse> Validate(const v1::Variant& variant,
                                                  const std::string& position,
                                                  const std::string& move) {
    v1::ValidateMoveRequest request;
    *request.mutable_variant() = variant;
    request.set_position(position);
    request.set_move(move);
    return Validate(request);
  }
  static Reply<v1::LegalMovesResponse> Legal(
      const v1::LegalMovesRequest& request) {
    Reply<v1::LegalMovesResponse> reply;
    reply.status = stub_->LegalMoves(Context().get(), request, &reply.response);
    return reply;
  }
  static Reply<v1::LegalMovesResponse> Legal(const v1::Variant& variant,
                                             const std::string& position,
                                             const std::string& origin = "") {
    v1::LegalMovesRequest request;
    *request.mutable_variant() = variant;
    request.set_position(position);
    request.set_origin(origin);
    return Legal(request);
  }
  static Reply<v1::AdjudicateResponse> Adjudicate(
      const v1::AdjudicateRequest& request) {
    Reply<v1::AdjudicateResponse> reply;
    reply.status = stub_->Adjudicate(Context().get(), request, &reply.response);
    return reply;
  }
  static Reply<v1::AdjudicateResponse> Adjudicate(
      const v1::Variant& variant, const std::vector<std::string>& moves,
      const std::string& start = "") {
    v1::AdjudicateRequest request;
    *request.mutable_variant() = variant;
    request.set_start_position(start);
    for (const std::string& m : moves) request.add_moves(m);
    return Adjudicate(request);
  }

  static HalmaServer* server_;
  static std::shared_ptr<grpc::Channel>* channel_;
  static v1::HalmaRules::Stub* stub_;
  static Health::Stub* health_;
};

HalmaServer* ServerTest::server_ = nullptr;
std::shared_ptr<grpc::Channel>* ServerTest::channel_ = nullptr;
v1::HalmaRules::Stub* ServerTest::stub_ = nullptr;
Health::Stub* ServerTest::health_ = nullptr;

// Expects INVALID_ARGUMENT whose message starts with `field` + ": " and
// quotes `text`.
void ExpectInvalid(const grpc::Status& status, const std::string& field,
                   const std::string& text) {
  EXPECT_EQ(status.error_code(), StatusCode::INVALID_ARGUMENT)
      << status.error_message();
  EXPECT_THAT(status.error_message(), StartsWith(field + ": "));
  EXPECT_THAT(status.error_message(), HasSubstr(QuoteForError(text)));
}

// --- ListVariants ----------------------------------------------------------

TEST_F(ServerTest, ListVariantsGivesTheFivePresets) {
  v1::ListVariantsResponse response;
  ASSERT_TRUE(
      stub_->ListVariants(Context().get(), v1::ListVariantsRequest(), &response)
          .ok());
  ASSERT_EQ(response.variants_size(), 5);
  std::vector<std::string> names, sources;
  for (const auto& v : response.variants()) {
    names.push_back(v.name());
    sources.push_back(v.source());
  }
  EXPECT_THAT(names, ElementsAre("brainking-8x8", "brainking-10x10",
                                 "iggamecenter-10x10", "classic-16x16",
                                 "classic-16x16-4p"));
  EXPECT_THAT(sources,
              ElementsAre("BrainKing Halma 8x8", "BrainKing Halma 10x10",
                          "igGameCenter Halma",
                          "original two-handed game (G. H. Monks)",
                          "original four-handed game"));

  const v1::VariantInfo& bk8 = response.variants(0);
  EXPECT_EQ(bk8.spec().board_size(), 8);
  EXPECT_EQ(bk8.spec().seat_count(), 2);
  EXPECT_THAT(bk8.spec().camp_rows(), ElementsAre(4, 3, 2, 1));
  EXPECT_EQ(bk8.spec().home_exit_limit(), 30);
  EXPECT_FALSE(bk8.spec().round_completion());
  EXPECT_FALSE(bk8.spec().target_lock());
  EXPECT_EQ(bk8.spec().move_cap(), 0);
  EXPECT_THAT(Letters(bk8.seats()), ElementsAre("w", "b"));
  EXPECT_EQ(bk8.pieces_per_seat(), 10);
  EXPECT_EQ(bk8.start_position(), kStart8);

  const v1::VariantInfo& igg = response.variants(2);
  EXPECT_EQ(igg.spec().home_exit_limit(), 0);
  EXPECT_TRUE(igg.spec().round_completion());
  EXPECT_EQ(igg.pieces_per_seat(), 15);

  const v1::VariantInfo& classic = response.variants(3);
  EXPECT_THAT(classic.spec().camp_rows(), ElementsAre(5, 5, 4, 3, 2));
  EXPECT_TRUE(classic.spec().target_lock());
  EXPECT_EQ(classic.pieces_per_seat(), 19);

  const v1::VariantInfo& four = response.variants(4);
  EXPECT_EQ(four.spec().seat_count(), 4);
  EXPECT_THAT(Letters(four.seats()), ElementsAre("w", "r", "b", "g"));
  EXPECT_EQ(four.pieces_per_seat(), 13);
  EXPECT_THAT(four.start_position(), testing::EndsWith(" w 0,0,0,0"));

  // Each start position is accepted back and is the variant's start.
  for (const auto& v : response.variants()) {
    auto reply = Legal(Preset(v.name()), v.start_position());
    ASSERT_TRUE(reply.status.ok()) << v.name();
    EXPECT_EQ(reply.response.position(), v.start_position());
  }
}

// --- LegalMoves ------------------------------------------------------------

TEST_F(ServerTest, LegalMovesAtTheBrainking8x8Start) {
  auto reply = Legal(Preset("brainking-8x8"), "");
  ASSERT_TRUE(reply.status.ok()) << reply.status.error_message();
  const v1::LegalMovesResponse& r = reply.response;
  EXPECT_EQ(r.count(), 24);
  ASSERT_EQ(r.moves_size(), 24);
  EXPECT_EQ(r.position(), kStart8);
  EXPECT_EQ(r.status().state(), v1::GameStatus::STATE_IN_PROGRESS);
  EXPECT_EQ(r.status().to_move(), v1::SEAT_W);
  EXPECT_FALSE(r.status().must_pass());
  EXPECT_FALSE(r.status().round_completion_turn());
  EXPECT_EQ(r.status().ply(), 0);
  // The first answer is a1-c3 by one hop over b2.
  EXPECT_EQ(r.moves(0).origin(), "a1");
  EXPECT_EQ(r.moves(0).destination(), "c3");
  EXPECT_EQ(r.moves(0).path(), "a1-c3");
  EXPECT_EQ(r.moves(0).hops(), 1);
  // The same with the start position given explicitly.
  auto explicit_start = Legal(Preset("brainking-8x8"), kStart8);
  ASSERT_TRUE(explicit_start.status.ok());
  EXPECT_EQ(explicit_start.response.SerializeAsString(), r.SerializeAsString());
}

TEST_F(ServerTest, LegalMovesMatchThePublicVectors) {
  for (const json& line : ReadVectors("positions.jsonl")) {
    const std::string position = line["position"];
    SCOPED_TRACE(position);
    auto reply = Legal(VariantFromJson(line["variant"]), position);
    ASSERT_TRUE(reply.status.ok()) << reply.status.error_message();
    const v1::LegalMovesResponse& r = reply.response;
    EXPECT_EQ(r.position(), position);
    const json& legal = line["legal"];
    if (legal.size() == 1 && legal[0][0] == "pass") {
      EXPECT_EQ(r.count(), 0);
      EXPECT_TRUE(r.status().must_pass());
      EXPECT_EQ(r.status().state(), v1::GameStatus::STATE_IN_PROGRESS);
      continue;
    }
    using Key = std::tuple<std::pair<int, int>, std::pair<int, int>, int>;
    std::vector<Key> expected, got;
    for (const auto& m : legal) {
      expected.emplace_back(FileRank(m[0]), FileRank(m[1]), m[2].get<int>());
    }
    std::sort(expected.begin(), expected.end());
    for (const v1::Move& m : r.moves()) {
      got.emplace_back(FileRank(m.origin()), FileRank(m.destination()),
                       m.hops());
      // A path from origin to destination with hops + 1 squares.
      EXPECT_THAT(m.path(), StartsWith(m.origin() + "-"));
      EXPECT_THAT(m.path(), testing::EndsWith("-" + m.destination()));
      EXPECT_EQ(std::count(m.path().begin(), m.path().end(), '-'),
                std::max(1, m.hops()));
    }
    // Same set, and already in answer order (origin, then destination).
    EXPECT_EQ(got, expected);
    EXPECT_EQ(r.count(), r.moves_size());
  }
}

TEST_F(ServerTest, LegalMovesOfOnePiece) {
  auto all = Legal(Preset("brainking-8x8"), "");
  ASSERT_TRUE(all.status.ok());
  auto b2 = Legal(Preset("brainking-8x8"), "", "b2");
  ASSERT_TRUE(b2.status.ok()) << b2.status.error_message();
  std::vector<std::string> expected, got;
  for (const auto& m : all.response.moves()) {
    if (m.origin() == "b2") expected.push_back(m.path());
  }
  for (const auto& m : b2.response.moves()) got.push_back(m.path());
  EXPECT_FALSE(expected.empty());
  EXPECT_EQ(got, expected);
  EXPECT_EQ(b2.response.count(), static_cast<int>(expected.size()));
  EXPECT_EQ(b2.response.status().to_move(), v1::SEAT_W);

  // An empty square and an opponent's piece have no moves.
  for (const char* origin : {"e4", "h8"}) {
    auto none = Legal(Preset("brainking-8x8"), "", origin);
    ASSERT_TRUE(none.status.ok()) << origin;
    EXPECT_EQ(none.response.count(), 0) << origin;
    EXPECT_EQ(none.response.moves_size(), 0) << origin;
  }
}

TEST_F(ServerTest, LegalMovesOfAFinishedGameAreNoneAndSayWhy) {
  const std::vector<json> records = ReadVectors("records.jsonl");
  ASSERT_FALSE(records.empty());
  const json record = records[0];  // b wins at ply 68.
  std::vector<std::string> moves = record["moves"];
  auto game = Adjudicate(Preset("brainking-8x8"), moves);
  ASSERT_TRUE(game.status.ok());
  auto reply = Legal(Preset("brainking-8x8"), game.response.final_position());
  ASSERT_TRUE(reply.status.ok()) << reply.status.error_message();
  EXPECT_EQ(reply.response.count(), 0);
  EXPECT_EQ(reply.response.status().state(), v1::GameStatus::STATE_WIN);
  EXPECT_THAT(Letters(reply.response.status().winners()), ElementsAre("b"));
  EXPECT_EQ(reply.response.status().rule(), v1::DECIDING_RULE_TARGET_FILLED);
  EXPECT_EQ(reply.response.status().ply(), 0);  // No record given.
  EXPECT_THAT(Letters(reply.response.status().finished()), ElementsAre("b"));
}

TEST_F(ServerTest, ConcurrentCallsGiveTheSameAnswers) {
  const std::vector<json> positions = ReadVectors("positions.jsonl");
  ASSERT_GT(positions.size(), 1u);
  const json line = positions[1];
  auto reference = Legal(VariantFromJson(line["variant"]), line["position"]);
  ASSERT_TRUE(reference.status.ok());
  const std::string expected = reference.response.SerializeAsString();
  std::vector<std::thread> threads;
  std::atomic<int> mismatches{0};
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 25; ++i) {
        auto reply = Legal(VariantFromJson(line["variant"]), line["position"]);
        if (!reply.status.ok() ||
            reply.response.SerializeAsString() != expected) {
          ++mismatches;
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(mismatches.load(), 0);
}

// --- ValidateMove ----------------------------------------------------------

TEST_F(ServerTest, ValidateMoveStep) {
  auto reply = Validate(Preset("brainking-8x8"), "", "d1-e2");
  ASSERT_TRUE(reply.status.ok()) << reply.status.error_message();
  const v1::ValidateMoveResponse& r = reply.response;
  EXPECT_TRUE(r.legal());
  EXPECT_EQ(r.reason(), v1::ILLEGAL_REASON_UNSPECIFIED);
  EXPECT_EQ(r.message(), "");
  EXPECT_EQ(r.path(), "d1-e2");
  EXPECT_EQ(r.hops(), 0);
  EXPECT_EQ(r.mover(), v1::SEAT_W);
  EXPECT_EQ(r.position_after(), "4bbbb/5bbb/6bb/7b/w7/ww6/www1w3/www5 b 1,0");
  EXPECT_EQ(r.status().state(), v1::GameStatus::STATE_IN_PROGRESS);
  EXPECT_EQ(r.status().to_move(), v1::SEAT_B);
}

TEST_F(ServerTest, ValidateMoveNormalisesShorthandToFewestHops) {
  // From the public vectors: a3 reaches e7 in three hops.
  const std::vector<json> positions = ReadVectors("positions.jsonl");
  ASSERT_GT(positions.size(), 1u);
  const json line = positions[1];
  auto reply =
      Validate(VariantFromJson(line["variant"]), line["position"], "a3-e7");
  ASSERT_TRUE(reply.status.ok()) << reply.status.error_message();
  EXPECT_TRUE(reply.response.legal()) << reply.response.message();
  EXPECT_EQ(reply.response.hops(), 3);
  EXPECT_THAT(reply.response.path(), StartsWith("a3-"));
  EXPECT_THAT(reply.response.path(), testing::EndsWith("-e7"));
  EXPECT_EQ(reply.response.path().size(), std::string("a3-b4-c5-e7").size());
  EXPECT_EQ(reply.response.mover(), v1::SEAT_B);
}

TEST_F(ServerTest, ValidateMoveIllegalMovesAreAnswersWithAReason) {
  const v1::Variant bk8 = Preset("brainking-8x8");
  struct Case {
    std::string move;
    v1::IllegalReason reason;
    std::string message_part;
  };
  const Case cases[] = {
      {"pass", v1::ILLEGAL_REASON_PASS_NOT_ALLOWED, "may not pass"},
      {"e4-e5", v1::ILLEGAL_REASON_EMPTY_ORIGIN, "no piece on e4"},
      {"h8-g8", v1::ILLEGAL_REASON_NOT_YOUR_PIECE, "h8"},
      {"a1-a2", v1::ILLEGAL_REASON_DESTINATION_OCCUPIED, "a2 is occupied"},
      {"d1-f3", v1::ILLEGAL_REASON_NOTHING_TO_JUMP, "e2"},
      {"b1-d3-d4", v1::ILLEGAL_REASON_NOT_A_HOP, "d3-d4"},
      {"a1-a1", v1::ILLEGAL_REASON_SQUARE_VISITED_TWICE, "a1"},
      {"a1-e5", v1::ILLEGAL_REASON_UNREACHABLE, "e5"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.move);
    auto reply = Validate(bk8, "", c.move);
    ASSERT_TRUE(reply.status.ok()) << reply.status.error_message();
    const v1::ValidateMoveResponse& r = reply.response;
    EXPECT_FALSE(r.legal());
    EXPECT_EQ(r.reason(), c.reason);
    EXPECT_THAT(r.message(), HasSubstr(c.message_part));
    EXPECT_EQ(r.path(), "");
    EXPECT_EQ(r.position_after(), "");
    EXPECT_EQ(r.mover(), v1::SEAT_W);
    // The status of the given position.
    EXPECT_EQ(r.status().state(), v1::GameStatus::STATE_IN_PROGRESS);
    EXPECT_EQ(r.status().to_move(), v1::SEAT_W);
  }
}

TEST_F(ServerTest, ValidateMoveAfterTheGameEnded) {
  const std::vector<json> records = ReadVectors("records.jsonl");
  ASSERT_FALSE(records.empty());
  const json record = records[0];
  std::vector<std::string> moves = record["moves"];
  auto game = Adjudicate(Preset("brainking-8x8"), moves);
  ASSERT_TRUE(game.status.ok());
  auto reply =
      Validate(Preset("brainking-8x8"), game.response.final_position(), "pass");
  ASSERT_TRUE(reply.status.ok());
  EXPECT_FALSE(reply.response.legal());
  EXPECT_EQ(reply.response.reason(), v1::ILLEGAL_REASON_GAME_OVER);
  EXPECT_EQ(reply.response.status().state(), v1::GameStatus::STATE_WIN);
}

// --- Adjudicate ------------------------------------------------------------

TEST_F(ServerTest, AdjudicateMatchesThePublicVectors) {
  int index = 0;
  for (const json& line : ReadVectors("records.jsonl")) {
    SCOPED_TRACE(absl::StrCat("records.jsonl line ", ++index));
    v1::AdjudicateRequest request;
    *request.mutable_variant() = VariantFromJson(line["variant"]);
    if (line.contains("from")) request.set_start_position(line["from"]);
    for (const auto& m : line["moves"]) request.add_moves(m);
    auto reply = Adjudicate(request);
    ASSERT_TRUE(reply.status.ok()) << reply.status.error_message();
    const v1::AdjudicateResponse& r = reply.response;
    const json& expect = line["expect"];
    const int moves = static_cast<int>(line["moves"].size());
    if (expect["status"] == "illegal") {
      const int ply = expect["ply"];
      ASSERT_TRUE(r.has_illegal_move());
      EXPECT_EQ(r.illegal_move().ply(), ply);
      EXPECT_EQ(r.illegal_move().move(), line["moves"][ply - 1]);
      EXPECT_EQ(r.illegal_move().reason(), ReasonFromLabel(expect["reason"]));
      EXPECT_FALSE(r.illegal_move().message().empty());
      EXPECT_EQ(r.moves_played(), ply - 1);
      if (expect.contains("result")) {
        ExpectStatusMatches(expect["result"], r.status());
      }
    } else {
      EXPECT_FALSE(r.has_illegal_move());
      EXPECT_EQ(r.moves_played(), moves);
      ExpectStatusMatches(expect, r.status());
    }
    // Move counts per seat in turn order add up to the moves played (plus
    // those of the start position).
    int total = 0;
    for (const auto& c : r.move_counts()) total += c.moves();
    if (!line.contains("from")) {
      EXPECT_EQ(total, r.moves_played());
    }
    // The final position reads back with the same status.
    auto again = Legal(VariantFromJson(line["variant"]), r.final_position());
    ASSERT_TRUE(again.status.ok()) << again.status.error_message();
    EXPECT_EQ(again.response.status().state(), r.status().state());
  }
}

TEST_F(ServerTest, AdjudicateReportsMoveCountsInTurnOrder) {
  auto reply =
      Adjudicate(Preset("classic-16x16-4p"), {"d1-e2", "a13-b12", "m16-l15"});
  ASSERT_TRUE(reply.status.ok()) << reply.status.error_message();
  const v1::AdjudicateResponse& r = reply.response;
  EXPECT_FALSE(r.has_illegal_move());
  EXPECT_EQ(r.moves_played(), 3);
  ASSERT_EQ(r.move_counts_size(), 4);
  EXPECT_EQ(r.move_counts(0).seat(), v1::SEAT_W);
  EXPECT_EQ(r.move_counts(1).seat(), v1::SEAT_R);
  EXPECT_EQ(r.move_counts(2).seat(), v1::SEAT_B);
  EXPECT_EQ(r.move_counts(3).seat(), v1::SEAT_G);
  EXPECT_EQ(r.move_counts(0).moves(), 1);
  EXPECT_EQ(r.move_counts(1).moves(), 1);
  EXPECT_EQ(r.move_counts(2).moves(), 1);
  EXPECT_EQ(r.move_counts(3).moves(), 0);
  EXPECT_EQ(r.status().state(), v1::GameStatus::STATE_IN_PROGRESS);
  EXPECT_EQ(r.status().to_move(), v1::SEAT_G);
  EXPECT_THAT(r.final_position(), testing::EndsWith(" g 1,1,1,0"));
}

TEST_F(ServerTest, AdjudicateEmptyRecordAndGivenStart) {
  auto empty = Adjudicate(Preset("brainking-8x8"), {});
  ASSERT_TRUE(empty.status.ok());
  EXPECT_EQ(empty.response.final_position(), kStart8);
  EXPECT_EQ(empty.response.moves_played(), 0);
  EXPECT_EQ(empty.response.status().state(), v1::GameStatus::STATE_IN_PROGRESS);
  EXPECT_FALSE(empty.response.has_illegal_move());

  const std::string after = "4bbbb/5bbb/6bb/7b/w7/ww6/www1w3/www5 b 1,0";
  auto from = Adjudicate(Preset("brainking-8x8"), {"e8-d7"}, after);
  ASSERT_TRUE(from.status.ok()) << from.status.error_message();
  EXPECT_EQ(from.response.moves_played(), 1);
  EXPECT_EQ(from.response.final_position(),
            "5bbb/3b1bbb/6bb/7b/w7/ww6/www1w3/www5 w 1,1");
}

// --- Malformed input -------------------------------------------------------

TEST_F(ServerTest, MalformedVectorsAreInvalidArgumentNamingTheField) {
  for (const json& line : ReadVectors("malformed.jsonl")) {
    const std::string kind = line["kind"];
    SCOPED_TRACE(absl::StrCat(kind, ": ", line.dump()));
    if (kind == "position") {
      const std::string input = line["input"];
      ExpectInvalid(Legal(VariantFromJson(line["variant"]), input).status,
                    "position", input);
      ExpectInvalid(
          Validate(VariantFromJson(line["variant"]), input, "a1-b2").status,
          "position", input);
      ExpectInvalid(
          Adjudicate(VariantFromJson(line["variant"]), {}, input).status,
          "start_position", input);
    } else if (kind == "square") {
      const std::string input = line["input"];
      ExpectInvalid(Legal(VariantFromJson(line["variant"]), "", input).status,
                    "origin", input);
    } else if (kind == "move") {
      const std::string input = line["input"];
      ExpectInvalid(
          Validate(VariantFromJson(line["variant"]), "", input).status, "move",
          input);
    } else if (kind == "variant") {
      const std::string input = line["input"];
      ExpectInvalid(Legal(Preset(input), "").status, "variant.preset", input);
    } else if (kind == "record") {
      std::vector<std::string> moves = line["input"]["moves"];
      // The first move the engine cannot read is the one reported.
      const Variant variant =
          *PresetVariant(line["variant"].get<std::string>());
      int bad = 0;
      while (ParseMove(moves[bad], variant.size).ok()) ++bad;
      auto reply = Adjudicate(VariantFromJson(line["variant"]), moves);
      ExpectInvalid(reply.status,
                    absl::StrCat("moves[", bad, "] (ply ", bad + 1, ")"),
                    moves[bad]);
    } else {
      ADD_FAILURE() << "unknown kind " << kind;
    }
  }
}

TEST_F(ServerTest, BadCustomVariantsNameTheSpecField) {
  v1::Variant base;
  v1::VariantSpec* spec = base.mutable_custom();
  spec->set_board_size(8);
  spec->set_seat_count(2);
  for (int row : {4, 3, 2, 1}) spec->add_camp_rows(row);
  ASSERT_TRUE(Legal(base, "").status.ok());

  struct Case {
    std::string field;
    std::function<void(v1::VariantSpec*)> edit;
    std::string text;
  };
  const Case cases[] = {
      {"board_size", [](v1::VariantSpec* s) { s->set_board_size(3); }, "3"},
      {"board_size", [](v1::VariantSpec* s) { s->set_board_size(17); }, "17"},
      {"seat_count", [](v1::VariantSpec* s) { s->set_seat_count(3); }, "3"},
      {"camp_rows", [](v1::VariantSpec* s) { s->clear_camp_rows(); }, "[]"},
      {"camp_rows",
       [](v1::VariantSpec* s) {
         s->clear_camp_rows();
         s->add_camp_rows(2);
         s->add_camp_rows(3);
       },
       "[2,3]"},
      {"camp_rows",
       [](v1::VariantSpec* s) {
         s->clear_camp_rows();
         for (int i = 0; i < 5; ++i) s->add_camp_rows(8);
       },
       "overlap"},
      {"home_exit_limit",
       [](v1::VariantSpec* s) { s->set_home_exit_limit(-1); }, "-1"},
      {"move_cap", [](v1::VariantSpec* s) { s->set_move_cap(2000000); },
       "2000000"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.field + " " + c.text);
    v1::Variant variant = base;
    c.edit(variant.mutable_custom());
    auto reply = Legal(variant, "");
    EXPECT_EQ(reply.status.error_code(), StatusCode::INVALID_ARGUMENT);
    EXPECT_THAT(reply.status.error_message(),
                StartsWith("variant.custom." + c.field + ": "));
    EXPECT_THAT(reply.status.error_message(), HasSubstr(c.text));
  }
}

TEST_F(ServerTest, MissingVariantIsInvalidArgument) {
  const std::string expected =
      "variant: expected a preset name or a custom specification";
  v1::LegalMovesRequest legal;
  EXPECT_EQ(Legal(legal).status.error_code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(Legal(legal).status.error_message(), expected);
  v1::ValidateMoveRequest validate;
  validate.set_move("a1-b2");
  EXPECT_EQ(Validate(validate).status.error_message(), expected);
  v1::AdjudicateRequest adjudicate;
  EXPECT_EQ(Adjudicate(adjudicate).status.error_message(), expected);
}

TEST_F(ServerTest, ErrorMessagesCarryTheEngineExplanation) {
  // docs/rules.md section 7: the field, the offending text and what was expected.
  auto reply = Legal(Preset("brainking-8x8"),
                     "4bbbbb/5bbb/6bb/7b/w7/ww6/www5/wwww4 w 0,0");
  EXPECT_THAT(reply.status.error_message(),
              StartsWith("position: position \"4bbbbb/5bbb/6bb/7b/w7/ww6/www5/"
                         "wwww4 w 0,0\": rank 8 \"4bbbbb\" holds "));
  EXPECT_THAT(reply.status.error_message(), HasSubstr("expected 8"));
  auto empty_move = Validate(Preset("brainking-8x8"), "", "");
  EXPECT_EQ(empty_move.status.error_code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(empty_move.status.error_message(), StartsWith("move: move \"\""));
  auto bad_preset = Legal(Preset("halma"), "");
  EXPECT_THAT(bad_preset.status.error_message(),
              HasSubstr("expected one of brainking-8x8"));
}

// --- Limits ----------------------------------------------------------------

TEST_F(ServerTest, RequestsLargerThanTheMessageLimitAreRejectedByGrpc) {
  v1::ValidateMoveRequest request;
  *request.mutable_variant() = Preset("brainking-8x8");
  request.set_position(std::string(kTestMaxMessageBytes + 1000, 'x'));
  request.set_move("a1-b2");
  EXPECT_EQ(Validate(request).status.error_code(),
            StatusCode::RESOURCE_EXHAUSTED);
  // The server is fine afterwards.
  EXPECT_TRUE(Validate(Preset("brainking-8x8"), "", "d1-e2").status.ok());
}

TEST_F(ServerTest, LongStringsGiveBoundedErrors) {
  const std::string position(100000, 'w');
  auto reply = Legal(Preset("brainking-8x8"), position);
  EXPECT_EQ(reply.status.error_code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(reply.status.error_message(), StartsWith("position: "));
  EXPECT_LT(reply.status.error_message().size(), 500u);
  auto move = Validate(Preset("brainking-8x8"), "", std::string(50000, 'a'));
  EXPECT_EQ(move.status.error_code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_LT(move.status.error_message().size(), 500u);
}

TEST_F(ServerTest, RecordsLongerThanTheLimitAreInvalidArgument) {
  // Exactly the limit is accepted (pass is illegal at once: an answer).
  std::vector<std::string> moves(kTestMaxRecordMoves, "pass");
  auto at_limit = Adjudicate(Preset("brainking-8x8"), moves);
  ASSERT_TRUE(at_limit.status.ok()) << at_limit.status.error_message();
  EXPECT_EQ(at_limit.response.illegal_move().ply(), 1);

  moves.push_back("pass");
  auto over = Adjudicate(Preset("brainking-8x8"), moves);
  EXPECT_EQ(over.status.error_code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(over.status.error_message(), StartsWith("moves: "));
  EXPECT_THAT(over.status.error_message(),
              HasSubstr(absl::StrCat(kTestMaxRecordMoves + 1)));
  EXPECT_THAT(over.status.error_message(),
              HasSubstr(absl::StrCat("limit of ", kTestMaxRecordMoves)));
}

// --- Health ----------------------------------------------------------------

TEST_F(ServerTest, HealthCheck) {
  for (const std::string service : {"", "halma.v1.HalmaRules"}) {
    HealthCheckRequest request;
    request.set_service(service);
    HealthCheckResponse response;
    grpc::Status status = health_->Check(Context().get(), request, &response);
    ASSERT_TRUE(status.ok()) << service << ": " << status.error_message();
    EXPECT_EQ(response.status(), HealthCheckResponse::SERVING) << service;
  }
  HealthCheckRequest unknown;
  unknown.set_service("no.such.Service");
  HealthCheckResponse response;
  grpc::Status status = health_->Check(Context().get(), unknown, &response);
  EXPECT_EQ(status.error_code(), StatusCode::NOT_FOUND);
  EXPECT_THAT(status.error_message(), HasSubstr("no.such.Service"));
}

TEST(HealthWatchTest, WatchSeesChangesThenNotServingOnShutdown) {
  std::unique_ptr<HalmaServer> server = MustStart(TestConfig());
  ASSERT_NE(server, nullptr);
  auto health = Health::NewStub(ChannelTo(*server));

  grpc::ClientContext context;
  HealthCheckRequest request;
  request.set_service("halma.v1.HalmaRules");
  auto reader = health->Watch(&context, request);
  HealthCheckResponse response;
  ASSERT_TRUE(reader->Read(&response));
  EXPECT_EQ(response.status(), HealthCheckResponse::SERVING);

  server->health().SetServingStatus("halma.v1.HalmaRules", false);
  ASSERT_TRUE(reader->Read(&response));
  EXPECT_EQ(response.status(), HealthCheckResponse::NOT_SERVING);
  server->health().SetServingStatus("halma.v1.HalmaRules", true);
  ASSERT_TRUE(reader->Read(&response));
  EXPECT_EQ(response.status(), HealthCheckResponse::SERVING);

  // Shutdown: NOT_SERVING, then the stream ends, well before the grace
  // period (the open stream does not hold the shutdown up).
  const absl::Time start = absl::Now();
  std::thread stopper([&] { server->Shutdown(absl::Seconds(20)); });
  ASSERT_TRUE(reader->Read(&response));
  EXPECT_EQ(response.status(), HealthCheckResponse::NOT_SERVING);
  EXPECT_FALSE(reader->Read(&response));
  EXPECT_TRUE(reader->Finish().ok());
  stopper.join();
  EXPECT_LT(absl::Now() - start, absl::Seconds(10));
  EXPECT_EQ(server->health().GetServingStatus(""),
            HealthCheckResponse::NOT_SERVING);
}

TEST(HealthWatchTest, WatchOfAnUnknownServiceStaysOpen) {
  std::unique_ptr<HalmaServer> server = MustStart(TestConfig());
  ASSERT_NE(server, nullptr);
  auto health = Health::NewStub(ChannelTo(*server));
  grpc::ClientContext context;
  HealthCheckRequest request;
  request.set_service("later.Service");
  auto reader = health->Watch(&context, request);
  HealthCheckResponse response;
  ASSERT_TRUE(reader->Read(&response));
  EXPECT_EQ(response.status(), HealthCheckResponse::SERVICE_UNKNOWN);
  server->health().SetServingStatus("later.Service", true);
  ASSERT_TRUE(reader->Read(&response));
  EXPECT_EQ(response.status(), HealthCheckResponse::SERVING);
  context.TryCancel();
  EXPECT_FALSE(reader->Read(&response));
  EXPECT_EQ(reader->Finish().error_code(), StatusCode::CANCELLED);
}

// --- Shutdown --------------------------------------------------------------

TEST(ShutdownTest, NewCallsFailAfterShutdown) {
  std::unique_ptr<HalmaServer> server = MustStart(TestConfig());
  ASSERT_NE(server, nullptr);
  auto channel = ChannelTo(*server);
  auto stub = v1::HalmaRules::NewStub(channel);
  v1::ListVariantsResponse response;
  ASSERT_TRUE(
      stub->ListVariants(Context().get(), v1::ListVariantsRequest(), &response)
          .ok());
  server->Shutdown(absl::Seconds(5));
  server->Wait();
  server->Shutdown();  // Idempotent.
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::seconds(5));
  EXPECT_FALSE(
      stub->ListVariants(&context, v1::ListVariantsRequest(), &response).ok());
}

// --- TLS -------------------------------------------------------------------

std::string ReadTestFile(const std::string& name) {
  std::ifstream in(std::string(HALMA_SERVICE_TESTDATA) + "/" + name);
  EXPECT_TRUE(in) << name;
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(TlsTest, ServesTlsWithACertificateAndKey) {
  ServerConfig config = TestConfig();
  config.tls_cert = std::string(HALMA_SERVICE_TESTDATA) + "/server.crt";
  config.tls_key = std::string(HALMA_SERVICE_TESTDATA) + "/server.key";
  std::unique_ptr<HalmaServer> server = MustStart(config);
  ASSERT_NE(server, nullptr);
  EXPECT_THAT(server->ListeningLine(), HasSubstr("tls on"));

  grpc::SslCredentialsOptions options;
  options.pem_root_certs = ReadTestFile("server.crt");
  auto tls = v1::HalmaRules::NewStub(
      grpc::CreateChannel(absl::StrCat("localhost:", server->port()),
                          grpc::SslCredentials(options)));
  v1::ListVariantsResponse response;
  grpc::Status status =
      tls->ListVariants(Context().get(), v1::ListVariantsRequest(), &response);
  EXPECT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(response.variants_size(), 5);

  // A plaintext client cannot talk to it.
  auto plain = v1::HalmaRules::NewStub(ChannelTo(*server));
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::seconds(3));
  EXPECT_FALSE(
      plain->ListVariants(&context, v1::ListVariantsRequest(), &response).ok());
}

TEST(TlsTest, CertificateAndKeyComeTogether) {
  ServerConfig config = TestConfig();
  config.tls_cert = std::string(HALMA_SERVICE_TESTDATA) + "/server.crt";
  auto server = StartServer(config);
  EXPECT_EQ(server.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(server.status().message()),
              HasSubstr("tls_cert and tls_key"));

  config.tls_key = "/nonexistent/server.key";
  server = StartServer(config);
  EXPECT_EQ(server.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(server.status().message()),
              HasSubstr("/nonexistent/server.key"));
}

// --- Configuration ---------------------------------------------------------

TEST(ConfigTest, ListeningLineAndPortChoice) {
  std::unique_ptr<HalmaServer> server = MustStart(TestConfig());
  ASSERT_NE(server, nullptr);
  EXPECT_GT(server->port(), 0);
  EXPECT_THAT(server->ListeningLine(),
              StartsWith(absl::StrCat(
                  "halma_server listening on 127.0.0.1:", server->port(),
                  " (version ", Version())));
  EXPECT_THAT(
      server->ListeningLine(),
      HasSubstr(absl::StrCat("max_record_moves ", kTestMaxRecordMoves)));
  // Which flood-fill kernel the engine picked for this CPU (flood_fill.h).
  EXPECT_THAT(
      server->ListeningLine(),
      HasSubstr(absl::StrCat(
          "flood_fill ", FloodFillKernelName(ActiveFloodFillKernel()), ")")));
  EXPECT_EQ(server->ListeningLine().find('\n'), std::string::npos);

  // The port is taken: a second server fails instead of sharing it.
  ServerConfig same = TestConfig();
  same.port = server->port();
  auto second = StartServer(same);
  EXPECT_EQ(second.status().code(), absl::StatusCode::kUnavailable);
}

TEST(ConfigTest, ValidateConfigNamesTheSetting) {
  ServerConfig config;
  EXPECT_TRUE(ValidateConfig(config).ok());
  config.port = 70000;
  EXPECT_THAT(std::string(ValidateConfig(config).message()),
              StartsWith("port 70000"));
  config = ServerConfig();
  config.max_record_moves = 0;
  EXPECT_THAT(std::string(ValidateConfig(config).message()),
              StartsWith("max_record_moves"));
  config = ServerConfig();
  config.grace_period_seconds = -1;
  EXPECT_THAT(std::string(ValidateConfig(config).message()),
              StartsWith("grace_period_seconds"));
  config = ServerConfig();
  config.max_memory_bytes = -1;
  EXPECT_THAT(std::string(ValidateConfig(config).message()),
              StartsWith("max_memory_bytes -1"));
  EXPECT_EQ(JoinHostPort("::", 5), "[::]:5");
  EXPECT_EQ(JoinHostPort("127.0.0.1", 5), "127.0.0.1:5");
}

TEST(ConfigTest, EnvironmentOverridesDefaultsAndFlagsOverrideEnvironment) {
  absl::FlagSaver saver;
  auto env = [](const char* name) -> const char* {
    const std::string n = name;
    if (n == "HALMA_PORT") return "6000";
    if (n == "HALMA_MAX_RECORD_MOVES") return "77";
    if (n == "HALMA_REFLECTION") return "false";
    if (n == "HALMA_HOST") return "127.0.0.1";
    if (n == "HALMA_MAX_MEMORY_BYTES") return "5000000000";
    return nullptr;
  };
  ASSERT_TRUE(ApplyEnvironmentToFlags(env).ok());
  ServerConfig config = ConfigFromFlags();
  EXPECT_EQ(config.port, 6000);
  EXPECT_EQ(config.max_record_moves, 77);
  EXPECT_FALSE(config.reflection);
  EXPECT_EQ(config.host, "127.0.0.1");
  EXPECT_EQ(config.max_memory_bytes, 5000000000);  // Beyond 32 bits.
  EXPECT_EQ(config.grace_period_seconds, 10);      // Default: no variable.

  // An explicit flag wins over the variable.
  char arg0[] = "halma_server";
  char arg1[] = "--port=7000";
  char* argv[] = {arg0, arg1};
  absl::ParseCommandLine(2, argv);
  config = ConfigFromFlags();
  EXPECT_EQ(config.port, 7000);
  EXPECT_EQ(config.max_record_moves, 77);
}

TEST(ConfigTest, EveryLimitHasAFlagAnEnvironmentVariableAndARange) {
  absl::FlagSaver saver;
  // Each limit's variable, a value other than the default, and where the
  // value lands in the config.
  struct Limit {
    const char* env;
    const char* value;
    std::function<std::int64_t(const ServerConfig&)> get;
    std::int64_t want;
  };
  const std::vector<Limit> limits = {
      {"HALMA_MAX_CONCURRENT_STREAMS", "7",
       [](const ServerConfig& c) { return c.max_concurrent_streams; }, 7},
      {"HALMA_MAX_CONNECTIONS", "9",
       [](const ServerConfig& c) { return c.max_connections; }, 9},
      {"HALMA_IDLE_TIMEOUT_SECONDS", "11",
       [](const ServerConfig& c) { return c.idle_timeout_seconds; }, 11},
      {"HALMA_HANDSHAKE_TIMEOUT_SECONDS", "3",
       [](const ServerConfig& c) { return c.handshake_timeout_seconds; }, 3},
      {"HALMA_STREAM_READ_TIMEOUT_SECONDS", "4",
       [](const ServerConfig& c) { return c.stream_read_timeout_seconds; }, 4},
      {"HALMA_MAX_METADATA_BYTES", "4096",
       [](const ServerConfig& c) { return c.max_metadata_bytes; }, 4096},
      {"HALMA_MAX_CALL_SECONDS", "2",
       [](const ServerConfig& c) { return c.max_call_seconds; }, 2},
      {"HALMA_MAX_CONCURRENT_ADJUDICATIONS", "5",
       [](const ServerConfig& c) { return c.max_concurrent_adjudications; }, 5},
      {"HALMA_SHUTDOWN_DELAY_SECONDS", "6",
       [](const ServerConfig& c) { return c.shutdown_delay_seconds; }, 6},
      {"HALMA_BACKEND_PORT", "41000",
       [](const ServerConfig& c) { return c.backend_port; }, 41000},
  };
  const ServerConfig defaults;
  for (const Limit& limit : limits) {
    SCOPED_TRACE(limit.env);
    EXPECT_NE(limit.get(defaults), limit.want);
    ASSERT_TRUE(ApplyEnvironmentToFlags([&](const char* name) {
                  return std::string(name) == limit.env ? limit.value : nullptr;
                }).ok());
    EXPECT_EQ(limit.get(ConfigFromFlags()), limit.want);
  }
  ASSERT_TRUE(ApplyEnvironmentToFlags([](const char* name) -> const char* {
                return std::string(name) == "HALMA_FRONT_PROXY"
                           ? "/usr/sbin/nghttpx"
                           : nullptr;
              }).ok());
  EXPECT_EQ(ConfigFromFlags().front_proxy, "/usr/sbin/nghttpx");

  // Out-of-range values name the setting.
  for (auto [set, name] :
       std::vector<std::pair<std::function<void(ServerConfig&)>, std::string>>{
           {[](ServerConfig& c) { c.max_concurrent_streams = 0; },
            "max_concurrent_streams 0"},
           {[](ServerConfig& c) { c.max_connections = 0; },
            "max_connections 0"},
           {[](ServerConfig& c) { c.idle_timeout_seconds = 0; },
            "idle_timeout_seconds 0"},
           {[](ServerConfig& c) { c.handshake_timeout_seconds = 0; },
            "handshake_timeout_seconds 0"},
           {[](ServerConfig& c) { c.stream_read_timeout_seconds = 0; },
            "stream_read_timeout_seconds 0"},
           {[](ServerConfig& c) { c.max_metadata_bytes = 10; },
            "max_metadata_bytes 10"},
           {[](ServerConfig& c) { c.max_call_seconds = 0; },
            "max_call_seconds 0"},
           {[](ServerConfig& c) { c.max_concurrent_adjudications = -1; },
            "max_concurrent_adjudications -1"},
           {[](ServerConfig& c) { c.shutdown_delay_seconds = -1; },
            "shutdown_delay_seconds -1"},
           {[](ServerConfig& c) { c.backend_port = 70000; },
            "backend_port 70000"},
       }) {
    ServerConfig config;
    set(config);
    EXPECT_THAT(std::string(ValidateConfig(config).message()),
                StartsWith(name));
  }
}

TEST(ConfigTest, ListeningLineReportsEveryLimit) {
  std::unique_ptr<HalmaServer> server = MustStart(TestConfig());
  ASSERT_NE(server, nullptr);
  for (const char* name :
       {"max_message_bytes ", "max_record_moves ",
        "max_concurrent_adjudications ", "max_call ", "max_concurrent_streams ",
        "max_connections ", "max_metadata_bytes ", "idle_timeout ",
        "handshake_timeout ", "stream_read_timeout ", "max_memory_bytes ",
        "shutdown_delay ", "grace_period ", "front_proxy off"}) {
    EXPECT_THAT(server->ListeningLine(), HasSubstr(name));
  }
}

TEST(ConfigTest, BadEnvironmentValuesNameTheVariable) {
  absl::FlagSaver saver;
  auto env = [](const char* name) -> const char* {
    return std::string(name) == "HALMA_PORT" ? "fifty" : nullptr;
  };
  absl::Status status = ApplyEnvironmentToFlags(env);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()),
              StartsWith("HALMA_PORT=\"fifty\""));
}

}  // namespace
}  // namespace halma::service
