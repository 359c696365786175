#include "halma/chain_continuations.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdlib>

#include "halma/bitboard.h"
#include "halma/move_masks.h"

namespace halma {
namespace {

// A shift of a class grid by a direction known only at run time.
std::uint64_t ShiftBy(std::uint64_t b, int shift) {
  return shift >= 0 ? b << shift : b >> -shift;
}

}  // namespace

std::vector<Square> ChainContinuations(const Variant& variant,
                                       const Position& position,
                                       const Square* chain, int count) {
  std::vector<Square> out;
  if (count < 1) return out;
  const Square origin = chain[0];
  Seat seat;
  if (!position.PieceAt(origin, &seat)) return out;
  // A step ends the move: steps and hops never combine.
  if (count >= 2) {
    const int dx = std::abs(FileOf(chain[1]) - FileOf(origin));
    const int dy = std::abs(RankOf(chain[1]) - RankOf(origin));
    if (dx <= 1 && dy <= 1) return out;
  }
  const Square at = chain[count - 1];
  const int cls = ClassOf(at);
  // Every square of a chain lies in the parity class of its origin, and no
  // square of that class is next to another, so the piece never jumps over
  // a square it has visited (its origin included): the position's
  // occupancy, with the piece still on its origin, is the occupancy every
  // hop of the chain sees. The origin is excluded as a landing square as a
  // visited one.
  std::uint64_t visited = 0;
  for (int i = 0; i < count; ++i) {
    if (ClassOf(chain[i]) != cls) return out;  // Not a chain.
    visited |= std::uint64_t{1} << ClassIndexOf(chain[i]);
  }
  const Bitboard occupied = position.Occupied();
  const std::uint64_t empty = variant.on_board.word[cls] & ~occupied.word[cls];
  // The landing masks carry the grid edges and target lock: a hop from a
  // square of the target camp lands inside it. Under target lock a chain
  // that has stood in the target camp stands in it still (it could not
  // have landed outside), so the lock of the hop from `at` is the lock of
  // the whole chain.
  const MoveMasks& masks = variant.MoveMasksOf(seat);
  const std::uint64_t from = std::uint64_t{1} << ClassIndexOf(at);
  std::uint64_t reach = 0;
  for (int d = 0; d < kDirectionCount; ++d) {
    const LandingRule& rule = kLandingRules[cls][d];
    const std::uint64_t landing =
        ShiftBy(occupied.word[rule.over], rule.shift) & empty &
        masks.landing[d][cls];
    reach |= ShiftBy(from, GridShift(d)) & landing;
  }
  reach &= ~visited;
  for (; reach != 0; reach &= reach - 1) {
    out.push_back(FromClass(cls, std::countr_zero(reach)));
  }
  std::sort(out.begin(), out.end(), [](Square a, Square b) {
    return FileOf(a) != FileOf(b) ? FileOf(a) < FileOf(b)
                                  : RankOf(a) < RankOf(b);
  });
  return out;
}

}  // namespace halma
