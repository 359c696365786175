// grpc.reflection.v1.ServerReflection and grpc.reflection.v1alpha's, on
// gRPC's callback API, answering from ReflectionFiles.
//
// gRPC 1.51's own reflection serves v1alpha only, from the descriptors
// compiled into the generated C++ (no json_name, no comments). The two
// versions are the same messages under two package names, so one stream
// implementation reads both as bytes and answers with v1 messages.
#ifndef HALMA_SERVICE_REFLECTION_REFLECTION_SERVICE_H_
#define HALMA_SERVICE_REFLECTION_REFLECTION_SERVICE_H_

#include <memory>

#include "absl/container/flat_hash_set.h"
#include "grpc/reflection/v1/reflection.grpc.pb.h"
#include "grpc/reflection/v1alpha/reflection.grpc.pb.h"
#include "grpcpp/grpcpp.h"
#include "service/reflection/reflection_files.h"

namespace halma::service {

// Answers one request of a reflection stream. `sent` holds the files
// already sent on this stream: a file_descriptor_response carries the file
// asked for and those of its imports (transitively) not sent before, as
// gRPC's implementation does. Unknown names are answered with an
// error_response (NOT_FOUND or INVALID_ARGUMENT), and the stream goes on.
void AnswerReflectionRequest(
    const ReflectionFiles& files,
    const grpc::reflection::v1::ServerReflectionRequest& request,
    absl::flat_hash_set<const ReflectionFiles::File*>* sent,
    grpc::reflection::v1::ServerReflectionResponse* response);

class ReflectionV1Service final
    : public grpc::reflection::v1::ServerReflection::
          WithRawCallbackMethod_ServerReflectionInfo<
              grpc::reflection::v1::ServerReflection::Service> {
 public:
  explicit ReflectionV1Service(std::shared_ptr<const ReflectionFiles> files)
      : files_(std::move(files)) {}
  grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer>*
  ServerReflectionInfo(grpc::CallbackServerContext* context) override;

 private:
  const std::shared_ptr<const ReflectionFiles> files_;
};

class ReflectionV1AlphaService final
    : public grpc::reflection::v1alpha::ServerReflection::
          WithRawCallbackMethod_ServerReflectionInfo<
              grpc::reflection::v1alpha::ServerReflection::Service> {
 public:
  explicit ReflectionV1AlphaService(
      std::shared_ptr<const ReflectionFiles> files)
      : files_(std::move(files)) {}
  grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer>*
  ServerReflectionInfo(grpc::CallbackServerContext* context) override;

 private:
  const std::shared_ptr<const ReflectionFiles> files_;
};

}  // namespace halma::service

#endif  // HALMA_SERVICE_REFLECTION_REFLECTION_SERVICE_H_
