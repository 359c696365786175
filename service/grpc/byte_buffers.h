// gRPC's ByteBuffers <-> the core's messages and statuses: the gRPC edge's
// half of request_bytes.h, and absl::Status -> grpc::Status with the retry
// hint as gRPC's pushback trailer.
#ifndef HALMA_SERVICE_GRPC_BYTE_BUFFERS_H_
#define HALMA_SERVICE_GRPC_BYTE_BUFFERS_H_

#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/message.h"
#include "grpcpp/server_context.h"
#include "grpcpp/support/byte_buffer.h"
#include "grpcpp/support/status.h"

namespace halma::service {

// ParseRequest (request_bytes.h) of a ByteBuffer: no copy when it parses;
// the bytes flattened for the field-naming diagnosis when it does not.
absl::Status ParseRequest(const grpc::ByteBuffer& bytes,
                          google::protobuf::Message* request);

// The bytes of `buffer` in one piece: its one slice, or else a copy in
// `storage`.
absl::string_view FlatBytes(const grpc::ByteBuffer& buffer, grpc::Slice* slice,
                            std::string* storage);

// Serializes `response` into `out`; INTERNAL if it cannot.
absl::Status SerializeResponse(const google::protobuf::Message& response,
                               grpc::ByteBuffer* out);

// The call's status: code and message kept (absl::StatusCode has gRPC's
// numbering). A refusal's retry hint (limit_status.h) is sent as the
// trailer grpc-retry-pushback-ms, which gRPC clients with a retry policy
// honour (gRFC A6).
grpc::Status ToGrpcStatus(const absl::Status& status,
                          grpc::ServerContextBase* context);

}  // namespace halma::service

#endif  // HALMA_SERVICE_GRPC_BYTE_BUFFERS_H_
