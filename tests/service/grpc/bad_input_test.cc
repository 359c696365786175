// Regression tests for the input defects of issue #8, over a real loopback
// connection: move counts past 32 bits, answers that must parse again,
// bounded error messages for oversized lists, and bytes that do not parse
// as the request (truncated protobufs, strings that are not UTF-8), which
// every RPC must answer INVALID_ARGUMENT naming the field.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/grpcpp.h"
#include "grpcpp/support/proto_buffer_reader.h"
#include "gtest/gtest.h"
#include "halma/position.h"
#include "halma/v1/halma.grpc.pb.h"
#include "service/log/logger.h"
#include "tests/service/fixture/loopback_server.h"

namespace halma::service {
namespace {

using ::grpc::StatusCode;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

// Every error message stays well inside gRPC's default 8 KiB metadata
// limit, whatever the request held.
constexpr size_t kMaxMessage = 1024;

const std::string kMax = absl::StrCat(kMaxMoveCount);  // 2^63 - 1
const std::string kMaxLess1 = absl::StrCat(kMaxMoveCount - 1);

class BadInputTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ServerConfig config = LoopbackConfig();
    // Large enough for the 3-million-entry list below: the point is what
    // the server answers once such a request is in.
    config.max_message_bytes = 32 << 20;
    server_ = LoopbackServer::Start(config).release();
    ASSERT_NE(server_, nullptr);
    // A default channel (4 MiB answers, 8 KiB of metadata): what a client
    // with default settings has.
    channel_ = new std::shared_ptr<grpc::Channel>(grpc::CreateChannel(
        server_->address(), grpc::InsecureChannelCredentials()));
    stub_ = v1::HalmaRules::NewStub(*channel_).release();
  }
  static void TearDownTestSuite() {
    delete stub_;
    delete channel_;
    delete server_;
  }

  static std::unique_ptr<grpc::ClientContext> Context() {
    return ContextWithDeadline();
  }
  static grpc::Status Validate(const v1::ValidateMoveRequest& request,
                               v1::ValidateMoveResponse* response) {
    return stub_->ValidateMove(Context().get(), request, response);
  }
  static grpc::Status Legal(const v1::LegalMovesRequest& request,
                            v1::LegalMovesResponse* response) {
    return stub_->LegalMoves(Context().get(), request, response);
  }
  static grpc::Status Adjudicate(const v1::AdjudicateRequest& request,
                                 v1::AdjudicateResponse* response) {
    return stub_->Adjudicate(Context().get(), request, response);
  }
  static LoopbackServer* server_;
  static std::shared_ptr<grpc::Channel>* channel_;
  static v1::HalmaRules::Stub* stub_;
};
LoopbackServer* BadInputTest::server_ = nullptr;
std::shared_ptr<grpc::Channel>* BadInputTest::channel_ = nullptr;
v1::HalmaRules::Stub* BadInputTest::stub_ = nullptr;

v1::Variant Preset(const std::string& name) {
  v1::Variant variant;
  variant.set_preset(name);
  return variant;
}

// brainking-8x8's board without its home-exit rule, which counts this large
// would otherwise decide at once (every piece is still at home).
v1::Variant Board8() {
  v1::Variant variant;
  v1::VariantSpec* spec = variant.mutable_custom();
  spec->set_board_size(8);
  spec->set_seat_count(2);
  for (int rows : {4, 3, 2, 1}) spec->add_camp_rows(rows);
  return variant;
}

// A four-seat custom variant on 16x16 with a move cap of 10.
v1::Variant FourSeatsCapped() {
  v1::Variant variant;
  v1::VariantSpec* spec = variant.mutable_custom();
  spec->set_board_size(16);
  spec->set_seat_count(4);
  for (int rows : {4, 4, 3, 2}) spec->add_camp_rows(rows);
  spec->set_move_cap(10);
  return variant;
}

// --- Move counts beyond 32 bits --------------------------------------------

class MoveCountTest : public BadInputTest {
 protected:
  // The variant's start position (from LegalMoves, the server's own text)
  // with side `to_move` and move counts `counts`.
  static std::string Start(const v1::Variant& variant,
                           absl::string_view to_move,
                           absl::string_view counts) {
    v1::LegalMovesRequest request;
    *request.mutable_variant() = variant;
    v1::LegalMovesResponse response;
    EXPECT_TRUE(Legal(request, &response).ok());
    const std::string& text = response.position();
    const std::string board = text.substr(0, text.find(' '));
    return absl::StrCat(board, " ", to_move, " ", counts);
  }
};

TEST_F(MoveCountTest, FourSeatsWithCountsPastHalfAGigaAreDrawnByTheCap) {
  // 4 x 536870912 overflowed a 32-bit sum of counts.
  v1::LegalMovesRequest request;
  *request.mutable_variant() = FourSeatsCapped();
  request.set_position(
      Start(FourSeatsCapped(), "w", "536870912,536870912,536870912,536870912"));
  v1::LegalMovesResponse response;
  ASSERT_TRUE(Legal(request, &response).ok());
  EXPECT_EQ(response.status().state(), v1::GameStatus::STATE_DRAW);
  EXPECT_EQ(response.status().rule(), v1::DECIDING_RULE_MOVE_CAP);
  EXPECT_EQ(response.status().winners_size(), 4);
  EXPECT_EQ(response.count(), 0);
}

TEST_F(MoveCountTest, CountsUpToTwoToTheSixtyThreeMinusOneAreAccepted) {
  for (const std::string& counts : {std::string("999999999,999999999"),
                                    std::string("1000000000,1000000000"),
                                    absl::StrCat(kMaxLess1, ",", kMaxLess1),
                                    absl::StrCat(kMax, ",", kMax)}) {
    v1::LegalMovesRequest request;
    *request.mutable_variant() = Board8();
    request.set_position(Start(Board8(), "w", counts));
    v1::LegalMovesResponse response;
    const grpc::Status status = Legal(request, &response);
    ASSERT_TRUE(status.ok()) << counts << ": " << status.error_message();
    // Written back exactly as read.
    EXPECT_EQ(response.position(), request.position());
    EXPECT_GT(response.count(), 0);
  }
  v1::LegalMovesRequest over;
  *over.mutable_variant() = Board8();
  over.set_position(
      Start(Board8(), "w", "9223372036854775808,9223372036854775808"));
  v1::LegalMovesResponse response;
  const grpc::Status status = Legal(over, &response);
  EXPECT_EQ(status.error_code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(),
              AllOf(StartsWith("position: "),
                    HasSubstr("expected a decimal number from 0 to " + kMax)));
}

TEST_F(MoveCountTest, EveryPositionAfterAMoveParsesAgain) {
  // 999999999 -> 1000000000 was written but refused as input; now every
  // answer's position is accepted back, up to the last countable move.
  for (const auto& [to_move, counts] :
       std::vector<std::pair<std::string, std::string>>{
           {"w", "999999999,999999999"},
           {"b", "1000000000,999999999"},
           {"w", absl::StrCat(kMaxLess1, ",", kMaxLess1)},
           {"b", absl::StrCat(kMax, ",", kMaxLess1)}}) {
    v1::ValidateMoveRequest request;
    *request.mutable_variant() = Board8();
    request.set_position(Start(Board8(), to_move, counts));
    request.set_move(to_move == "w" ? "d1-e2" : "e8-d7");
    v1::ValidateMoveResponse moved;
    ASSERT_TRUE(Validate(request, &moved).ok()) << counts;
    ASSERT_TRUE(moved.legal()) << counts << ": " << moved.message();
    v1::LegalMovesRequest again;
    *again.mutable_variant() = Board8();
    again.set_position(moved.position_after());
    v1::LegalMovesResponse response;
    const grpc::Status status = Legal(again, &response);
    EXPECT_TRUE(status.ok())
        << moved.position_after() << ": " << status.error_message();
    EXPECT_EQ(response.position(), moved.position_after());
  }
}

TEST_F(MoveCountTest, AMoveThatCannotBeCountedIsInvalidArgument) {
  // 'w' to move with 2^63 - 1 moves made: its next move has no count.
  v1::ValidateMoveRequest request;
  *request.mutable_variant() = Board8();
  request.set_position(Start(Board8(), "w", absl::StrCat(kMax, ",", kMax)));
  request.set_move("d1-e2");
  v1::ValidateMoveResponse response;
  const grpc::Status status = Validate(request, &response);
  EXPECT_EQ(status.error_code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(),
              AllOf(StartsWith("position: "), HasSubstr("'w' is " + kMax),
                    HasSubstr("cannot be counted")));
  // Listing its moves needs no count: still answered.
  v1::LegalMovesRequest legal;
  *legal.mutable_variant() = Board8();
  legal.set_position(request.position());
  v1::LegalMovesResponse moves;
  EXPECT_TRUE(Legal(legal, &moves).ok());
  EXPECT_GT(moves.count(), 0);
}

TEST_F(MoveCountTest, ARecordThatRunsPastTheLastCountIsInvalidArgument) {
  v1::AdjudicateRequest request;
  *request.mutable_variant() = Board8();
  request.set_start_position(
      Start(Board8(), "w", absl::StrCat(kMaxLess1, ",", kMaxLess1)));
  for (const char* move : {"d1-e2", "e8-d7", "e2-d3"}) request.add_moves(move);
  v1::AdjudicateResponse response;
  grpc::Status status = Adjudicate(request, &response);
  EXPECT_EQ(status.error_code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), AllOf(StartsWith("moves[2] (ply 3): "),
                                            HasSubstr("cannot be counted")));
  // Two plies fit, and the counts come back as 64-bit numbers.
  request.mutable_moves()->RemoveLast();
  status = Adjudicate(request, &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(response.moves_played(), 2);
  ASSERT_EQ(response.move_counts_size(), 2);
  EXPECT_EQ(response.move_counts(0).moves(), kMaxMoveCount);
  EXPECT_EQ(response.move_counts(1).moves(), kMaxMoveCount);
  EXPECT_THAT(response.final_position(), HasSubstr(" w " + kMax + "," + kMax));
}

// --- Bounded error messages ------------------------------------------------

v1::ValidateMoveRequest WithCampRows(const std::vector<int>& rows) {
  v1::ValidateMoveRequest request;
  v1::VariantSpec* spec = request.mutable_variant()->mutable_custom();
  spec->set_board_size(16);
  spec->set_seat_count(2);
  for (int r : rows) spec->add_camp_rows(r);
  request.set_move("a1-b2");
  return request;
}

TEST_F(BadInputTest, LongCampRowListsGiveShortErrorsThatSayTheyWereCut) {
  for (int entries : {17, 1000, 3'000'000}) {
    v1::ValidateMoveRequest request =
        WithCampRows(std::vector<int>(entries, 2'000'000'000));
    v1::ValidateMoveResponse response;
    const grpc::Status status = Validate(request, &response);
    EXPECT_EQ(status.error_code(), StatusCode::INVALID_ARGUMENT) << entries;
    EXPECT_THAT(status.error_message(),
                AllOf(StartsWith("variant.custom.camp_rows: "),
                      HasSubstr(absl::StrCat(entries, " rows")),
                      HasSubstr("expected at most 16")));
    EXPECT_LE(status.error_message().size(), kMaxMessage);
  }
}

TEST_F(BadInputTest, ListsThatFitTheBoardAreQuotedWithTheBadEntry) {
  // As many rows as the board has ranks, lengths out of range: the engine
  // quotes the list (cut after 20 entries, which its own tests check).
  v1::ValidateMoveRequest request =
      WithCampRows(std::vector<int>(16, 2'000'000'000));
  v1::ValidateMoveResponse response;
  const grpc::Status status = Validate(request, &response);
  EXPECT_EQ(status.error_code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(
      status.error_message(),
      AllOf(StartsWith("variant.custom.camp_rows: variant camp_rows "
                       "[2000000000,"),
            HasSubstr("row 1 has length 2000000000, expected 1 to 16")));
  EXPECT_LE(status.error_message().size(), kMaxMessage);
}

TEST_F(BadInputTest, LongTextsAreQuotedCutAndSaySo) {
  v1::ValidateMoveRequest request;
  *request.mutable_variant() = Preset("brainking-8x8");
  request.set_move(std::string(50000, 'a'));
  v1::ValidateMoveResponse response;
  grpc::Status status = Validate(request, &response);
  EXPECT_EQ(status.error_code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(
      status.error_message(),
      AllOf(StartsWith("move: "), HasSubstr("(cut: 50000 bytes in all)")));
  EXPECT_LE(status.error_message().size(), kMaxMessage);

  request.mutable_variant()->set_preset(std::string(20000, 'z'));
  status = Validate(request, &response);
  EXPECT_EQ(status.error_code(), StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(),
              AllOf(StartsWith("variant.preset: "),
                    HasSubstr("(cut: 20000 bytes in all)")));
  EXPECT_LE(status.error_message().size(), kMaxMessage);
}

// --- Bytes that are not the request ----------------------------------------

// A length-delimited field: tag, length (one byte: short values only), bytes.
std::string Field(int number, const std::string& bytes) {
  std::string out;
  out += static_cast<char>(number << 3 | 2);
  out += static_cast<char>(bytes.size());
  out += bytes;
  return out;
}

struct BadBytes {
  std::string method;
  std::string bytes;
  std::string field;  // The start the error message must have.
};

std::vector<BadBytes> BadRequests() {
  const std::string preset = Field(1, Field(1, "brainking-8x8"));
  const std::string bad_utf8 = "a1\xff";
  return {
      {"ValidateMove", preset + Field(3, bad_utf8), "move: not valid UTF-8"},
      {"ValidateMove", preset + Field(2, bad_utf8),
       "position: not valid UTF-8"},
      {"ValidateMove", Field(1, Field(1, "brain\xc3")) + Field(3, "a1-b2"),
       "variant.preset: not valid UTF-8"},
      {"ValidateMove",
       preset + "\x1a\x64"
                "b1",
       "request: truncated"},
      {"ValidateMove",
       Field(1,
             "\x0a\x50"
             "abc"),
       "variant: truncated"},
      {"LegalMoves", preset + Field(3, bad_utf8), "origin: not valid UTF-8"},
      {"LegalMoves", preset + Field(2, "\xe2\x82"),
       "position: not valid UTF-8"},
      {"LegalMoves", std::string("\xff\xff\xff"), "request: truncated"},
      {"Adjudicate", preset + Field(3, "b1-d3") + Field(3, bad_utf8),
       "moves[1]: not valid UTF-8"},
      {"Adjudicate", preset + Field(2, bad_utf8),
       "start_position: not valid UTF-8"},
      {"Adjudicate",
       preset + "\x1a\x64"
                "b1",
       "request: truncated"},
      {"Adjudicate",
       Field(1, Field(2, std::string("\x1a\x05\x01\x02\x80\x80\x80", 7))),
       "variant.custom.camp_rows: malformed packed list"},
      {"ListVariants",
       std::string("\x0a\x10"
                   "short"),
       "request: truncated"},
      {"/grpc.health.v1.Health/Check", Field(1, bad_utf8),
       "service: not valid UTF-8"},
      {"/grpc.health.v1.Health/Check",
       std::string("\x0a\x10"
                   "short"),
       "request: truncated"},
  };
}

TEST_F(BadInputTest,
       BytesThatAreNotTheRequestAreInvalidArgumentNamingTheField) {
  grpc::GenericStub& stub = server_->generic();
  for (const BadBytes& bad : BadRequests()) {
    const std::string method = bad.method[0] == '/'
                                   ? bad.method
                                   : "/halma.v1.HalmaRules/" + bad.method;
    const grpc::Status status = CallWithBytes(stub, method, bad.bytes);
    EXPECT_EQ(status.error_code(), StatusCode::INVALID_ARGUMENT)
        << bad.method << " " << bad.field << ": " << status.error_message();
    EXPECT_THAT(status.error_message(), StartsWith(bad.field)) << bad.method;
    EXPECT_LE(status.error_message().size(), kMaxMessage);
  }
}

TEST_F(BadInputTest, WellFormedBytesStillGetTheirAnswer) {
  // The same framing as above, valid: answered, so the checks above are not
  // refusing everything.
  grpc::GenericStub& stub = server_->generic();
  const std::string preset = Field(1, Field(1, "brainking-8x8"));
  for (const auto& [method, bytes] :
       std::vector<std::pair<std::string, std::string>>{
           {"ValidateMove", preset + Field(3, "b1-d3")},
           {"LegalMoves", preset + Field(3, "a1")},
           {"Adjudicate", preset + Field(3, "b1-d3") + Field(3, "h7-f5")},
           {"ListVariants", ""}}) {
    grpc::ByteBuffer answer;
    const grpc::Status status = CallWithBytes(
        stub, absl::StrCat("/halma.v1.HalmaRules/", method), bytes, &answer);
    EXPECT_TRUE(status.ok()) << method << ": " << status.error_message();
    EXPECT_GT(answer.Length(), 0u) << method;
  }
}

// Protobuf logs an error for every string that is not UTF-8: routed
// through the logger's limiter (service/log/logger.h), 200 such requests
// leave a handful of lines.
TEST(ProtobufLogTest, RequestsWithInvalidUtf8DoNotFloodTheLog) {
  auto* sink = new MemorySink();
  Logger logger{std::unique_ptr<LogSink>(sink)};
  RouteProtobufLogsTo(&logger);
  std::unique_ptr<LoopbackServer> server = LoopbackServer::Start();
  ASSERT_NE(server, nullptr);
  // ValidateMoveRequest{variant: {preset: "brainking-8x8"}, move: "a1\xff"}.
  const std::string bytes =
      Field(1, Field(1, "brainking-8x8")) + Field(3, "a1\xff");
  int refused = 0;
  for (int i = 0; i < 200; ++i) {
    if (server->CallWithBytes("/halma.v1.HalmaRules/ValidateMove", bytes)
            .error_code() == StatusCode::INVALID_ARGUMENT) {
      ++refused;
    }
  }
  server.reset();
  RouteProtobufLogsTo(nullptr);
  EXPECT_EQ(refused, 200);              // Every one is refused...
  EXPECT_LE(sink->lines().size(), 6u);  // ...and the log has a handful.
}

}  // namespace
}  // namespace halma::service
