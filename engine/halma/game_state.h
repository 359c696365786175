// The incremental game state: a Position plus the counters that the end of
// game checks (docs/rules.md section 5) read, with Play and Undo that
// update both in a few dozen instructions, and the status of section 6
// kept current after every move. The record replay (record_replay.h) and
// EvaluateStatus (game_status.h) are built on it, so the rules of how a
// game ends exist once, here; the move-suggestion search plays and undoes
// its moves with it.
#ifndef HALMA_GAME_STATE_H_
#define HALMA_GAME_STATE_H_

#include <cstdint>

#include "absl/strings/string_view.h"
#include "halma/bitboard.h"
#include "halma/game_status.h"
#include "halma/move_check.h"
#include "halma/position.h"
#include "halma/seat.h"
#include "halma/square.h"
#include "halma/variant.h"

namespace halma {

// What the end-of-game checks need besides the board, per seat (indexed by
// SeatIndex; seats not in play hold zeros): kept up to date by bit tests of
// the two squares a move touches, never recounted.
struct GameTally {
  // Pieces of the seat standing outside its target camp: the seat has
  // finished when this is 0 (rule 1); pieces_per_seat minus it stand in the
  // target.
  std::uint8_t outside_target[kMaxSeats] = {0, 0, 0, 0};
  // Pieces of the seat still in its home camp (rule 2, the home-exit
  // rule): counted only in variants with a home-exit limit, else 0.
  std::uint8_t at_home[kMaxSeats] = {0, 0, 0, 0};
  // Seats that have finished, and (four-player games) seats eliminated by
  // the home-exit rule: GameStatus::finished and ::eliminated.
  SeatSet finished;
  SeatSet eliminated;
  // The seat that made the last counted move (valid when any_move_made):
  // the seat EvaluateStatus works out from the move counts.
  Seat last_mover = Seat::kW;
  bool any_move_made = false;

  friend bool operator==(const GameTally& a, const GameTally& b);
};

// A game in progress, move by move.
//
// Construct it from a well-formed position (ParsePosition, or
// CheckPositionConsistency OK; StartPosition). `variant` must outlive it.
// The state is plain data of fixed size (copyable, about 500 bytes) and
// nothing in it allocates.
//
// What Play expects (not checked, beyond debug-build asserts):
//   - the game is not over (status().over is false);
//   - (origin, destination) is a legal move of the side to move: a pair
//     that GenerateMoveSet / MoveSet::ForEach, GenerateLegalMoves or
//     GenerateLegalMovesWithPaths lists for position().to_move, or a move
//     that CheckPath (below) or CheckMove judged legal in this position.
//     Only the origin and the destination matter: every chain between the
//     same two squares gives the same position;
//   - PlayPass only when status().must_pass (the side to move has no move);
//   - the mover's count has room: position().move_count of the side to
//     move below kMaxMoveCount (CheckRoomForMove). A search from a parsed
//     position has room for any depth it can reach in practice; a replay
//     checks before every ply.
//
// What a caller (the move-suggestion search) may rely on:
//   - Play and PlayPass allocate nothing and cost O(1): the piece moved in
//     the bitboards, the tallies updated from bit tests of origin and
//     destination, the count, the next seat still playing, and the status
//     of the new position decided from the tallies. The one part that is
//     not constant is the everyone-stuck check (rule 4), which needs
//     whether the side to move has a legal move: a step it had before is
//     checked with two bit tests (still its piece, still empty), else the
//     first step is searched for (FindStep: usually a few words of the
//     step masks), and hops and the other seats are looked at only when
//     the side to move has no step at all.
//   - status() after Play equals EvaluateStatus(variant, position()) field
//     for field (tests/engine/game_state_test.cc checks it on every
//     position of the differential test's playouts: every preset, custom
//     variants, two and four players).
//   - Undo(record) with the record of the last Play or PlayPass that has
//     not been undone restores the state exactly (operator== holds with a
//     copy taken before the Play): undo in the reverse order of play, as a
//     search unwinds.
//   - Hashing for a transposition table is the caller's: Play's origin,
//     destination and the mover (position().to_move before the call) are
//     all an incremental key needs.
class GameState {
 public:
  GameState(const Variant& variant, const Position& position);

  const Variant& variant() const { return *variant_; }
  const Position& position() const { return position_; }
  // The status of position(), as EvaluateStatus gives it.
  const GameStatus& status() const { return status_; }
  const GameTally& tally() const { return tally_; }
  // Every piece of every seat: position().Occupied().
  Bitboard occupied() const { return position_.Occupied(); }
  // The pieces square by square (FillMailbox), kept up to date.
  const Mailbox& board() const { return board_; }

  // What Undo needs to take one move back. Kept by the caller (a search
  // keeps one per ply); small and trivially copyable.
  struct UndoRecord {
    Square origin = 0;
    Square destination = 0;
    bool pass = false;
    Seat mover = Seat::kW;
    GameTally tally;
    GameStatus status;
  };

  // Plays a legal move of the side to move (see the class comment). (The
  // record is built here, inline, so that a caller that drops it, such as
  // the replay, does not pay for it.)
  UndoRecord Play(Square origin, Square destination) {
    const UndoRecord record{origin, destination, false, position_.to_move,
                            tally_, status_};
    Apply(origin, destination);
    return record;
  }
  // Plays `pass` (only when status().must_pass).
  UndoRecord PlayPass() {
    const UndoRecord record{0, 0, true, position_.to_move, tally_, status_};
    ApplyPass();
    return record;
  }
  // Takes back the move of `record`, the last one played and not undone.
  void Undo(const UndoRecord& record);

  // The verdict CheckMove gives a move written square by square (a step,
  // a single hop or a full chain; not `pass`), worked out leg by leg with
  // bit tests: CheckPathLegs (move_check.h) on this state's board, which
  // also says when two squares are shorthand, for CheckMove's search. The
  // replay checks each move with it before Play.
  LegCheck CheckPath(const Square* squares, int count) const {
    return CheckPathLegs(*variant_, position_.to_move, board_, squares, count);
  }
  // CheckPath, and when it finds the move legal and not shorthand, Play
  // (without an undo record): the replay's check and move in one call.
  // Leaves the state as it was when the move is illegal or shorthand.
  LegCheck PlayPath(const Square* squares, int count);
  // The replay's fast path: plays `text` when it is a move written square
  // by square that ReadMoveSquares reads (move_read.h) and CheckPath finds
  // legal and not shorthand, reading and checking it square by square in
  // one pass over its characters, and returns true. Returns false, the
  // state unchanged, for anything else (pass, shorthand, an illegal or
  // malformed move): the caller then reads and judges it the general way.
  bool PlayWritten(absl::string_view text);

  // The status of a position on its own (what EvaluateStatus gives), with
  // the rules above but without building a state.
  static GameStatus Evaluate(const Variant& variant, const Position& position);

  friend bool operator==(const GameState& a, const GameState& b);

 private:
  void Apply(Square origin, Square destination);
  // Apply's body, inline in Apply and PlayPath.
  void ApplyMove(Square origin, Square destination);
  void ApplyPass();
  // The count, the next seat still playing, the last mover and the status
  // after a move or pass of `mover`.
  void AfterMove(Seat mover);
  // Decides status_ from position_ and tally_ (docs/rules.md sections 5
  // and 6), with the rules that Evaluate applies too.
  void DecideStatus();
  // Whether `seat` has a legal move other than pass (HasLegalMove), from
  // its step witness when that still holds.
  bool CanMove(Seat seat);
  // CanMove when the witness no longer holds: a new one, or a search.
  bool FindMove(Seat seat);

  const Variant* variant_;
  // Which of the rules of section 5 the variant turns on (bits).
  std::uint8_t rules_ = 0;
  Position position_;
  Mailbox board_;
  GameTally tally_;
  GameStatus status_;
  // Per seat, a legal step found earlier (FindStep): while its origin
  // holds the seat's piece and its destination is empty it is still legal,
  // two loads instead of a search. A hint only: Undo leaves it, and
  // operator== ignores it. (0, 0) never holds.
  Square step_origin_[kMaxSeats] = {0, 0, 0, 0};
  Square step_destination_[kMaxSeats] = {0, 0, 0, 0};
};

}  // namespace halma

// The inline definitions of Play's work (PlayPath and what it calls).
#include "halma/game_state_play.h"  // IWYU pragma: export

#endif  // HALMA_GAME_STATE_H_
