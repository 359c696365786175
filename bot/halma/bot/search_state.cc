#include "halma/bot/search_state.h"

#include "halma/bot/zobrist.h"

namespace halma::bot {

void SearchState::Reset(const Variant& variant, const EvalTables& tables,
                        const Position& position) {
  tables_ = &tables;
  game_.emplace(variant, position);
  // Counts change what the rules decide only under the home-exit rule, a
  // move cap, or in four-player games (eliminated seats fall behind).
  hash_counts_ = variant.spec.home_exit_limit > 0 ||
                 variant.spec.move_cap > 0 || variant.seat_count == 4;
  key_ = kZobrist.to_move[SeatIndex(position.to_move)];
  for (int i = 0; i < kMaxSeats; ++i) {
    cost_[i] = 0;
    distance_[i] = 0;
    exit_steps_[i] = 0;
    ForEachSquare(position.pieces[i], [&](Square s) {
      key_ ^= kZobrist.piece[i][s];
      cost_[i] += tables.cost[i][s];
      distance_[i] += tables.distance[i][s];
      exit_steps_[i] += tables.exit_steps[i][s];
    });
    if (hash_counts_) key_ ^= MoveCountKey(i, position.move_count[i]);
  }
  saved_count_ = 0;
}

bool SearchState::RuleMayFireFor(Seat seat) const {
  const int i = SeatIndex(seat);
  const VariantSpec& spec = variant().spec;
  if (game_->tally().outside_target[i] <= 1) return true;
  const std::int64_t next = position().move_count[i] + 1;
  if (spec.home_exit_limit > 0 && next > spec.home_exit_limit &&
      game_->tally().at_home[i] > 0) {
    return true;
  }
  if (spec.move_cap > 0 && next >= spec.move_cap) return true;
  return spec.round_completion && !game_->tally().finished.Empty();
}

void SearchState::Play(const BotMove& move) {
  const Seat mover = to_move();
  const int i = SeatIndex(mover);
  Saved& saved = saved_[saved_count_++];
  saved.key = key_;
  key_ ^= kZobrist.to_move[i];
  if (move.is_pass) {
    saved.record = game_->PlayPass();
  } else {
    saved.record = game_->Play(move.origin, move.destination);
    key_ ^=
        kZobrist.piece[i][move.origin] ^ kZobrist.piece[i][move.destination];
    cost_[i] +=
        tables_->cost[i][move.destination] - tables_->cost[i][move.origin];
    distance_[i] += tables_->distance[i][move.destination] -
                    tables_->distance[i][move.origin];
    exit_steps_[i] += tables_->exit_steps[i][move.destination] -
                      tables_->exit_steps[i][move.origin];
  }
  const std::int64_t count = position().move_count[i];
  if (hash_counts_) key_ ^= MoveCountKey(i, count - 1) ^ MoveCountKey(i, count);
  key_ ^= kZobrist.to_move[SeatIndex(to_move())];
}

void SearchState::Undo() {
  const Saved& saved = saved_[--saved_count_];
  const GameState::UndoRecord& record = saved.record;
  if (!record.pass) {
    const int i = SeatIndex(record.mover);
    cost_[i] -=
        tables_->cost[i][record.destination] - tables_->cost[i][record.origin];
    distance_[i] -= tables_->distance[i][record.destination] -
                    tables_->distance[i][record.origin];
    exit_steps_[i] -= tables_->exit_steps[i][record.destination] -
                      tables_->exit_steps[i][record.origin];
  }
  game_->Undo(record);
  key_ = saved.key;
}

}  // namespace halma::bot
