// The LegalMoves answer the service writes by hand (legal_moves_encoding.h)
// against the same answer built as a protobuf message field by field and
// serialized by protobuf: the bytes must be identical, on the committed
// position sets of every preset (dense and typical midgames), the start
// positions, origin filters and finished games.
#include "service/core/legal_moves_encoding.h"

#include <algorithm>
#include <fstream>
#include <string>
#include <vector>

#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "gtest/gtest.h"
#include "halma/game.h"
#include "halma/movegen.h"
#include "halma/notation.h"
#include "halma/status.h"
#include "halma/variant.h"
#include "nlohmann/json.hpp"
#include "service/core/convert.h"
#include "service/core/rules_core.h"
#include "tests/service/fixture/position_sets.h"
#include "tests/testdata.h"

namespace halma::service {
namespace {

// The answer as a message, built the plain way from the engine's output.
v1::LegalMovesResponse PlainAnswer(const Variant& variant,
                                   const Position& position,
                                   MoveFilter filter) {
  v1::LegalMovesResponse response;
  const GameStatus status = EvaluateStatus(variant, position);
  StatusToProto(variant, status, 0, response.mutable_status());
  response.set_position(FormatPosition(position, variant));
  if (!status.over && !status.must_pass) {
    static MoveList list;
    static MovePaths paths;
    GenerateLegalMovesWithPaths(variant, position, position.to_move, &list,
                                &paths, filter);
    std::vector<int> order(list.size);
    for (int i = 0; i < list.size; ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [](int a, int b) {
      return MoveOrder(list.moves[a], list.moves[b]);
    });
    for (int i : order) {
      v1::Move* move = response.add_moves();
      move->set_origin(FormatSquare(list.moves[i].origin));
      move->set_destination(FormatSquare(list.moves[i].destination));
      move->set_path(FormatPath(paths.Path(i), paths.Length(i)));
      move->set_hops(list.moves[i].hops);
    }
  }
  response.set_count(response.moves_size());
  return response;
}

std::string Serialized(const google::protobuf::Message& message) {
  std::string out;
  google::protobuf::io::StringOutputStream stream(&out);
  google::protobuf::io::CodedOutputStream coded(&stream);
  coded.SetSerializationDeterministic(true);
  message.SerializeToCodedStream(&coded);
  coded.Trim();
  return out;
}

class LegalMovesEncodingTest : public ::testing::Test {
 protected:
  // Compares the service's bytes with the plain answer's serialization;
  // returns the number of moves of the answer.
  int ExpectSameBytes(const std::string& preset, const std::string& text,
                      const std::string& origin = "") {
    const Variant& variant = *PresetTable::Get().Find(preset);
    absl::StatusOr<Position> position = ParsePosition(text, variant);
    EXPECT_TRUE(position.ok()) << position.status();
    if (!position.ok()) return 0;
    MoveFilter filter;
    if (!origin.empty()) {
      filter.only_origin = true;
      filter.origin = *ParseSquare(origin, variant.size);
    }
    const v1::LegalMovesResponse plain =
        PlainAnswer(variant, *position, filter);

    v1::LegalMovesRequest request;
    request.mutable_variant()->set_preset(preset);
    request.set_position(text);
    request.set_origin(origin);
    std::string bytes;
    size_t allocations = 0;
    const absl::Status status =
        core_.EncodeLegalMoves(request, [&](std::size_t size) {
          ++allocations;
          bytes.assign(size, '\xff');  // Every byte must be written over.
          return bytes.data();
        });
    EXPECT_TRUE(status.ok()) << status;
    EXPECT_EQ(allocations, 1u);
    EXPECT_EQ(bytes, Serialized(plain))
        << preset << " " << text << " " << origin;
    // And the message form, which tests and fuzzers use, agrees.
    v1::LegalMovesResponse parsed;
    EXPECT_TRUE(core_.LegalMoves(request, &parsed).ok());
    EXPECT_EQ(Serialized(parsed), Serialized(plain));
    return plain.moves_size();
  }

  RulesCore core_;
};

TEST_F(LegalMovesEncodingTest, StartPositionsOfEveryPreset) {
  for (const PresetTable::Entry& entry : PresetTable::Get().entries()) {
    const Variant& variant = entry.variant;
    const std::string start = FormatPosition(StartPosition(variant), variant);
    EXPECT_GT(ExpectSameBytes(variant.spec.name, start), 0);
  }
}

TEST_F(LegalMovesEncodingTest, DenseAndTypicalPositionSetsOfEveryPreset) {
  for (const PresetTable::Entry& entry : PresetTable::Get().entries()) {
    const std::string& preset = entry.variant.spec.name;
    for (const std::string dir : {"", "typical/"}) {
      const std::vector<std::string> positions = PositionSet(
          std::string(HALMA_BENCH_DATA_DIR) + "/" + dir + preset + ".txt");
      ASSERT_EQ(positions.size(), 1000u) << dir << preset;
      int moves = 0;
      int most = 0;
      for (const std::string& text : positions) {
        const int count = ExpectSameBytes(preset, text);
        moves += count;
        most = std::max(most, count);
        if (HasFailure()) return;
      }
      EXPECT_GT(moves, 50 * 1000) << dir << preset;
      if (preset == "classic-16x16" && dir.empty()) {
        // Counts (and position texts) of 128 and more take two-byte
        // varints: covered.
        EXPECT_GE(most, 128);
      }
    }
  }
}

TEST_F(LegalMovesEncodingTest, OriginFilters) {
  const std::vector<std::string> positions =
      PositionSet(std::string(HALMA_BENCH_DATA_DIR) + "/classic-16x16.txt");
  for (size_t i = 0; i < 50; ++i) {
    v1::LegalMovesRequest request;
    request.mutable_variant()->set_preset("classic-16x16");
    request.set_position(positions[i]);
    v1::LegalMovesResponse all;
    ASSERT_TRUE(core_.LegalMoves(request, &all).ok());
    ASSERT_GT(all.moves_size(), 0);
    // An origin with moves, and one (an empty square) with none.
    EXPECT_GT(ExpectSameBytes("classic-16x16", positions[i],
                              all.moves(all.moves_size() / 2).origin()),
              0);
    EXPECT_EQ(ExpectSameBytes("classic-16x16", positions[i],
                              all.moves(0).destination()),
              0);
  }
}

TEST(LegalMovesEncoding, LongPathsTakeTwoByteLengths) {
  // No real position here has a Move of 128 bytes or more (a chain of
  // about 30 hops), so the encoder is given lists of its own: paths of 1
  // to 64 squares, whose Moves and path texts cross the one-byte lengths.
  static MoveList list;
  static MovePaths paths;
  list.size = 0;
  paths.offset[0] = 0;
  for (int length = 1; length <= kMaxPathSquares; ++length) {
    const int i = list.size++;
    paths.offset[i + 1] = paths.offset[i] + length;
    for (int k = 0; k < length; ++k) {
      paths.squares[paths.offset[i] + k] =
          MakeSquare((3 * k + length) % 16, (5 * k) % 16);
    }
    list.moves[i] = LegalMove{paths.Path(i)[0], paths.Path(i)[length - 1],
                              static_cast<std::uint8_t>(length - 1)};
  }
  std::uint16_t order[kMaxPathSquares];
  AnswerOrder(list, order);
  v1::GameStatus status;
  status.set_state(v1::GameStatus::STATE_IN_PROGRESS);
  v1::LegalMovesResponse plain;
  for (int j = 0; j < list.size; ++j) {
    const int i = order[j];
    v1::Move* move = plain.add_moves();
    move->set_origin(FormatSquare(list.moves[i].origin));
    move->set_destination(FormatSquare(list.moves[i].destination));
    move->set_path(FormatPath(paths.Path(i), paths.Length(i)));
    move->set_hops(list.moves[i].hops);
  }
  plain.set_count(list.size);
  *plain.mutable_status() = status;
  plain.set_position(std::string(200, 'w'));  // A two-byte length too.
  int long_moves = 0;
  for (const v1::Move& move : plain.moves()) {
    if (move.ByteSizeLong() >= 128) ++long_moves;
  }
  EXPECT_GT(long_moves, 10);

  LegalMovesAnswer answer;
  answer.list = &list;
  answer.paths = &paths;
  answer.order = order;
  answer.move_count = list.size;
  answer.status = &status;
  const std::string position = plain.position();
  answer.position = position;
  std::string bytes;
  EncodeLegalMovesResponse(answer, [&bytes](std::size_t size) {
    bytes.assign(size, '\xff');
    return bytes.data();
  });
  EXPECT_EQ(bytes, Serialized(plain));
}

TEST_F(LegalMovesEncodingTest, FinishedGames) {
  // The decided records of the public vectors: their final positions'
  // answers list no moves and carry the deciding rule.
  int finished = 0;
  for (const nlohmann::json& record :
       testdata::ReadJsonLines("vectors/records.jsonl")) {
    if (!record["variant"].is_string()) continue;
    const std::string preset = record["variant"];
    const Variant& variant = *PresetTable::Get().Find(preset);
    const Position start =
        record.contains("from")
            ? *ParsePosition(record["from"].get<std::string>(), variant)
            : StartPosition(variant);
    absl::StatusOr<GameRecordResult> result = AdjudicateRecord(
        variant, start, record["moves"].get<std::vector<std::string>>());
    ASSERT_TRUE(result.ok()) << result.status();
    if (!result->status.over) continue;
    ++finished;
    EXPECT_EQ(ExpectSameBytes(preset,
                              FormatPosition(result->final_position, variant)),
              0);
  }
  EXPECT_GT(finished, 0);
}

}  // namespace
}  // namespace halma::service
