#include "halma/popcount.h"

namespace halma {

HALMA_POPCNT_CLONES int CountBits(const std::uint64_t* words, int count) {
  int bits = 0;
  for (int i = 0; i < count; ++i) bits += std::popcount(words[i]);
  return bits;
}

}  // namespace halma
