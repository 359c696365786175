// ParseSquare on arbitrary text and board sizes.
//
// Input: byte 0 picks the board size (4 + byte % 13), the rest is the text.
// Properties: a parsed square is on the board and formats back to exactly
// the text (squares have one spelling); an error is INVALID_ARGUMENT,
// bounded, printable and starts with "square ".
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz/fuzz_input.h"
#include "halma/notation.h"
#include "halma/square.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace halma;
  const fuzz::FuzzText in = fuzz::SplitSelector(data, size);
  const int n =
      kMinBoardSize + in.selector % (kMaxBoardSize - kMinBoardSize + 1);
  const absl::StatusOr<Square> square = ParseSquare(in.text, n);
  if (!square.ok()) {
    fuzz::CheckRequestError(square.status(), {"square "},
                            QuoteForError(in.text));
    return 0;
  }
  FUZZ_CHECK(FileOf(*square) < n && RankOf(*square) < n,
             QuoteForError(in.text));
  FUZZ_CHECK(MakeSquare(FileOf(*square), RankOf(*square)) == *square,
             QuoteForError(in.text));
  FUZZ_CHECK(FormatSquare(*square) == in.text,
             QuoteForError(in.text) + " formats as " + FormatSquare(*square));
  return 0;
}
