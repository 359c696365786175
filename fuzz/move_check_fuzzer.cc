// CheckMove on arbitrary positions and move texts (full paths, two-square
// shorthand, "pass").
//
// Input: byte 0 picks the variant; line 1 is the position (empty: the start
// position; text that does not parse is used as bytes to build a position,
// see PositionFromBytes), line 2 the move text.
// Properties: a malformed move text is an INVALID_ARGUMENT naming "move ".
// For a well-formed move: a finished game refuses every move as game-over;
// "pass" is legal exactly when the side to move has no legal move (which is
// when EvaluateStatus says it must pass); a two-square move is legal exactly
// when its (origin, destination) pair is in the legal-move list as what two
// squares mean (a step for neighbours, one hop for squares two apart on a
// line, any chain otherwise), and any legal move's pair is listed with the
// same fewest hops; the normalised path
// starts at the origin, ends at the destination, has the hops it says and
// validates again to itself; the position after is the position with one
// piece moved and one move counted, consistent, and round-trips through
// FormatPosition/ParsePosition. An illegal move has a bounded, printable
// reason that agrees with the board for empty-origin and not-your-piece.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "fuzz/fuzz_input.h"
#include "halma/move_check.h"
#include "halma/movegen.h"
#include "halma/notation.h"
#include "halma/position.h"
#include "halma/game_status.h"

namespace {

using namespace halma;

bool AreNeighbours(Square a, Square b) {
  const int dx = FileOf(a) - FileOf(b), dy = RankOf(a) - RankOf(b);
  return dx >= -1 && dx <= 1 && dy >= -1 && dy <= 1 && (dx | dy) != 0;
}

// Whether the listed move (or none) is what its two squares written as a
// move mean: neighbours are a step, squares two apart on a line a single
// hop, any other pair "by any chain" (docs/rules.md section 4). A destination
// two apart on a line that only a longer chain reaches needs its full path.
bool WrittenAsTwoSquares(const LegalMove* m) {
  if (m == nullptr) return false;
  if (AreNeighbours(m->origin, m->destination)) return m->hops == 0;
  const int dx = FileOf(m->destination) - FileOf(m->origin);
  const int dy = RankOf(m->destination) - RankOf(m->origin);
  const bool hop_shaped =
      (dx == 0 || dx == 2 || dx == -2) && (dy == 0 || dy == 2 || dy == -2);
  return hop_shaped ? m->hops == 1 : true;
}

const LegalMove* FindMove(const MoveList& list, Square from, Square to) {
  for (const LegalMove& m : list) {
    if (m.origin == from && m.destination == to) return &m;
  }
  return nullptr;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const fuzz::FuzzText in = fuzz::SplitSelector(data, size);
  const fuzz::FuzzVariant& fv = fuzz::PickVariant(in.selector);
  const Variant& v = fv.variant;
  const std::vector<absl::string_view> lines = fuzz::Lines(in.text);
  const Position p = fuzz::PositionFromText(v, lines[0]);
  const absl::string_view move_text =
      lines.size() > 1 ? lines[1] : absl::string_view("pass");
  const std::string context = absl::StrCat(fv.label, " ", FormatPosition(p, v),
                                           " move ", QuoteForError(move_text));

  const absl::StatusOr<MoveText> move = ParseMove(move_text, v.size);
  if (!move.ok()) {
    fuzz::CheckRequestError(move.status(), {"move "}, context);
    return 0;
  }
  const GameStatus status = EvaluateStatus(v, p);
  // CheckMove needs room to count the move; answers refuse such positions.
  if (!status.over && !CheckRoomForMove(p).ok()) return 0;

  const Seat mover = p.to_move;
  fuzz::Buffers& buffers = fuzz::SharedBuffers();
  MoveList& list = buffers.list;
  GenerateLegalMoves(v, p, mover, &list);
  if (!status.over) {
    FUZZ_CHECK(status.must_pass == (list.size == 0), context);
  }

  const MoveCheck check = CheckMove(v, p, status, *move);
  const bool legal = check.verdict == MoveVerdict::kLegal;
  if (status.over) {
    FUZZ_CHECK(check.verdict == MoveVerdict::kGameOver, context);
  }
  if (!legal) {
    FUZZ_CHECK(!check.message.empty(), context);
    FUZZ_CHECK(check.message.size() <= fuzz::kMaxErrorMessage, context);
    for (char c : check.message) {
      FUZZ_CHECK(static_cast<unsigned char>(c) >= 0x20, context);
    }
  } else {
    FUZZ_CHECK(check.message.empty(), context + ": " + check.message);
  }
  if (move->is_pass) {
    FUZZ_CHECK(legal == (!status.over && status.must_pass),
               context + ": " + MoveVerdictName(check.verdict));
    if (legal) {
      FUZZ_CHECK(check.path.is_pass && check.hops == 0, context);
      for (int i = 0; i < kMaxSeats; ++i) {
        FUZZ_CHECK(check.after.pieces[i] == p.pieces[i], context);
      }
      FUZZ_CHECK(check.after.move_count[SeatIndex(mover)] ==
                     p.move_count[SeatIndex(mover)] + 1,
                 context);
      fuzz::CheckPositionRoundTrip(v, check.after, context);
    }
    return 0;
  }

  const auto& squares = move->squares;
  const Square origin = squares.front();
  const Square destination = squares.back();
  Seat owner;
  const bool has_piece = p.PieceAt(origin, &owner);
  if (check.verdict == MoveVerdict::kEmptyOrigin) {
    FUZZ_CHECK(!has_piece, context);
  }
  if (check.verdict == MoveVerdict::kNotYourPiece) {
    FUZZ_CHECK(has_piece && owner != mover, context);
  }
  const LegalMove* listed = FindMove(list, origin, destination);
  if (squares.size() == 2 && !status.over) {
    FUZZ_CHECK(
        legal == WrittenAsTwoSquares(listed),
        context + ": " + MoveVerdictName(check.verdict) + " " + check.message);
  }
  if (!legal) return 0;

  FUZZ_CHECK(listed != nullptr, context);
  const auto& path = check.path.squares;
  const std::string path_text = FormatMove(check.path);
  FUZZ_CHECK(!check.path.is_pass && path.size() >= 2, context);
  FUZZ_CHECK(path.front() == origin && path.back() == destination,
             context + " -> " + path_text);
  if (AreNeighbours(path[0], path[1])) {
    FUZZ_CHECK(check.hops == 0 && path.size() == 2,
               context + " -> " + path_text);
  } else {
    FUZZ_CHECK(check.hops == static_cast<int>(path.size()) - 1,
               context + " -> " + path_text);
  }
  FUZZ_CHECK(check.hops == listed->hops,
             context + " -> " + path_text + ", listed with " +
                 std::to_string(listed->hops) + " hops");
  if (squares.size() > 2) {
    FUZZ_CHECK(check.hops <= static_cast<int>(squares.size()) - 1, context);
  }

  // The position after: one piece moved, one move counted.
  const Position& after = check.after;
  for (int i = 0; i < kMaxSeats; ++i) {
    Bitboard expected = p.pieces[i];
    if (i == SeatIndex(mover)) {
      expected.Clear(origin);
      expected.Set(destination);
    }
    FUZZ_CHECK(after.pieces[i] == expected, context);
  }
  FUZZ_CHECK(
      after.move_count[SeatIndex(mover)] == p.move_count[SeatIndex(mover)] + 1,
      context);
  FUZZ_CHECK(after == ApplyMove(v, p, check.path), context);
  fuzz::CheckPositionRoundTrip(v, after, context);
  EvaluateStatus(v, after);

  // The normalised path validates to itself.
  const absl::StatusOr<MoveText> again = ParseMove(path_text, v.size);
  FUZZ_CHECK(again.ok(), context + " -> " + path_text);
  const MoveCheck recheck = CheckMove(v, p, status, *again);
  FUZZ_CHECK(
      recheck.verdict == MoveVerdict::kLegal && recheck.path == check.path &&
          recheck.hops == check.hops && recheck.after == after,
      context + " -> " + path_text + " -> " + MoveVerdictName(recheck.verdict) +
          " " + FormatMove(recheck.path));
  return 0;
}
