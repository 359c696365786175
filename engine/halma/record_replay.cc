#include "halma/record_replay.h"

#include <algorithm>
#include <cstdint>

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

namespace {

// The moves of a record, parsed: the squares of all moves one after the
// other (a pass has none), and where each move's squares begin and end.
class ParsedMoves {
 public:
  explicit ParsedMoves(int move_count) : begin_(move_count + 1) {
    squares_.resize(static_cast<size_t>(move_count) * 6 + kMaxReadPathSquares);
  }

  // Parses move `i` (in order). False when it is malformed: Error says why.
  bool Parse(int i, absl::string_view text, int board_size) {
    if (squares_.size() < used_ + kMaxReadPathSquares) {
      squares_.resize(2 * squares_.size());
    }
    int count = ReadMoveSquares(text, board_size, squares_.data() + used_);
    if (count < 0) {
      // Malformed, or a path longer than the fast reader takes.
      MoveText move;
      if (!ParseMoveInto(text, board_size, &move).ok()) return false;
      count = static_cast<int>(move.squares.size());
      if (squares_.size() < used_ + count) squares_.resize(used_ + count);
      std::copy(move.squares.begin(), move.squares.end(),
                squares_.begin() + used_);
    }
    used_ += count;
    begin_[i + 1] = static_cast<std::uint32_t>(used_);
    return true;
  }
  static absl::Status Error(absl::string_view text, int board_size) {
    MoveText move;
    return ParseMoveInto(text, board_size, &move);
  }

  const Square* Squares(int i) const { return squares_.data() + begin_[i]; }
  int Count(int i) const { return static_cast<int>(begin_[i + 1] - begin_[i]); }

 private:
  std::vector<Square> squares_;
  std::vector<std::uint32_t> begin_;  // begin_[i + 1]: the end of move i.
  size_t used_ = 0;
};

MoveText AsMoveText(const Square* squares, int count) {
  MoveText move;
  move.is_pass = count == 0;
  move.squares.assign(squares, squares + count);
  return move;
}

}  // namespace

absl::StatusOr<GameRecordResult> AdjudicateRecord(
    const Variant& variant, const Position& start, int move_count,
    absl::FunctionRef<absl::string_view(int)> move_at,
    absl::FunctionRef<absl::Status()> checkpoint) {
  // A malformed move anywhere makes the whole record malformed, so parse
  // everything before replaying anything.
  ParsedMoves moves(move_count);
  for (int i = 0; i < move_count; ++i) {
    if (i % kCheckpointInterval == kCheckpointInterval - 1) {
      if (absl::Status status = checkpoint(); !status.ok()) return status;
    }
    if (const absl::string_view text = move_at(i);
        !moves.Parse(i, text, variant.size)) {
      return absl::InvalidArgumentError(
          absl::StrCat("ply ", i + 1, ": ",
                       ParsedMoves::Error(text, variant.size).message()));
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
    if (!status.over &&
        position.move_count[SeatIndex(position.to_move)] == kMaxMoveCount) {
      // Only a start position at the very end of the count range gets here.
      return absl::InvalidArgumentError(absl::StrCat(
          "ply ", i + 1, ": '", std::string(1, SeatLetter(position.to_move)),
          "' has made ", kMaxMoveCount,
          " moves, the most a count can hold, so this move cannot be counted "
          "(the start position leaves room for ",
          i, " moves)"));
    }
    const Square* const squares = moves.Squares(i);
    const int count = moves.Count(i);
    // The common case, a move written square by square in a game in
    // progress, is checked leg by leg on the state's bitboards; pass needs
    // only the status. Everything else (shorthand, the game over, an
    // illegal move's verdict and message) goes through CheckMove.
    bool legal;
    if (status.over) {
      legal = false;
    } else if (count == 0) {
      legal = status.must_pass;
    } else {
      const LegCheck legs = state.CheckPath(squares, count);
      legal = legs.verdict == MoveVerdict::kLegal &&
              (!legs.shorthand ||
               CheckMove(variant, position, status, AsMoveText(squares, count),
                         MoveDetail::kPositionOnly)
                       .verdict == MoveVerdict::kLegal);
    }
    if (!legal) {
      MoveCheck check =
          CheckMove(variant, position, status, AsMoveText(squares, count),
                    MoveDetail::kPositionOnly);
      result.illegal_ply = i + 1;
      result.illegal_verdict = check.verdict;
      result.illegal_message = std::move(check.message);
      break;
    }
    if (count == 0) {
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
