#include "halma/move_check.h"

#include <array>
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "halma/movegen.h"

namespace halma {
namespace {

std::string Letter(Seat s) { return std::string(1, SeatLetter(s)); }

MoveCheck Illegal(MoveVerdict verdict, std::string message) {
  MoveCheck check;
  check.verdict = verdict;
  check.message = std::move(message);
  return check;
}

// kFileRank[s]: RankOf(s) << 4 | FileOf(s), one load for both.
constexpr std::array<std::uint8_t, kSquareCount> MakeFileRanks() {
  std::array<std::uint8_t, kSquareCount> t{};
  for (int s = 0; s < kSquareCount; ++s) {
    const Square square = static_cast<Square>(s);
    t[s] = static_cast<std::uint8_t>(RankOf(square) << 4 | FileOf(square));
  }
  return t;
}
constexpr auto kFileRank = MakeFileRanks();

bool AreNeighbours(Square a, Square b) {
  const int dx = (kFileRank[a] & 15) - (kFileRank[b] & 15);
  const int dy = (kFileRank[a] >> 4) - (kFileRank[b] >> 4);
  return static_cast<unsigned>(dx + 1) <= 2 &&
         static_cast<unsigned>(dy + 1) <= 2 && a != b;
}

// A hop stays in its parity class, where it is a king move of one grid
// square (square.h). kGridHop[a][b]: for grid squares a and b of one class,
// the index k = (dy + 1) * 3 + (dx + 1) of the move from a to b (dx, dy in
// -1..1), or -1 when b is not next to a (or is a).
constexpr std::array<std::array<std::int8_t, 64>, 64> MakeGridHops() {
  std::array<std::array<std::int8_t, 64>, 64> t{};
  for (int a = 0; a < 64; ++a) {
    for (int b = 0; b < 64; ++b) {
      const int dx = (b & 7) - (a & 7);
      const int dy = (b >> 3) - (a >> 3);
      const bool next = dx >= -1 && dx <= 1 && dy >= -1 && dy <= 1 && a != b;
      t[a][b] = static_cast<std::int8_t>(next ? (dy + 1) * 3 + (dx + 1) : -1);
    }
  }
  return t;
}
constexpr auto kGridHop = MakeGridHops();

// kOverSquare[s][k]: the square a hop from s jumps over, for the grid move
// k of kGridHop (k = 4 is no move). Entries that would leave the 16x16
// frame are never used (their landing square would be off it).
constexpr std::array<std::array<Square, 9>, kSquareCount> MakeOverSquares() {
  std::array<std::array<Square, 9>, kSquareCount> t{};
  for (int s = 0; s < kSquareCount; ++s) {
    const Square square = static_cast<Square>(s);
    for (int k = 0; k < 9; ++k) {
      const int x = FileOf(square) + k % 3 - 1;
      const int y = RankOf(square) + k / 3 - 1;
      const bool inside =
          x >= 0 && y >= 0 && x < kMaxBoardSize && y < kMaxBoardSize;
      t[s][k] = inside ? MakeSquare(x, y) : square;
    }
  }
  return t;
}
constexpr auto kOverSquare = MakeOverSquares();

// The grid move index of a hop from `at` to `to` (see kGridHop), or -1
// when `to` is no hop away: another class, the same square, or more than
// one grid square away.
inline int HopOffset(Square at, Square to) {
  if (ClassOf(at) != ClassOf(to)) return -1;
  return kGridHop[ClassIndexOf(at)][ClassIndexOf(to)];
}

Square Middle(Square a, Square b) { return kOverSquare[a][HopOffset(a, b)]; }

std::string Leg(Square a, Square b) {
  return absl::StrCat(FormatSquare(a), "-", FormatSquare(b));
}

// The message of an illegal verdict of CheckPathLegs (or of CheckMove's
// shorthand branch) for the move `squares`, whose leg `leg` is at fault.
std::string Message(const Position& position, const Square* squares, int count,
                    MoveVerdict verdict, int leg) {
  const Seat mover = position.to_move;
  const Square origin = squares[0];
  const Square to = squares[leg];
  const Square at = leg > 0 ? squares[leg - 1] : origin;
  // Legs of a chain name their number; a two-square move has one.
  const std::string hop =
      count > 2 ? absl::StrCat(" (hop ", leg, ")") : std::string();
  switch (verdict) {
    case MoveVerdict::kEmptyOrigin:
      return absl::StrCat("no piece on ", FormatSquare(origin));
    case MoveVerdict::kNotYourPiece: {
      Seat owner = mover;
      position.PieceAt(origin, &owner);
      return absl::StrCat(FormatSquare(origin), " holds a '", Letter(owner),
                          "' piece, but '", Letter(mover), "' is to move");
    }
    case MoveVerdict::kSquareVisitedTwice:
      if (count == 2) {
        return absl::StrCat("the move ends on its origin ",
                            FormatSquare(origin));
      }
      return absl::StrCat("the chain visits ", FormatSquare(to), " twice", hop);
    case MoveVerdict::kNotAHop:
      if (AreNeighbours(at, to)) {
        return absl::StrCat(Leg(at, to),
                            " is a step, and a step cannot be part of a "
                            "jump chain",
                            hop);
      }
      return absl::StrCat(Leg(at, to),
                          " is not a hop: a hop lands two squares away on a "
                          "rank, file or diagonal",
                          hop);
    case MoveVerdict::kNothingToJump:
      return absl::StrCat("no piece on ", FormatSquare(Middle(at, to)),
                          " to jump over in ", Leg(at, to), hop);
    case MoveVerdict::kDestinationOccupied:
      return absl::StrCat(FormatSquare(to), " is occupied");
    case MoveVerdict::kLeavesTarget:
      return absl::StrCat(
          "target lock: the piece stands in its target camp and may not "
          "land outside it on ",
          FormatSquare(to));
    default:
      return std::string();
  }
}

// The position after the mover's piece goes from `from` to `to` (or, for
// a pass, stays): the move counted and the next seat still playing to move.
Position Moved(const Variant& variant, const Position& position, bool pass,
               Square from, Square to) {
  Position next = position;
  const Seat mover = position.to_move;
  if (!pass) {
    next.pieces[SeatIndex(mover)].Clear(from);
    next.pieces[SeatIndex(mover)].Set(to);
  }
  ++next.move_count[SeatIndex(mover)];
  const SeatSet playing = SeatsStillPlaying(variant, next);
  Seat s = mover;
  for (int i = 0; i < variant.seat_count; ++i) {
    s = variant.NextSeat(s);
    if (playing.Has(s)) break;
  }
  next.to_move = s;
  return next;
}

// A legal move from path[0] to path[count - 1].
MoveCheck Legal(const Variant& variant, const Position& position,
                const Square* path, int count, MoveDetail detail) {
  MoveCheck check;
  check.after =
      Moved(variant, position, /*pass=*/false, path[0], path[count - 1]);
  if (detail == MoveDetail::kFewestHopPath) {
    check.path.squares.assign(path, path + count);
    check.hops = AreNeighbours(path[0], path[1]) ? 0 : count - 1;
  }
  return check;
}

}  // namespace

Position ApplyMove(const Variant& variant, const Position& position,
                   const MoveText& move) {
  if (move.is_pass || move.squares.empty()) {
    return Moved(variant, position, /*pass=*/true, 0, 0);
  }
  return Moved(variant, position, /*pass=*/false, move.squares.front(),
               move.squares.back());
}

MoveCheck CheckMove(const Variant& variant, const Position& position,
                    const GameStatus& status, const MoveText& move,
                    MoveDetail detail) {
  const Seat mover = position.to_move;
  if (status.over) {
    return Illegal(MoveVerdict::kGameOver,
                   absl::StrCat("the game is already over (",
                                DecidingRuleName(status.rule), ")"));
  }
  if (move.is_pass) {
    if (!status.must_pass) {
      return Illegal(MoveVerdict::kPassNotAllowed,
                     absl::StrCat("'", Letter(mover),
                                  "' has a legal move, so it may not pass"));
    }
    MoveCheck check;
    check.path.is_pass = true;
    check.after = ApplyMove(variant, position, move);
    return check;
  }

  const Square* const squares = move.squares.data();
  const int count = static_cast<int>(move.squares.size());
  const Square origin = squares[0];
  const Bitboard occupied = position.Occupied();
  Mailbox board;
  FillMailbox(position, &board);
  const LegCheck legs = CheckPathLegs(variant, mover, board, squares, count);
  if (legs.verdict != MoveVerdict::kLegal) {
    return Illegal(legs.verdict, Message(position, squares, count, legs.verdict,
                                         legs.failed_leg));
  }
  Square path[kMaxPathSquares];
  const Square destination = squares[count - 1];
  if (legs.shorthand) {
    // From here to there by any legal chain.
    if (occupied.Test(destination)) {
      return Illegal(MoveVerdict::kDestinationOccupied,
                     Message(position, squares, count,
                             MoveVerdict::kDestinationOccupied, 1));
    }
    const int found =
        FewestHopPath(variant, position, origin, destination, path);
    if (found > 0) return Legal(variant, position, path, found, detail);
    if (variant.spec.target_lock &&
        FewestHopPath(variant, position, origin, destination, path,
                      /*ignore_target_lock=*/true) > 0) {
      return Illegal(
          MoveVerdict::kLeavesTarget,
          Message(position, squares, count, MoveVerdict::kLeavesTarget, 1));
    }
    return Illegal(
        MoveVerdict::kUnreachable,
        absl::StrCat("no jump chain leads from ", FormatSquare(origin), " to ",
                     FormatSquare(destination)));
  }
  if (detail == MoveDetail::kPositionOnly || count == 2) {
    path[0] = origin;
    path[1] = destination;
    return Legal(variant, position, path, 2, detail);
  }
  // Answers give the fewest-hop path to the same square.
  const int found = FewestHopPath(variant, position, origin, destination, path);
  return Legal(variant, position, path, found, detail);
}

LegCheck CheckPathLegs(const Variant& variant, Seat mover, const Mailbox& board,
                       const Square* squares, int count) {
  const int origin = squares[0];
  if (!board.Occupied(origin)) return {MoveVerdict::kEmptyOrigin, 0};
  if (!board.Holds(origin, mover)) return {MoveVerdict::kNotYourPiece, 0};
  const bool lock = variant.spec.target_lock;
  const Bitboard& target = variant.TargetCamp(mover);
  const int cls = ClassOf(origin);
  if (count == 2) {
    // A step, a single hop, or shorthand.
    const int to = squares[1];
    if (ClassOf(to) == cls) {
      if (to == origin) return {MoveVerdict::kSquareVisitedTwice, 1};
      const int hop = kGridHop[ClassIndexOf(origin)][ClassIndexOf(to)];
      if (hop < 0) return {MoveVerdict::kLegal, 0, /*shorthand=*/true};
      if (!board.Occupied(kOverSquare[origin][hop])) {
        return {MoveVerdict::kNothingToJump, 1};
      }
    } else if (!AreNeighbours(origin, to)) {
      return {MoveVerdict::kLegal, 0, /*shorthand=*/true};
    }
    if (board.Occupied(to)) return {MoveVerdict::kDestinationOccupied, 1};
    if (lock && target.Test(origin) && !target.Test(to)) {
      return {MoveVerdict::kLeavesTarget, 1};
    }
    return {};
  }
  // A chain, hop by hop exactly as written. Every landing square is in the
  // origin's class, so a square of another class is no hop away and the
  // squares visited and the target camp are bits of one grid word. The
  // jumped squares are of other classes, so the origin, which counts as
  // empty once the piece has left it, is never one of them.
  const std::uint64_t target_here = lock ? target.word[cls] : 0;
  int at = origin;
  std::uint64_t visited = std::uint64_t{1} << ClassIndexOf(origin);
  bool in_target = (target_here >> ClassIndexOf(origin)) & 1;
  for (int i = 1; i < count; ++i) {
    const int to = squares[i];
    if (ClassOf(to) != cls) return {MoveVerdict::kNotAHop, i};
    const int to_index = ClassIndexOf(to);
    if ((visited >> to_index) & 1) {
      return {MoveVerdict::kSquareVisitedTwice, i};
    }
    const int hop = kGridHop[ClassIndexOf(at)][to_index];
    if (hop < 0) return {MoveVerdict::kNotAHop, i};
    if (!board.Occupied(kOverSquare[at][hop])) {
      return {MoveVerdict::kNothingToJump, i};
    }
    if (board.Occupied(to)) return {MoveVerdict::kDestinationOccupied, i};
    // Target lock (target_here is 0 without it).
    const bool lands_in_target = (target_here >> to_index) & 1;
    if (in_target && !lands_in_target) return {MoveVerdict::kLeavesTarget, i};
    in_target = lands_in_target;
    visited |= std::uint64_t{1} << to_index;
    at = to;
  }
  return {};
}

const char* MoveVerdictName(MoveVerdict verdict) {
  switch (verdict) {
    case MoveVerdict::kLegal:
      return "legal";
    case MoveVerdict::kGameOver:
      return "game-over";
    case MoveVerdict::kPassNotAllowed:
      return "pass-not-allowed";
    case MoveVerdict::kEmptyOrigin:
      return "empty-origin";
    case MoveVerdict::kNotYourPiece:
      return "not-your-piece";
    case MoveVerdict::kDestinationOccupied:
      return "destination-occupied";
    case MoveVerdict::kNothingToJump:
      return "nothing-to-jump";
    case MoveVerdict::kNotAHop:
      return "not-a-hop";
    case MoveVerdict::kSquareVisitedTwice:
      return "square-visited-twice";
    case MoveVerdict::kLeavesTarget:
      return "leaves-target";
    case MoveVerdict::kUnreachable:
      return "unreachable";
  }
  return "legal";
}

}  // namespace halma
