// The service targets' shared driver: arbitrary bytes as a serialized
// request, through ParseRequest (both overloads) and, when it parses, the
// rules core method the server runs after deserialization.
#ifndef HALMA_FUZZ_SERVICE_FUZZ_H_
#define HALMA_FUZZ_SERVICE_FUZZ_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "fuzz/fuzz_input.h"
#include "google/protobuf/stubs/logging.h"
#include "grpcpp/support/byte_buffer.h"
#include "grpcpp/support/slice.h"
#include "halma/v1/halma.pb.h"
#include "service/core/convert.h"
#include "service/core/record_view.h"
#include "service/core/request_bytes.h"
#include "service/core/rules_core.h"
#include "service/grpc/byte_buffers.h"

namespace halma::fuzz {

// Small enough that inputs of a few KB reach the record limit.
inline constexpr int kFuzzMaxRecordMoves = 100;

inline const service::RulesCore& Service() {
  static const auto* rules = [] {
    service::RulesOptions options;
    options.max_record_moves = kFuzzMaxRecordMoves;
    return new service::RulesCore(options);
  }();
  return *rules;
}

// Whether `message` starts with one of the request's fields (or "request"),
// followed by what may follow a field path.
inline bool NamesField(absl::string_view message,
                       const std::vector<absl::string_view>& fields) {
  for (absl::string_view field : fields) {
    if (!absl::StartsWith(message, field)) continue;
    if (message.size() == field.size()) return true;
    const char next = message[field.size()];
    if (next == ':' || next == '.' || next == '[' || next == ' ') return true;
  }
  return false;
}

// A request error: INVALID_ARGUMENT, bounded, printable, naming a field.
inline void CheckServiceError(const absl::Status& status,
                              const std::vector<absl::string_view>& fields,
                              absl::string_view context) {
  const std::string where = absl::StrCat(context, ": ", status.ToString());
  FUZZ_CHECK(status.code() == absl::StatusCode::kInvalidArgument, where);
  const absl::string_view message = status.message();
  FUZZ_CHECK(message.size() <= kMaxErrorMessage,
             absl::StrCat(context, ": message of ", message.size(),
                          " bytes: ", message.substr(0, 300)));
  FUZZ_CHECK(NamesField(message, fields), "names no field: " + where);
  for (char c : message) {
    const unsigned char u = static_cast<unsigned char>(c);
    FUZZ_CHECK(u >= 0x20 && u != 0x7f, "control character: " + where);
  }
}

// The bytes as a ByteBuffer of up to three slices, cut where the input says.
inline grpc::ByteBuffer SlicedBuffer(absl::string_view bytes) {
  std::vector<grpc::Slice> slices;
  const size_t a = bytes.empty() ? 0 : (bytes.size() * 7 / 16) % bytes.size();
  const size_t b = a + (bytes.size() - a) / 2;
  const size_t cuts[] = {0, a, b, bytes.size()};
  for (int i = 0; i < 3; ++i) {
    if (cuts[i + 1] > cuts[i]) {
      slices.emplace_back(bytes.data() + cuts[i], cuts[i + 1] - cuts[i]);
    }
  }
  return grpc::ByteBuffer(slices.data(), slices.size());
}

// Parses `bytes` with both overloads of ParseRequest, which must agree.
// Returns the status; on success `request` holds the message.
template <typename Request>
absl::Status ParseBoth(absl::string_view bytes,
                       const std::vector<absl::string_view>& fields,
                       Request* request) {
  const absl::Status flat = service::ParseRequest(bytes, request);
  Request other;
  const grpc::ByteBuffer buffer = SlicedBuffer(bytes);
  const absl::Status sliced = service::ParseRequest(buffer, &other);
  FUZZ_CHECK(flat == sliced, "ParseRequest overloads disagree: " +
                                 flat.ToString() + " / " + sliced.ToString());
  if (!flat.ok()) {
    CheckServiceError(flat, fields, "ParseRequest");
    return flat;
  }
  FUZZ_CHECK(request->SerializeAsString() == other.SerializeAsString(),
             "ParseRequest overloads parse differently");
  return flat;
}

// An OK answer serializes, through SerializeResponse too, and parses back
// to the same message.
template <typename Response>
void CheckSerializes(const Response& response) {
  std::string bytes;
  FUZZ_CHECK(response.SerializeToString(&bytes), response.DebugString());
  Response back;
  FUZZ_CHECK(back.ParseFromString(bytes), response.DebugString());
  FUZZ_CHECK(back.SerializeAsString() == bytes, response.DebugString());
  grpc::ByteBuffer buffer;
  const absl::Status status = service::SerializeResponse(response, &buffer);
  FUZZ_CHECK(status.ok(), status.ToString());
  FUZZ_CHECK(buffer.Length() == bytes.size(), response.DebugString());
}

// The variant a request names, when it is valid.
inline bool RequestVariant(const v1::Variant& proto, Variant* out) {
  Variant custom;
  const absl::StatusOr<const Variant*> variant =
      service::ResolveVariant(proto, &custom);
  if (!variant.ok()) return false;
  *out = **variant;
  return true;
}

inline void CheckAnswerPosition(const Variant& variant, absl::string_view text,
                                absl::string_view context) {
  const absl::StatusOr<Position> position = ParsePosition(text, variant);
  FUZZ_CHECK(position.ok(), absl::StrCat(context, ": ", text, ": ",
                                         position.status().ToString()));
  CheckPositionRoundTrip(variant, *position, context);
  FUZZ_CHECK(FormatPosition(*position, variant) == text, std::string(text));
}

}  // namespace halma::fuzz

// Protobuf logs every string field that is not UTF-8 to stderr (the server
// rate-limits those lines); here they would only slow the fuzzer down.
extern "C" int LLVMFuzzerInitialize(int* /*argc*/, char*** /*argv*/) {
  google::protobuf::SetLogHandler(nullptr);
  return 0;
}

#endif  // HALMA_FUZZ_SERVICE_FUZZ_H_
