#include "halma/record_replay.h"

#include <algorithm>
#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "halma/game_state.h"
#include "halma/move_check.h"
#include "halma/move_read.h"
#include "halma/notation.h"

namespace halma {

absl::StatusOr<GameRecordResult> AdjudicateRecord(
    const Variant& variant, const Position& start, int move_count,
    absl::FunctionRef<absl::string_view(int)> move_at) {
  return AdjudicateRecord(variant, start, move_count, move_at,
                          [] { return absl::OkStatus(); });
}

namespace {

MoveText AsMoveText(const Square* squares, int count) {
  MoveText move;
  move.is_pass = count == 0;
  move.squares.assign(squares, squares + count);
  return move;
}

// Whether the move `squares` (none for pass) is legal for the side to move
// of `state`, a game not over: a move written square by square is checked
// leg by leg on the state's board, pass needs only the status; shorthand
// goes through CheckMove.
bool IsLegal(const GameState& state, const Square* squares, int count) {
  const GameStatus& status = state.status();
  if (count == 0) return status.must_pass;
  const LegCheck legs = state.CheckPath(squares, count);
  return legs.verdict == MoveVerdict::kLegal &&
         (!legs.shorthand ||
          CheckMove(state.variant(), state.position(), status,
                    AsMoveText(squares, count), MoveDetail::kPositionOnly)
                  .verdict == MoveVerdict::kLegal);
}

}  // namespace

absl::StatusOr<GameRecordResult> AdjudicateRecord(
    const Variant& variant, const Position& start, int move_count,
    absl::FunctionRef<absl::string_view(int)> move_at,
    absl::FunctionRef<absl::Status()> checkpoint) {
  // Each move is parsed, checked and played in one pass. A malformed move
  // anywhere makes the whole record malformed, so once the replay has
  // stopped (an illegal move, or a count with no room), the remaining moves
  // are still parsed, and that stop is reported only when all parse.
  GameRecordResult result;
  GameState state(variant, start);
  bool replaying = true;
  absl::Status no_room;
  Square read[kMaxReadPathSquares];
  MoveText long_move;  // A move the fast reader does not take.
  // Plies left before the next checkpoint (a countdown costs less than
  // the ply number's remainder).
  int until_checkpoint = kCheckpointInterval;
  for (int i = 0; i < move_count; ++i) {
    if (--until_checkpoint == 0) {
      until_checkpoint = kCheckpointInterval;
      if (absl::Status status = checkpoint(); !status.ok()) return status;
    }
    const absl::string_view text = move_at(i);
    const Square* squares = read;
    int count = ReadMoveSquares(text, variant.size, read);
    if (count < 0) {
      // Malformed, or a path longer than the fast reader takes.
      long_move.is_pass = false;
      long_move.squares.clear();
      if (absl::Status parsed = ParseMoveInto(text, variant.size, &long_move);
          !parsed.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("ply ", i + 1, ": ", parsed.message()));
      }
      squares = long_move.squares.data();
      count =
          long_move.is_pass ? 0 : static_cast<int>(long_move.squares.size());
    }
    if (!replaying) continue;
    const Position& position = state.position();
    // Every move after the end of the game is illegal (CheckMove says why).
    const bool over = state.status().over;
    if (!over &&
        position.move_count[SeatIndex(position.to_move)] == kMaxMoveCount) {
      // Only a start position at the very end of the count range gets here.
      no_room = absl::InvalidArgumentError(absl::StrCat(
          "ply ", i + 1, ": '", std::string(1, SeatLetter(position.to_move)),
          "' has made ", kMaxMoveCount,
          " moves, the most a count can hold, so this move cannot be counted "
          "(the start position leaves room for ",
          i, " moves)"));
      replaying = false;
      continue;
    }
    if (over || !IsLegal(state, squares, count)) {
      MoveCheck check =
          CheckMove(variant, position, state.status(),
                    AsMoveText(squares, count), MoveDetail::kPositionOnly);
      result.illegal_ply = i + 1;
      result.illegal_verdict = check.verdict;
      result.illegal_message = std::move(check.message);
      replaying = false;
      continue;
    }
    if (count == 0) {
      state.PlayPass();
    } else {
      state.Play(squares[0], squares[count - 1]);
    }
    ++result.legal_moves_played;
    if (state.status().over) result.deciding_ply = i + 1;
  }
  if (!no_room.ok()) return no_room;
  result.status = state.status();
  result.final_position = state.position();
  return result;
}

absl::StatusOr<GameRecordResult> AdjudicateRecord(
    const Variant& variant, const Position& start,
    const std::vector<std::string>& moves) {
  return AdjudicateRecord(variant, start, static_cast<int>(moves.size()),
                          [&](int i) { return absl::string_view(moves[i]); });
}

}  // namespace halma
