// Requests as bytes -> messages, and answers back, for the raw methods.
//
// Every HalmaRules method receives its request as bytes and parses it here,
// so that a request protobuf cannot parse (truncated, malformed, a string
// field that is not UTF-8) is answered INVALID_ARGUMENT naming the field,
// rather than gRPC's own UNIMPLEMENTED with an empty message.
#ifndef HALMA_SERVICE_REQUEST_CODEC_H_
#define HALMA_SERVICE_REQUEST_CODEC_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/message.h"
#include "grpcpp/support/byte_buffer.h"

namespace halma::service {

// Parses `bytes` into `request` (which should be empty). On failure:
// INVALID_ARGUMENT "request: ..." or "<field path>: ..." (for example
// "move: not valid UTF-8 ..." or "variant: truncated ..."), bounded in
// length, never quoting the bytes.
absl::Status ParseRequest(absl::string_view bytes,
                          google::protobuf::Message* request);
absl::Status ParseRequest(const grpc::ByteBuffer& bytes,
                          google::protobuf::Message* request);

// An AdjudicateRequest read in place: the strings point into the bytes.
// A 300-move record parsed as a message costs 300 arena strings (most with
// a heap block, being longer than 15 characters) and a UTF-8 check of each;
// read in place it costs one pass over the bytes.
struct AdjudicateRequestView {
  absl::string_view variant;  // A serialized halma.v1.Variant.
  absl::string_view start_position;
  std::vector<absl::string_view> moves;
};

// Reads `bytes` into `view` when they hold an AdjudicateRequest in the form
// serializers write: fields 1 and 2 at most once each, field 3 any number
// of times, in any order, every string ASCII (so valid UTF-8), nothing
// else. Returns false for anything else, leaving it to ParseRequest (which
// accepts or refuses it, naming the field). The variant's bytes are not
// looked into: when they parse as a Variant, the request parses too, and
// the view holds exactly what protobuf would parse; when they do not, the
// request does not either.
bool ReadAdjudicateRequest(absl::string_view bytes,
                           AdjudicateRequestView* view);

// The same for an AdjudicateStreamRequest: its id (field 1, ASCII, at most
// once) and its record (field 2, at most once) read as above; false for
// anything else, left to ParseRequest.
bool ReadAdjudicateStreamRequest(absl::string_view bytes, absl::string_view* id,
                                 AdjudicateRequestView* record);

// The bytes of `buffer` in one piece: its one slice, or else a copy in
// `storage`.
absl::string_view FlatBytes(const grpc::ByteBuffer& buffer, grpc::Slice* slice,
                            std::string* storage);

// Serializes `response` into `out`; INTERNAL if it cannot.
absl::Status SerializeResponse(const google::protobuf::Message& response,
                               grpc::ByteBuffer* out);

}  // namespace halma::service

#endif  // HALMA_SERVICE_REQUEST_CODEC_H_
