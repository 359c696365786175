// ParsePosition on arbitrary text, over every preset and the custom variants
// of fuzz_input.h.
//
// Input: byte 0 picks the variant, the rest is the position text.
// Properties: a parsed position is consistent (CheckPositionConsistency),
// its canonical form (FormatPosition) is exactly the text with every number
// written without leading zeros and zero-length runs dropped (computed here
// independently), and the canonical form parses again to the same position
// and formats identically. An error is INVALID_ARGUMENT, bounded, printable
// and starts with "position ".
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "fuzz/fuzz_input.h"
#include "halma/notation.h"
#include "halma/position.h"

namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Every maximal run of digits without its leading zeros; a run of zeros
// becomes "0", or nothing when `drop_zero` (an empty run on the board).
std::string StripLeadingZeros(absl::string_view text, bool drop_zero) {
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    if (!IsDigit(text[i])) {
      out += text[i++];
      continue;
    }
    size_t j = i;
    while (j < text.size() && IsDigit(text[j])) ++j;
    absl::string_view run = text.substr(i, j - i);
    while (run.size() > 1 && run[0] == '0') run.remove_prefix(1);
    if (!(drop_zero && run == "0")) out.append(run.data(), run.size());
    i = j;
  }
  return out;
}

std::string ExpectedCanonical(absl::string_view text) {
  const std::vector<absl::string_view> fields = absl::StrSplit(text, ' ');
  if (fields.size() != 3) return "(not three fields)";
  return StripLeadingZeros(fields[0], /*drop_zero=*/true) + " " +
         std::string(fields[1]) + " " +
         StripLeadingZeros(fields[2], /*drop_zero=*/false);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace halma;
  const fuzz::FuzzText in = fuzz::SplitSelector(data, size);
  const fuzz::FuzzVariant& fv = fuzz::PickVariant(in.selector);
  const std::string context = fv.label + " " + QuoteForError(in.text);
  const absl::StatusOr<Position> position = ParsePosition(in.text, fv.variant);
  if (!position.ok()) {
    fuzz::CheckRequestError(position.status(), {"position "}, context);
    return 0;
  }
  const std::string canonical =
      fuzz::CheckPositionRoundTrip(fv.variant, *position, context);
  const std::string expected = ExpectedCanonical(in.text);
  FUZZ_CHECK(canonical == expected,
             context + " formats as " + canonical + ", expected " + expected);
  return 0;
}
