// HalmaRules' answers over a real gRPC channel: the public vectors, every
// kind of malformed input, the record limit and gRPC's message limit. The
// server is started with the binary's code (the fixture) on loopback.
#include <algorithm>
#include <atomic>
#include <functional>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "halma/notation.h"
#include "halma/variant.h"
#include "tests/service/fixture/loopback_server.h"
#include "tests/service/fixture/vectors.h"

namespace halma::service {
namespace {

using ::grpc::StatusCode;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr char kStart8[] = "4bbbb/5bbb/6bb/7b/w7/ww6/www5/wwww4 w 0,0";
constexpr int kTestMaxMessageBytes = 1 << 20;
constexpr int kTestMaxRecordMoves = 200;

// --- The shared server -----------------------------------------------------

class RulesAnswersTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ServerConfig config = LoopbackConfig();
    config.max_message_bytes = kTestMaxMessageBytes;
    config.max_record_moves = kTestMaxRecordMoves;
    server_ = LoopbackServer::Start(config).release();
    ASSERT_NE(server_, nullptr);
  }
  static void TearDownTestSuite() { delete server_; }

  static Reply<v1::ValidateMoveResponse> Validate(
      const v1::ValidateMoveRequest& request) {
    return server_->Call(&Stub::ValidateMove, request);
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
    return server_->Call(&Stub::LegalMoves, request);
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
    return server_->Call(&Stub::Adjudicate, request);
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

  static LoopbackServer* server_;
};

LoopbackServer* RulesAnswersTest::server_ = nullptr;

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

TEST_F(RulesAnswersTest, ListVariantsGivesTheFivePresets) {
  const Reply<v1::ListVariantsResponse> reply =
      server_->Call(&Stub::ListVariants, v1::ListVariantsRequest());
  ASSERT_TRUE(reply.status.ok()) << reply.status.error_message();
  const v1::ListVariantsResponse& response = reply.response;
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

TEST_F(RulesAnswersTest, LegalMovesAtTheBrainking8x8Start) {
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

TEST_F(RulesAnswersTest, LegalMovesMatchThePublicVectors) {
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

TEST_F(RulesAnswersTest, LegalMovesOfOnePiece) {
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

TEST_F(RulesAnswersTest, LegalMovesOfAFinishedGameAreNoneAndSayWhy) {
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

TEST_F(RulesAnswersTest, ConcurrentCallsGiveTheSameAnswers) {
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

TEST_F(RulesAnswersTest, ValidateMoveStep) {
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

TEST_F(RulesAnswersTest, ValidateMoveNormalisesShorthandToFewestHops) {
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

TEST_F(RulesAnswersTest, ValidateMoveIllegalMovesAreAnswersWithAReason) {
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

TEST_F(RulesAnswersTest, ValidateMoveAfterTheGameEnded) {
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

TEST_F(RulesAnswersTest, AdjudicateMatchesThePublicVectors) {
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

TEST_F(RulesAnswersTest, AdjudicateReportsMoveCountsInTurnOrder) {
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

TEST_F(RulesAnswersTest, AdjudicateEmptyRecordAndGivenStart) {
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

TEST_F(RulesAnswersTest, MalformedVectorsAreInvalidArgumentNamingTheField) {
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

TEST_F(RulesAnswersTest, BadCustomVariantsNameTheSpecField) {
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

TEST_F(RulesAnswersTest, MissingVariantIsInvalidArgument) {
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

TEST_F(RulesAnswersTest, ErrorMessagesCarryTheEngineExplanation) {
  // docs/rules.md section 7: the field, the offending text and what was
  // expected.
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

TEST_F(RulesAnswersTest, RequestsLargerThanTheMessageLimitAreRejectedByGrpc) {
  v1::ValidateMoveRequest request;
  *request.mutable_variant() = Preset("brainking-8x8");
  request.set_position(std::string(kTestMaxMessageBytes + 1000, 'x'));
  request.set_move("a1-b2");
  EXPECT_EQ(Validate(request).status.error_code(),
            StatusCode::RESOURCE_EXHAUSTED);
  // The server is fine afterwards.
  EXPECT_TRUE(Validate(Preset("brainking-8x8"), "", "d1-e2").status.ok());
}

TEST_F(RulesAnswersTest, LongStringsGiveBoundedErrors) {
  const std::string position(100000, 'w');
  auto reply = Legal(Preset("brainking-8x8"), position);
  EXPECT_EQ(reply.status.error_code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(reply.status.error_message(), StartsWith("position: "));
  EXPECT_LT(reply.status.error_message().size(), 500u);
  auto move = Validate(Preset("brainking-8x8"), "", std::string(50000, 'a'));
  EXPECT_EQ(move.status.error_code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_LT(move.status.error_message().size(), 500u);
}

TEST_F(RulesAnswersTest, RecordsLongerThanTheLimitAreInvalidArgument) {
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

}  // namespace
}  // namespace halma::service
