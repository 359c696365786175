// AdjudicateStream's in-place read of a record: arbitrary bytes as one
// AdjudicateStreamRequest.
//
// Properties: whenever ReadAdjudicateStreamRequest accepts the bytes, every
// field of the record after its first move is a move (CountMoves) and
// every move is ASCII, protobuf parses them exactly when the record's
// variant bytes parse, to the same id, variant, start position and moves
// (otherwise AdjudicateView answers nothing and the stream parses the
// record: fuzz/adjudicate_request_fuzzer.cc checks that part);
// and whenever protobuf
// parses them, ParseRequest (what the stream falls back to) agrees and its
// errors name a field.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz/service_fuzz.h"
#include "service/core/record_view.h"
#include "service/core/request_bytes.h"
#include "service/grpc/byte_buffers.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace halma;
  const absl::string_view bytes(reinterpret_cast<const char*>(data), size);
  absl::string_view id;
  service::AdjudicateRequestView view;
  // Read in place, every field after the first move a move of ASCII.
  if (service::ReadAdjudicateStreamRequest(bytes, &id, &view) &&
      service::MovesReadInPlace(view)) {
    const std::vector<absl::string_view> moves = service::MovesOf(view);
    v1::Variant variant;
    const bool variant_parses = variant.ParseFromArray(
        view.variant.data(), static_cast<int>(view.variant.size()));
    v1::AdjudicateStreamRequest parsed;
    FUZZ_CHECK(parsed.ParseFromArray(bytes.data(), static_cast<int>(size)) ==
                   variant_parses,
               "read in place: the request parses unlike its variant");
    if (variant_parses) {
      const v1::AdjudicateRequest& record = parsed.record();
      bool same =
          parsed.id() == id &&
          variant.SerializeAsString() == record.variant().SerializeAsString() &&
          record.start_position() == view.start_position &&
          record.moves_size() == service::CountMoves(view) &&
          record.moves_size() == static_cast<int>(moves.size()) &&
          record.record_text().empty() && !record.want_record_text();
      for (int i = 0; same && i < record.moves_size(); ++i) {
        same = record.moves(i) == moves[i];
      }
      FUZZ_CHECK(same, "the in-place view differs from the parsed request");
    }
  }
  v1::AdjudicateStreamRequest request;
  fuzz::ParseBoth(bytes, {"request", "id", "record"}, &request).IgnoreError();
  return 0;
}
