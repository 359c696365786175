// Variants (docs/rules.md section 2): the presets, custom specifications,
// and the validated form with its camp and move masks precomputed.
#ifndef HALMA_VARIANT_H_
#define HALMA_VARIANT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "halma/bitboard.h"
#include "halma/move_masks.h"
#include "halma/seat.h"

namespace halma {

// What a request says about a variant (docs/rules.md section 2): either a
// preset or these fields given directly.
struct VariantSpec {
  std::string name;  // Preset name, or empty for a custom variant.
  int board_size = 0;
  int seat_count = 0;          // 2 (w, b) or 4 (w, r, b, g).
  std::vector<int> camp_rows;  // Row lengths from the corner's edge.
  int home_exit_limit = 0;     // 0 = off.
  bool round_completion = false;
  bool target_lock = false;
  int move_cap = 0;  // 0 = off.
};

// A validated variant with the camp masks the rules need precomputed.
struct Variant {
  VariantSpec spec;
  int size = 0;
  int seat_count = 0;
  Seat seats[kMaxSeats] = {};  // Seats in play, in turn order.
  SeatSet in_play;
  int pieces_per_seat = 0;
  Bitboard on_board;
  Bitboard camp[kMaxSeats];  // Indexed by Corner.
  // camps_at[s]: the camps square s lies in, bit c for Corner c (one load
  // where code asks about single squares).
  std::uint8_t camps_at[kSquareCount] = {};
  // The step and hop masks of a mover whose target is that camp (indexed
  // by Corner): the grid edges and, under target lock, the lock.
  MoveMasks move_masks[kMaxSeats];

  const Bitboard& HomeCamp(Seat s) const {
    return camp[static_cast<int>(HomeCorner(s))];
  }
  const Bitboard& TargetCamp(Seat s) const {
    return camp[static_cast<int>(TargetCorner(s))];
  }
  const MoveMasks& MoveMasksOf(Seat s) const {
    return move_masks[static_cast<int>(TargetCorner(s))];
  }
  // The next seat in play after `s` in turn order.
  Seat NextSeat(Seat s) const;
};

// Largest accepted home-exit limit and move cap: far beyond any real game,
// small enough that move counts stay in an int.
inline constexpr int kMaxMoveLimit = 1000000;

// Validates a custom (or preset) specification. Errors name the field.
absl::StatusOr<Variant> MakeVariant(const VariantSpec& spec);
// The named presets of docs/rules.md section 2.
absl::StatusOr<Variant> PresetVariant(absl::string_view name);
const std::vector<std::string>& PresetNames();

}  // namespace halma

#endif  // HALMA_VARIANT_H_
