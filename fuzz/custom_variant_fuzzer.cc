// MakeVariant on arbitrary specifications.
//
// Input: board_size, seat_count, home_exit_limit, move_cap (each one byte
// mapped to a small range around the valid one, or, when the byte's top bit
// is set and four bytes follow, a raw little-endian int32), a flags byte
// (bit 0 round completion, bit 1 target lock), then one camp row length per
// remaining byte (same encoding).
// Properties: MakeVariant succeeds exactly when an independent check of
// docs/rules.md section 2 says the specification is valid. A variant has the
// seats, camps and piece counts the specification gives, camps of the seats
// in play do not overlap, and its start position is consistent, round-trips
// through FormatPosition/ParsePosition and has as many legal moves as
// HasLegalMove and the move set say. An error is INVALID_ARGUMENT, bounded,
// printable, and names a field ("variant <field>") that is indeed invalid.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "fuzz/fuzz_input.h"
#include "halma/movegen.h"
#include "halma/position.h"
#include "halma/game_status.h"
#include "halma/variant.h"

namespace {

using namespace halma;

class Reader {
 public:
  Reader(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  bool Done() const { return pos_ >= size_; }
  uint8_t Byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  // A value in offset .. offset + range - 1, or a raw int32.
  int Int(int range, int offset) {
    const uint8_t b = Byte();
    if ((b & 0x80) != 0 && pos_ + 4 <= size_) {
      uint32_t raw;
      std::memcpy(&raw, data_ + pos_, 4);
      pos_ += 4;
      return static_cast<int>(raw);
    }
    return (b & 0x7f) % range + offset;
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

// docs/rules.md section 2, checked on its own: the fields that are invalid.
std::vector<std::string> InvalidFields(const VariantSpec& spec) {
  std::vector<std::string> bad;
  const int n = spec.board_size;
  const bool size_ok = n >= kMinBoardSize && n <= kMaxBoardSize;
  if (!size_ok) bad.push_back("board_size");
  const bool seats_ok = spec.seat_count == 2 || spec.seat_count == 4;
  if (!seats_ok) bad.push_back("seat_count");
  bool rows_ok = !spec.camp_rows.empty();
  if (size_ok) {
    rows_ok = rows_ok && static_cast<int>(spec.camp_rows.size()) <= n;
    for (size_t i = 0; i < spec.camp_rows.size(); ++i) {
      const int len = spec.camp_rows[i];
      rows_ok = rows_ok && len >= 1 && len <= n &&
                (i == 0 || len <= spec.camp_rows[i - 1]);
    }
    if (rows_ok && seats_ok) {
      // The corners' staircases, mirrored, on an n x n grid.
      bool taken[kMaxBoardSize][kMaxBoardSize] = {};
      for (int k = 0; k < spec.seat_count; ++k) {
        // Corner order: south-west, north-west, north-east, south-east;
        // two players use south-west (w) and north-east (b).
        const int corner = spec.seat_count == 2 ? (k == 0 ? 0 : 2) : k;
        for (size_t y = 0; y < spec.camp_rows.size(); ++y) {
          for (int x = 0; x < spec.camp_rows[y]; ++x) {
            const int fx = (corner == 2 || corner == 3) ? n - 1 - x : x;
            const int fy = (corner == 1 || corner == 2)
                               ? n - 1 - static_cast<int>(y)
                               : static_cast<int>(y);
            if (taken[fx][fy]) rows_ok = false;
            taken[fx][fy] = true;
          }
        }
      }
    }
  } else {
    // Without a board size the lengths are only checked for sign/order.
    for (size_t i = 0; i < spec.camp_rows.size(); ++i) {
      rows_ok = rows_ok && spec.camp_rows[i] >= 1 &&
                (i == 0 || spec.camp_rows[i] <= spec.camp_rows[i - 1]);
    }
  }
  if (!rows_ok) bad.push_back("camp_rows");
  if (spec.home_exit_limit < 0 || spec.home_exit_limit > kMaxMoveLimit) {
    bad.push_back("home_exit_limit");
  }
  if (spec.move_cap < 0 || spec.move_cap > kMaxMoveLimit) {
    bad.push_back("move_cap");
  }
  return bad;
}

std::string Describe(const VariantSpec& spec) {
  const size_t shown = spec.camp_rows.size() > 20 ? 20 : spec.camp_rows.size();
  return absl::StrCat(
      "board_size=", spec.board_size, " seat_count=", spec.seat_count,
      " camp_rows=[",
      absl::StrJoin(spec.camp_rows.begin(), spec.camp_rows.begin() + shown,
                    ","),
      spec.camp_rows.size() > shown ? ",..." : "", "] (", spec.camp_rows.size(),
      " rows) home_exit_limit=", spec.home_exit_limit,
      " move_cap=", spec.move_cap, " round_completion=", spec.round_completion,
      " target_lock=", spec.target_lock);
}

void CheckVariant(const VariantSpec& spec, const Variant& v) {
  const std::string context = Describe(spec);
  const int n = spec.board_size;
  FUZZ_CHECK(v.size == n && v.seat_count == spec.seat_count, context);
  FUZZ_CHECK(v.in_play.Count() == v.seat_count, context);
  if (v.seat_count == 2) {
    FUZZ_CHECK(v.seats[0] == Seat::kW && v.seats[1] == Seat::kB, context);
  } else {
    for (int i = 0; i < 4; ++i) FUZZ_CHECK(v.seats[i] == SeatAt(i), context);
  }
  for (int i = 0; i < v.seat_count; ++i) {
    FUZZ_CHECK(v.NextSeat(v.seats[i]) == v.seats[(i + 1) % v.seat_count],
               context);
  }
  FUZZ_CHECK(v.on_board.Count() == n * n, context);
  int pieces = 0;
  for (int len : spec.camp_rows) pieces += len;
  FUZZ_CHECK(v.pieces_per_seat == pieces, context);
  for (int c = 0; c < 4; ++c) {
    FUZZ_CHECK(v.camp[c].Count() == pieces, context);
    FUZZ_CHECK(!(v.camp[c] & ~v.on_board).Any(), context);
  }
  // The south-west camp is the staircase itself.
  for (int y = 0; y < n; ++y) {
    for (int x = 0; x < n; ++x) {
      const bool in =
          y < static_cast<int>(spec.camp_rows.size()) && x < spec.camp_rows[y];
      FUZZ_CHECK(v.camp[0].Test(MakeSquare(x, y)) == in, context);
    }
  }
  for (int i = 0; i < v.seat_count; ++i) {
    for (int j = i + 1; j < v.seat_count; ++j) {
      FUZZ_CHECK(!(v.HomeCamp(v.seats[i]) & v.HomeCamp(v.seats[j])).Any(),
                 context);
    }
    FUZZ_CHECK(v.TargetCamp(v.seats[i]) ==
                   v.HomeCamp(v.seats[(i + v.seat_count / 2) % v.seat_count]),
               context);
  }

  const Position start = StartPosition(v);
  FUZZ_CHECK(start.to_move == v.seats[0], context);
  fuzz::CheckPositionRoundTrip(v, start, context);
  const GameStatus status = EvaluateStatus(v, start);
  FUZZ_CHECK(status.to_move == v.seats[0], context);
  fuzz::Buffers& buffers = fuzz::SharedBuffers();
  for (int i = 0; i < v.seat_count; ++i) {
    const Seat seat = v.seats[i];
    GenerateLegalMoves(v, start, seat, &buffers.list);
    GenerateMoveSet(v, start, seat, &buffers.set);
    FUZZ_CHECK(buffers.set.Count() == buffers.list.size, context);
    FUZZ_CHECK(HasLegalMove(v, start, seat) == (buffers.list.size > 0),
               context);
    if (i == 0 && !status.over) {
      FUZZ_CHECK(status.must_pass == (buffers.list.size == 0), context);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Reader in(data, size);
  VariantSpec spec;
  spec.board_size = in.Int(20, -2);
  spec.seat_count = in.Int(6, 0);
  spec.home_exit_limit = in.Int(40, -2);
  spec.move_cap = in.Int(40, -2);
  const uint8_t flags = in.Byte();
  spec.round_completion = (flags & 1) != 0;
  spec.target_lock = (flags & 2) != 0;
  while (!in.Done()) spec.camp_rows.push_back(in.Int(18, -1));

  const std::vector<std::string> invalid = InvalidFields(spec);
  const absl::StatusOr<Variant> variant = MakeVariant(spec);
  const std::string context = Describe(spec);
  if (variant.ok()) {
    FUZZ_CHECK(invalid.empty(), "accepted, but invalid " +
                                    absl::StrJoin(invalid, ",") + ": " +
                                    context);
    CheckVariant(spec, *variant);
    return 0;
  }
  FUZZ_CHECK(!invalid.empty(), "rejected a valid spec: " + context + ": " +
                                   variant.status().ToString());
  std::vector<std::string> prefixes;
  for (const std::string& field : invalid) {
    prefixes.push_back(absl::StrCat("variant ", field, " "));
    prefixes.push_back(absl::StrCat("variant ", field, ":"));
  }
  const std::vector<absl::string_view> views(prefixes.begin(), prefixes.end());
  fuzz::CheckRequestError(variant.status(), views, context);
  return 0;
}
