#include "service/reflection/reflection_files.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/descriptor.pb.h"
#include "halma/notation.h"

namespace halma::service {

absl::StatusOr<std::unique_ptr<ReflectionFiles>> ReflectionFiles::Create(
    absl::string_view descriptor_set, std::vector<std::string> services) {
  google::protobuf::FileDescriptorSet set;
  if (!set.ParseFromArray(descriptor_set.data(),
                          static_cast<int>(descriptor_set.size()))) {
    return absl::InternalError("reflection: the descriptor set does not parse");
  }
  std::unique_ptr<ReflectionFiles> files(new ReflectionFiles());
  std::vector<std::string> names;
  // protoc writes the set in dependency order, so each file's imports are
  // in the pool before it.
  for (const google::protobuf::FileDescriptorProto& proto : set.file()) {
    if (files->pool_.BuildFile(proto) == nullptr) {
      return absl::InternalError(
          absl::StrCat("reflection: ", proto.name(), " does not build"));
    }
    auto file = std::make_unique<File>();
    file->name = proto.name();
    file->bytes = proto.SerializeAsString();
    for (const std::string& dependency : proto.dependency()) {
      auto found = files->by_name_.find(dependency);
      if (found == files->by_name_.end()) {
        return absl::InternalError(
            absl::StrCat("reflection: ", proto.name(), " imports ", dependency,
                         ", which is not in the set before it"));
      }
      file->dependencies.push_back(found->second);
    }
    files->by_name_[file->name] = file.get();
    names.push_back(file->name);
    files->files_.push_back(std::move(file));
  }
  for (const std::string& service : services) {
    if (files->pool_.FindServiceByName(service) == nullptr) {
      return absl::InternalError(
          absl::StrCat("reflection: service ", service, " is not in the set"));
    }
  }
  files->services_ = std::move(services);
  files->file_names_ = absl::StrJoin(names, ", ");
  return files;
}

absl::StatusOr<const ReflectionFiles::File*> ReflectionFiles::FileByName(
    absl::string_view name) const {
  auto found = by_name_.find(name);
  if (found == by_name_.end()) {
    return absl::NotFoundError(
        absl::StrCat("file_by_filename: ", QuoteForError(name),
                     ": no such file, expected one of ", file_names_));
  }
  return found->second;
}

absl::StatusOr<const ReflectionFiles::File*>
ReflectionFiles::FileContainingSymbol(absl::string_view symbol) const {
  const google::protobuf::FileDescriptor* file =
      pool_.FindFileContainingSymbol(std::string(symbol));
  if (file == nullptr) {
    return absl::NotFoundError(absl::StrCat(
        "file_containing_symbol: ", QuoteForError(symbol),
        ": no such symbol, expected a fully qualified name such as "
        "halma.v1.HalmaRules or halma.v1.LegalMovesRequest"));
  }
  return by_name_.at(file->name());
}

absl::StatusOr<const google::protobuf::Descriptor*>
ReflectionFiles::FindMessage(absl::string_view field,
                             absl::string_view type) const {
  const google::protobuf::Descriptor* message =
      pool_.FindMessageTypeByName(std::string(type));
  if (message == nullptr) {
    return absl::NotFoundError(absl::StrCat(
        field, ": ", QuoteForError(type),
        ": no such message, expected a fully qualified message name"));
  }
  return message;
}

absl::StatusOr<const ReflectionFiles::File*>
ReflectionFiles::FileContainingExtension(absl::string_view containing_type,
                                         int number) const {
  absl::StatusOr<const google::protobuf::Descriptor*> message =
      FindMessage("file_containing_extension.containing_type", containing_type);
  if (!message.ok()) return message.status();
  const google::protobuf::FieldDescriptor* extension =
      pool_.FindExtensionByNumber(*message, number);
  if (extension == nullptr) {
    return absl::NotFoundError(absl::StrCat(
        "file_containing_extension.extension_number: ", number, ": ",
        (*message)->full_name(), " has no extension with that number"));
  }
  return by_name_.at(extension->file()->name());
}

absl::StatusOr<std::vector<int>> ReflectionFiles::ExtensionNumbers(
    absl::string_view type) const {
  absl::StatusOr<const google::protobuf::Descriptor*> message =
      FindMessage("all_extension_numbers_of_type", type);
  if (!message.ok()) return message.status();
  std::vector<const google::protobuf::FieldDescriptor*> extensions;
  pool_.FindAllExtensions(*message, &extensions);
  std::vector<int> numbers;
  numbers.reserve(extensions.size());
  for (const auto* extension : extensions) {
    numbers.push_back(extension->number());
  }
  return numbers;
}

}  // namespace halma::service
