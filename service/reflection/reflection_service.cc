#include "service/reflection/reflection_service.h"

#include <utility>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "service/grpc/byte_buffers.h"

namespace halma::service {
namespace {

using grpc::reflection::v1::ServerReflectionRequest;
using grpc::reflection::v1::ServerReflectionResponse;
using File = ReflectionFiles::File;

void SetError(const absl::Status& status, ServerReflectionResponse* response) {
  auto* error = response->mutable_error_response();
  error->set_error_code(static_cast<int>(status.code()));
  error->set_error_message(std::string(status.message()));
}

// `file` first, then its imports depth first, each file once per stream.
void AddFiles(const File* file, absl::flat_hash_set<const File*>* sent,
              ServerReflectionResponse* response) {
  std::vector<const File*> pending = {file};
  bool first = true;
  while (!pending.empty()) {
    const File* next = pending.back();
    pending.pop_back();
    // The file asked for is sent even when it was sent before; an import
    // only when it was not.
    if (!sent->insert(next).second && !first) continue;
    first = false;
    response->mutable_file_descriptor_response()->add_file_descriptor_proto(
        next->bytes);
    for (const File* dependency : next->dependencies) {
      if (!sent->contains(dependency)) pending.push_back(dependency);
    }
  }
}

void AddFilesOrError(const absl::StatusOr<const File*>& file,
                     absl::flat_hash_set<const File*>* sent,
                     ServerReflectionResponse* response) {
  if (file.ok()) {
    AddFiles(*file, sent, response);
  } else {
    SetError(file.status(), response);
  }
}

// One reflection stream: reads a request, writes its answer, reads the
// next, so that a client that does not read its answers holds at most one
// of them in the server (flow control does the rest). Ends when the client
// half-closes, cancels, or sends bytes that do not parse.
class ReflectionStream
    : public grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer> {
 public:
  explicit ReflectionStream(std::shared_ptr<const ReflectionFiles> files)
      : files_(std::move(files)) {
    StartRead(&request_bytes_);
  }

  void OnReadDone(bool ok) override {
    if (!ok) {  // Half-close (or the call is gone).
      Finish(grpc::Status::OK);
      return;
    }
    ServerReflectionRequest request;
    absl::Status parsed = ParseRequest(request_bytes_, &request);
    request_bytes_.Clear();
    if (!parsed.ok()) {
      Finish(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                          std::string(parsed.message())));
      return;
    }
    ServerReflectionResponse response;
    AnswerReflectionRequest(*files_, request, &sent_, &response);
    absl::Status serialized = SerializeResponse(response, &response_bytes_);
    if (!serialized.ok()) {
      Finish(grpc::Status(grpc::StatusCode::INTERNAL,
                          std::string(serialized.message())));
      return;
    }
    StartWrite(&response_bytes_);
  }

  void OnWriteDone(bool ok) override {
    response_bytes_.Clear();
    if (!ok) {
      Finish(grpc::Status(grpc::StatusCode::CANCELLED, "write failed"));
      return;
    }
    StartRead(&request_bytes_);
  }

  void OnDone() override { delete this; }

 private:
  const std::shared_ptr<const ReflectionFiles> files_;
  absl::flat_hash_set<const File*> sent_;
  grpc::ByteBuffer request_bytes_;
  grpc::ByteBuffer response_bytes_;
};

}  // namespace

void AnswerReflectionRequest(const ReflectionFiles& files,
                             const ServerReflectionRequest& request,
                             absl::flat_hash_set<const File*>* sent,
                             ServerReflectionResponse* response) {
  response->set_valid_host(request.host());
  *response->mutable_original_request() = request;
  switch (request.message_request_case()) {
    case ServerReflectionRequest::kFileByFilename:
      AddFilesOrError(files.FileByName(request.file_by_filename()), sent,
                      response);
      return;
    case ServerReflectionRequest::kFileContainingSymbol:
      AddFilesOrError(
          files.FileContainingSymbol(request.file_containing_symbol()), sent,
          response);
      return;
    case ServerReflectionRequest::kFileContainingExtension:
      AddFilesOrError(
          files.FileContainingExtension(
              request.file_containing_extension().containing_type(),
              request.file_containing_extension().extension_number()),
          sent, response);
      return;
    case ServerReflectionRequest::kAllExtensionNumbersOfType: {
      absl::StatusOr<std::vector<int>> numbers =
          files.ExtensionNumbers(request.all_extension_numbers_of_type());
      if (!numbers.ok()) {
        SetError(numbers.status(), response);
        return;
      }
      auto* answer = response->mutable_all_extension_numbers_response();
      answer->set_base_type_name(request.all_extension_numbers_of_type());
      for (int number : *numbers) answer->add_extension_number(number);
      return;
    }
    case ServerReflectionRequest::kListServices:
      for (const std::string& name : files.services()) {
        response->mutable_list_services_response()->add_service()->set_name(
            name);
      }
      return;
    case ServerReflectionRequest::MESSAGE_REQUEST_NOT_SET:
      break;
  }
  SetError(absl::InvalidArgumentError(
               "message_request: none set, expected one of file_by_filename, "
               "file_containing_symbol, file_containing_extension, "
               "all_extension_numbers_of_type, list_services"),
           response);
}

grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer>*
ReflectionV1Service::ServerReflectionInfo(
    grpc::CallbackServerContext* /*context*/) {
  return new ReflectionStream(files_);
}

grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer>*
ReflectionV1AlphaService::ServerReflectionInfo(
    grpc::CallbackServerContext* /*context*/) {
  return new ReflectionStream(files_);
}

}  // namespace halma::service
