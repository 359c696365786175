#ifndef HALMA_BOT_ZOBRIST_H_
#define HALMA_BOT_ZOBRIST_H_

#include <array>
#include <cstdint>

#include "halma/seat.h"
#include "halma/square.h"

namespace halma::bot {

// SplitMix64 (a fixed, well-known mixing function): the bot's keys and its
// seeded choices come from it, so they are the same on every machine.
constexpr std::uint64_t SplitMix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

// Zobrist keys from a fixed seed: a piece of each seat on each square, the
// seat to move, and (for variants whose rules count moves) a seat's count.
inline constexpr std::uint64_t kZobristSeed =
    0x48616C6D61426F74ULL;  // "HalmaBot"

struct ZobristKeys {
  std::uint64_t piece[kMaxSeats][kSquareCount];
  std::uint64_t to_move[kMaxSeats];
};

constexpr ZobristKeys MakeZobristKeys() {
  ZobristKeys keys{};
  std::uint64_t state = kZobristSeed;
  for (int seat = 0; seat < kMaxSeats; ++seat) {
    for (int s = 0; s < kSquareCount; ++s) {
      state = SplitMix64(state);
      keys.piece[seat][s] = state;
    }
  }
  for (int seat = 0; seat < kMaxSeats; ++seat) {
    state = SplitMix64(state);
    keys.to_move[seat] = state;
  }
  return keys;
}
inline constexpr ZobristKeys kZobrist = MakeZobristKeys();

inline std::uint64_t MoveCountKey(int seat, std::int64_t count) {
  return SplitMix64(kZobristSeed ^ (static_cast<std::uint64_t>(seat) << 60) ^
                    static_cast<std::uint64_t>(count));
}

}  // namespace halma::bot

#endif  // HALMA_BOT_ZOBRIST_H_
