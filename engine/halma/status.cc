#include "halma/status.h"

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
// an earlier round have fallen behind and are skipped.
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

bool HasFinished(const Variant& variant, const Position& position, Seat s) {
  return (position.pieces[SeatIndex(s)] & ~variant.TargetCamp(s)).Any() ==
         false;
}

GameStatus Over(GameStatus status, SeatSet winners, DecidingRule rule) {
  status.over = true;
  status.winners = winners;
  status.rule = rule;
  status.round_completion_turn = false;
  status.must_pass = false;
  return status;
}

}  // namespace

GameStatus EvaluateStatus(const Variant& variant, const Position& position) {
  GameStatus status;
  status.to_move = position.to_move;
  const SeatSet playing = SeatsStillPlaying(variant, position);
  for (int i = 0; i < variant.seat_count; ++i) {
    const Seat s = variant.seats[i];
    if (!playing.Has(s)) status.eliminated.Add(s);
    if (HasFinished(variant, position, s)) status.finished.Add(s);
  }

  bool round_completion_pending = false;
  if (position.AnyMoveMade()) {
    const Seat last = LastMover(variant, position);
    const int last_index = TurnIndex(variant, last);
    // 1. Target filled.
    if (!variant.spec.round_completion) {
      if (status.finished.Has(last)) {
        SeatSet winner;
        winner.Add(last);
        return Over(status, winner, DecidingRule::kTargetFilled);
      }
    } else {
      // Finishers of the current round: the seats that have moved in it.
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
          return Over(status, finishers, DecidingRule::kTargetFilled);
        }
        round_completion_pending = true;
      }
    }
    // 2. Home-exit rule.
    if (BrokeHomeExitRule(variant, position, last) && variant.seat_count == 2) {
      SeatSet winner;
      winner.Add(variant.NextSeat(last));
      return Over(status, winner, DecidingRule::kHomeExit);
    }
    if (variant.seat_count == 4 && playing.Count() == 1) {
      return Over(status, playing, DecidingRule::kHomeExit);
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
      if (all_capped) return Over(status, playing, DecidingRule::kMoveCap);
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
      return Over(status, playing, DecidingRule::kEveryoneStuck);
    }
  }
  status.round_completion_turn = round_completion_pending;
  status.must_pass = !side_can_move;
  return status;
}

const char* DecidingRuleName(DecidingRule rule) {
  switch (rule) {
    case DecidingRule::kNone:
      return "none";
    case DecidingRule::kTargetFilled:
      return "target-filled";
    case DecidingRule::kHomeExit:
      return "home-exit";
    case DecidingRule::kMoveCap:
      return "move-cap";
    case DecidingRule::kEveryoneStuck:
      return "everyone-stuck";
  }
  return "none";
}

}  // namespace halma
