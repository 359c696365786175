// The work every benchmark server does per request, as the Connect handler
// will: parse the JSON body into a protobuf message with protobuf's util and
// serialize a JSON answer. google.protobuf.Struct stands in for the request.
#pragma once

#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>

#include <cstdlib>
#include <string>
#include <string_view>

namespace bench {

inline constexpr std::size_t kMaxBody = 64 * 1024;

// Returns true and the JSON answer, or false and an error message.
inline bool HandleJson(std::string_view body, std::string* out) {
  google::protobuf::Struct request;
  google::protobuf::util::JsonParseOptions parse;
  auto status = google::protobuf::util::JsonStringToMessage(
      google::protobuf::StringPiece(body.data(), body.size()), &request, parse);
  if (!status.ok()) {
    *out = R"({"code":"invalid_argument"})";
    return false;
  }
  google::protobuf::Struct answer;
  auto& fields = *answer.mutable_fields();
  fields["legal"].set_bool_value(true);
  fields["fieldCount"].set_number_value(
      static_cast<double>(request.fields_size()));
  *fields["request"].mutable_struct_value() = request;
  out->clear();
  status = google::protobuf::util::MessageToJsonString(answer, out);
  return status.ok();
}

struct Options {
  int port = 18080;
  int threads = 2;
  int timeout_s = 5;    // idle / request timeout where the library has one
  int max_conns = 256;  // where the library has a limit
};

inline Options ParseArgs(int argc, char** argv) {
  Options o;
  if (argc > 1) o.port = std::atoi(argv[1]);
  if (argc > 2) o.timeout_s = std::atoi(argv[2]);
  if (argc > 3) o.max_conns = std::atoi(argv[3]);
  if (argc > 4) o.threads = std::atoi(argv[4]);
  return o;
}

}  // namespace bench
