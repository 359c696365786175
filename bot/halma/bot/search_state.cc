#include "halma/bot/search_state.h"

#include "halma/bot/zobrist.h"

namespace halma::bot {

void SearchState::Reset(const Variant& variant, const EvalTables& tables,
                        const Position& position) {
  variant_ = &variant;
  tables_ = &tables;
  position_ = position;
  // Counts change what the rules decide only under the home-exit rule, a
  // move cap, or in four-player games (eliminated seats fall behind).
  hash_counts_ = variant.spec.home_exit_limit > 0 ||
                 variant.spec.move_cap > 0 || variant.seat_count == 4;
  key_ = kZobrist.to_move[SeatIndex(position.to_move)];
  for (int i = 0; i < kMaxSeats; ++i) {
    cost_[i] = 0;
    distance_[i] = 0;
    in_target_[i] = 0;
    at_home_[i] = 0;
    exit_steps_[i] = 0;
    ForEachSquare(position.pieces[i], [&](Square s) {
      exit_steps_[i] += tables.exit_steps[i][s];
      key_ ^= kZobrist.piece[i][s];
      cost_[i] += tables.cost[i][s];
      distance_[i] += tables.distance[i][s];
    });
    in_target_[i] = (position.pieces[i] & tables.target[i]).Count();
    at_home_[i] = (position.pieces[i] & tables.home[i]).Count();
    if (hash_counts_) key_ ^= MoveCountKey(i, position.move_count[i]);
  }
  playing_ = SeatsStillPlaying(variant, position);
  over_ = false;
  final_status_ = GameStatus();
  saved_count_ = 0;
}

GameStatus SearchState::StatusNow() const {
  return EvaluateStatus(*variant_, position_);
}

bool SearchState::RuleMayFireFor(Seat seat) const {
  const int i = SeatIndex(seat);
  const VariantSpec& spec = variant_->spec;
  if (in_target_[i] >= variant_->pieces_per_seat - 1) return true;
  const std::int64_t next = position_.move_count[i] + 1;
  if (spec.home_exit_limit > 0 && next > spec.home_exit_limit &&
      at_home_[i] > 0) {
    return true;
  }
  if (spec.move_cap > 0 && next >= spec.move_cap) return true;
  if (spec.round_completion) {
    for (int s = 0; s < kMaxSeats; ++s) {
      if (variant_->in_play.Has(SeatAt(s)) &&
          in_target_[s] == variant_->pieces_per_seat) {
        return true;
      }
    }
  }
  return false;
}

void SearchState::Play(const BotMove& move) {
  const Seat mover = position_.to_move;
  const int i = SeatIndex(mover);
  Saved& saved = saved_[saved_count_++];
  saved.move = move;
  saved.mover = mover;
  saved.key = key_;
  saved.playing = playing_;
  saved.over = over_;
  if (!move.is_pass) {
    position_.pieces[i].Clear(move.origin);
    position_.pieces[i].Set(move.destination);
    key_ ^=
        kZobrist.piece[i][move.origin] ^ kZobrist.piece[i][move.destination];
    cost_[i] +=
        tables_->cost[i][move.destination] - tables_->cost[i][move.origin];
    distance_[i] += tables_->distance[i][move.destination] -
                    tables_->distance[i][move.origin];
    in_target_[i] += int(tables_->target[i].Test(move.destination)) -
                     int(tables_->target[i].Test(move.origin));
    at_home_[i] += int(tables_->home[i].Test(move.destination)) -
                   int(tables_->home[i].Test(move.origin));
    exit_steps_[i] += tables_->exit_steps[i][move.destination] -
                      tables_->exit_steps[i][move.origin];
  }
  if (hash_counts_) key_ ^= MoveCountKey(i, position_.move_count[i]);
  ++position_.move_count[i];
  if (hash_counts_) key_ ^= MoveCountKey(i, position_.move_count[i]);
  AfterMove(mover);
}

void SearchState::AfterMove(Seat mover) {
  const int i = SeatIndex(mover);
  const VariantSpec& spec = variant_->spec;
  const std::int64_t count = position_.move_count[i];
  const bool broke_home_exit = spec.home_exit_limit > 0 &&
                               count > spec.home_exit_limit && at_home_[i] > 0;
  // docs/rules.md section 5: a four-player seat that breaks the home-exit
  // rule is eliminated and play skips it.
  if (broke_home_exit && variant_->seat_count == 4) playing_.Remove(mover);
  key_ ^= kZobrist.to_move[SeatIndex(position_.to_move)];
  Seat next = mover;
  for (int k = 0; k < variant_->seat_count; ++k) {
    next = variant_->NextSeat(next);
    if (playing_.Has(next)) break;
  }
  position_.to_move = next;
  key_ ^= kZobrist.to_move[SeatIndex(next)];

  bool may_end = in_target_[i] == variant_->pieces_per_seat ||
                 broke_home_exit ||
                 (spec.move_cap > 0 && count >= spec.move_cap);
  if (!may_end && spec.round_completion) {
    for (int s = 0; s < kMaxSeats && !may_end; ++s) {
      may_end = variant_->in_play.Has(SeatAt(s)) &&
                in_target_[s] == variant_->pieces_per_seat;
    }
  }
  if (may_end) {
    final_status_ = EvaluateStatus(*variant_, position_);
    over_ = final_status_.over;
  }
}

void SearchState::Undo() {
  const Saved& saved = saved_[--saved_count_];
  const int i = SeatIndex(saved.mover);
  if (!saved.move.is_pass) {
    const BotMove& move = saved.move;
    position_.pieces[i].Clear(move.destination);
    position_.pieces[i].Set(move.origin);
    cost_[i] -=
        tables_->cost[i][move.destination] - tables_->cost[i][move.origin];
    distance_[i] -= tables_->distance[i][move.destination] -
                    tables_->distance[i][move.origin];
    in_target_[i] -= int(tables_->target[i].Test(move.destination)) -
                     int(tables_->target[i].Test(move.origin));
    at_home_[i] -= int(tables_->home[i].Test(move.destination)) -
                   int(tables_->home[i].Test(move.origin));
    exit_steps_[i] -= tables_->exit_steps[i][move.destination] -
                      tables_->exit_steps[i][move.origin];
  }
  --position_.move_count[i];
  position_.to_move = saved.mover;
  key_ = saved.key;
  playing_ = saved.playing;
  over_ = saved.over;
}

}  // namespace halma::bot
