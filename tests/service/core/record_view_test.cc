// Adjudicate's in-place request reader (ReadAdjudicateRequest) against
// protobuf's parser: what it accepts it reads exactly as protobuf does, and
// what it does not accept (a second variant, unknown fields, a start
// position that is not ASCII, truncation) is left to the parser; a move
// that is not ASCII, or a field after the first move that is not a
// well-formed move, is found as the moves are read (CountMoves,
// AdjudicateView, which then answers nothing).
// (Over a real connection, the same record answers the same whichever path
// reads it: tests/service/grpc/request_reading_test.cc.)
#include "service/core/record_view.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "gtest/gtest.h"
#include "halma/v1/halma.pb.h"
#include "service/core/rules_core.h"

namespace halma::service {
namespace {

// A length-delimited field: tag, length, bytes.
std::string Field(int number, const std::string& bytes) {
  std::string out;
  google::protobuf::io::StringOutputStream stream(&out);
  {
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.WriteTag((number << 3) | 2);
    coded.WriteVarint32(static_cast<uint32_t>(bytes.size()));
    coded.WriteString(bytes);
  }
  return out;
}

// Reads `bytes` in place and, when it accepts them and every field after
// the first move is a move, checks the view against protobuf's parse.
// Returns whether it read them so.
bool ReadsLikeProtobuf(const std::string& bytes) {
  AdjudicateRequestView view;
  if (!ReadAdjudicateRequest(bytes, &view) || CountMoves(view) < 0) {
    return false;
  }
  v1::AdjudicateRequest parsed;
  EXPECT_TRUE(parsed.ParseFromString(bytes));
  v1::Variant variant;
  EXPECT_TRUE(variant.ParseFromArray(view.variant.data(),
                                     static_cast<int>(view.variant.size())));
  EXPECT_EQ(variant.SerializeAsString(), parsed.variant().SerializeAsString());
  EXPECT_EQ(view.start_position, parsed.start_position());
  const std::vector<absl::string_view> moves = MovesOf(view);
  EXPECT_EQ(CountMoves(view), parsed.moves_size());
  EXPECT_EQ(static_cast<int>(moves.size()), parsed.moves_size());
  for (int i = 0; i < parsed.moves_size() && i < int(moves.size()); ++i) {
    EXPECT_EQ(moves[i], parsed.moves(i)) << i;
  }
  return true;
}

const std::string kPreset = Field(1, Field(1, "brainking-8x8"));

TEST(RequestViewTest, ReadsWhatSerializersWrite) {
  v1::AdjudicateRequest request;
  request.mutable_variant()->set_preset("classic-16x16");
  request.set_start_position("");
  for (int i = 0; i < 300; ++i) {
    // Long enough (over 127 bytes) for a two-byte length now and then.
    request.add_moves(std::string(1 + i % 200, 'a'));
  }
  EXPECT_TRUE(ReadsLikeProtobuf(request.SerializeAsString()));
  EXPECT_TRUE(ReadsLikeProtobuf(""));  // The empty request.
  request.mutable_variant()->mutable_custom()->set_board_size(8);
  request.mutable_variant()->mutable_custom()->add_camp_rows(4);
  request.set_start_position("8/8/8/8/8/8/8/8 w 0,0");
  EXPECT_TRUE(ReadsLikeProtobuf(request.SerializeAsString()));
}

TEST(RequestViewTest, ReadsTheFieldsBeforeTheMovesInAnyOrder) {
  EXPECT_TRUE(ReadsLikeProtobuf(Field(2, "x") + kPreset + Field(3, "b1-d3") +
                                Field(3, "h7-f5")));
  EXPECT_TRUE(ReadsLikeProtobuf(kPreset + Field(2, "x") + Field(3, "b1-d3")));
}

// What protobuf reads from fields after the first move (the start, the
// variant, merged or last-wins) is protobuf's to read: the view finds
// them as it reads the moves, and AdjudicateView answers nothing, whether
// the replay reached them or stopped before (an error naming the start
// position, an illegal move, a malformed one).
TEST(RequestViewTest, FieldsAfterTheMovesLeaveTheRequestToTheParser) {
  const RulesCore core;
  v1::Variant variant;
  variant.set_preset("brainking-8x8");
  for (const std::string& bytes : {
           kPreset + Field(3, "a1-b1") + Field(2, "nonsense"),
           Field(3, "a1-b1") + Field(3, "h8-g8") + kPreset,
           kPreset + Field(2, "nonsense") + Field(3, "a1-b1") + Field(2, ""),
           kPreset + Field(3, "a1-a1") + Field(3, "b2-c2") + Field(2, ""),
           kPreset + Field(3, "x9") + Field(3, "b2-c2") + Field(2, ""),
       }) {
    AdjudicateRequestView view;
    ASSERT_TRUE(ReadAdjudicateRequest(bytes, &view))
        << testing::PrintToString(bytes);
    EXPECT_EQ(CountMoves(view), -1) << testing::PrintToString(bytes);
    v1::AdjudicateResponse response;
    EXPECT_EQ(core.AdjudicateView(variant, view, &response), std::nullopt)
        << testing::PrintToString(bytes);
    v1::AdjudicateRequest parsed;
    EXPECT_TRUE(parsed.ParseFromString(bytes)) << testing::PrintToString(bytes);
  }
}

TEST(RequestViewTest, LeavesEverythingElseToTheParser) {
  const RulesCore core;
  v1::Variant variant;
  variant.set_preset("brainking-8x8");
  AdjudicateRequestView view;
  for (const std::string& bytes : {
           // Merged by protobuf, not read in place.
           kPreset + kPreset,
           Field(2, "a") + Field(2, "b"),
           // Unknown field numbers and wire types.
           kPreset + Field(4, "x"),
           kPreset + std::string("\x18\x01", 2),  // Field 3 as a varint.
           // A start position that is valid UTF-8 but not ASCII, and one
           // that is not UTF-8.
           kPreset + Field(2, "8/8/8/8/8/8/8/\xc3\xa9 w 0,0"),
           kPreset + Field(2, "\xff"),
           // Truncated: a length past the end, a varint cut short.
           kPreset + std::string("\x1a\x05"
                                 "ab",
                                 4),
           kPreset + std::string("\x1a\x80", 2),
           std::string("\x1a\xff\xff\xff\xff\xff\x01", 7),
       }) {
    // Refused at once, or (after the first move) found as the moves are
    // read: the view then answers nothing.
    if (ReadAdjudicateRequest(bytes, &view)) {
      EXPECT_EQ(CountMoves(view), -1) << testing::PrintToString(bytes);
      v1::AdjudicateResponse response;
      EXPECT_EQ(core.AdjudicateView(variant, view, &response), std::nullopt)
          << testing::PrintToString(bytes);
    }
    EXPECT_FALSE(ReadsLikeProtobuf(bytes)) << testing::PrintToString(bytes);
  }
}

// A move's bytes are looked at only when the replay reads it: a request
// whose moves are not all ASCII is read in place, and AdjudicateView then
// answers nothing, leaving it to protobuf (which accepts valid UTF-8 and
// refuses the rest), wherever that move is and whatever comes before it.
TEST(RequestViewTest, AMoveNotAsciiLeavesTheRequestToTheParser) {
  const RulesCore core;
  v1::Variant variant;
  variant.set_preset("brainking-8x8");
  for (const std::string& bytes : {
           kPreset + Field(3, "b1-d\xc3\xa9"),  // UTF-8, not ASCII.
           kPreset + Field(3, "b1-d\xff"),      // Not UTF-8.
           // After a legal move, after an illegal one, after a malformed
           // one (the replay stops there), after an oversized start.
           kPreset + Field(3, "a1-b1") + Field(3, "h8-g8") +
               Field(3, "\xe2\x80\x94"),
           kPreset + Field(3, "a1-a1") + Field(3, "\xff"),
           kPreset + Field(3, "x9") + Field(3, "\xff"),
           kPreset + Field(2, "nonsense") + Field(3, "\xff"),
       }) {
    AdjudicateRequestView view;
    ASSERT_TRUE(ReadAdjudicateRequest(bytes, &view))
        << testing::PrintToString(bytes);
    v1::AdjudicateResponse response;
    EXPECT_EQ(core.AdjudicateView(variant, view, &response), std::nullopt)
        << testing::PrintToString(bytes);
  }
  // The same records with ASCII moves are answered in place, as the
  // message would be.
  for (const std::string& bytes : {
           kPreset + Field(3, "a1-b1") + Field(3, "h8-g8") + Field(3, "b2-c2"),
           kPreset + Field(3, "a1-a1") + Field(3, "b2-c2"),
           kPreset + Field(3, "x9") + Field(3, "b2-c2"),
           kPreset + Field(2, "nonsense") + Field(3, "b2-c2"),
       }) {
    AdjudicateRequestView view;
    ASSERT_TRUE(ReadAdjudicateRequest(bytes, &view));
    v1::AdjudicateResponse by_view;
    std::optional<absl::Status> status =
        core.AdjudicateView(variant, view, &by_view);
    ASSERT_TRUE(status.has_value()) << testing::PrintToString(bytes);
    v1::AdjudicateRequest parsed;
    ASSERT_TRUE(parsed.ParseFromString(bytes));
    v1::AdjudicateResponse by_message;
    EXPECT_EQ(*status, core.Adjudicate(parsed, &by_message));
    EXPECT_EQ(by_view.SerializeAsString(), by_message.SerializeAsString());
  }
}

// The limit on a record's moves (max_record_moves) holds for a view,
// whose moves are counted before the replay only when its bytes could hold
// more than the limit: a record at the limit is answered, one over it is
// refused naming its count, and one whose fields after the first move are
// not all moves is left to the parser.
TEST(RequestViewTest, TheLimitOnMovesHoldsForAView) {
  RulesOptions options;
  options.max_record_moves = 3;
  const RulesCore core(options);
  v1::Variant variant;
  variant.set_preset("brainking-8x8");
  const std::string three =
      kPreset + Field(3, "a1-b1") + Field(3, "h8-g8") + Field(3, "b2-c2");
  for (const auto& [bytes, answered] :
       std::vector<std::pair<std::string, bool>>{
           {three, true},
           {three + Field(3, "g7-f7"), false},
           {kPreset + Field(3, "pass") + Field(3, "pass") + Field(3, "pass") +
                Field(3, "pass"),
            false},
       }) {
    AdjudicateRequestView view;
    ASSERT_TRUE(ReadAdjudicateRequest(bytes, &view));
    v1::AdjudicateResponse response;
    const std::optional<absl::Status> status =
        core.AdjudicateView(variant, view, &response);
    ASSERT_TRUE(status.has_value());
    v1::AdjudicateRequest parsed;
    ASSERT_TRUE(parsed.ParseFromString(bytes));
    v1::AdjudicateResponse by_message;
    EXPECT_EQ(*status, core.Adjudicate(parsed, &by_message));
    EXPECT_EQ(response.SerializeAsString(), by_message.SerializeAsString());
    if (answered) {
      EXPECT_TRUE(status->ok()) << *status;
    } else {
      EXPECT_EQ(status->code(), absl::StatusCode::kInvalidArgument);
      EXPECT_NE(status->message().find("the record has 4 moves"),
                absl::string_view::npos)
          << *status;
    }
  }
  AdjudicateRequestView view;
  const std::string unordered = three + Field(3, "g7-f7") + Field(2, "");
  ASSERT_TRUE(ReadAdjudicateRequest(unordered, &view));
  v1::AdjudicateResponse response;
  EXPECT_EQ(core.AdjudicateView(variant, view, &response), std::nullopt);
}

}  // namespace
}  // namespace halma::service
