#ifndef HALMA_BOT_TRANSPOSITION_TABLE_H_
#define HALMA_BOT_TRANSPOSITION_TABLE_H_

#include <cstdint>
#include <memory>

#include "halma/bot/search_state.h"
#include "halma/seat.h"

namespace halma::bot {

enum class Bound : std::uint8_t {
  kNone = 0,
  kLower = 1,
  kUpper = 2,
  kExact = 3
};

// One entry: 16 bytes. The upper 32 bits of the key are checked (the lower
// ones chose the bucket); a false match is harmless to legality, since the
// search plays a table move only when it is among the moves it generated.
struct TableEntry {
  std::uint32_t check = 0;
  std::uint16_t generation = 0;  // 0: never written.
  Square origin = 0;
  Square destination = 0;
  std::int32_t value = 0;
  std::int8_t depth = 0;
  // Bits 0-1 the Bound, 2-3 the mover's seat, 4 a pass, 5 a move stored.
  std::uint8_t flags = 0;
  std::uint16_t unused = 0;

  Bound bound() const { return static_cast<Bound>(flags & 3); }
  bool has_move() const { return (flags >> 5) & 1; }
  Seat seat() const { return SeatAt((flags >> 2) & 3); }
  BotMove move() const {
    BotMove m;
    m.origin = origin;
    m.destination = destination;
    m.is_pass = (flags >> 4) & 1;
    return m;
  }
};
static_assert(sizeof(TableEntry) == 16);

// A fixed-size transposition table in buckets of two entries (one kept by
// depth, one always replaced). Each search is a new generation and entries
// of other generations count as empty, so a search sees exactly what it
// wrote itself: the same answers from a fresh table and a used one.
class TranspositionTable {
 public:
  explicit TranspositionTable(int bits);

  int bits() const { return bits_; }
  std::size_t MemoryBytes() const { return sizeof(TableEntry) << bits_; }

  // Starts a search: a new generation (the table is cleared when the
  // 16-bit counter wraps, so an old entry can never look current).
  void NewSearch();
  // The current entry for `key`, or nullptr.
  const TableEntry* Probe(std::uint64_t key) const;
  void Store(std::uint64_t key, int depth, std::int32_t value, Bound bound,
             const BotMove* move, Seat seat);

 private:
  int bits_;
  std::uint64_t mask_;
  std::uint16_t generation_ = 0;
  std::unique_ptr<TableEntry[]> entries_;
};

}  // namespace halma::bot

#endif  // HALMA_BOT_TRANSPOSITION_TABLE_H_
