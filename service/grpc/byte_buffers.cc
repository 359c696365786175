#include "service/grpc/byte_buffers.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "grpcpp/impl/codegen/proto_utils.h"
#include "grpcpp/support/proto_buffer_reader.h"
#include "grpcpp/support/proto_buffer_writer.h"
#include "service/admission/limit_status.h"
#include "service/core/request_bytes.h"

namespace halma::service {

absl::Status ParseRequest(const grpc::ByteBuffer& bytes,
                          google::protobuf::Message* request) {
  {
    grpc::ByteBuffer shared(bytes);  // Shares the slices: no copy.
    grpc::ProtoBufferReader reader(&shared);
    if (request->ParseFromZeroCopyStream(&reader)) return absl::OkStatus();
  }
  // The slow path, for bad requests only: the bytes in one piece, parsed
  // again for the diagnosis.
  grpc::Slice slice;
  std::string storage;
  request->Clear();
  return ParseRequest(FlatBytes(bytes, &slice, &storage), request);
}

absl::string_view FlatBytes(const grpc::ByteBuffer& buffer, grpc::Slice* slice,
                            std::string* storage) {
  if (buffer.TrySingleSlice(slice).ok()) {
    return absl::string_view(reinterpret_cast<const char*>(slice->begin()),
                             slice->size());
  }
  storage->clear();
  std::vector<grpc::Slice> slices;
  if (buffer.Dump(&slices).ok()) {
    for (const grpc::Slice& piece : slices) {
      storage->append(reinterpret_cast<const char*>(piece.begin()),
                      piece.size());
    }
  }
  return *storage;
}

absl::Status SerializeResponse(const google::protobuf::Message& response,
                               grpc::ByteBuffer* out) {
  bool own_buffer = false;
  grpc::Status status = grpc::GenericSerialize<grpc::ProtoBufferWriter,
                                               google::protobuf::Message>(
      response, out, &own_buffer);
  if (!status.ok()) {
    return absl::InternalError(absl::StrCat(
        "cannot serialize the answer ", response.GetDescriptor()->full_name()));
  }
  return absl::OkStatus();
}

grpc::Status ToGrpcStatus(const absl::Status& status,
                          grpc::ServerContextBase* context) {
  if (status.ok()) return grpc::Status::OK;
  if (context != nullptr) {
    if (std::optional<absl::Duration> retry = RetryAfterOf(status);
        retry.has_value()) {
      context->AddTrailingMetadata(
          "grpc-retry-pushback-ms",
          absl::StrCat(
              std::max<std::int64_t>(1, absl::ToInt64Milliseconds(absl::Ceil(
                                            *retry, absl::Milliseconds(1))))));
    }
  }
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()),
                      std::string(status.message()));
}

}  // namespace halma::service
