// GameState's work on every move, inline for the loops that play a move
// per iteration (the record replay, record_replay.h): the piece moved, the
// tallies, and the status of the new position decided from them
// (docs/rules.md sections 5 and 6). Included by game_state.h; not a header
// of its own.
#ifndef HALMA_GAME_STATE_PLAY_H_
#define HALMA_GAME_STATE_PLAY_H_

#include <cassert>
#include <cstdint>

#include "absl/strings/string_view.h"
#include "halma/game_status.h"
#include "halma/move_read.h"
#include "halma/path_check.h"
#include "halma/position.h"
#include "halma/seat.h"
#include "halma/variant.h"

namespace halma {
namespace game_state_internal {

// The index of `s` in the variant's turn order (0 when not in play).
int TurnIndex(const Variant& variant, Seat s);
// The seat that made the last counted move (game_state.cc).
Seat LastMover(const Variant& variant, const Position& position);

// Rule 2's condition for `seat` (BrokeHomeExitRule, from the tally).
inline bool BrokeHomeExit(const Variant& variant, const Position& position,
                          const GameTally& tally, int seat) {
  const int limit = variant.spec.home_exit_limit;
  return limit > 0 && position.move_count[seat] > limit &&
         tally.at_home[seat] != 0;
}

// Which of the rules of docs/rules.md section 5 a variant turns on, so that
// the status needs one load to skip the others.
inline constexpr std::uint8_t kRoundCompletion = 1;
inline constexpr std::uint8_t kHomeExit = 2;
inline constexpr std::uint8_t kMoveCap = 4;
inline constexpr std::uint8_t kFourSeats = 8;

// The status of `position` (docs/rules.md sections 5 and 6) from its tally,
// written into *out: the one copy of those rules, for GameState after every
// move and for EvaluateStatus. `can_move(seat)` says whether the seat has a
// legal move other than pass.
template <typename CanMove>
[[gnu::always_inline]] inline void Decide(const Variant& variant,
                                          const Position& position,
                                          const GameTally& tally,
                                          std::uint8_t rules, CanMove can_move,
                                          GameStatus* out) {
  // Written field by field into *out: assembling a GameStatus in a
  // local and copying it costs the compiler about 30 instructions of
  // shifts and masks.
  GameStatus& status = *out;
  status.over = false;
  status.to_move = position.to_move;
  status.round_completion_turn = false;
  status.must_pass = false;
  status.winners = SeatSet{};
  status.rule = DecidingRule::kNone;
  status.finished = tally.finished;
  status.eliminated = tally.eliminated;
  const SeatSet playing{
      static_cast<std::uint8_t>(variant.in_play.bits & ~tally.eliminated.bits)};
  const auto over = [&status](SeatSet winners, DecidingRule rule) {
    status.over = true;
    status.winners = winners;
    status.rule = rule;
  };

  bool round_completion_pending = false;
  if (tally.any_move_made) {
    const Seat last = tally.last_mover;
    // 1. Target filled.
    if ((rules & kRoundCompletion) == 0) {
      if (status.finished.Has(last)) {
        SeatSet winner;
        winner.Add(last);
        return over(winner, DecidingRule::kTargetFilled);
      }
    } else if (!status.finished.Empty()) {
      // Finishers of the current round: the seats that have moved in it.
      const int last_index = TurnIndex(variant, last);
      SeatSet finishers;
      for (int i = 0; i <= last_index; ++i) {
        const Seat s = variant.seats[i];
        if (position.move_count[SeatIndex(s)] ==
                position.move_count[SeatIndex(last)] &&
            status.finished.Has(s)) {
          finishers.Add(s);
        }
      }
      bool round_over = true;
      for (int i = last_index + 1; i < variant.seat_count; ++i) {
        if (playing.Has(variant.seats[i])) round_over = false;
      }
      if (!finishers.Empty()) {
        if (round_over) return over(finishers, DecidingRule::kTargetFilled);
        round_completion_pending = true;
      }
    }
    // 2. Home-exit rule.
    if (rules & kHomeExit) {
      if (variant.seat_count == 2 &&
          BrokeHomeExit(variant, position, tally, SeatIndex(last))) {
        SeatSet winner;
        winner.Add(variant.NextSeat(last));
        return over(winner, DecidingRule::kHomeExit);
      }
      if (variant.seat_count == 4 && playing.Count() == 1) {
        return over(playing, DecidingRule::kHomeExit);
      }
    }
    // 3. Move cap.
    if (rules & kMoveCap) {
      const int cap = variant.spec.move_cap;
      bool all_capped = true;
      for (int i = 0; i < variant.seat_count; ++i) {
        const Seat s = variant.seats[i];
        if (playing.Has(s) && position.move_count[SeatIndex(s)] < cap) {
          all_capped = false;
        }
      }
      if (all_capped) return over(playing, DecidingRule::kMoveCap);
    }
  }
  // 4. Everyone stuck. A seat owed a round-completion turn still gets it
  // (even if it can only pass), so the finisher's result stands.
  const bool side_can_move = can_move(position.to_move);
  if (!side_can_move && !round_completion_pending) {
    bool anyone_can_move = false;
    for (int i = 0; i < variant.seat_count && !anyone_can_move; ++i) {
      const Seat s = variant.seats[i];
      if (s != position.to_move && playing.Has(s))
        anyone_can_move = can_move(s);
    }
    if (!anyone_can_move) return over(playing, DecidingRule::kEveryoneStuck);
  }
  status.round_completion_turn = round_completion_pending;
  status.must_pass = !side_can_move;
}

}  // namespace game_state_internal

[[gnu::always_inline]] inline bool GameState::CanMove(Seat seat) {
  const int k = SeatIndex(seat);
  if (board_.Holds(step_origin_[k], seat) &&
      !board_.Occupied(step_destination_[k])) {
    return true;
  }
  return FindMove(seat);
}

[[gnu::always_inline]] inline void GameState::DecideStatus() {
  game_state_internal::Decide(
      *variant_, position_, tally_, rules_,
      [this](Seat seat) { return CanMove(seat); }, &status_);
}

[[gnu::always_inline]] inline void GameState::AfterMove(Seat mover) {
  const Variant& variant = *variant_;
  const int m = SeatIndex(mover);
  ++position_.move_count[m];
  tally_.any_move_made = true;
  if ((rules_ & game_state_internal::kFourSeats) == 0) {
    // The two seats are w and b (SeatIndex 0 and 2), and nobody is
    // eliminated in a two-player game. LastMover of the new position is
    // the mover: its count now exceeds the other's by one (w moved) or
    // equals it (b moved), which is what the walk back from the side to
    // move tests.
    const Seat next = SeatAt(m ^ 2);
    position_.to_move = next;
    tally_.last_mover = mover;
    if (rules_ == 0) {
      // None of rules 2 and 3 nor round completion: what Decide works out,
      // without the tests of the rules the variant does not have. The game
      // ends when the mover has finished (rule 1) or when neither seat can
      // move (rule 4).
      GameStatus& status = status_;
      status.to_move = next;
      status.round_completion_turn = false;
      status.finished = tally_.finished;
      status.eliminated = SeatSet{};
      if (tally_.finished.Has(mover)) {
        status.over = true;
        status.must_pass = false;
        status.winners = SeatSet{static_cast<std::uint8_t>(1u << m)};
        status.rule = DecidingRule::kTargetFilled;
        return;
      }
      const bool next_can_move = CanMove(next);
      if (!next_can_move && !CanMove(mover)) {
        status.over = true;
        status.must_pass = false;
        status.winners = variant.in_play;
        status.rule = DecidingRule::kEveryoneStuck;
        return;
      }
      status.over = false;
      status.must_pass = !next_can_move;
      status.winners = SeatSet{};
      status.rule = DecidingRule::kNone;
      return;
    }
  } else {
    if (game_state_internal::BrokeHomeExit(variant, position_, tally_, m)) {
      tally_.eliminated.Add(mover);
    }
    // The next seat still playing (the mover itself when nobody else is,
    // a finished game).
    const SeatSet playing{static_cast<std::uint8_t>(variant.in_play.bits &
                                                    ~tally_.eliminated.bits)};
    Seat next = mover;
    for (int i = 0; i < variant.seat_count; ++i) {
      next = variant.NextSeat(next);
      if (playing.Has(next)) break;
    }
    position_.to_move = next;
    // With eliminated seats about, the walk of EvaluateStatus decides.
    tally_.last_mover = game_state_internal::LastMover(variant, position_);
  }
  DecideStatus();
}

[[gnu::always_inline]] inline void GameState::ApplyMove(Square origin,
                                                        Square destination) {
  assert(!status_.over);
  const Variant& variant = *variant_;
  const Seat mover = position_.to_move;
  const int m = SeatIndex(mover);
  assert(board_.Holds(origin, mover) && !board_.Occupied(destination));
  // The piece's bits: it leaves one set and enters one that was clear.
  position_.pieces[m].word[origin >> 6] ^= std::uint64_t{1} << (origin & 63);
  position_.pieces[m].word[destination >> 6] ^= std::uint64_t{1}
                                                << (destination & 63);
  board_.seat_plus_one[origin] = 0;
  board_.seat_plus_one[destination] = static_cast<std::uint8_t>(m + 1);
  const int target = m ^ 2;  // TargetCorner(mover), (m + 2) % 4.
  const int home = static_cast<int>(HomeCorner(mover));
  const int camps_from = variant.camps_at[origin];
  const int camps_to = variant.camps_at[destination];
  const int outside = tally_.outside_target[m] + ((camps_from >> target) & 1) -
                      ((camps_to >> target) & 1);
  tally_.outside_target[m] = static_cast<std::uint8_t>(outside);
  if (rules_ & game_state_internal::kHomeExit) {
    tally_.at_home[m] =
        static_cast<std::uint8_t>(tally_.at_home[m] + ((camps_to >> home) & 1) -
                                  ((camps_from >> home) & 1));
  }
  // The mover's bit of `finished` set exactly when it has finished.
  const unsigned mover_bit = 1u << m;
  tally_.finished.bits = static_cast<std::uint8_t>(
      (tally_.finished.bits & ~mover_bit) | (outside == 0 ? mover_bit : 0));
  AfterMove(mover);
}

[[gnu::always_inline]] inline LegCheck GameState::PlayPath(
    const Square* squares, int count) {
  const LegCheck legs =
      CheckPathLegs(*variant_, position_.to_move, board_, squares, count);
  if (legs.verdict == MoveVerdict::kLegal && !legs.shorthand) {
    ApplyMove(squares[0], squares[count - 1]);
  }
  return legs;
}

[[gnu::always_inline]] inline bool GameState::PlayWritten(
    absl::string_view text) {
  using move_read_internal::ReadSquare;
  using path_check_internal::kHopOver;
  const char* at = text.data();
  const char* const end = at + text.size();
  const unsigned n = static_cast<unsigned>(variant_->size);
  const Seat mover = position_.to_move;
  const std::uint8_t* const cells = board_.seat_plus_one;
  // The legs are checked as CheckPathLegs checks them (path_check.h), the
  // failures only found, not told apart: the general path does that.
  Square origin;
  Square to;
  if (!ReadSquare(at, end, n, &origin) || !board_.Holds(origin, mover) ||
      end - at < 3 || *at++ != '-' || !ReadSquare(at, end, n, &to)) {
    return false;
  }
  const bool lock = variant_->spec.target_lock;
  if (at == end) {
    // Two squares: a step or a single hop.
    const unsigned over = kHopOver.over[origin][to];
    if (over != origin) {
      if (cells[over] == 0) return false;
    } else if (!path_check_internal::AreNeighbours(origin, to)) {
      return false;  // Shorthand, or the origin twice.
    }
    if (cells[to] != 0) return false;
    if (lock && ((variant_->camps_at[origin] & ~variant_->camps_at[to]) >>
                 static_cast<int>(TargetCorner(mover))) &
                    1) {
      return false;
    }
    ApplyMove(origin, to);
    return true;
  }
  // A chain: every leg a hop, read and checked one square at a time.
  const std::uint64_t target_here =
      lock ? variant_->TargetCamp(mover).word[origin >> 6] : 0;
  std::uint64_t visited = std::uint64_t{1} << (origin & 63);
  bool in_target = (target_here >> (origin & 63)) & 1;
  unsigned from = origin;
  for (;;) {
    const unsigned over = kHopOver.over[from][to];
    if (over == from) return false;
    const std::uint64_t to_bit = std::uint64_t{1} << (to & 63);
    if ((visited & to_bit) || cells[over] == 0 || cells[to] != 0) {
      return false;
    }
    if (target_here & to_bit) {
      in_target = true;
    } else if (in_target) {
      return false;
    }
    visited |= to_bit;
    from = to;
    if (at == end) break;
    if (end - at < 3 || *at++ != '-' || !ReadSquare(at, end, n, &to)) {
      return false;
    }
  }
  ApplyMove(origin, static_cast<Square>(from));
  return true;
}

}  // namespace halma

#endif  // HALMA_GAME_STATE_PLAY_H_
