// Move counts over their whole range (docs/rules.md section 4 sets no bound; the
// engine's is 2^63 - 1, docs/rules.md): sums that must not overflow, counts
// written after a move that must parse again, and the one move that cannot
// be counted. Also the bounded quoting of long camp_rows lists.
#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "halma/record_replay.h"
#include "halma/move_check.h"
#include "halma/notation.h"
#include "halma/position.h"
#include "halma/game_status.h"
#include "halma/variant.h"
#include "test_util.h"

namespace halma {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using testing_util::Custom;
using testing_util::Parse;
using testing_util::Spec;

const std::string kMax = absl::StrCat(kMaxMoveCount);

// brainking-8x8's board without its home-exit rule, which counts this large
// would otherwise decide at once (every piece is still at home).
Variant Board8() { return Custom(Spec(8, 2, {4, 3, 2, 1})); }
const std::string kMaxLess1 = absl::StrCat(kMaxMoveCount - 1);

// The start position of `v` with `to_move` and `counts` instead.
std::string StartWith(const Variant& v, const std::string& to_move,
                      const std::string& counts) {
  const std::string start = FormatPosition(StartPosition(v), v);
  return absl::StrCat(start.substr(0, start.find(' ')), " ", to_move, " ",
                      counts);
}

TEST(MoveCounts, FourSeatCountsWhoseSumPassesThirtyTwoBitsStillHitTheCap) {
  VariantSpec spec = Spec(16, 4, {4, 4, 3, 2});
  spec.move_cap = 10;
  const Variant v = Custom(spec);
  const Position p =
      Parse(StartWith(v, "w", "536870912,536870912,536870912,536870912"), v);
  const GameStatus status = EvaluateStatus(v, p);
  EXPECT_TRUE(status.over);
  EXPECT_EQ(status.rule, DecidingRule::kMoveCap);
  EXPECT_EQ(status.winners.Count(), 4);  // A draw among all four.
}

TEST(MoveCounts, TheLargestCountsParseAndFormatBack) {
  const Variant v = Board8();
  for (const std::string& text :
       {StartWith(v, "w", absl::StrCat(kMax, ",", kMax)),
        StartWith(v, "b", absl::StrCat(kMax, ",", kMaxLess1)),
        StartWith(v, "w", "1000000000,1000000000")}) {
    absl::StatusOr<Position> p = ParsePosition(text, v);
    ASSERT_TRUE(p.ok()) << text << ": " << p.status();
    EXPECT_EQ(FormatPosition(*p, v), text);
    EXPECT_FALSE(EvaluateStatus(v, *p).over);
  }
  // Seats before the side to move one move ahead of a count at the maximum:
  // no count holds that, and the message says so without overflowing.
  absl::StatusOr<Position> over =
      ParsePosition(StartWith(v, "b", absl::StrCat(kMax, ",", kMax)), v);
  ASSERT_FALSE(over.ok());
  EXPECT_THAT(over.status().message(),
              AllOf(HasSubstr("move count of 'w' is " + kMax),
                    HasSubstr("more than " + kMax)));
}

TEST(MoveCounts, EveryCountableMoveGivesAPositionThatParsesAgain) {
  const Variant v = Board8();
  for (const std::string& text :
       {StartWith(v, "w", "999999999,999999999"),
        StartWith(v, "w", absl::StrCat(kMaxLess1, ",", kMaxLess1)),
        StartWith(v, "b", absl::StrCat(kMax, ",", kMaxLess1))}) {
    const Position p = Parse(text, v);
    ASSERT_TRUE(CheckRoomForMove(p).ok()) << text;
    const MoveCheck check =
        CheckMove(v, p, EvaluateStatus(v, p),
                  *ParseMove(p.to_move == Seat::kW ? "d1-e2" : "e8-d7", 8));
    ASSERT_EQ(check.verdict, MoveVerdict::kLegal) << check.message;
    const std::string after = FormatPosition(check.after, v);
    absl::StatusOr<Position> again = ParsePosition(after, v);
    ASSERT_TRUE(again.ok()) << after << ": " << again.status();
    EXPECT_EQ(*again, check.after);
  }
}

TEST(MoveCounts, NoRoomForAMoveAtTheLargestCount) {
  const Variant v = Board8();
  const Position p = Parse(StartWith(v, "w", absl::StrCat(kMax, ",", kMax)), v);
  const absl::Status room = CheckRoomForMove(p);
  EXPECT_EQ(room.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(room.message(), HasSubstr("cannot be counted"));

  // A record from one move short of it: the second of w's moves fails with
  // an error for its ply, the moves before it are fine.
  const Position start =
      Parse(StartWith(v, "w", absl::StrCat(kMaxLess1, ",", kMaxLess1)), v);
  const char* moves[] = {"d1-e2", "e8-d7", "e2-d3"};
  absl::StatusOr<GameRecordResult> result = AdjudicateRecord(
      v, start, 3, [&](int i) { return absl::string_view(moves[i]); });
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(result.status().message(),
              AllOf(HasSubstr("ply 3: 'w' has made " + kMax),
                    HasSubstr("room for 2 moves")));
  result = AdjudicateRecord(v, start, 2,
                            [&](int i) { return absl::string_view(moves[i]); });
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->final_position.move_count[0], kMaxMoveCount);
}

TEST(CampRowsErrors, LongListsAreQuotedCutAndSaySo) {
  VariantSpec spec = Spec(16, 2, {1});
  spec.camp_rows.assign(1000, 2'000'000'000);
  absl::StatusOr<Variant> v = MakeVariant(spec);
  ASSERT_FALSE(v.ok());
  const std::string message(v.status().message());
  EXPECT_THAT(message, HasSubstr(",...] (cut: 1000 rows in all)"));
  int quoted = 0;
  for (size_t at = message.find("2000000000"); at != std::string::npos;
       at = message.find("2000000000", at + 1)) {
    ++quoted;
  }
  EXPECT_EQ(quoted, 20);  // The first 20 entries, no more.
  EXPECT_LT(message.size(), 400u);
  spec.camp_rows.assign(20, 3);
  v = MakeVariant(spec);
  ASSERT_FALSE(v.ok());
  EXPECT_THAT(v.status().message(), Not(HasSubstr("cut")));
}

}  // namespace
}  // namespace halma
