// Adjudicate with a record in the record text format (record_text) and
// with the record's text asked back (want_record_text), from the rules
// core.
#include "halma/record_text.h"

#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "halma/v1/halma.pb.h"
#include "service/core/rules_core.h"
#include "tests/service/fixture/played_records.h"

namespace halma::service {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

class RecordTextTest : public ::testing::Test {
 protected:
  absl::Status Adjudicate(const v1::AdjudicateRequest& request,
                          v1::AdjudicateResponse* response) {
    return core_.Adjudicate(request, response);
  }

  // The record as text, from the engine's formatter (with `result` as its
  // claimed result when not empty).
  static std::string AsText(const v1::AdjudicateRequest& record,
                            const std::string& result = "") {
    TextRecord text;
    text.variant.name = record.variant().preset();
    text.moves.assign(record.moves().begin(), record.moves().end());
    text.result = result;
    return FormatTextRecord(text);
  }

  const RulesCore core_;
};

// A record given as text is adjudicated exactly as the same moves given as
// a list; the answer adds the result token.
TEST_F(RecordTextTest, TextRecordAnswersAsTheMoveList) {
  for (const std::string& preset : PresetNames()) {
    SCOPED_TRACE(preset);
    const v1::AdjudicateRequest record = PlayedRecord(preset, 80, 11);
    v1::AdjudicateResponse as_list;
    ASSERT_TRUE(Adjudicate(record, &as_list).ok());
    v1::AdjudicateRequest text_request;
    text_request.set_record_text(AsText(record));
    v1::AdjudicateResponse as_text;
    const absl::Status status = Adjudicate(text_request, &as_text);
    ASSERT_TRUE(status.ok()) << std::string(status.message());
    EXPECT_EQ(as_text.result(),
              as_list.status().state() == v1::GameStatus::STATE_IN_PROGRESS
                  ? "*"
                  : as_text.result());
    EXPECT_FALSE(as_text.result().empty());
    EXPECT_TRUE(as_text.claimed_result().empty());
    EXPECT_FALSE(as_text.result_mismatch());
    // Apart from the token, the same answer.
    as_text.clear_result();
    EXPECT_TRUE(
        google::protobuf::util::MessageDifferencer::Equals(as_text, as_list))
        << as_text.DebugString() << " vs " << as_list.DebugString();
  }
}

// A claimed result is checked: the right one agrees, another is reported
// as a mismatch (an answer, not an error).
TEST_F(RecordTextTest, ClaimedResultIsChecked) {
  const v1::AdjudicateRequest record = PlayedRecord("brainking-8x8", 20, 5);
  v1::AdjudicateResponse plain;
  ASSERT_TRUE(Adjudicate(record, &plain).ok());
  ASSERT_EQ(plain.status().state(), v1::GameStatus::STATE_IN_PROGRESS);

  v1::AdjudicateRequest right;
  right.set_record_text(AsText(record, "*"));
  v1::AdjudicateResponse answer;
  ASSERT_TRUE(Adjudicate(right, &answer).ok());
  EXPECT_EQ(answer.result(), "*");
  EXPECT_EQ(answer.claimed_result(), "*");
  EXPECT_FALSE(answer.result_mismatch());

  v1::AdjudicateRequest wrong;
  wrong.set_record_text(AsText(record, "win:w:target-filled"));
  ASSERT_TRUE(Adjudicate(wrong, &answer).ok());
  EXPECT_EQ(answer.result(), "*");
  EXPECT_EQ(answer.claimed_result(), "win:w:target-filled");
  EXPECT_TRUE(answer.result_mismatch());

  // An illegal move: the token says where and why.
  v1::AdjudicateRequest illegal_record = record;
  illegal_record.add_moves("a1-a1");
  v1::AdjudicateRequest illegal;
  illegal.set_record_text(AsText(illegal_record, "*"));
  ASSERT_TRUE(Adjudicate(illegal, &answer).ok());
  ASSERT_TRUE(answer.has_illegal_move());
  EXPECT_EQ(answer.result(),
            absl::StrCat("illegal:", answer.illegal_move().ply(), ":",
                         MoveVerdictName(MoveVerdict::kEmptyOrigin)));
  EXPECT_TRUE(answer.result_mismatch());
}

// want_record_text returns the record in canonical text with the result
// filled in; sent back as record_text it gets the same answer.
TEST_F(RecordTextTest, RecordTextComesBackAndRoundTrips) {
  for (const std::string& preset : PresetNames()) {
    SCOPED_TRACE(preset);
    v1::AdjudicateRequest record = PlayedRecord(preset, 50, 21);
    record.set_want_record_text(true);
    v1::AdjudicateResponse first;
    ASSERT_TRUE(Adjudicate(record, &first).ok());
    ASSERT_FALSE(first.record_text().empty());
    absl::StatusOr<TextRecord> parsed = ParseTextRecord(first.record_text());
    ASSERT_TRUE(parsed.ok()) << parsed.status();
    EXPECT_EQ(parsed->variant.name, preset);
    EXPECT_EQ(parsed->result, first.result());
    EXPECT_EQ(
        std::vector<std::string>(record.moves().begin(), record.moves().end()),
        parsed->moves);
    EXPECT_EQ(FormatTextRecord(*parsed), first.record_text());

    v1::AdjudicateRequest again;
    again.set_record_text(first.record_text());
    again.set_want_record_text(true);
    v1::AdjudicateResponse second;
    ASSERT_TRUE(Adjudicate(again, &second).ok());
    EXPECT_EQ(second.record_text(), first.record_text());
    EXPECT_EQ(second.claimed_result(), first.result());
    EXPECT_FALSE(second.result_mismatch());
  }
}

// A custom variant and a start position other than the variant's start
// travel in the tags.
TEST_F(RecordTextTest, CustomVariantAndStartPosition) {
  v1::AdjudicateRequest request;
  v1::VariantSpec* spec = request.mutable_variant()->mutable_custom();
  spec->set_board_size(6);
  spec->set_seat_count(2);
  spec->add_camp_rows(2);
  spec->add_camp_rows(1);
  spec->set_move_cap(4);
  request.set_start_position("4bb/5b/6/6/w5/ww4 w 0,0");
  request.add_moves("a1-b2");
  request.add_moves("f6-e5");
  request.set_want_record_text(true);
  v1::AdjudicateResponse answer;
  const absl::Status status = Adjudicate(request, &answer);
  ASSERT_TRUE(status.ok()) << std::string(status.message());
  EXPECT_THAT(answer.record_text(), HasSubstr("[Variant \"custom\"]"));
  EXPECT_THAT(answer.record_text(), HasSubstr("[BoardSize \"6\"]"));
  EXPECT_THAT(answer.record_text(), HasSubstr("[MoveCap \"4\"]"));
  v1::AdjudicateRequest again;
  again.set_record_text(answer.record_text());
  v1::AdjudicateResponse second;
  ASSERT_TRUE(Adjudicate(again, &second).ok());
  EXPECT_EQ(second.final_position(), answer.final_position());
  EXPECT_EQ(second.moves_played(), 2);
}

TEST_F(RecordTextTest, BadTextRecordsNameTheField) {
  v1::AdjudicateResponse answer;
  v1::AdjudicateRequest both;
  both.set_record_text(AsText(PlayedRecord("brainking-8x8", 4, 1)));
  both.add_moves("b1-d3");
  absl::Status status = Adjudicate(both, &answer);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()),
              StartsWith("record_text: given together"));

  v1::AdjudicateRequest malformed;
  malformed.set_record_text("[Variant \"brainking-8x8\"]\n\n1. b1-d3 2. x\n");
  status = Adjudicate(malformed, &answer);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()),
              StartsWith("record_text: line 3, column"));

  v1::AdjudicateRequest two;
  two.set_record_text(AsText(PlayedRecord("brainking-8x8", 4, 1)) +
                      AsText(PlayedRecord("brainking-8x8", 4, 2)));
  status = Adjudicate(two, &answer);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), StartsWith("record_text: "));

  v1::AdjudicateRequest unknown;
  unknown.set_record_text("[Variant \"no-such\"]\n");
  status = Adjudicate(unknown, &answer);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace halma::service
