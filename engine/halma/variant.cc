#include "halma/variant.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace halma {
namespace {

// "[5,4,3]" for error messages, cut after a few entries: a request may hold
// a list of any length, the message stays short.
std::string RowsForError(const std::vector<int>& rows) {
  constexpr size_t kShown = 20;
  if (rows.size() <= kShown) {
    return absl::StrCat("[", absl::StrJoin(rows, ","), "]");
  }
  return absl::StrCat("[",
                      absl::StrJoin(rows.begin(), rows.begin() + kShown, ","),
                      ",...] (cut: ", rows.size(), " rows in all)");
}

Bitboard CampMask(int size, const std::vector<int>& rows, Corner corner) {
  Bitboard mask;
  for (int i = 0; i < static_cast<int>(rows.size()); ++i) {
    for (int j = 0; j < rows[i]; ++j) {
      int x = j, y = i;  // South-west; the others are mirror images.
      if (corner == Corner::kNorthEast || corner == Corner::kSouthEast) {
        x = size - 1 - x;
      }
      if (corner == Corner::kNorthEast || corner == Corner::kNorthWest) {
        y = size - 1 - y;
      }
      mask.Set(MakeSquare(x, y));
    }
  }
  return mask;
}

VariantSpec Preset(std::string name, int size, int seats, std::vector<int> rows,
                   int home_exit, bool round_completion, bool target_lock) {
  VariantSpec spec;
  spec.name = std::move(name);
  spec.board_size = size;
  spec.seat_count = seats;
  spec.camp_rows = std::move(rows);
  spec.home_exit_limit = home_exit;
  spec.round_completion = round_completion;
  spec.target_lock = target_lock;
  return spec;
}

const std::vector<VariantSpec>& PresetSpecs() {
  static const auto* specs = new std::vector<VariantSpec>{
      Preset("brainking-8x8", 8, 2, {4, 3, 2, 1}, 30, false, false),
      Preset("brainking-10x10", 10, 2, {5, 4, 3, 2, 1}, 50, false, false),
      Preset("iggamecenter-10x10", 10, 2, {5, 4, 3, 2, 1}, 0, true, false),
      Preset("classic-16x16", 16, 2, {5, 5, 4, 3, 2}, 0, false, true),
      Preset("classic-16x16-4p", 16, 4, {4, 4, 3, 2}, 0, false, true),
  };
  return *specs;
}

}  // namespace

Seat Variant::NextSeat(Seat s) const {
  for (int i = 0; i < seat_count; ++i) {
    if (seats[i] == s) return seats[(i + 1) % seat_count];
  }
  return seats[0];
}

absl::StatusOr<Variant> MakeVariant(const VariantSpec& spec) {
  const int n = spec.board_size;
  if (n < kMinBoardSize || n > kMaxBoardSize) {
    return absl::InvalidArgumentError(absl::StrCat("variant board_size ", n,
                                                   ": expected ", kMinBoardSize,
                                                   " to ", kMaxBoardSize));
  }
  if (spec.seat_count != 2 && spec.seat_count != 4) {
    return absl::InvalidArgumentError(
        absl::StrCat("variant seat_count ", spec.seat_count,
                     ": expected 2 (w, b) or 4 (w, r, b, g)"));
  }
  const std::string rows_text = RowsForError(spec.camp_rows);
  if (spec.camp_rows.empty()) {
    return absl::InvalidArgumentError(
        "variant camp_rows []: expected at least one row length");
  }
  if (static_cast<int>(spec.camp_rows.size()) > n) {
    return absl::InvalidArgumentError(
        absl::StrCat("variant camp_rows ", rows_text, ": ",
                     spec.camp_rows.size(), " rows do not fit a board of ", n,
                     " ranks, expected at most ", n, " rows"));
  }
  for (size_t i = 0; i < spec.camp_rows.size(); ++i) {
    const int len = spec.camp_rows[i];
    if (len < 1 || len > n) {
      return absl::InvalidArgumentError(
          absl::StrCat("variant camp_rows ", rows_text, ": row ", i + 1,
                       " has length ", len, ", expected 1 to ", n));
    }
    if (i > 0 && len > spec.camp_rows[i - 1]) {
      return absl::InvalidArgumentError(absl::StrCat(
          "variant camp_rows ", rows_text, ": row ", i + 1, " (", len,
          ") is longer than row ", i, " (", spec.camp_rows[i - 1],
          "), expected non-increasing lengths"));
    }
  }
  if (spec.home_exit_limit < 0 || spec.home_exit_limit > kMaxMoveLimit) {
    return absl::InvalidArgumentError(
        absl::StrCat("variant home_exit_limit ", spec.home_exit_limit,
                     ": expected 0 (off) to ", kMaxMoveLimit));
  }
  if (spec.move_cap < 0 || spec.move_cap > kMaxMoveLimit) {
    return absl::InvalidArgumentError(
        absl::StrCat("variant move_cap ", spec.move_cap,
                     ": expected 0 (off) to ", kMaxMoveLimit));
  }

  Variant v;
  v.spec = spec;
  v.size = n;
  v.seat_count = spec.seat_count;
  if (spec.seat_count == 2) {
    v.seats[0] = Seat::kW;
    v.seats[1] = Seat::kB;
  } else {
    for (int i = 0; i < 4; ++i) v.seats[i] = SeatAt(i);
  }
  for (int i = 0; i < v.seat_count; ++i) v.in_play.Add(v.seats[i]);
  for (int y = 0; y < n; ++y) {
    for (int x = 0; x < n; ++x) v.on_board.Set(MakeSquare(x, y));
  }
  for (int c = 0; c < 4; ++c) {
    v.camp[c] = CampMask(n, spec.camp_rows, static_cast<Corner>(c));
    ForEachSquare(v.camp[c], [&v, c](Square s) {
      v.camps_at[s] = static_cast<std::uint8_t>(v.camps_at[s] | 1 << c);
    });
  }
  for (int c = 0; c < 4; ++c) {
    v.move_masks[c] = MakeMoveMasks(spec.target_lock ? v.camp[c] : Bitboard{});
  }
  // Camps in play: the home camps of the seats in play (their targets are
  // the opposite homes, also in play).
  static constexpr const char* kCornerNames[4] = {"south-west", "north-west",
                                                  "north-east", "south-east"};
  for (int i = 0; i < v.seat_count; ++i) {
    for (int j = i + 1; j < v.seat_count; ++j) {
      const int a = static_cast<int>(HomeCorner(v.seats[i]));
      const int b = static_cast<int>(HomeCorner(v.seats[j]));
      if ((v.camp[a] & v.camp[b]).Any()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "variant camp_rows ", rows_text, ": the ", kCornerNames[a], " and ",
            kCornerNames[b], " camps overlap on a ", n, "x", n,
            " board, expected camps that do not overlap"));
      }
    }
  }
  v.pieces_per_seat = v.camp[0].Count();
  return v;
}

absl::StatusOr<Variant> PresetVariant(absl::string_view name) {
  for (const VariantSpec& spec : PresetSpecs()) {
    if (spec.name == name) return MakeVariant(spec);
  }
  std::string text(name.substr(0, 64));
  for (char& c : text) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  }
  const std::string cut =
      name.size() > 64
          ? absl::StrCat("... (cut: ", name.size(), " bytes in all)")
          : "";
  return absl::InvalidArgumentError(absl::StrCat(
      "variant \"", text, "\"", cut, ": no such preset, expected one of ",
      absl::StrJoin(PresetNames(), ", ")));
}

const std::vector<std::string>& PresetNames() {
  static const auto* names = [] {
    auto* v = new std::vector<std::string>;
    for (const VariantSpec& spec : PresetSpecs()) v->push_back(spec.name);
    return v;
  }();
  return *names;
}

}  // namespace halma
