#include "halma/bot/transposition_table.h"

#include <algorithm>

namespace halma::bot {

TranspositionTable::TranspositionTable(int bits)
    : bits_(bits),
      mask_((std::uint64_t{1} << bits) - 1),
      entries_(new TableEntry[std::size_t{1} << bits]()) {}

void TranspositionTable::NewSearch() {
  ++generation_;
  if (generation_ == 0) {
    std::fill_n(entries_.get(), std::size_t{1} << bits_, TableEntry());
    generation_ = 1;
  }
}

const TableEntry* TranspositionTable::Probe(std::uint64_t key) const {
  const TableEntry* bucket = entries_.get() + (key & mask_ & ~std::uint64_t{1});
  const std::uint32_t check = static_cast<std::uint32_t>(key >> 32);
  for (int i = 0; i < 2; ++i) {
    if (bucket[i].generation == generation_ && bucket[i].check == check) {
      return &bucket[i];
    }
  }
  return nullptr;
}

void TranspositionTable::Store(std::uint64_t key, int depth, std::int32_t value,
                               Bound bound, const BotMove* move, Seat seat) {
  TableEntry* bucket = entries_.get() + (key & mask_ & ~std::uint64_t{1});
  const std::uint32_t check = static_cast<std::uint32_t>(key >> 32);
  TableEntry* slot = nullptr;
  for (int i = 0; i < 2 && slot == nullptr; ++i) {
    if (bucket[i].generation == generation_ && bucket[i].check == check) {
      slot = &bucket[i];
    }
  }
  if (slot == nullptr) {
    // Slot 0 keeps the deeper entry, slot 1 takes the rest.
    const bool first_free = bucket[0].generation != generation_;
    slot = first_free || depth >= bucket[0].depth ? &bucket[0] : &bucket[1];
    if (slot == &bucket[0] && !first_free) bucket[1] = bucket[0];
  }
  // Without a move of its own, an entry keeps the move an earlier search
  // of the same position found.
  const bool keep_move = move == nullptr && slot->generation == generation_ &&
                         slot->check == check && slot->has_move();
  TableEntry entry;
  entry.check = check;
  entry.generation = generation_;
  entry.value = value;
  entry.depth = static_cast<std::int8_t>(std::min(depth, 127));
  std::uint8_t flags = static_cast<std::uint8_t>(bound);
  if (move != nullptr) {
    entry.origin = move->origin;
    entry.destination = move->destination;
    flags |= static_cast<std::uint8_t>((SeatIndex(seat) << 2) |
                                       (move->is_pass ? 16 : 0) | 32);
  } else if (keep_move) {
    entry.origin = slot->origin;
    entry.destination = slot->destination;
    flags |= slot->flags & 0x3C;
  }
  entry.flags = flags;
  *slot = entry;
}

}  // namespace halma::bot
