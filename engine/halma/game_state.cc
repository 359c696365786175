#include "halma/game_state.h"

#include <cassert>
#include <cstring>

#include "halma/movegen.h"
#include "halma/position.h"

namespace halma {
namespace game_state_internal {

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

}  // namespace game_state_internal

namespace {

using namespace game_state_internal;

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

bool GameState::FindMove(Seat seat) {
  const int k = SeatIndex(seat);
  if (FindStep(*variant_, position_, position_.Occupied(), seat,
               &step_origin_[k], &step_destination_[k])) {
    return true;
  }
  return HasLegalMove(*variant_, position_, seat);
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

GameState::GameState(const Variant& variant, const Position& position)
    : variant_(&variant), rules_(RulesOf(variant)), position_(position) {
  FillMailbox(position, &board_);
  tally_ = CountTally(variant, position, rules_);
  DecideStatus();
}

void GameState::Apply(Square origin, Square destination) {
  ApplyMove(origin, destination);
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
