// An AdjudicateRequest read in place: the strings point into the request's
// bytes. A 300-move record parsed as a message costs 300 arena strings
// (most with a heap block, being longer than 15 characters) and a UTF-8
// check of each; read in place it costs one pass over the bytes. The gRPC
// edge reads Adjudicate's request and each AdjudicateStream record so, and
// RulesCore::AdjudicateRecord answers from the view.
#ifndef HALMA_SERVICE_CORE_RECORD_VIEW_H_
#define HALMA_SERVICE_CORE_RECORD_VIEW_H_

#include <vector>

#include "absl/strings/string_view.h"

namespace halma::service {

struct AdjudicateRequestView {
  absl::string_view variant;  // A serialized halma.v1.Variant.
  absl::string_view start_position;
  std::vector<absl::string_view> moves;
};

// Reads `bytes` into `view` when they hold an AdjudicateRequest in the form
// serializers write: fields 1 and 2 at most once each, field 3 any number
// of times, in any order, every string ASCII (so valid UTF-8), nothing
// else. Returns false for anything else, leaving it to ParseRequest (which
// accepts or refuses it, naming the field). The variant's bytes are not
// looked into: when they parse as a Variant, the request parses too, and
// the view holds exactly what protobuf would parse; when they do not, the
// request does not either.
bool ReadAdjudicateRequest(absl::string_view bytes,
                           AdjudicateRequestView* view);

// The same for an AdjudicateStreamRequest: its id (field 1, ASCII, at most
// once) and its record (field 2, at most once) read as above; false for
// anything else, left to ParseRequest.
bool ReadAdjudicateStreamRequest(absl::string_view bytes, absl::string_view* id,
                                 AdjudicateRequestView* record);

// A thread or stream keeps the buffers of ordinary records from one call to
// the next, not those of a long one.
void ReleaseLargeBuffers(AdjudicateRequestView* view);

}  // namespace halma::service

#endif  // HALMA_SERVICE_CORE_RECORD_VIEW_H_
