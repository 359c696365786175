// The adjudication of a game record (docs/rules.md sections 4 to 6):
// AdjudicateRecord replays the moves on a GameState and gives the status,
// the deciding ply and the first illegal move.
#ifndef HALMA_RECORD_REPLAY_H_
#define HALMA_RECORD_REPLAY_H_

#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "halma/game_status.h"
#include "halma/move_check.h"
#include "halma/position.h"
#include "halma/variant.h"

namespace halma {

// The adjudication of a game record (docs/rules.md sections 4 to 6).
struct GameRecordResult {
  // The status after the last legal move of the record.
  GameStatus status;
  // Ply (1-based) of the move that ended the game; 0 when the start was
  // already decided or the game is still in progress.
  int deciding_ply = 0;
  Position final_position;
  int legal_moves_played = 0;
  // The first illegal move, if any (ply 1-based, 0 when none); replay stops
  // there, and `status` and `final_position` are those before it.
  int illegal_ply = 0;
  MoveVerdict illegal_verdict = MoveVerdict::kLegal;
  std::string illegal_message;
};

// Replays `moves` (move strings) from `start`. Malformed move strings are an
// error naming the ply; illegal moves are part of the result.
absl::StatusOr<GameRecordResult> AdjudicateRecord(
    const Variant& variant, const Position& start,
    const std::vector<std::string>& moves);
// The same over any sequence: `move_at(i)` is the move string of ply i + 1.
absl::StatusOr<GameRecordResult> AdjudicateRecord(
    const Variant& variant, const Position& start, int move_count,
    absl::FunctionRef<absl::string_view(int)> move_at);

// The plies between two calls of a replay's checkpoint.
inline constexpr int kCheckpointInterval = 64;

// The same, calling `checkpoint` every kCheckpointInterval plies while it
// parses and while it replays: a non-OK status from it stops the replay and
// is returned as is (the caller's deadline or cancellation).
absl::StatusOr<GameRecordResult> AdjudicateRecord(
    const Variant& variant, const Position& start, int move_count,
    absl::FunctionRef<absl::string_view(int)> move_at,
    absl::FunctionRef<absl::Status()> checkpoint);

}  // namespace halma

#endif  // HALMA_RECORD_REPLAY_H_
