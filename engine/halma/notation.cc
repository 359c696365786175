#include "halma/notation.h"

#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace halma {
namespace {

constexpr size_t kMaxQuoted = 80;
// A legal path visits at most 64 squares of up to 3 characters plus a dash,
// so anything longer than this is not worth reading.
constexpr size_t kMaxMoveText = 1024;
constexpr size_t kMaxPositionText = 4096;
// kMaxMoveCount, 9223372036854775807, has 19 digits.
constexpr int kMaxMoveCountDigits = 19;

std::string FileRange(int n) {
  return absl::StrCat("a..", std::string(1, static_cast<char>('a' + n - 1)));
}

std::string BoardText(int n) { return absl::StrCat(n, "x", n, " board"); }

absl::Status Malformed(absl::string_view what, absl::string_view text,
                       absl::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat(what, " ", QuoteForError(text), ": ", why));
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

std::string QuoteForError(absl::string_view text) {
  std::string out = "\"";
  const size_t shown = text.size() > kMaxQuoted ? kMaxQuoted : text.size();
  for (size_t i = 0; i < shown; ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    switch (c) {
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      default:
        if (c < 0x20 || c == 0x7f) {
          static constexpr char kHex[] = "0123456789abcdef";
          out += "\\x";
          out += kHex[c >> 4];
          out += kHex[c & 15];
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  out += "\"";
  if (shown < text.size()) {
    absl::StrAppend(&out, "... (cut: ", text.size(), " bytes in all)");
  }
  return out;
}

absl::StatusOr<Square> ParseSquare(absl::string_view text, int n) {
  const std::string expected = absl::StrCat(
      "expected a file ", FileRange(n), " then a rank 1..", n, ", like \"c3\"");
  if (text.empty())
    return Malformed("square", text, absl::StrCat("empty, ", expected));
  const char file = text[0];
  if (file >= 'A' && file <= 'Z') {
    return Malformed("square", text,
                     absl::StrCat("upper-case file '", std::string(1, file),
                                  "', ", expected));
  }
  if (file < 'a' || file > 'z') {
    return Malformed(
        "square", text,
        absl::StrCat("does not start with a file letter, ", expected));
  }
  if (file - 'a' >= n) {
    return Malformed(
        "square", text,
        absl::StrCat("file '", std::string(1, file), "' is off the ",
                     BoardText(n), ", expected ", FileRange(n)));
  }
  if (text.size() == 1) {
    return Malformed("square", text, absl::StrCat("missing rank, ", expected));
  }
  size_t i = 1;
  int rank = 0;
  while (i < text.size() && IsDigit(text[i]) && i < 4) {
    rank = rank * 10 + (text[i] - '0');
    ++i;
  }
  if (i == 1) {
    return Malformed("square", text,
                     absl::StrCat("no rank number after the file, ", expected));
  }
  if (i < text.size()) {
    return Malformed("square", text,
                     absl::StrCat("unexpected ", QuoteForError(text.substr(i)),
                                  " after the rank, ", expected));
  }
  if (text[1] == '0') {
    return Malformed(
        "square", text,
        absl::StrCat("rank ", QuoteForError(text.substr(1)),
                     " has a leading zero or is 0, expected 1..", n));
  }
  if (rank > n) {
    return Malformed("square", text,
                     absl::StrCat("rank ", rank, " is off the ", BoardText(n),
                                  ", expected 1..", n));
  }
  return MakeSquare(file - 'a', rank - 1);
}

absl::StatusOr<MoveText> ParseMove(absl::string_view text, int n) {
  MoveText move;
  if (text == "pass") {
    move.is_pass = true;
    return move;
  }
  const std::string expected =
      "expected \"pass\" or two or more squares joined by '-', like \"c3-e5\"";
  if (text.empty())
    return Malformed("move", text, absl::StrCat("empty, ", expected));
  if (text.size() > kMaxMoveText) {
    return Malformed("move", text,
                     absl::StrCat("longer than ", kMaxMoveText,
                                  " characters (a legal path visits at most ",
                                  64, " squares), ", expected));
  }
  int index = 0;
  for (absl::string_view part : absl::StrSplit(text, '-')) {
    ++index;
    if (part.empty()) {
      return Malformed("move", text,
                       absl::StrCat("square ", index,
                                    " is empty (a leading, trailing or doubled "
                                    "'-'), ",
                                    expected));
    }
    if (part == "pass") {
      return Malformed("move", text,
                       absl::StrCat("\"pass\" must stand alone, ", expected));
    }
    absl::StatusOr<Square> square = ParseSquare(part, n);
    if (!square.ok()) {
      return Malformed(
          "move", text,
          absl::StrCat("square ", index, ": ", square.status().message()));
    }
    move.squares.push_back(*square);
  }
  if (move.squares.size() < 2) {
    return Malformed("move", text,
                     absl::StrCat("a single square is not a move, ", expected));
  }
  return move;
}

absl::StatusOr<Position> ParsePosition(absl::string_view text,
                                       const Variant& variant) {
  const int n = variant.size;
  std::string seat_letters;
  for (int i = 0; i < variant.seat_count; ++i) {
    if (i > 0) seat_letters += i + 1 == variant.seat_count ? " or " : ", ";
    seat_letters += SeatLetter(variant.seats[i]);
  }
  if (text.size() > kMaxPositionText) {
    return Malformed("position", text,
                     absl::StrCat("longer than ", kMaxPositionText,
                                  " characters, expected a position string "
                                  "of at most that length"));
  }
  std::vector<absl::string_view> fields = absl::StrSplit(text, ' ');
  if (fields.size() != 3) {
    return Malformed(
        "position", text,
        absl::StrCat("has ", fields.size(),
                     " space-separated fields, expected 3 (board, side to "
                     "move, move counts) separated by single spaces"));
  }
  for (size_t f = 0; f < 3; ++f) {
    if (fields[f].empty()) {
      return Malformed("position", text,
                       absl::StrCat("field ", f + 1,
                                    " is empty, expected 3 fields separated by "
                                    "single spaces"));
    }
  }

  Position pos;
  std::vector<absl::string_view> ranks = absl::StrSplit(fields[0], '/');
  if (static_cast<int>(ranks.size()) != n) {
    return Malformed("position", text,
                     absl::StrCat("board has ", ranks.size(),
                                  " ranks separated by '/', expected ", n,
                                  " for the ", BoardText(n)));
  }
  for (int r = 0; r < n; ++r) {
    const int y = n - 1 - r;
    const absl::string_view rank = ranks[r];
    int x = 0;
    size_t i = 0;
    while (i < rank.size()) {
      const char c = rank[i];
      if (IsDigit(c)) {
        int run = 0;
        while (i < rank.size() && IsDigit(rank[i])) {
          run = run * 10 + (rank[i] - '0');
          if (run > n) break;
          ++i;
        }
        x += run;
        if (x > n) {
          return Malformed(
              "position", text,
              absl::StrCat("rank ", y + 1, " ", QuoteForError(rank),
                           " holds more than ", n, " squares, expected ", n));
        }
        continue;
      }
      Seat seat;
      if (!SeatFromLetter(c, &seat) || !variant.in_play.Has(seat)) {
        return Malformed(
            "position", text,
            absl::StrCat("rank ", y + 1, " ", QuoteForError(rank), " has ",
                         QuoteForError(absl::string_view(&rank[i], 1)),
                         ", expected a seat in play (", seat_letters,
                         ") or a count of empty squares"));
      }
      if (x >= n) {
        return Malformed(
            "position", text,
            absl::StrCat("rank ", y + 1, " ", QuoteForError(rank),
                         " holds more than ", n, " squares, expected ", n));
      }
      pos.pieces[SeatIndex(seat)].Set(MakeSquare(x, y));
      ++x;
      ++i;
    }
    if (x != n) {
      return Malformed("position", text,
                       absl::StrCat("rank ", y + 1, " ", QuoteForError(rank),
                                    " holds ", x, " squares, expected ", n));
    }
  }

  const absl::string_view side = fields[1];
  Seat to_move;
  if (side.size() != 1 || !SeatFromLetter(side[0], &to_move) ||
      !variant.in_play.Has(to_move)) {
    return Malformed("position", text,
                     absl::StrCat("side to move ", QuoteForError(side),
                                  ", expected one letter: ", seat_letters));
  }
  pos.to_move = to_move;

  std::vector<absl::string_view> counts = absl::StrSplit(fields[2], ',');
  if (static_cast<int>(counts.size()) != variant.seat_count) {
    return Malformed(
        "position", text,
        absl::StrCat("move counts ", QuoteForError(fields[2]), " has ",
                     counts.size(), " numbers, expected ", variant.seat_count,
                     " (one per seat in turn order, separated by commas)"));
  }
  for (int i = 0; i < variant.seat_count; ++i) {
    const absl::string_view c = counts[i];
    bool digits =
        !c.empty() && static_cast<int>(c.size()) <= kMaxMoveCountDigits;
    for (char ch : c) digits = digits && IsDigit(ch);
    // Accumulated as unsigned: 19 digits fit in 64 bits unsigned.
    uint64_t value = 0;
    if (digits) {
      for (char ch : c) value = value * 10 + static_cast<uint64_t>(ch - '0');
    }
    if (!digits || value > static_cast<uint64_t>(kMaxMoveCount)) {
      return Malformed("position", text,
                       absl::StrCat("move count ", i + 1, " ", QuoteForError(c),
                                    ", expected a decimal number from 0 to ",
                                    kMaxMoveCount));
    }
    pos.move_count[SeatIndex(variant.seats[i])] = static_cast<int64_t>(value);
  }

  absl::Status consistent = CheckPositionConsistency(variant, pos);
  if (!consistent.ok()) {
    return Malformed("position", text, consistent.message());
  }
  return pos;
}

std::string FormatSquare(Square s) {
  return absl::StrCat(std::string(1, static_cast<char>('a' + FileOf(s))),
                      RankOf(s) + 1);
}

std::string FormatPath(const Square* squares, int count) {
  std::string out;
  for (int i = 0; i < count; ++i) {
    if (i > 0) out += '-';
    out += FormatSquare(squares[i]);
  }
  return out;
}

std::string FormatMove(const MoveText& move) {
  if (move.is_pass) return "pass";
  return FormatPath(move.squares.data(), static_cast<int>(move.squares.size()));
}

std::string FormatPosition(const Position& position, const Variant& variant) {
  const int n = variant.size;
  std::string out;
  out.reserve(n * (n + 1) + 16);
  for (int y = n - 1; y >= 0; --y) {
    int empty = 0;
    for (int x = 0; x < n; ++x) {
      Seat seat;
      if (position.PieceAt(MakeSquare(x, y), &seat)) {
        if (empty > 0) absl::StrAppend(&out, empty);
        empty = 0;
        out += SeatLetter(seat);
      } else {
        ++empty;
      }
    }
    if (empty > 0) absl::StrAppend(&out, empty);
    if (y > 0) out += '/';
  }
  out += ' ';
  out += SeatLetter(position.to_move);
  out += ' ';
  for (int i = 0; i < variant.seat_count; ++i) {
    if (i > 0) out += ',';
    absl::StrAppend(&out, position.move_count[SeatIndex(variant.seats[i])]);
  }
  return out;
}

}  // namespace halma
