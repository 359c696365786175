#include "halma/game_state.h"

#include <cassert>
#include <cstring>

#include "halma/movegen.h"
#include "halma/position.h"

namespace halma {
namespace {

int TurnIndex(const Variant& variant, Seat s) {
  for (int i = 0; i < variant.seat_count; ++i) {
    if (variant.seats[i] == s) return i;
  }
  return 0;
}

// The seat that made the last counted move: walking back from the side to
// move, the first seat whose count shows it moved last. Seats eliminated in
// an earlier round have fallen behind and are skipped (docs/rules.md
// section 5, "Decisions").
Seat LastMover(const Variant& variant, const Position& position) {
  const int to_move = TurnIndex(variant, position.to_move);
  const int64_t base = position.move_count[SeatIndex(position.to_move)];
  for (int step = 1; step < variant.seat_count; ++step) {
    const int i = (to_move - step + variant.seat_count) % variant.seat_count;
    const Seat s = variant.seats[i];
    // count - extra == base: no overflow for counts up to kMaxMoveCount.
    const int extra = i < to_move ? 1 : 0;
    if (position.move_count[SeatIndex(s)] - extra == base) return s;
  }
  return variant.seats[(to_move + variant.seat_count - 1) % variant.seat_count];
}

// Rule 2's condition for `seat` (BrokeHomeExitRule, from the tally).
bool BrokeHomeExit(const Variant& variant, const Position& position,
                   const GameTally& tally, int seat) {
  const int limit = variant.spec.home_exit_limit;
  return limit > 0 && position.move_count[seat] > limit &&
         tally.at_home[seat] != 0;
}

// Which of the rules of docs/rules.md section 5 a variant turns on, so that
// the status needs one load to skip the others.
constexpr std::uint8_t kRoundCompletion = 1;
constexpr std::uint8_t kHomeExit = 2;
constexpr std::uint8_t kMoveCap = 4;
constexpr std::uint8_t kFourSeats = 8;

std::uint8_t RulesOf(const Variant& variant) {
  std::uint8_t rules = 0;
  if (variant.spec.round_completion) rules |= kRoundCompletion;
  if (variant.spec.home_exit_limit > 0) rules |= kHomeExit;
  if (variant.spec.move_cap > 0) rules |= kMoveCap;
  if (variant.seat_count == 4) rules |= kFourSeats;
  return rules;
}

// The tally of a position counted from scratch.
GameTally CountTally(const Variant& variant, const Position& position,
                     std::uint8_t rules) {
  GameTally tally;
  for (int i = 0; i < variant.seat_count; ++i) {
    const Seat s = variant.seats[i];
    const int k = SeatIndex(s);
    const Bitboard& pieces = position.pieces[k];
    tally.outside_target[k] =
        static_cast<std::uint8_t>((pieces & ~variant.TargetCamp(s)).Count());
    if (rules & kHomeExit) {
      tally.at_home[k] =
          static_cast<std::uint8_t>((pieces & variant.HomeCamp(s)).Count());
    }
    if (tally.outside_target[k] == 0) tally.finished.Add(s);
    if ((rules & kFourSeats) && BrokeHomeExit(variant, position, tally, k)) {
      tally.eliminated.Add(s);
    }
  }
  tally.any_move_made = position.AnyMoveMade();
  if (tally.any_move_made) tally.last_mover = LastMover(variant, position);
  return tally;
}

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

}  // namespace

bool operator==(const GameTally& a, const GameTally& b) {
  for (int i = 0; i < kMaxSeats; ++i) {
    if (a.outside_target[i] != b.outside_target[i] ||
        a.at_home[i] != b.at_home[i]) {
      return false;
    }
  }
  return a.finished == b.finished && a.eliminated == b.eliminated &&
         a.any_move_made == b.any_move_made &&
         (!a.any_move_made || a.last_mover == b.last_mover);
}

bool operator==(const GameState& a, const GameState& b) {
  const GameStatus& x = a.status_;
  const GameStatus& y = b.status_;
  return a.variant_ == b.variant_ && a.position_ == b.position_ &&
         std::memcmp(a.board_.seat_plus_one, b.board_.seat_plus_one,
                     sizeof a.board_.seat_plus_one) == 0 &&
         a.tally_ == b.tally_ && x.over == y.over && x.to_move == y.to_move &&
         x.round_completion_turn == y.round_completion_turn &&
         x.must_pass == y.must_pass && x.winners == y.winners &&
         x.rule == y.rule && x.finished == y.finished &&
         x.eliminated == y.eliminated;
}

[[gnu::always_inline]] inline bool GameState::CanMove(Seat seat) {
  const int k = SeatIndex(seat);
  if (board_.Holds(step_origin_[k], seat) &&
      !board_.Occupied(step_destination_[k])) {
    return true;
  }
  return FindMove(seat);
}

bool GameState::FindMove(Seat seat) {
  const int k = SeatIndex(seat);
  if (FindStep(*variant_, position_, position_.Occupied(), seat,
               &step_origin_[k], &step_destination_[k])) {
    return true;
  }
  return HasLegalMove(*variant_, position_, seat);
}

[[gnu::always_inline]] inline void GameState::DecideStatus() {
  Decide(
      *variant_, position_, tally_, rules_,
      [this](Seat seat) { return CanMove(seat); }, &status_);
}

GameStatus GameState::Evaluate(const Variant& variant,
                               const Position& position) {
  const std::uint8_t rules = RulesOf(variant);
  GameStatus status;
  Decide(
      variant, position, CountTally(variant, position, rules), rules,
      [&](Seat seat) { return HasLegalMove(variant, position, seat); },
      &status);
  return status;
}

[[gnu::always_inline]] inline void GameState::AfterMove(Seat mover) {
  const Variant& variant = *variant_;
  const int m = SeatIndex(mover);
  ++position_.move_count[m];
  tally_.any_move_made = true;
  if ((rules_ & kFourSeats) == 0) {
    // The two seats are w and b (SeatIndex 0 and 2), and nobody is
    // eliminated in a two-player game. LastMover of the new position is
    // the mover: its count now exceeds the other's by one (w moved) or
    // equals it (b moved), which is what the walk back from the side to
    // move tests.
    position_.to_move = SeatAt(m ^ 2);
    tally_.last_mover = mover;
  } else {
    if (BrokeHomeExit(variant, position_, tally_, m)) {
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
    tally_.last_mover = LastMover(variant, position_);
  }
  DecideStatus();
}

GameState::GameState(const Variant& variant, const Position& position)
    : variant_(&variant), rules_(RulesOf(variant)), position_(position) {
  FillMailbox(position, &board_);
  tally_ = CountTally(variant, position, rules_);
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
  const int target = static_cast<int>(TargetCorner(mover));
  const int home = static_cast<int>(HomeCorner(mover));
  const int camps_from = variant.camps_at[origin];
  const int camps_to = variant.camps_at[destination];
  const int outside = tally_.outside_target[m] + ((camps_from >> target) & 1) -
                      ((camps_to >> target) & 1);
  tally_.outside_target[m] = static_cast<std::uint8_t>(outside);
  if (rules_ & kHomeExit) {
    tally_.at_home[m] =
        static_cast<std::uint8_t>(tally_.at_home[m] + ((camps_to >> home) & 1) -
                                  ((camps_from >> home) & 1));
  }
  if (outside == 0) {
    tally_.finished.Add(mover);
  } else {
    tally_.finished.Remove(mover);
  }
  AfterMove(mover);
}

void GameState::Apply(Square origin, Square destination) {
  ApplyMove(origin, destination);
}

LegCheck GameState::PlayPath(const Square* squares, int count) {
  const LegCheck legs =
      CheckPathLegs(*variant_, position_.to_move, board_, squares, count);
  if (legs.verdict == MoveVerdict::kLegal && !legs.shorthand) {
    ApplyMove(squares[0], squares[count - 1]);
  }
  return legs;
}

void GameState::ApplyPass() {
  assert(status_.must_pass);
  AfterMove(position_.to_move);
}

void GameState::Undo(const UndoRecord& record) {
  const int m = SeatIndex(record.mover);
  if (!record.pass) {
    position_.pieces[m].word[record.origin >> 6] ^= std::uint64_t{1}
                                                    << (record.origin & 63);
    position_.pieces[m].word[record.destination >> 6] ^=
        std::uint64_t{1} << (record.destination & 63);
    board_.seat_plus_one[record.destination] = 0;
    board_.seat_plus_one[record.origin] = static_cast<std::uint8_t>(m + 1);
  }
  --position_.move_count[m];
  position_.to_move = record.mover;
  tally_ = record.tally;
  status_ = record.status;
}

}  // namespace halma
