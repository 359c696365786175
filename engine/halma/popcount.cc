#include "halma/popcount.h"

namespace halma {
namespace {

[[gnu::always_inline]] inline int Sum(const std::uint64_t* words, int count) {
  int bits = 0;
  for (int i = 0; i < count; ++i) bits += std::popcount(words[i]);
  return bits;
}
HALMA_POPCNT_TARGET int SumWithPopcnt(const std::uint64_t* words, int count) {
  return Sum(words, count);
}
int SumPlain(const std::uint64_t* words, int count) {
  return Sum(words, count);
}

}  // namespace

bool CpuHasPopcnt() {
#if defined(__x86_64__) || defined(__i386__)
  static const bool has = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("popcnt") != 0;
  }();
  return has;
#else
  return false;
#endif
}

int CountBits(const std::uint64_t* words, int count) {
  static const auto sum = PopcntChoice(&SumWithPopcnt, &SumPlain);
  return sum(words, count);
}

}  // namespace halma
