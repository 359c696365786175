// Legal-move generation with paths on arbitrary positions, checked against
// the move validator.
//
// Input: byte 0 picks the variant; line 1 is the position (empty: the start
// position; text that does not parse is used as bytes to build a position,
// see PositionFromBytes); line 2, when it parses as a square, restricts
// generation to the piece there; the bytes of the lines after it pick
// (piece, empty square) pairs to cross-check.
// Properties: GenerateLegalMovesWithPaths, GenerateLegalMoves and the move
// set agree (same pairs, same hops, same count, HasLegalMove); pairs are
// distinct, start on a piece of the side to move and end on an empty square,
// with a path of their hops from origin to destination; a restricted list is
// the full list's moves from that square. Every listed move (of a long list,
// an evenly spread sample of 48 whose offset the input picks) validates
// (CheckMove) as its full path, legal, with the same hops, landing on its
// destination, and FewestHopPath finds a path of the same length. Written as
// two squares it validates too, with the same hops and position after,
// except a destination two apart on a line that only a longer chain reaches
// (two squares two apart are a single hop, docs/rules.md section 4): that is
// nothing-to-jump. Every (piece, empty square) pair tried (up to 48 empty
// squares for one piece, and pairs the input picks) that validates as two
// squares is listed so, and no other.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "fuzz/fuzz_input.h"
#include "halma/move_check.h"
#include "halma/movegen.h"
#include "halma/notation.h"
#include "halma/position.h"
#include "halma/game_status.h"

namespace {

using namespace halma;

bool AreNeighbours(Square a, Square b) {
  const int dx = FileOf(a) - FileOf(b), dy = RankOf(a) - RankOf(b);
  return dx >= -1 && dx <= 1 && dy >= -1 && dy <= 1 && (dx | dy) != 0;
}

bool SamePair(const LegalMove& a, const LegalMove& b) {
  return a.origin == b.origin && a.destination == b.destination;
}

// Sorted copies of a list's moves.
std::vector<LegalMove> Sorted(const MoveList& list) {
  std::vector<LegalMove> out(list.begin(), list.end());
  std::sort(out.begin(), out.end(), MoveOrder);
  return out;
}

const LegalMove* Find(const std::vector<LegalMove>& sorted, Square from,
                      Square to) {
  const LegalMove key{from, to, 0};
  const auto it =
      std::lower_bound(sorted.begin(), sorted.end(), key, MoveOrder);
  if (it != sorted.end() && it->origin == from && it->destination == to) {
    return &*it;
  }
  return nullptr;
}

bool Listed(const std::vector<LegalMove>& sorted, Square from, Square to) {
  return Find(sorted, from, to) != nullptr;
}

bool IsHopShaped(Square a, Square b) {
  const int dx = FileOf(b) - FileOf(a), dy = RankOf(b) - RankOf(a);
  return (dx == 0 || dx == 2 || dx == -2) && (dy == 0 || dy == 2 || dy == -2) &&
         (dx | dy) != 0;
}

// Whether the listed move (or none) is what its two squares written as a
// move mean: neighbours are a step, squares two apart on a line a single
// hop, any other pair "by any chain" (docs/rules.md section 4). A destination
// two apart on a line that only a longer chain reaches needs its full path.
bool WrittenAsTwoSquares(const LegalMove* m) {
  if (m == nullptr) return false;
  if (AreNeighbours(m->origin, m->destination)) return m->hops == 0;
  if (IsHopShaped(m->origin, m->destination)) return m->hops == 1;
  return true;
}

std::string MoveName(const LegalMove& m) {
  return absl::StrCat(FormatSquare(m.origin), "-", FormatSquare(m.destination),
                      " (", m.hops, " hops)");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const fuzz::FuzzText in = fuzz::SplitSelector(data, size);
  const fuzz::FuzzVariant& fv = fuzz::PickVariant(in.selector);
  const Variant& v = fv.variant;
  const std::vector<absl::string_view> lines = fuzz::Lines(in.text);
  const Position p = fuzz::PositionFromText(v, lines[0]);
  const Seat mover = p.to_move;
  const std::string context = fv.label + " " + FormatPosition(p, v);

  MoveFilter filter;
  if (lines.size() > 1) {
    const absl::StatusOr<Square> origin = ParseSquare(lines[1], v.size);
    if (origin.ok()) {
      filter.only_origin = true;
      filter.origin = *origin;
    }
  }
  std::string choices;
  for (size_t i = 2; i < lines.size(); ++i) {
    choices.append(lines[i].data(), lines[i].size());
  }

  fuzz::Buffers& buffers = fuzz::SharedBuffers();
  MoveList& list = buffers.list;
  MovePaths& paths = buffers.paths;
  GenerateLegalMovesWithPaths(v, p, mover, &list, &paths, filter);
  GenerateLegalMoves(v, p, mover, &buffers.other, filter);
  GenerateMoveSet(v, p, mover, &buffers.set, filter);
  FUZZ_CHECK(buffers.set.Count() == list.size, context);
  FUZZ_CHECK(buffers.other.size == list.size, context);
  const std::vector<LegalMove> sorted = Sorted(list);
  const std::vector<LegalMove> sorted_other = Sorted(buffers.other);
  for (size_t i = 0; i < sorted.size(); ++i) {
    FUZZ_CHECK(SamePair(sorted[i], sorted_other[i]) &&
                   sorted[i].hops == sorted_other[i].hops,
               context + ": " + MoveName(sorted[i]) + " vs " +
                   MoveName(sorted_other[i]));
    if (i > 0) {
      FUZZ_CHECK(!SamePair(sorted[i - 1], sorted[i]),
                 context + ": listed twice: " + MoveName(sorted[i]));
    }
  }
  int from_set = 0;
  buffers.set.ForEach([&](Square from, Square to, int hops) {
    FUZZ_CHECK(Listed(sorted, from, to), context);
    const LegalMove key{from, to, 0};
    FUZZ_CHECK(
        std::lower_bound(sorted.begin(), sorted.end(), key, MoveOrder)->hops ==
            hops,
        context);
    ++from_set;
  });
  FUZZ_CHECK(from_set == list.size, context);

  std::vector<LegalMove> all;
  if (filter.only_origin) {
    GenerateLegalMoves(v, p, mover, &buffers.other);
    for (const LegalMove& m : buffers.other) {
      if (m.origin == filter.origin) all.push_back(m);
    }
    std::sort(all.begin(), all.end(), MoveOrder);
    FUZZ_CHECK(all.size() == sorted.size(),
               context + " from " + FormatSquare(filter.origin));
    for (size_t i = 0; i < all.size(); ++i) {
      FUZZ_CHECK(SamePair(all[i], sorted[i]) && all[i].hops == sorted[i].hops,
                 context);
    }
  } else {
    FUZZ_CHECK(HasLegalMove(v, p, mover) == (list.size > 0), context);
  }

  const Bitboard occupied = p.Occupied();
  const Bitboard empty = v.on_board & ~occupied;
  // The costly checks (a path search per move) run on every move of short
  // lists and on an evenly spread sample of kChecked moves of long ones,
  // its offset chosen by the input.
  constexpr int kChecked = 48;
  const int stride = (list.size + kChecked - 1) / kChecked;
  const int offset = stride > 1 ? static_cast<int>(size % stride) : 0;
  for (int i = 0; i < list.size; ++i) {
    const LegalMove& m = list.moves[i];
    const auto name = [&] { return context + ": " + MoveName(m); };
    FUZZ_CHECK(p.pieces[SeatIndex(mover)].Test(m.origin), name());
    FUZZ_CHECK(empty.Test(m.destination), name());
    const int length = paths.Length(i);
    const Square* path = paths.Path(i);
    FUZZ_CHECK(
        length >= 2 && path[0] == m.origin && path[length - 1] == m.destination,
        name() + " path " + FormatPath(path, length));
    if (m.hops == 0) {
      FUZZ_CHECK(length == 2 && AreNeighbours(m.origin, m.destination), name());
    } else {
      FUZZ_CHECK(length == m.hops + 1,
                 name() + " path " + FormatPath(path, length));
    }
    if (i % stride != offset) continue;
    Square fewest[kMaxPathSquares];
    FUZZ_CHECK(FewestHopPath(v, p, m.origin, m.destination, fewest) == length,
               name());
  }

  // Validation needs room to count the move (answers refuse the rest).
  if (!CheckRoomForMove(p).ok()) return 0;
  const GameStatus playing;  // Not over, may move: only the board counts.
  for (int i = offset; i < list.size; i += stride) {
    const LegalMove& m = list.moves[i];
    const std::string text = FormatPath(paths.Path(i), paths.Length(i));
    const auto name = [&] { return context + ": " + text; };
    const absl::StatusOr<MoveText> full = ParseMove(text, v.size);
    FUZZ_CHECK(full.ok(), name() + ": " + full.status().ToString());
    const MoveCheck by_path = CheckMove(v, p, playing, *full);
    FUZZ_CHECK(by_path.verdict == MoveVerdict::kLegal,
               name() + ": " + by_path.message);
    FUZZ_CHECK(by_path.hops == m.hops, name());
    FUZZ_CHECK(
        !by_path.path.is_pass && by_path.path.squares.back() == m.destination,
        name());
    MoveText shorthand;
    shorthand.squares = {m.origin, m.destination};
    const MoveCheck by_ends = CheckMove(v, p, playing, shorthand);
    if (!WrittenAsTwoSquares(&m)) {
      // A single hop over an empty square, though a chain gets there.
      FUZZ_CHECK(m.hops > 1 && by_ends.verdict == MoveVerdict::kNothingToJump,
                 name() + " as two squares: " +
                     MoveVerdictName(by_ends.verdict) + " " + by_ends.message);
      continue;
    }
    FUZZ_CHECK(by_ends.verdict == MoveVerdict::kLegal,
               name() + " as shorthand: " + by_ends.message);
    FUZZ_CHECK(by_ends.hops == m.hops &&
                   by_ends.path.squares.back() == m.destination &&
                   by_ends.after == by_path.after,
               name() + " as shorthand: " + FormatMove(by_ends.path));
  }

  // Shorthand from pieces of the side to move to empty squares: legal
  // exactly when listed. Pairs come from the input, and every empty square
  // is tried for one piece.
  const Bitboard own = p.pieces[SeatIndex(mover)];
  const int own_count = own.Count();
  const int empty_count = empty.Count();
  if (own_count == 0 || empty_count == 0) return 0;
  std::vector<Square> pieces, empties;
  ForEachSquare(own, [&](Square s) { pieces.push_back(s); });
  ForEachSquare(empty, [&](Square s) { empties.push_back(s); });
  std::vector<std::pair<Square, Square>> pairs;
  const Square one =
      filter.only_origin ? filter.origin : pieces[size % pieces.size()];
  const size_t every = (empties.size() + kChecked - 1) / kChecked;
  for (size_t i = size % every; i < empties.size(); i += every) {
    pairs.emplace_back(one, empties[i]);
  }
  for (size_t i = 0; i + 1 < choices.size() && pairs.size() < 2 * kChecked;
       i += 2) {
    pairs.emplace_back(
        pieces[static_cast<uint8_t>(choices[i]) % pieces.size()],
        empties[static_cast<uint8_t>(choices[i + 1]) % empties.size()]);
  }
  for (const auto& [from, to] : pairs) {
    if (filter.only_origin && from != filter.origin) continue;
    MoveText shorthand;
    shorthand.squares = {from, to};
    const MoveCheck check = CheckMove(v, p, playing, shorthand);
    const bool legal = check.verdict == MoveVerdict::kLegal;
    FUZZ_CHECK(legal == WrittenAsTwoSquares(Find(sorted, from, to)),
               context + ": " + FormatMove(shorthand) + " is " +
                   MoveVerdictName(check.verdict) + " (" + check.message + ")");
  }
  return 0;
}
