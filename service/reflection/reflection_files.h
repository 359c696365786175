// The files server reflection answers with, and lookups by file name,
// symbol and extension.
//
// Each file is kept as the bytes protoc wrote, so that what a client
// receives carries json_name and comments exactly as in the .proto; a
// DescriptorPool built from the same files answers the symbol lookups
// (messages, fields, enums, enum values, services, methods).
#ifndef HALMA_SERVICE_REFLECTION_REFLECTION_FILES_H_
#define HALMA_SERVICE_REFLECTION_REFLECTION_FILES_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/descriptor.h"

namespace halma::service {

class ReflectionFiles {
 public:
  struct File {
    std::string name;
    std::string bytes;                      // A serialized FileDescriptorProto.
    std::vector<const File*> dependencies;  // Direct imports.
  };

  // From a serialized FileDescriptorSet (every import included); lists the
  // services in `services` only (those the server registered), each of
  // which must be defined in the set.
  static absl::StatusOr<std::unique_ptr<ReflectionFiles>> Create(
      absl::string_view descriptor_set, std::vector<std::string> services);

  ReflectionFiles(const ReflectionFiles&) = delete;
  ReflectionFiles& operator=(const ReflectionFiles&) = delete;

  const std::vector<std::string>& services() const { return services_; }

  // NOT_FOUND (with what was expected) when there is no such file, symbol,
  // message or extension. The texts looked up are quoted cut to a bounded
  // length.
  absl::StatusOr<const File*> FileByName(absl::string_view name) const;
  absl::StatusOr<const File*> FileContainingSymbol(
      absl::string_view symbol) const;
  absl::StatusOr<const File*> FileContainingExtension(
      absl::string_view containing_type, int number) const;
  // The extension numbers of a message type (none in these files, but a
  // client may ask).
  absl::StatusOr<std::vector<int>> ExtensionNumbers(
      absl::string_view type) const;

 private:
  ReflectionFiles() = default;

  absl::StatusOr<const google::protobuf::Descriptor*> FindMessage(
      absl::string_view field, absl::string_view type) const;

  google::protobuf::DescriptorPool pool_;
  std::vector<std::unique_ptr<File>> files_;
  absl::flat_hash_map<std::string, const File*> by_name_;
  std::vector<std::string> services_;
  std::string file_names_;  // For the "expected one of" of an unknown file.
};

}  // namespace halma::service

#endif  // HALMA_SERVICE_REFLECTION_REFLECTION_FILES_H_
