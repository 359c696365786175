#include "service/core/record_view.h"

#include <cstdint>
#include <cstring>

namespace halma::service {

namespace record_view_internal {

bool ReadVarint32(const char*& at, const char* end, std::uint32_t* value) {
  std::uint32_t result = 0;
  for (int shift = 0; shift < 35 && at < end; shift += 7) {
    const auto byte = static_cast<std::uint8_t>(*at++);
    result |= static_cast<std::uint32_t>(byte & 0x7f) << shift;
    if ((byte & 0x80) == 0) {
      // A fifth byte may carry only the top four bits.
      if (shift == 28 && byte > 0x0f) return false;
      *value = result;
      return true;
    }
  }
  return false;
}

}  // namespace record_view_internal

namespace {

using record_view_internal::ReadField;

}  // namespace

// A word at a time, the last word overlapping the one before (a move is 5
// to 12 characters, longer chains more): a byte of 0x80 or more sets a top
// bit of its word.
bool IsAscii(absl::string_view text) {
  const char* const begin = text.data();
  const std::size_t size = text.size();
  if (size >= 8) {
    std::uint64_t any = 0;
    std::uint64_t word;
    for (std::size_t i = 0; i + 8 < size; i += 8) {
      std::memcpy(&word, begin + i, 8);
      any |= word;
    }
    std::memcpy(&word, begin + size - 8, 8);
    return ((any | word) & 0x8080808080808080) == 0;
  }
  if (size >= 4) {
    std::uint32_t first;
    std::uint32_t last;
    std::memcpy(&first, begin, 4);
    std::memcpy(&last, begin + size - 4, 4);
    return ((first | last) & 0x80808080) == 0;
  }
  unsigned char any = 0;
  for (std::size_t i = 0; i < size; ++i) {
    any |= static_cast<unsigned char>(begin[i]);
  }
  return any < 0x80;
}

bool ReadAdjudicateRequest(absl::string_view bytes,
                           AdjudicateRequestView* view) {
  // Tags of AdjudicateRequest's fields, all length-delimited.
  constexpr std::uint32_t kVariant = (1 << 3) | 2;
  constexpr std::uint32_t kStartPosition = (2 << 3) | 2;
  view->variant = {};
  view->start_position = {};
  view->move_fields = {};
  bool seen_variant = false;
  bool seen_start = false;
  const char* at = bytes.data();
  const char* const end = at + bytes.size();
  while (at < end) {
    // The first move: the rest is read as the replay goes.
    if (at[0] == static_cast<char>(record_view_internal::kMovesTag)) {
      view->move_fields = absl::string_view(at, end - at);
      return true;
    }
    std::uint32_t tag;
    absl::string_view value;
    if (!ReadField(at, end, &tag, &value)) return false;
    switch (tag) {
      case kVariant:
        // A second one would be merged into the first: left to protobuf.
        if (seen_variant) return false;
        seen_variant = true;
        view->variant = value;
        break;
      case kStartPosition:
        if (seen_start || !IsAscii(value)) return false;
        seen_start = true;
        view->start_position = value;
        break;
      default:
        return false;
    }
  }
  return true;
}

bool ReadAdjudicateStreamRequest(absl::string_view bytes, absl::string_view* id,
                                 AdjudicateRequestView* record) {
  constexpr std::uint32_t kId = (1 << 3) | 2;
  constexpr std::uint32_t kRecord = (2 << 3) | 2;
  *id = {};
  bool seen_id = false;
  bool seen_record = false;
  absl::string_view record_bytes;
  const char* at = bytes.data();
  const char* const end = at + bytes.size();
  while (at < end) {
    std::uint32_t tag;
    absl::string_view value;
    if (!ReadField(at, end, &tag, &value)) return false;
    if (tag == kId && !seen_id && IsAscii(value)) {
      seen_id = true;
      *id = value;
    } else if (tag == kRecord && !seen_record) {
      seen_record = true;
      record_bytes = value;
    } else {
      return false;  // Repeated (merged) fields, non-ASCII, unknown: protobuf.
    }
  }
  return ReadAdjudicateRequest(record_bytes, record);
}

int CountMoves(const AdjudicateRequestView& view) {
  ViewMoveReader reader(view);
  int count = 0;
  for (absl::string_view move; reader.Next(&move);) ++count;
  return reader.left_to_parser() ? -1 : count;
}

bool MovesReadInPlace(const AdjudicateRequestView& view) {
  ViewMoveReader reader(view);
  for (absl::string_view move; reader.Next(&move);) {
    if (!IsAscii(move)) return false;
  }
  return !reader.left_to_parser();
}

std::vector<absl::string_view> MovesOf(const AdjudicateRequestView& view) {
  std::vector<absl::string_view> moves;
  ViewMoveReader reader(view);
  for (absl::string_view move; reader.Next(&move);) moves.push_back(move);
  return moves;
}

}  // namespace halma::service
