#include "halma/record_replay.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "halma/game_state.h"
#include "halma/move_check.h"
#include "halma/notation.h"

namespace halma {

absl::StatusOr<GameRecordResult> AdjudicateRecord(
    const Variant& variant, const Position& start, int move_count,
    absl::FunctionRef<absl::string_view(int)> move_at) {
  return AdjudicateRecord(variant, start, move_count, move_at,
                          [] { return absl::OkStatus(); });
}

absl::StatusOr<GameRecordResult> AdjudicateRecord(
    const Variant& variant, const Position& start, int move_count,
    absl::FunctionRef<absl::string_view(int)> move_at,
    absl::FunctionRef<absl::Status()> checkpoint) {
  // A malformed move anywhere makes the whole record malformed, so parse
  // everything before replaying anything.
  std::vector<MoveText> moves(move_count);
  for (int i = 0; i < move_count; ++i) {
    if (i % kCheckpointInterval == kCheckpointInterval - 1) {
      if (absl::Status status = checkpoint(); !status.ok()) return status;
    }
    if (absl::Status parsed =
            ParseMoveInto(move_at(i), variant.size, &moves[i]);
        !parsed.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("ply ", i + 1, ": ", parsed.message()));
    }
  }

  GameRecordResult result;
  GameState state(variant, start);
  for (int i = 0; i < move_count; ++i) {
    if (i % kCheckpointInterval == kCheckpointInterval - 1) {
      if (absl::Status status = checkpoint(); !status.ok()) return status;
    }
    const GameStatus& status = state.status();
    const Position& position = state.position();
    if (absl::Status room = CheckRoomForMove(position);
        !status.over && !room.ok()) {
      // Only a start position at the very end of the count range gets here.
      return absl::InvalidArgumentError(absl::StrCat(
          "ply ", i + 1, ": '", std::string(1, SeatLetter(position.to_move)),
          "' has made ", kMaxMoveCount,
          " moves, the most a count can hold, so this move cannot be counted "
          "(the start position leaves room for ",
          i, " moves)"));
    }
    const MoveText& move = moves[i];
    const Square* const squares = move.squares.data();
    const int count = static_cast<int>(move.squares.size());
    // The common case, a move written square by square in a game in
    // progress, is checked leg by leg on the state's bitboards; everything
    // else (pass, shorthand, the game over, an illegal move's verdict and
    // message) goes through CheckMove.
    bool legal = false;
    if (!status.over && !move.is_pass &&
        !(count == 2 && IsShorthand(squares[0], squares[1]))) {
      int failed_leg = 0;
      legal =
          state.CheckPath(squares, count, &failed_leg) == MoveVerdict::kLegal;
    } else if (!status.over && move.is_pass) {
      legal = status.must_pass;
    } else {
      legal =
          CheckMove(variant, position, status, move, MoveDetail::kPositionOnly)
              .verdict == MoveVerdict::kLegal;
    }
    if (!legal) {
      MoveCheck check =
          CheckMove(variant, position, status, move, MoveDetail::kPositionOnly);
      result.illegal_ply = i + 1;
      result.illegal_verdict = check.verdict;
      result.illegal_message = std::move(check.message);
      break;
    }
    if (move.is_pass) {
      state.PlayPass();
    } else {
      state.Play(squares[0], squares[count - 1]);
    }
    ++result.legal_moves_played;
    if (state.status().over) result.deciding_ply = i + 1;
  }
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
