// The trace id of a W3C Trace Context `traceparent` header
// (https://www.w3.org/TR/trace-context/#traceparent-header), so that an
// access-log line can be joined with the caller's trace.
#ifndef HALMA_SERVICE_LOG_TRACEPARENT_H_
#define HALMA_SERVICE_LOG_TRACEPARENT_H_

#include <optional>
#include <string>
#include <string_view>

namespace halma::service {

// Parses `version-traceid-parentid-flags` (2, 32, 16 and 2 lowercase hex
// digits) and returns the 32-digit trace id. Returns nullopt, as the spec
// asks a receiver to treat the header as absent, for: wrong lengths or
// separators, uppercase or other non-hex digits, version ff, an all-zero
// trace id or parent id, and version 00 with anything after the flags.
// Later versions may append "-..." fields, which are ignored. Spaces and
// tabs around the value (HTTP optional whitespace) are allowed.
std::optional<std::string> TraceIdFromTraceparent(std::string_view header);

}  // namespace halma::service

#endif  // HALMA_SERVICE_LOG_TRACEPARENT_H_
