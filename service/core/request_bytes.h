// Request bytes -> messages, for both edges (gRPC's raw methods and the
// Connect protocol's application/proto).
//
// Every HalmaRules method receives its request as bytes and parses it here,
// so that a request protobuf cannot parse (truncated, malformed, a string
// field that is not UTF-8) is answered INVALID_ARGUMENT naming the field,
// rather than with an empty message.
#ifndef HALMA_SERVICE_CORE_REQUEST_BYTES_H_
#define HALMA_SERVICE_CORE_REQUEST_BYTES_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/message.h"

namespace halma::service {

// Parses `bytes` into `request` (which should be empty). On failure:
// INVALID_ARGUMENT "request: ..." or "<field path>: ..." (for example
// "move: not valid UTF-8 ..." or "variant: truncated ..."), bounded in
// length, never quoting the bytes.
absl::Status ParseRequest(absl::string_view bytes,
                          google::protobuf::Message* request);

}  // namespace halma::service

#endif  // HALMA_SERVICE_CORE_REQUEST_BYTES_H_
