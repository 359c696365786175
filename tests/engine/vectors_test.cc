// The public test vectors of testdata/vectors (docs/rules.md sections 3 to 7),
// replayed through the engine's API.
#include <algorithm>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "halma/record_replay.h"
#include "halma/movegen.h"
#include "halma/notation.h"
#include "halma/game_status.h"
#include "halma/variant.h"
#include "nlohmann/json.hpp"
#include "tests/testdata.h"

namespace halma {
namespace {

using nlohmann::json;

absl::StatusOr<Variant> VariantOf(const json& v) {
  if (v.is_string()) return PresetVariant(v.get<std::string>());
  VariantSpec spec;
  spec.board_size = v["n"];
  spec.seat_count = v["seats"];
  spec.camp_rows = v["camp"].get<std::vector<int>>();
  spec.home_exit_limit = v["home_exit"];
  spec.round_completion = v["round_completion"];
  spec.target_lock = v["target_lock"];
  spec.move_cap = v["move_cap"];
  return MakeVariant(spec);
}

std::string SeatsText(SeatSet set) {
  std::string out;
  for (int i = 0; i < kMaxSeats; ++i) {
    if (set.Has(SeatAt(i))) out += SeatLetter(SeatAt(i));
  }
  return out;
}

std::string SeatsText(const json& list) {
  SeatSet set;
  for (const auto& s : list) {
    Seat seat = Seat::kW;
    SeatFromLetter(s.get<std::string>()[0], &seat);
    set.Add(seat);
  }
  return SeatsText(set);
}

std::string RuleOf(DecidingRule rule) {
  // The vectors spell "everyone stuck" as all-passed.
  return rule == DecidingRule::kEveryoneStuck ? "all-passed"
                                              : DecidingRuleName(rule);
}

TEST(PublicVectors, LegalMoveSetsMatch) {
  const auto cases = testdata::ReadJsonLines("vectors/positions.jsonl");
  ASSERT_FALSE(cases.empty());
  for (const json& c : cases) {
    SCOPED_TRACE(c["position"].get<std::string>());
    absl::StatusOr<Variant> variant = VariantOf(c["variant"]);
    ASSERT_TRUE(variant.ok()) << variant.status();
    absl::StatusOr<Position> pos =
        ParsePosition(c["position"].get<std::string>(), *variant);
    ASSERT_TRUE(pos.ok()) << pos.status();
    MoveList list;
    GenerateLegalMoves(*variant, *pos, pos->to_move, &list);
    SortMoves(&list);
    std::vector<std::tuple<std::string, std::string, int>> got, want;
    for (const LegalMove& m : list) {
      got.emplace_back(FormatSquare(m.origin), FormatSquare(m.destination),
                       m.hops);
    }
    if (got.empty()) got.emplace_back("pass", "", -1);
    for (const json& m : c["legal"]) {
      if (m[0] == "pass") {
        want.emplace_back("pass", "", -1);
      } else {
        want.emplace_back(m[0], m[1], m[2]);
      }
    }
    std::vector<std::tuple<std::string, std::string, int>> missing, extra;
    std::sort(got.begin(), got.end());
    std::sort(want.begin(), want.end());
    std::set_difference(want.begin(), want.end(), got.begin(), got.end(),
                        std::back_inserter(missing));
    std::set_difference(got.begin(), got.end(), want.begin(), want.end(),
                        std::back_inserter(extra));
    EXPECT_TRUE(missing.empty()) << testing::PrintToString(missing);
    EXPECT_TRUE(extra.empty()) << testing::PrintToString(extra);
  }
}

TEST(PublicVectors, RecordsMatch) {
  const auto cases = testdata::ReadJsonLines("vectors/records.jsonl");
  ASSERT_FALSE(cases.empty());
  for (const json& c : cases) {
    absl::StatusOr<Variant> variant = VariantOf(c["variant"]);
    ASSERT_TRUE(variant.ok()) << variant.status();
    Position start = StartPosition(*variant);
    if (c.contains("from")) {
      auto parsed = ParsePosition(c["from"].get<std::string>(), *variant);
      ASSERT_TRUE(parsed.ok()) << parsed.status();
      start = *parsed;
    }
    const auto moves = c["moves"].get<std::vector<std::string>>();
    absl::StatusOr<GameRecordResult> result =
        AdjudicateRecord(*variant, start, moves);
    ASSERT_TRUE(result.ok()) << result.status();
    const json& e = c["expect"];
    SCOPED_TRACE(e.dump());
    const std::string status = e["status"];
    if (status == "illegal") {
      EXPECT_EQ(result->illegal_ply, e["ply"].get<int>());
      EXPECT_EQ(MoveVerdictName(result->illegal_verdict),
                e["reason"].get<std::string>())
          << result->illegal_message;
      if (e.contains("result")) {
        EXPECT_TRUE(result->status.over);
        EXPECT_EQ(result->deciding_ply, e["result"]["ply"].get<int>());
        EXPECT_EQ(SeatsText(result->status.winners),
                  SeatsText(e["result"]["winners"]));
      }
      continue;
    }
    EXPECT_EQ(result->illegal_ply, 0) << result->illegal_message;
    if (status == "in_progress") {
      EXPECT_FALSE(result->status.over);
      EXPECT_EQ(std::string(1, SeatLetter(result->status.to_move)),
                e["to_move"].get<std::string>());
      EXPECT_EQ(result->status.round_completion_turn, e["rc_turn"].get<bool>());
    } else {
      EXPECT_TRUE(result->status.over);
      EXPECT_EQ(result->status.IsDraw(), status == "draw");
      EXPECT_EQ(SeatsText(result->status.winners), SeatsText(e["winners"]));
      EXPECT_EQ(RuleOf(result->status.rule), e["rule"].get<std::string>());
      EXPECT_EQ(result->deciding_ply, e["ply"].get<int>());
    }
  }
}

TEST(PublicVectors, MalformedInputsAreRejected) {
  const auto cases = testdata::ReadJsonLines("vectors/malformed.jsonl");
  ASSERT_FALSE(cases.empty());
  for (const json& c : cases) {
    SCOPED_TRACE(c.dump());
    const std::string kind = c["kind"];
    if (kind == "variant") {
      EXPECT_FALSE(PresetVariant(c["input"].get<std::string>()).ok());
      continue;
    }
    absl::StatusOr<Variant> variant = VariantOf(c["variant"]);
    ASSERT_TRUE(variant.ok());
    absl::Status status;
    if (kind == "position") {
      status = ParsePosition(c["input"].get<std::string>(), *variant).status();
    } else if (kind == "square") {
      status =
          ParseSquare(c["input"].get<std::string>(), variant->size).status();
    } else if (kind == "move") {
      status = ParseMove(c["input"].get<std::string>(), variant->size).status();
    } else {
      status =
          AdjudicateRecord(*variant, StartPosition(*variant),
                           c["input"]["moves"].get<std::vector<std::string>>())
              .status();
    }
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
    std::cout << "  " << kind << ": " << status.message() << "\n";
  }
}

}  // namespace
}  // namespace halma
