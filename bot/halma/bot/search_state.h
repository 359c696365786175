#ifndef HALMA_BOT_SEARCH_STATE_H_
#define HALMA_BOT_SEARCH_STATE_H_

#include <cstdint>
#include <optional>

#include "halma/bot/eval_tables.h"
#include "halma/game_state.h"
#include "halma/game_status.h"
#include "halma/position.h"
#include "halma/seat.h"
#include "halma/square.h"
#include "halma/variant.h"

namespace halma::bot {

// A move as the search handles it: a piece from origin to destination, or
// a pass. `hops` is filled in only where the answer needs it.
struct BotMove {
  Square origin = 0;
  Square destination = 0;
  std::uint8_t hops = 0;
  bool is_pass = false;

  static BotMove Pass() {
    BotMove m;
    m.is_pass = true;
    return m;
  }
  friend bool operator==(const BotMove& a, const BotMove& b) {
    return a.is_pass == b.is_pass &&
           (a.is_pass ||
            (a.origin == b.origin && a.destination == b.destination));
  }
};

// The deepest the search goes below the root (and so the undo stack).
inline constexpr int kMaxPly = 64;

// The game state the search plays moves in and takes back: the engine's
// incremental GameState (game_state.h: the board, the tallies and the
// status of docs/rules.md sections 5 and 6 after every move, one copy of
// those rules), plus what the bot keeps beside it, move by move and
// allocation-free: the evaluation's per-seat sums and the Zobrist key.
class SearchState {
 public:
  // `variant` and `tables` must outlive the state (and the tables be built
  // for the variant); `position` well-formed and not over.
  void Reset(const Variant& variant, const EvalTables& tables,
             const Position& position);

  const Variant& variant() const { return game_->variant(); }
  const EvalTables& tables() const { return *tables_; }
  const Position& position() const { return game_->position(); }
  Seat to_move() const { return game_->position().to_move; }
  std::uint64_t key() const { return key_; }
  // Moves played since Reset and not taken back.
  int played() const { return saved_count_; }

  // Plays `move` for the side to move: a legal move, or a pass when the
  // side to move has no other (status().must_pass).
  void Play(const BotMove& move);
  // Takes back the last move played.
  void Undo();

  // The engine's status of the current position.
  const GameStatus& status() const { return game_->status(); }
  bool over() const { return game_->status().over; }

  // Per-seat sums the evaluation reads.
  std::int32_t cost(Seat s) const { return cost_[SeatIndex(s)]; }
  int distance(Seat s) const { return distance_[SeatIndex(s)]; }
  int exit_steps(Seat s) const { return exit_steps_[SeatIndex(s)]; }
  int in_target(Seat s) const {
    return variant().pieces_per_seat -
           game_->tally().outside_target[SeatIndex(s)];
  }
  int at_home(Seat s) const { return game_->tally().at_home[SeatIndex(s)]; }
  std::int64_t moves(Seat s) const {
    return position().move_count[SeatIndex(s)];
  }
  // Seats still playing (four-player games drop eliminated seats).
  SeatSet playing() const {
    return SeatSet{static_cast<std::uint8_t>(variant().in_play.bits &
                                             ~game_->tally().eliminated.bits)};
  }

  // Whether a move of `seat` now could make a rule end the game or change
  // who plays (its target nearly full, the home-exit limit or the move cap
  // reached, a round being completed): the search then plays such moves
  // rather than reading their value off the tables.
  bool RuleMayFireFor(Seat seat) const;

 private:
  struct Saved {
    GameState::UndoRecord record;
    std::uint64_t key;
  };

  const EvalTables* tables_ = nullptr;
  std::optional<GameState> game_;
  bool hash_counts_ = false;
  std::uint64_t key_ = 0;
  std::int32_t cost_[kMaxSeats] = {};
  int distance_[kMaxSeats] = {};
  int exit_steps_[kMaxSeats] = {};
  // Room for a four-player round (up to four moves) per ply.
  Saved saved_[kMaxPly * kMaxSeats + 8];
  int saved_count_ = 0;
};

}  // namespace halma::bot

#endif  // HALMA_BOT_SEARCH_STATE_H_
