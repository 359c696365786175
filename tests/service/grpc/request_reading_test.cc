// Adjudicate's request read over a real connection: the in-place reader
// and protobuf's parser answer the same record the same, and what the
// reader leaves to the parser is refused naming the field.
#include <string>
#include <vector>

#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "gtest/gtest.h"
#include "tests/service/fixture/loopback_server.h"

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

const std::string kPreset = Field(1, Field(1, "brainking-8x8"));

TEST(RequestReadingTest, BothPathsAnswerAlike) {
  std::unique_ptr<LoopbackServer> server = LoopbackServer::Start();
  ASSERT_NE(server, nullptr);
  grpc::GenericStub& stub = server->generic();
  const std::string method = "/halma.v1.HalmaRules/Adjudicate";
  const auto answer_of = [&](const std::string& bytes) {
    grpc::ByteBuffer answer;
    const grpc::Status status = CallWithBytes(stub, method, bytes, &answer);
    EXPECT_TRUE(status.ok()) << status.error_message();
    std::vector<grpc::Slice> slices;
    std::string flat;
    if (answer.Dump(&slices).ok()) {
      for (const grpc::Slice& s : slices) {
        flat.append(reinterpret_cast<const char*>(s.begin()), s.size());
      }
    }
    return flat;
  };
  const std::string record =
      Field(3, "b1-d3") + Field(3, "h7-f5") + Field(3, "d3-e4");
  // Read in place, and (an unknown field added) parsed as a message.
  const std::string in_place = answer_of(kPreset + record);
  const std::string parsed = answer_of(kPreset + record + Field(9, "x"));
  EXPECT_EQ(in_place, parsed);
  v1::AdjudicateResponse response;
  ASSERT_TRUE(response.ParseFromString(in_place));
  EXPECT_EQ(response.moves_played(), 3);
  // A non-ASCII move goes to the parser, and is refused naming the ply.
  const grpc::Status refused =
      CallWithBytes(stub, method, kPreset + Field(3, "b1-d\xc3\xa9"));
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(refused.error_message().rfind("moves[0] (ply 1): ", 0), 0u)
      << refused.error_message();
}

}  // namespace
}  // namespace halma::service
