// ValidateMove's continuations, from the rules core: a board UI builds a
// chain hop by hop from them. Checked against LegalMoves' paths and
// ValidateMove itself on positions of every preset.
#include <cstdlib>
#include <fstream>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "halma/v1/halma.pb.h"
#include "service/core/rules_core.h"

namespace halma::service {
namespace {

class ContinuationsTest : public ::testing::Test {
 protected:
  v1::ValidateMoveResponse Validate(const std::string& preset,
                                    const std::string& position,
                                    const std::string& move) {
    v1::ValidateMoveRequest request;
    request.mutable_variant()->set_preset(preset);
    request.set_position(position);
    request.set_move(move);
    v1::ValidateMoveResponse response;
    EXPECT_TRUE(core_.ValidateMove(request, &response).ok());
    return response;
  }

  v1::LegalMovesResponse Legal(const std::string& preset,
                               const std::string& position) {
    v1::LegalMovesRequest request;
    request.mutable_variant()->set_preset(preset);
    request.set_position(position);
    v1::LegalMovesResponse response;
    EXPECT_TRUE(core_.LegalMoves(request, &response).ok());
    return response;
  }

  const RulesCore core_;
};

// Positions of a preset from the benchmark's committed sets (seeded
// playouts of the reference implementation): the first `count` with the
// side to move not stuck.
std::vector<std::string> Positions(const std::string& preset, int count) {
  std::ifstream in(
      absl::StrCat(HALMA_BENCH_DATA_DIR, "/typical/", preset, ".txt"));
  std::vector<std::string> positions = {""};  // The start.
  std::string line;
  while (static_cast<int>(positions.size()) < count && std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    positions.push_back(line);
  }
  EXPECT_EQ(static_cast<int>(positions.size()), count) << preset;
  return positions;
}

// Whether two squares are two apart on a rank, file or diagonal: then the
// two-square move between them is one hop, not the shorthand.
bool TwoApartOnALine(const std::string& a, const std::string& b) {
  const int files = std::abs(a[0] - b[0]);
  const int ranks = std::abs(std::stoi(a.substr(1)) - std::stoi(b.substr(1)));
  return (files == 0 || files == 2) && (ranks == 0 || ranks == 2);
}

// For every legal jump move p0-p1-..-pk: each prefix p0..pi is legal, with
// p(i+1) among its continuations; every continuation of a prefix extends
// it to a legal move; the full path's continuations are those of the
// two-square shorthand for the same destination. Steps and pass have none.
TEST_F(ContinuationsTest, PrefixesOfLegalPathsAgreeWithContinuations) {
  const std::vector<std::string> presets = {
      "brainking-8x8", "brainking-10x10", "iggamecenter-10x10", "classic-16x16",
      "classic-16x16-4p"};
  int checked_prefixes = 0;
  for (const std::string& preset : presets) {
    for (const std::string& position : Positions(preset, 4)) {
      SCOPED_TRACE(absl::StrCat(preset, " ", position));
      const v1::LegalMovesResponse legal = Legal(preset, position);
      for (const v1::Move& move : legal.moves()) {
        const std::vector<std::string> path = absl::StrSplit(move.path(), '-');
        if (move.hops() == 0) {
          EXPECT_EQ(
              Validate(preset, position, move.path()).continuations_size(), 0);
          continue;
        }
        std::string prefix = path[0];
        for (std::size_t i = 1; i < path.size(); ++i) {
          prefix = absl::StrCat(prefix, "-", path[i]);
          const v1::ValidateMoveResponse answer =
              Validate(preset, position, prefix);
          ASSERT_TRUE(answer.legal()) << prefix << ": " << answer.message();
          const std::set<std::string> next(answer.continuations().begin(),
                                           answer.continuations().end());
          if (i + 1 < path.size()) {
            EXPECT_TRUE(next.count(path[i + 1]))
                << prefix << " then " << path[i + 1];
          }
          for (const std::string& square : next) {
            EXPECT_TRUE(
                Validate(preset, position, absl::StrCat(prefix, "-", square))
                    .legal())
                << prefix << "-" << square;
          }
          ++checked_prefixes;
          if (i + 1 == path.size() && path.size() > 2 &&
              !TwoApartOnALine(move.origin(), move.destination())) {
            // The shorthand ends where the path ends, by the same path.
            const v1::ValidateMoveResponse shorthand =
                Validate(preset, position,
                         absl::StrCat(move.origin(), "-", move.destination()));
            EXPECT_EQ(
                std::vector<std::string>(shorthand.continuations().begin(),
                                         shorthand.continuations().end()),
                std::vector<std::string>(answer.continuations().begin(),
                                         answer.continuations().end()))
                << move.path() << " vs shorthand's " << shorthand.path();
          }
        }
      }
    }
  }
  EXPECT_GT(checked_prefixes, 100);
}

// Illegal moves have no continuations.
TEST_F(ContinuationsTest, IllegalMovesHaveNone) {
  const v1::ValidateMoveResponse answer =
      Validate("brainking-8x8", "", "a1-a3");  // Over a2 onto a3: occupied.
  EXPECT_FALSE(answer.legal());
  EXPECT_EQ(answer.continuations_size(), 0);
}

}  // namespace
}  // namespace halma::service
