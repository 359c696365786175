// ListVariants' request handling: arbitrary bytes as the serialized request,
// through ParseRequest and RulesCore::ListVariants.
//
// Properties: ParseRequest's two overloads agree; an error is
// INVALID_ARGUMENT, bounded, printable, and names "request"; any request
// that parses gets the same answer, which serializes and lists every preset
// of the engine, in its order, with its spec, seats, piece count and
// canonical start position.
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz/service_fuzz.h"
#include "halma/notation.h"
#include "halma/position.h"
#include "halma/variant.h"

namespace {

using namespace halma;

void CheckPresets(const v1::ListVariantsResponse& response) {
  const std::vector<std::string>& names = PresetNames();
  FUZZ_CHECK(response.variants_size() == static_cast<int>(names.size()),
             response.ShortDebugString());
  for (int i = 0; i < response.variants_size(); ++i) {
    const v1::VariantInfo& info = response.variants(i);
    const absl::StatusOr<Variant> v = PresetVariant(names[i]);
    FUZZ_CHECK(v.ok() && info.name() == names[i], info.ShortDebugString());
    FUZZ_CHECK(info.spec().board_size() == v->size &&
                   info.spec().seat_count() == v->seat_count &&
                   info.seats_size() == v->seat_count &&
                   info.pieces_per_seat() == v->pieces_per_seat &&
                   info.spec().camp_rows_size() ==
                       static_cast<int>(v->spec.camp_rows.size()) &&
                   !info.source().empty(),
               info.ShortDebugString());
    FUZZ_CHECK(info.start_position() == FormatPosition(StartPosition(*v), *v),
               info.ShortDebugString());
    fuzz::CheckAnswerPosition(*v, info.start_position(), info.name());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view bytes(reinterpret_cast<const char*>(data), size);
  v1::ListVariantsRequest request;
  if (!fuzz::ParseBoth(bytes, {"request"}, &request).ok()) return 0;
  v1::ListVariantsResponse response;
  const absl::Status status = fuzz::Service().ListVariants(request, &response);
  FUZZ_CHECK(status.ok(), status.ToString());
  fuzz::CheckSerializes(response);
  static const std::string* first = [&] {
    CheckPresets(response);
    return new std::string(response.SerializeAsString());
  }();
  FUZZ_CHECK(response.SerializeAsString() == *first,
             response.ShortDebugString());
  return 0;
}
