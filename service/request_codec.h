// Requests as bytes -> messages, and answers back, for the raw methods.
//
// Every HalmaRules method receives its request as bytes and parses it here,
// so that a request protobuf cannot parse (truncated, malformed, a string
// field that is not UTF-8) is answered INVALID_ARGUMENT naming the field,
// rather than gRPC's own UNIMPLEMENTED with an empty message.
#ifndef HALMA_SERVICE_REQUEST_CODEC_H_
#define HALMA_SERVICE_REQUEST_CODEC_H_

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

// Serializes `response` into `out`; INTERNAL if it cannot.
absl::Status SerializeResponse(const google::protobuf::Message& response,
                               grpc::ByteBuffer* out);

}  // namespace halma::service

#endif  // HALMA_SERVICE_REQUEST_CODEC_H_
