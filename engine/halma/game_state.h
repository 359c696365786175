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
  // Pieces of the seat still in its home camp (rule 2, the home-exit rule).
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
// The state is plain data of fixed size (copyable, about 200 bytes) and
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
//     whether the side to move has a legal move: HasLegalMove, which stops
//     at the first step it finds (a few dozen instructions in any
//     position with an empty square next to one of the side's pieces,
//     which is nearly every position), and looks at hops and at the other
//     seats only when the side to move has no step.
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
  // Every piece of every seat: position().Occupied(), kept up to date.
  const Bitboard& occupied() const { return occupied_; }

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

  // Plays a legal move of the side to move (see the class comment).
  UndoRecord Play(Square origin, Square destination);
  // Plays `pass` (only when status().must_pass).
  UndoRecord PlayPass();
  // Takes back the move of `record`, the last one played and not undone.
  void Undo(const UndoRecord& record);

  // The verdict CheckMove gives a move written square by square (a step,
  // a single hop or a full chain; not `pass`, not two-square shorthand),
  // worked out leg by leg with bit tests: CheckPathLegs (move_check.h) on
  // this state's board. The replay checks each move with it before Play.
  MoveVerdict CheckPath(const Square* squares, int count,
                        int* failed_leg) const;

  friend bool operator==(const GameState& a, const GameState& b);

 private:
  // The count, the next seat still playing, the last mover and the status
  // after a move or pass of `mover`.
  void AfterMove(Seat mover);
  // Decides status_ from position_ and tally_ (docs/rules.md sections 5
  // and 6): the one copy of those rules.
  void DecideStatus();

  const Variant* variant_;
  Position position_;
  Bitboard occupied_;
  GameTally tally_;
  GameStatus status_;
};

}  // namespace halma

#endif  // HALMA_GAME_STATE_H_
