// Seats (w, r, b, g), their home and target corners, and sets of seats.
#ifndef HALMA_SEAT_H_
#define HALMA_SEAT_H_

#include <cstdint>

#include "halma/popcount.h"

namespace halma {

// Seats are named after their home corner (docs/rules.md section 1). The
// numeric value is the clockwise turn order w, r, b, g.
enum class Seat : std::uint8_t { kW = 0, kR = 1, kB = 2, kG = 3 };
inline constexpr int kMaxSeats = 4;

enum class Corner : std::uint8_t {
  kSouthWest = 0,
  kNorthWest = 1,
  kNorthEast = 2,
  kSouthEast = 3
};

inline constexpr int SeatIndex(Seat s) { return static_cast<int>(s); }
inline constexpr Seat SeatAt(int index) { return static_cast<Seat>(index); }
inline constexpr Corner HomeCorner(Seat s) {
  return static_cast<Corner>(SeatIndex(s));
}
// The target camp is the diagonally opposite corner.
inline constexpr Corner TargetCorner(Seat s) {
  return static_cast<Corner>((SeatIndex(s) + 2) % 4);
}
inline constexpr char SeatLetter(Seat s) { return "wrbg"[SeatIndex(s)]; }
// Returns false when `c` is not one of w, r, b, g.
inline constexpr bool SeatFromLetter(char c, Seat* seat) {
  switch (c) {
    case 'w':
      *seat = Seat::kW;
      return true;
    case 'r':
      *seat = Seat::kR;
      return true;
    case 'b':
      *seat = Seat::kB;
      return true;
    case 'g':
      *seat = Seat::kG;
      return true;
    default:
      return false;
  }
}

// A set of seats as a 4-bit mask, bit i for seat i.
struct SeatSet {
  std::uint8_t bits = 0;
  constexpr bool Has(Seat s) const { return (bits >> SeatIndex(s)) & 1; }
  constexpr void Add(Seat s) { bits |= std::uint8_t(1u << SeatIndex(s)); }
  constexpr void Remove(Seat s) { bits &= std::uint8_t(~(1u << SeatIndex(s))); }
  constexpr int Count() const { return CountBits4(bits); }
  constexpr bool Empty() const { return bits == 0; }
  friend constexpr bool operator==(SeatSet a, SeatSet b) {
    return a.bits == b.bits;
  }
};

}  // namespace halma

#endif  // HALMA_SEAT_H_
