#ifndef HALMA_BOT_SEARCH_STATE_H_
#define HALMA_BOT_SEARCH_STATE_H_

#include <cstdint>

#include "halma/bot/eval_tables.h"
#include "halma/position.h"
#include "halma/seat.h"
#include "halma/square.h"
#include "halma/status.h"
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

// The game state the search plays moves in and takes back, with the
// evaluation's per-seat sums, the Zobrist key and the status kept up to
// date move by move (allocation-free).
//
// This is the bot's adapter over the engine (Position, EvaluateStatus): it
// plays a move on the bitboards and updates its sums incrementally; the
// rules of docs/rules.md section 5 stay the engine's. After each move it
// asks the engine's EvaluateStatus whenever a rule could end the game (the
// mover's target full, a home-exit break, the move cap, round completion
// under way); otherwise no rule can have fired and the game goes on. The
// "everyone stuck" draw is for the caller, which sees that the side to
// move has no move (StatusNow).
class SearchState {
 public:
  // `tables` must outlive the state (and be built for `variant`).
  void Reset(const Variant& variant, const EvalTables& tables,
             const Position& position);

  const Variant& variant() const { return *variant_; }
  const EvalTables& tables() const { return *tables_; }
  const Position& position() const { return position_; }
  Seat to_move() const { return position_.to_move; }
  std::uint64_t key() const { return key_; }
  // Moves played since Reset and not taken back.
  int played() const { return saved_count_; }

  // Plays `move` for the side to move (which must be legal; a pass is
  // also how a search lets a seat sit out its turn).
  void Play(const BotMove& move);
  // Takes back the last move played.
  void Undo();

  // Whether the last move ended the game, and its status then.
  bool over() const { return over_; }
  const GameStatus& final_status() const { return final_status_; }
  // The engine's status of the current position (stuck checks included).
  GameStatus StatusNow() const;

  // Per-seat sums the evaluation reads.
  std::int32_t cost(Seat s) const { return cost_[SeatIndex(s)]; }
  int distance(Seat s) const { return distance_[SeatIndex(s)]; }
  int in_target(Seat s) const { return in_target_[SeatIndex(s)]; }
  int at_home(Seat s) const { return at_home_[SeatIndex(s)]; }
  int exit_steps(Seat s) const { return exit_steps_[SeatIndex(s)]; }
  std::int64_t moves(Seat s) const {
    return position_.move_count[SeatIndex(s)];
  }
  // Seats still playing (four-player games drop eliminated seats).
  SeatSet playing() const { return playing_; }

  // Whether a move of `seat` now could make a rule end the game or change
  // who plays (so that its outcome needs the engine): used by the search
  // to decide when a move's value cannot be read off the tables.
  bool RuleMayFireFor(Seat seat) const;

 private:
  struct Saved {
    BotMove move;
    Seat mover;
    std::uint64_t key;
    SeatSet playing;
    bool over;
  };

  void AfterMove(Seat mover);

  const Variant* variant_ = nullptr;
  const EvalTables* tables_ = nullptr;
  Position position_;
  std::uint64_t key_ = 0;
  std::int32_t cost_[kMaxSeats] = {};
  int distance_[kMaxSeats] = {};
  int in_target_[kMaxSeats] = {};
  int at_home_[kMaxSeats] = {};
  int exit_steps_[kMaxSeats] = {};
  SeatSet playing_;
  bool hash_counts_ = false;
  bool over_ = false;
  GameStatus final_status_;
  // Room for a four-player round (one move and up to three passes) per ply.
  Saved saved_[kMaxPly * kMaxSeats + 8];
  int saved_count_ = 0;
};

}  // namespace halma::bot

#endif  // HALMA_BOT_SEARCH_STATE_H_
