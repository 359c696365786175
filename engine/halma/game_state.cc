#include "halma/game_state.h"

#include <cassert>

#include "halma/movegen.h"

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
         a.occupied_ == b.occupied_ && a.tally_ == b.tally_ &&
         x.over == y.over && x.to_move == y.to_move &&
         x.round_completion_turn == y.round_completion_turn &&
         x.must_pass == y.must_pass && x.winners == y.winners &&
         x.rule == y.rule && x.finished == y.finished &&
         x.eliminated == y.eliminated;
}

GameState::GameState(const Variant& variant, const Position& position)
    : variant_(&variant), position_(position), occupied_(position.Occupied()) {
  for (int i = 0; i < variant.seat_count; ++i) {
    const Seat s = variant.seats[i];
    const int k = SeatIndex(s);
    const Bitboard& pieces = position.pieces[k];
    tally_.outside_target[k] =
        static_cast<std::uint8_t>((pieces & ~variant.TargetCamp(s)).Count());
    tally_.at_home[k] =
        static_cast<std::uint8_t>((pieces & variant.HomeCamp(s)).Count());
    if (tally_.outside_target[k] == 0) tally_.finished.Add(s);
    if (variant.seat_count == 4 &&
        BrokeHomeExit(variant, position, tally_, k)) {
      tally_.eliminated.Add(s);
    }
  }
  tally_.any_move_made = position.AnyMoveMade();
  if (tally_.any_move_made) tally_.last_mover = LastMover(variant, position);
  DecideStatus();
}

GameState::UndoRecord GameState::Play(Square origin, Square destination) {
  assert(!status_.over);
  const Variant& variant = *variant_;
  const Seat mover = position_.to_move;
  const int m = SeatIndex(mover);
  assert(position_.pieces[m].Test(origin) && !occupied_.Test(destination));
  const UndoRecord record{origin, destination, false, mover, tally_, status_};
  Bitboard& pieces = position_.pieces[m];
  pieces.Clear(origin);
  pieces.Set(destination);
  occupied_.Clear(origin);
  occupied_.Set(destination);
  const Bitboard& target = variant.TargetCamp(mover);
  const Bitboard& home = variant.HomeCamp(mover);
  const int outside =
      tally_.outside_target[m] + target.Test(origin) - target.Test(destination);
  tally_.outside_target[m] = static_cast<std::uint8_t>(outside);
  tally_.at_home[m] = static_cast<std::uint8_t>(
      tally_.at_home[m] + home.Test(destination) - home.Test(origin));
  if (outside == 0) {
    tally_.finished.Add(mover);
  } else {
    tally_.finished.Remove(mover);
  }
  AfterMove(mover);
  return record;
}

GameState::UndoRecord GameState::PlayPass() {
  assert(status_.must_pass);
  const Seat mover = position_.to_move;
  const UndoRecord record{0, 0, true, mover, tally_, status_};
  AfterMove(mover);
  return record;
}

void GameState::AfterMove(Seat mover) {
  const Variant& variant = *variant_;
  const int m = SeatIndex(mover);
  ++position_.move_count[m];
  tally_.any_move_made = true;
  if (variant.seat_count == 2) {
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

void GameState::Undo(const UndoRecord& record) {
  const int m = SeatIndex(record.mover);
  if (!record.pass) {
    position_.pieces[m].Clear(record.destination);
    position_.pieces[m].Set(record.origin);
    occupied_.Clear(record.destination);
    occupied_.Set(record.origin);
  }
  --position_.move_count[m];
  position_.to_move = record.mover;
  tally_ = record.tally;
  status_ = record.status;
}

MoveVerdict GameState::CheckPath(const Square* squares, int count,
                                 int* failed_leg) const {
  return CheckPathLegs(*variant_, position_, occupied_, squares, count,
                       failed_leg);
}

namespace {

GameStatus Over(GameStatus status, SeatSet winners, DecidingRule rule) {
  status.over = true;
  status.winners = winners;
  status.rule = rule;
  status.round_completion_turn = false;
  status.must_pass = false;
  return status;
}

}  // namespace

void GameState::DecideStatus() {
  const Variant& variant = *variant_;
  const Position& position = position_;
  GameStatus status;
  status.to_move = position.to_move;
  status.finished = tally_.finished;
  status.eliminated = tally_.eliminated;
  const SeatSet playing{static_cast<std::uint8_t>(variant.in_play.bits &
                                                  ~tally_.eliminated.bits)};

  bool round_completion_pending = false;
  if (tally_.any_move_made) {
    const Seat last = tally_.last_mover;
    // 1. Target filled.
    if (!variant.spec.round_completion) {
      if (status.finished.Has(last)) {
        SeatSet winner;
        winner.Add(last);
        status_ = Over(status, winner, DecidingRule::kTargetFilled);
        return;
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
        if (round_over) {
          status_ = Over(status, finishers, DecidingRule::kTargetFilled);
          return;
        }
        round_completion_pending = true;
      }
    }
    // 2. Home-exit rule.
    if (variant.seat_count == 2 &&
        BrokeHomeExit(variant, position, tally_, SeatIndex(last))) {
      SeatSet winner;
      winner.Add(variant.NextSeat(last));
      status_ = Over(status, winner, DecidingRule::kHomeExit);
      return;
    }
    if (variant.seat_count == 4 && playing.Count() == 1) {
      status_ = Over(status, playing, DecidingRule::kHomeExit);
      return;
    }
    // 3. Move cap.
    const int cap = variant.spec.move_cap;
    if (cap > 0) {
      bool all_capped = true;
      for (int i = 0; i < variant.seat_count; ++i) {
        const Seat s = variant.seats[i];
        if (playing.Has(s) && position.move_count[SeatIndex(s)] < cap) {
          all_capped = false;
        }
      }
      if (all_capped) {
        status_ = Over(status, playing, DecidingRule::kMoveCap);
        return;
      }
    }
  }
  // 4. Everyone stuck. A seat owed a round-completion turn still gets it
  // (even if it can only pass), so the finisher's result stands.
  const bool side_can_move = HasLegalMove(variant, position, position.to_move);
  if (!side_can_move && !round_completion_pending) {
    bool anyone_can_move = false;
    for (int i = 0; i < variant.seat_count && !anyone_can_move; ++i) {
      const Seat s = variant.seats[i];
      if (s != position.to_move && playing.Has(s)) {
        anyone_can_move = HasLegalMove(variant, position, s);
      }
    }
    if (!anyone_can_move) {
      status_ = Over(status, playing, DecidingRule::kEveryoneStuck);
      return;
    }
  }
  status.round_completion_turn = round_completion_pending;
  status.must_pass = !side_can_move;
  status_ = status;
}

}  // namespace halma
