// The adjudication of a game record (docs/rules.md sections 4 to 6):
// AdjudicateRecord replays the moves on a GameState and gives the status,
// the deciding ply and the first illegal move.
#ifndef HALMA_RECORD_REPLAY_H_
#define HALMA_RECORD_REPLAY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "halma/game_state.h"
#include "halma/game_status.h"
#include "halma/move_check.h"
#include "halma/move_read.h"
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
  // The illegal move as written.
  std::string illegal_move_text;
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

// The same, calling `checkpoint` every kCheckpointInterval plies (each ply
// parsed, checked and played in one pass; after an illegal move the rest
// only parsed): a non-OK status from it stops the replay and is returned as
// is (the caller's deadline or cancellation).
absl::StatusOr<GameRecordResult> AdjudicateRecord(
    const Variant& variant, const Position& start, int move_count,
    absl::FunctionRef<absl::string_view(int)> move_at,
    absl::FunctionRef<absl::Status()> checkpoint);

// The replay itself, over moves read in order by `reader`, for a caller
// that reads them from storage of its own (the service reads a request's
// moves in place from its bytes): what the AdjudicateRecord calls above do,
// with the moves read as the replay goes rather than looked up by index.
// The reader's
//   bool Next(absl::string_view* text)
// gives each move's text in order, and false when there are no more (the
// replay calls it until then, unless it returns an error first: a
// malformed move or the checkpoint's); its
//   void NotAPath(absl::string_view text)
// is called for every move ReadMoveSquares (move_read.h) does not take:
// one that is not `pass` or a path of squares it reads (malformed, or
// longer than it takes), which the replay then parses itself
// (ParseMoveInto) to read it or name what is wrong. Every other move is
// ASCII. result->illegal_move_text is the illegal move's text.
template <typename MoveReader>
absl::StatusOr<GameRecordResult> ReplayRecord(
    const Variant& variant, const Position& start, MoveReader& reader,
    absl::FunctionRef<absl::Status()> checkpoint);

namespace record_replay_internal {

// The replay's work that is not on every ply, out of line so that the loop
// stays small.
//
// A move ReadMoveSquares did not take, parsed into `*move`: its squares
// and count (0 for pass), or the error naming ply `ply` (1-based).
absl::Status ParseLongMove(absl::string_view text, int board_size, int ply,
                           MoveText* move, const Square** squares, int* count);
// The error of a start position whose side to move has no room in its
// count for the move of ply `ply`.
absl::Status NoRoomError(const Position& position, int ply);
// Whether shorthand (two squares no single leg apart) is legal: CheckMove.
bool IsLegalShorthand(const GameState& state, const Square* squares, int count);
// Fills in the illegal move of ply `ply` (CheckMove says why).
void NoteIllegal(const GameState& state, const Square* squares, int count,
                 int ply, absl::string_view text, GameRecordResult* result);
// The highest move count of any seat of `position`.
std::int64_t HighestMoveCount(const Variant& variant, const Position& position);

}  // namespace record_replay_internal

template <typename MoveReader>
absl::StatusOr<GameRecordResult> ReplayRecord(
    const Variant& variant, const Position& start, MoveReader& reader,
    absl::FunctionRef<absl::Status()> checkpoint) {
  namespace internal = record_replay_internal;
  // Each move is read, checked and played in one pass. A malformed move
  // anywhere makes the whole record malformed, so once the replay has
  // stopped (an illegal move, or a count with no room), the remaining moves
  // are still read, and that stop is reported only when all parse.
  GameRecordResult result;
  GameState state(variant, start);
  bool replaying = true;
  absl::Status no_room;
  Square read[kMaxReadPathSquares];
  MoveText long_move;  // A move the fast reader does not take.
  // Each ply adds one to one seat's count, so a count can reach its limit
  // only after `room` plies (almost never: only a start position near the
  // end of the count range); until then the limit is not tested.
  const std::int64_t room =
      kMaxMoveCount - internal::HighestMoveCount(variant, start);
  // Plies left before the next checkpoint (a countdown costs less than
  // the ply number's remainder).
  int until_checkpoint = kCheckpointInterval;
  absl::string_view text;
  for (int i = 0; reader.Next(&text); ++i) {
    if (--until_checkpoint == 0) {
      until_checkpoint = kCheckpointInterval;
      if (absl::Status status = checkpoint(); !status.ok()) return status;
    }
    // The common case first: a path read, checked and played in one pass
    // over its characters (GameState::PlayWritten); anything else, from
    // the start the general way.
    if (replaying && i < room && !state.status().over &&
        state.PlayWritten(text)) {
      ++result.legal_moves_played;
      if (state.status().over) result.deciding_ply = i + 1;
      continue;
    }
    const Square* squares = read;
    int count = ReadMoveSquares(text, variant.size, read);
    if (count < 0) {
      reader.NotAPath(text);
      if (absl::Status parsed = internal::ParseLongMove(
              text, variant.size, i + 1, &long_move, &squares, &count);
          !parsed.ok()) {
        return parsed;
      }
    }
    if (!replaying) continue;
    if (i >= room) [[unlikely]] {
      const Position& position = state.position();
      if (!state.status().over &&
          position.move_count[SeatIndex(position.to_move)] == kMaxMoveCount) {
        no_room = internal::NoRoomError(position, i + 1);
        replaying = false;
        continue;
      }
    }
    // Every move after the end of the game is illegal (CheckMove says
    // why); a move written square by square is checked leg by leg and
    // played in one call, pass needs only the status, shorthand goes
    // through CheckMove.
    if (state.status().over) {
      internal::NoteIllegal(state, squares, count, i + 1, text, &result);
      replaying = false;
      continue;
    }
    if (count == 0) {
      if (!state.status().must_pass) {
        internal::NoteIllegal(state, squares, count, i + 1, text, &result);
        replaying = false;
        continue;
      }
      state.PlayPass();
    } else {
      const LegCheck legs = state.PlayPath(squares, count);
      if (legs.verdict != MoveVerdict::kLegal ||
          (legs.shorthand &&
           !internal::IsLegalShorthand(state, squares, count))) {
        internal::NoteIllegal(state, squares, count, i + 1, text, &result);
        replaying = false;
        continue;
      }
      if (legs.shorthand) state.Play(squares[0], squares[count - 1]);
    }
    ++result.legal_moves_played;
    if (state.status().over) result.deciding_ply = i + 1;
  }
  if (!no_room.ok()) return no_room;
  result.status = state.status();
  result.final_position = state.position();
  return result;
}

}  // namespace halma

#endif  // HALMA_RECORD_REPLAY_H_
