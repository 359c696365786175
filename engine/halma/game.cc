#include "halma/game.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
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
  result.final_position = start;
  result.status = EvaluateStatus(variant, start);
  for (int i = 0; i < move_count; ++i) {
    if (i % kCheckpointInterval == kCheckpointInterval - 1) {
      if (absl::Status status = checkpoint(); !status.ok()) return status;
    }
    if (absl::Status room = CheckRoomForMove(result.final_position);
        !result.status.over && !room.ok()) {
      // Only a start position at the very end of the count range gets here.
      return absl::InvalidArgumentError(absl::StrCat(
          "ply ", i + 1, ": '",
          std::string(1, SeatLetter(result.final_position.to_move)),
          "' has made ", kMaxMoveCount,
          " moves, the most a count can hold, so this move cannot be counted "
          "(the start position leaves room for ",
          i, " moves)"));
    }
    MoveCheck check = CheckMove(variant, result.final_position, result.status,
                                moves[i], MoveDetail::kPositionOnly);
    if (check.verdict != MoveVerdict::kLegal) {
      result.illegal_ply = i + 1;
      result.illegal_verdict = check.verdict;
      result.illegal_message = std::move(check.message);
      break;
    }
    result.final_position = check.after;
    result.status = EvaluateStatus(variant, result.final_position);
    ++result.legal_moves_played;
    if (result.status.over) result.deciding_ply = i + 1;
  }
  return result;
}

absl::StatusOr<GameRecordResult> AdjudicateRecord(
    const Variant& variant, const Position& start,
    const std::vector<std::string>& moves) {
  return AdjudicateRecord(variant, start, static_cast<int>(moves.size()),
                          [&](int i) { return absl::string_view(moves[i]); });
}

}  // namespace halma
