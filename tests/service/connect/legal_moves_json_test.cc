// The LegalMoves JSON the Connect listener writes directly
// (service/connect/legal_moves_json.h) against protobuf's own
// MessageToJsonString of the same answer: identical bytes on the committed
// position sets of every preset, start positions, origin filters, finished
// games and answers with fields left at their defaults.
#include "service/connect/legal_moves_json.h"

#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "service/core/rules_core.h"
#include "tests/service/fixture/position_sets.h"

namespace halma::service {
namespace {

std::string ProtobufJson(const v1::LegalMovesResponse& response) {
  std::string json;
  google::protobuf::util::JsonPrintOptions options;
  EXPECT_TRUE(
      google::protobuf::util::MessageToJsonString(response, &json, options)
          .ok());
  return json;
}

// Both writers, from the message and from its bytes, against protobuf.
void ExpectSameJson(const v1::LegalMovesResponse& response) {
  const std::string expected = ProtobufJson(response);
  std::string written;
  ASSERT_TRUE(WriteLegalMovesJson(response, &written));
  EXPECT_EQ(written, expected);
  std::string from_wire;
  ASSERT_TRUE(
      WriteLegalMovesJsonFromWire(response.SerializeAsString(), &from_wire));
  EXPECT_EQ(from_wire, expected);
}

TEST(LegalMovesJsonTest, MatchesProtobufOnEveryCommittedPosition) {
  const RulesCore rules;
  int checked = 0;
  for (const char* preset :
       {"brainking-8x8", "brainking-10x10", "iggamecenter-10x10",
        "classic-16x16", "classic-16x16-4p"}) {
    std::vector<std::string> positions = {""};  // The start.
    // The dense set, and the typical midgames.
    for (const char* dir : {"", "typical/"}) {
      for (const std::string& p : PositionSet(
               absl::StrCat(HALMA_BENCH_DATA_DIR, "/", dir, preset, ".txt"))) {
        positions.push_back(p);
      }
    }
    for (const std::string& position : positions) {
      SCOPED_TRACE(absl::StrCat(preset, " ", position));
      v1::LegalMovesRequest request;
      request.mutable_variant()->set_preset(preset);
      request.set_position(position);
      v1::LegalMovesResponse response;
      ASSERT_TRUE(rules.LegalMoves(request, &response).ok());
      ExpectSameJson(response);
      // One piece's moves too.
      if (response.moves_size() > 0) {
        request.set_origin(response.moves(0).origin());
        v1::LegalMovesResponse one;
        ASSERT_TRUE(rules.LegalMoves(request, &one).ok());
        ExpectSameJson(one);
      }
      ++checked;
    }
  }
  EXPECT_GT(checked, 1000);
}

TEST(LegalMovesJsonTest, DefaultsAreLeftOutAsProtobufDoes) {
  ExpectSameJson(v1::LegalMovesResponse());
  v1::LegalMovesResponse response;
  response.add_moves();  // Every field of the move at its default.
  v1::Move* step = response.add_moves();
  step->set_origin("a1");
  step->set_destination("b2");
  step->set_path("a1-b2");
  response.mutable_status();  // Present but empty.
  ExpectSameJson(response);
  response.set_count(2);
  response.set_position("4bbbb/5bbb/6bb/7b/w7/ww6/www5/wwww4 w 0,0");
  ExpectSameJson(response);
}

TEST(LegalMovesJsonTest, LeavesTextItDoesNotWriteToProtobuf) {
  v1::LegalMovesResponse response;
  response.set_position("a\"b");
  std::string written = "kept";
  EXPECT_FALSE(WriteLegalMovesJson(response, &written));
  EXPECT_FALSE(
      WriteLegalMovesJsonFromWire(response.SerializeAsString(), &written));
  EXPECT_EQ(written, "kept");
  // Bytes that are not a LegalMovesResponse as the service writes one.
  for (const std::string& bytes :
       {std::string("\x0a\x05\x0a\x02"
                    "a1"),
        std::string("\x28\x01"), std::string("\x10\xff"),
        std::string("\x0a\x03\x20\x01\x2a")}) {
    EXPECT_FALSE(WriteLegalMovesJsonFromWire(bytes, &written));
    EXPECT_EQ(written, "kept");
  }
}

TEST(LegalMovesJsonTest, TheServiceEncodingReadsBack) {
  // EncodeLegalMoves' bytes (the gRPC answer) through the wire writer.
  const RulesCore rules;
  v1::LegalMovesRequest request;
  request.mutable_variant()->set_preset("classic-16x16");
  std::string encoded;
  ASSERT_TRUE(rules
                  .EncodeLegalMoves(request,
                                    [&encoded](std::size_t size) {
                                      encoded.resize(size);
                                      return encoded.data();
                                    })
                  .ok());
  v1::LegalMovesResponse parsed;
  ASSERT_TRUE(parsed.ParseFromString(encoded));
  std::string written;
  ASSERT_TRUE(WriteLegalMovesJsonFromWire(encoded, &written));
  EXPECT_EQ(written, ProtobufJson(parsed));
}

}  // namespace
}  // namespace halma::service
