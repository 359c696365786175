// A position (pieces, side to move, move counts), the start position, and
// the well-formedness checks of docs/rules.md section 4.
#ifndef HALMA_POSITION_H_
#define HALMA_POSITION_H_

#include <cstdint>
#include <limits>

#include "absl/status/status.h"
#include "halma/bitboard.h"
#include "halma/seat.h"
#include "halma/variant.h"

namespace halma {

// The most moves a seat's count can hold: docs/rules.md section 4 sets no
// bound, this one is far beyond any game and keeps every sum of counts exact.
inline constexpr int64_t kMaxMoveCount = std::numeric_limits<int64_t>::max();

// A position: where every piece stands, whose turn it is and how many moves
// each seat has made. Plain data; seats not in play have no pieces.
struct Position {
  Bitboard pieces[kMaxSeats];
  Seat to_move = Seat::kW;
  int64_t move_count[kMaxSeats] = {0, 0, 0, 0};

  Bitboard Occupied() const {
    return pieces[0] | pieces[1] | pieces[2] | pieces[3];
  }
  // The seat whose piece stands on `s`; false when it is empty.
  bool PieceAt(Square s, Seat* seat) const {
    for (int i = 0; i < kMaxSeats; ++i) {
      if (pieces[i].Test(s)) {
        *seat = SeatAt(i);
        return true;
      }
    }
    return false;
  }
  // Whether any move has been made (a sum of counts could overflow).
  bool AnyMoveMade() const {
    return (move_count[0] | move_count[1] | move_count[2] | move_count[3]) != 0;
  }
  friend bool operator==(const Position& a, const Position& b);
};

// The pieces of a position square by square, for code that asks about
// single squares (one load each, where a bitboard test takes several
// instructions): 0 for an empty square, else SeatIndex + 1 of the seat
// whose piece stands there.
struct Mailbox {
  std::uint8_t seat_plus_one[kSquareCount];

  bool Occupied(Square s) const { return seat_plus_one[s] != 0; }
  bool Holds(Square s, Seat seat) const {
    return seat_plus_one[s] == SeatIndex(seat) + 1;
  }
};
void FillMailbox(const Position& position, Mailbox* mailbox);

// Every seat on its home camp, `w` to move, no moves made.
Position StartPosition(const Variant& variant);

// A seat is eliminated (four-player games) once it has broken the home-exit
// rule; its pieces then never move again, so this is a property of the
// position alone.
bool BrokeHomeExitRule(const Variant& variant, const Position& position,
                       Seat seat);
// The seats still playing: in play and, in four-player games, not eliminated.
SeatSet SeatsStillPlaying(const Variant& variant, const Position& position);

// OK when the side to move can make one more move and have it counted:
// INVALID_ARGUMENT when its count is already kMaxMoveCount, so that no
// answer ever holds a position that ParsePosition would reject.
absl::Status CheckRoomForMove(const Position& position);

// Checks the rules of docs/rules.md section 4 that a well-formed position must
// meet: piece counts per seat and move counts that fit alternate play.
absl::Status CheckPositionConsistency(const Variant& variant,
                                      const Position& position);

}  // namespace halma

#endif  // HALMA_POSITION_H_
