// ParseMove on arbitrary text and board sizes.
//
// Input: byte 0 picks the board size (4 + byte % 13), the rest is the text.
// Properties: a parsed move is "pass" or two or more squares on the board,
// formats back to exactly the text and parses again to the same move; every
// square of it parses alone; an error is INVALID_ARGUMENT, bounded,
// printable and starts with "move ".
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
  const absl::StatusOr<MoveText> move = ParseMove(in.text, n);
  const std::string quoted = QuoteForError(in.text);
  if (!move.ok()) {
    fuzz::CheckRequestError(move.status(), {"move "}, quoted);
    return 0;
  }
  if (move->is_pass) {
    FUZZ_CHECK(in.text == "pass" && move->squares.empty(), quoted);
    return 0;
  }
  FUZZ_CHECK(move->squares.size() >= 2, quoted);
  for (Square s : move->squares) {
    FUZZ_CHECK(FileOf(s) < n && RankOf(s) < n, quoted);
    const absl::StatusOr<Square> alone = ParseSquare(FormatSquare(s), n);
    FUZZ_CHECK(alone.ok() && *alone == s, quoted);
  }
  const std::string text = FormatMove(*move);
  FUZZ_CHECK(text == in.text, quoted + " formats as " + text);
  FUZZ_CHECK(FormatPath(move->squares.data(),
                        static_cast<int>(move->squares.size())) == text,
             quoted);
  const absl::StatusOr<MoveText> again = ParseMove(text, n);
  FUZZ_CHECK(again.ok() && *again == *move, quoted);
  return 0;
}
