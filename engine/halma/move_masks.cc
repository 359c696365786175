#include "halma/move_masks.h"

namespace halma {
namespace {

// A shift by a direction known only at run time (this runs once per variant,
// not per position).
std::uint64_t ShiftBy(std::uint64_t b, int shift) {
  return shift >= 0 ? b << shift : b >> -shift;
}

}  // namespace

MoveMasks MakeMoveMasks(const Bitboard& locked_target) {
  MoveMasks masks;
  for (int c = 0; c < 4; ++c) {
    const std::uint64_t target = locked_target.word[c];
    for (int d = 0; d < kDirectionCount; ++d) {
      // A landing square inside the target, or reached from outside it.
      const std::uint64_t hop_lock =
          target == 0 ? ~0ULL : target | ShiftBy(~target, GridShift(d));
      masks.landing[d][c] = kLandingRules[c][d].keep & hop_lock;
      // A step from outside the target, or into it.
      const StepRule& rule = kStepRules[c][d];
      const std::uint64_t step_lock =
          ~target | ShiftBy(locked_target.word[rule.to], -rule.shift);
      masks.step[d][c] = rule.keep & step_lock;
    }
  }
  return masks;
}

}  // namespace halma
