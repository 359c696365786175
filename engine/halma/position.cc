#include "halma/position.h"

#include "absl/strings/str_cat.h"

namespace halma {

bool operator==(const Position& a, const Position& b) {
  for (int i = 0; i < kMaxSeats; ++i) {
    if (!(a.pieces[i] == b.pieces[i]) || a.move_count[i] != b.move_count[i]) {
      return false;
    }
  }
  return a.to_move == b.to_move;
}

void FillMailbox(const Position& position, Mailbox* mailbox) {
  for (std::uint8_t& square : mailbox->seat_plus_one) square = 0;
  for (int i = 0; i < kMaxSeats; ++i) {
    ForEachSquare(position.pieces[i], [&](Square s) {
      mailbox->seat_plus_one[s] = static_cast<std::uint8_t>(i + 1);
    });
  }
}

Position StartPosition(const Variant& variant) {
  Position p;
  for (int i = 0; i < variant.seat_count; ++i) {
    const Seat s = variant.seats[i];
    p.pieces[SeatIndex(s)] = variant.HomeCamp(s);
  }
  p.to_move = variant.seats[0];
  return p;
}

bool BrokeHomeExitRule(const Variant& variant, const Position& position,
                       Seat seat) {
  const int limit = variant.spec.home_exit_limit;
  return limit > 0 && position.move_count[SeatIndex(seat)] > limit &&
         (position.pieces[SeatIndex(seat)] & variant.HomeCamp(seat)).Any();
}

SeatSet SeatsStillPlaying(const Variant& variant, const Position& position) {
  SeatSet playing = variant.in_play;
  if (variant.seat_count == 4) {
    for (int i = 0; i < variant.seat_count; ++i) {
      if (BrokeHomeExitRule(variant, position, variant.seats[i])) {
        playing.Remove(variant.seats[i]);
      }
    }
  }
  return playing;
}

absl::Status CheckRoomForMove(const Position& position) {
  const Seat mover = position.to_move;
  if (position.move_count[SeatIndex(mover)] < kMaxMoveCount) {
    return absl::OkStatus();
  }
  return absl::InvalidArgumentError(
      absl::StrCat("position move count of '",
                   std::string(1, SeatLetter(mover)), "' is ", kMaxMoveCount,
                   ", the most a count can hold, so its next move cannot be "
                   "counted"));
}

absl::Status CheckPositionConsistency(const Variant& variant,
                                      const Position& position) {
  for (int i = 0; i < kMaxSeats; ++i) {
    const Seat s = SeatAt(i);
    const int count = position.pieces[i].Count();
    if (!variant.in_play.Has(s)) {
      if (count != 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            "position has ", count, " '", std::string(1, SeatLetter(s)),
            "' pieces, but '", std::string(1, SeatLetter(s)),
            "' is not a seat in play in a ", variant.seat_count,
            "-player game"));
      }
      continue;
    }
    if (count != variant.pieces_per_seat) {
      return absl::InvalidArgumentError(
          absl::StrCat("position has ", count, " '",
                       std::string(1, SeatLetter(s)), "' pieces, expected ",
                       variant.pieces_per_seat, " (the size of a camp)"));
    }
    if ((position.pieces[i] & ~variant.on_board).Any()) {
      return absl::InvalidArgumentError("position has a piece off the board");
    }
  }
  const Seat to_move = position.to_move;
  if (!variant.in_play.Has(to_move)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "position side to move '", std::string(1, SeatLetter(to_move)),
        "' is not a seat in play"));
  }
  const SeatSet playing = SeatsStillPlaying(variant, position);
  if (!playing.Has(to_move)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "position side to move '", std::string(1, SeatLetter(to_move)),
        "' was eliminated by the home-exit rule, expected a seat still "
        "playing"));
  }
  // Alternate play: seats before the side to move have made one move more.
  // Compared as actual - extra against base, which cannot overflow for
  // counts from 0 to kMaxMoveCount.
  const int64_t base = position.move_count[SeatIndex(to_move)];
  bool before = true;
  for (int i = 0; i < variant.seat_count; ++i) {
    const Seat s = variant.seats[i];
    if (s == to_move) before = false;
    const int extra = before ? 1 : 0;
    const int64_t actual = position.move_count[SeatIndex(s)];
    if (actual < 0) {
      return absl::InvalidArgumentError("position move counts are negative");
    }
    if (actual - extra == base) continue;
    if (!playing.Has(s) && actual - extra < base) continue;
    const std::string expected =
        base == kMaxMoveCount && extra == 1
            ? absl::StrCat("more than ", kMaxMoveCount,
                           ", which no count can hold,")
            : absl::StrCat(base + extra);
    return absl::InvalidArgumentError(absl::StrCat(
        "position move count of '", std::string(1, SeatLetter(s)), "' is ",
        actual, ", expected ", expected, " with '",
        std::string(1, SeatLetter(to_move)), "' to move after ", base,
        " moves (seats before the side to move in turn order have made one "
        "move more)"));
  }
  return absl::OkStatus();
}

}  // namespace halma
