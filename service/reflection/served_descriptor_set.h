// The FileDescriptorSet reflection serves: every file of the served
// services and their imports, as protoc wrote it (with json_name and source
// info), embedded at build time (CMakeLists.txt in this folder).
#ifndef HALMA_SERVICE_REFLECTION_SERVED_DESCRIPTOR_SET_H_
#define HALMA_SERVICE_REFLECTION_SERVED_DESCRIPTOR_SET_H_

#include "absl/strings/string_view.h"

namespace halma::service {

// Serialized google.protobuf.FileDescriptorSet; files in dependency order.
absl::string_view ServedDescriptorSet();

}  // namespace halma::service

#endif  // HALMA_SERVICE_REFLECTION_SERVED_DESCRIPTOR_SET_H_
