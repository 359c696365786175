// The geometry of steps and hops in the parity-class grids, as shifts and
// edge masks, and the per-variant step and landing masks (target lock
// included) that move generation starts from.
#ifndef HALMA_MOVE_MASKS_H_
#define HALMA_MOVE_MASKS_H_

#include <array>
#include <cstdint>

#include "halma/bitboard.h"
#include "halma/square.h"

namespace halma {

// Geometry of steps and hops in the parity-class grids of square.h.

// Where the landing squares of hops in direction d from class c come from:
// the jumped square lies in the neighbouring class `over` at an offset of
// (ox, oy) in that class's grid, so a hop from grid square S jumps over
// over-square S + o and lands on S + d. The landing square is therefore the
// jumped square moved by d - o, and `keep` holds the landing squares whose
// source and jumped square lie on the grid (no wrap-around at an edge).
struct LandingRule {
  int over;
  int shift;  // Bit shift d - o in the grid.
  std::uint64_t keep;
};
constexpr std::array<std::array<LandingRule, kDirectionCount>, 4>
MakeLandingRules() {
  std::array<std::array<LandingRule, kDirectionCount>, 4> t{};
  for (int c = 0; c < 4; ++c) {
    const int px = c & 1, py = c >> 1;
    for (int d = 0; d < kDirectionCount; ++d) {
      const int dx = kDirX[d], dy = kDirY[d];
      const int ox = dx == 0 ? 0 : (dx > 0 ? px : px - 1);
      const int oy = dy == 0 ? 0 : (dy > 0 ? py : py - 1);
      t[c][d].over = c ^ ((dy & 1) << 1) ^ (dx & 1);
      t[c][d].shift = 8 * (dy - oy) + (dx - ox);
      t[c][d].keep = ShiftGrid(ShiftGrid(~0ULL, -ox, -oy), dx, dy);
    }
  }
  return t;
}
inline constexpr auto kLandingRules = MakeLandingRules();

// Where the neighbour in direction d of a square of class c lies: in class
// `to` at an offset of `shift` bits in that class's grid; `keep` holds the
// squares of class c whose neighbour is on the grid.
struct StepRule {
  int to;
  int shift;
  std::uint64_t keep;
};
constexpr std::array<std::array<StepRule, kDirectionCount>, 4> MakeStepRules() {
  std::array<std::array<StepRule, kDirectionCount>, 4> t{};
  for (int c = 0; c < 4; ++c) {
    const int px = c & 1, py = c >> 1;
    for (int d = 0; d < kDirectionCount; ++d) {
      // Floor division of (parity + direction) by 2: the grid offset.
      const int ox = (px + kDirX[d] + 2) / 2 - 1;
      const int oy = (py + kDirY[d] + 2) / 2 - 1;
      t[c][d].to = c ^ ((kDirY[d] & 1) << 1) ^ (kDirX[d] & 1);
      t[c][d].shift = 8 * oy + ox;
      t[c][d].keep = ShiftGrid(ShiftGrid(~0ULL, -ox, 0), 0, -oy);
    }
  }
  return t;
}
inline constexpr auto kStepRules = MakeStepRules();

// The same shifts with the four classes of a direction side by side, for
// code that handles a direction's four class words in one vector: class c
// takes its word from class c ^ neighbour_xor, shifted left by left[c] or
// right by right[c] (a count of 64 gives 0 for the unused side, as vector
// shifts do). Within a direction the classes may shift different ways, so
// both sides exist; any_left and any_right say which are needed (with
// neither, no class shifts).
struct ClassShifts {
  int neighbour_xor;
  std::uint64_t left[4];
  std::uint64_t right[4];
  bool any_left;
  bool any_right;
};
constexpr ClassShifts MakeClassShifts(int neighbour_xor,
                                      const int (&shift)[4]) {
  ClassShifts s{neighbour_xor, {}, {}, false, false};
  for (int c = 0; c < 4; ++c) {
    s.any_left = s.any_left || shift[c] > 0;
    s.any_right = s.any_right || shift[c] < 0;
  }
  for (int c = 0; c < 4; ++c) {
    // An unshifted class goes through the left side if there is one.
    const bool left = shift[c] > 0 || (shift[c] == 0 && s.any_left);
    const bool right = shift[c] < 0 || (shift[c] == 0 && !s.any_left);
    s.left[c] = left ? shift[c] : 64;
    s.right[c] = right ? -shift[c] : 64;
  }
  return s;
}
// Landing squares of direction d: the jumped squares' words, shifted.
constexpr std::array<ClassShifts, kDirectionCount> MakeLandingShifts() {
  std::array<ClassShifts, kDirectionCount> t{};
  for (int d = 0; d < kDirectionCount; ++d) {
    int shift[4] = {};
    for (int c = 0; c < 4; ++c) shift[c] = kLandingRules[c][d].shift;
    t[d] = MakeClassShifts(kLandingRules[0][d].over, shift);
  }
  return t;
}
inline constexpr auto kLandingShifts = MakeLandingShifts();
// Pieces with a step in direction d: the neighbours' empty squares, moved
// back onto the pieces.
constexpr std::array<ClassShifts, kDirectionCount> MakeStepShifts() {
  std::array<ClassShifts, kDirectionCount> t{};
  for (int d = 0; d < kDirectionCount; ++d) {
    int shift[4] = {};
    for (int c = 0; c < 4; ++c) shift[c] = -kStepRules[c][d].shift;
    t[d] = MakeClassShifts(kStepRules[0][d].to, shift);
  }
  return t;
}
inline constexpr auto kStepShifts = MakeStepShifts();

// The parts of the step and hop masks that do not depend on the position,
// for one mover: the grid edges and, under target lock, the mover's target
// camp (a piece inside it may not step or hop out of it). Computed once per
// variant and target camp, so that move generation spends no instructions
// on the lock. Direction-major, like the masks built from them
// (flood_fill.h).
struct MoveMasks {
  // Squares of class c that a hop in direction d may land on: landing[d][c].
  std::uint64_t landing[kDirectionCount][4];
  // Squares of class c that may step in direction d: step[d][c].
  std::uint64_t step[kDirectionCount][4];
};

// `locked_target` is the mover's target camp under target lock, else empty.
MoveMasks MakeMoveMasks(const Bitboard& locked_target);

}  // namespace halma

#endif  // HALMA_MOVE_MASKS_H_
