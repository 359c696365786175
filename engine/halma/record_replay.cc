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

namespace record_replay_internal {
namespace {

MoveText AsMoveText(const Square* squares, int count) {
  MoveText move;
  move.is_pass = count == 0;
  move.squares.assign(squares, squares + count);
  return move;
}

}  // namespace

absl::Status ParseLongMove(absl::string_view text, int board_size, int ply,
                           MoveText* move, const Square** squares, int* count) {
  move->is_pass = false;
  move->squares.clear();
  if (absl::Status parsed = ParseMoveInto(text, board_size, move);
      !parsed.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("ply ", ply, ": ", parsed.message()));
  }
  *squares = move->squares.data();
  *count = move->is_pass ? 0 : static_cast<int>(move->squares.size());
  return absl::OkStatus();
}

absl::Status NoRoomError(const Position& position, int ply) {
  return absl::InvalidArgumentError(absl::StrCat(
      "ply ", ply, ": '", std::string(1, SeatLetter(position.to_move)),
      "' has made ", kMaxMoveCount,
      " moves, the most a count can hold, so this move cannot be counted "
      "(the start position leaves room for ",
      ply - 1, " moves)"));
}

bool IsLegalShorthand(const GameState& state, const Square* squares,
                      int count) {
  return CheckMove(state.variant(), state.position(), state.status(),
                   AsMoveText(squares, count), MoveDetail::kPositionOnly)
             .verdict == MoveVerdict::kLegal;
}

void NoteIllegal(const GameState& state, const Square* squares, int count,
                 int ply, absl::string_view text, GameRecordResult* result) {
  MoveCheck check =
      CheckMove(state.variant(), state.position(), state.status(),
                AsMoveText(squares, count), MoveDetail::kPositionOnly);
  result->illegal_ply = ply;
  result->illegal_verdict = check.verdict;
  result->illegal_message = std::move(check.message);
  result->illegal_move_text = std::string(text);
}

std::int64_t HighestMoveCount(const Variant& variant,
                              const Position& position) {
  std::int64_t highest = 0;
  for (int i = 0; i < variant.seat_count; ++i) {
    highest = std::max(
        highest,
        std::int64_t{position.move_count[SeatIndex(variant.seats[i])]});
  }
  return highest;
}

}  // namespace record_replay_internal

namespace {

// The moves of a record looked up by index, read in order.
class MovesByIndex {
 public:
  MovesByIndex(int count, absl::FunctionRef<absl::string_view(int)> move_at)
      : count_(count), move_at_(move_at) {}

  bool Next(absl::string_view* text) {
    if (next_ == count_) return false;
    *text = move_at_(next_++);
    return true;
  }
  void NotAPath(absl::string_view /*text*/) {}

 private:
  int count_;
  absl::FunctionRef<absl::string_view(int)> move_at_;
  int next_ = 0;
};

}  // namespace

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
  MovesByIndex reader(move_count, move_at);
  return ReplayRecord(variant, start, reader, checkpoint);
}

absl::StatusOr<GameRecordResult> AdjudicateRecord(
    const Variant& variant, const Position& start,
    const std::vector<std::string>& moves) {
  return AdjudicateRecord(variant, start, static_cast<int>(moves.size()),
                          [&](int i) { return absl::string_view(moves[i]); });
}

}  // namespace halma
