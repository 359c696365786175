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

bool AreNeighbours(Square a, Square b) {
  const int dx = std::abs(FileOf(a) - FileOf(b));
  const int dy = std::abs(RankOf(a) - RankOf(b));
  return dx <= 1 && dy <= 1 && (dx | dy) != 0;
}

// kOverSquare[s][k]: the square a hop from s jumps over, for the nine
// class-grid offsets k = (dy + 1) * 3 + (dx + 1) of its landing square (dx,
// dy in -1..1; k = 4 is no move). A hop stays in its parity class, where it
// is a king move of one grid square (square.h). Entries that would leave
// the 16x16 frame are never used (their landing square would be off it).
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

// The grid offset index of a hop from `at` to `to` (see kOverSquare), or
// -1 when `to` is no hop away: another class, the same square, or more
// than one grid square away.
inline int HopOffset(Square at, Square to) {
  if (ClassOf(at) != ClassOf(to)) return -1;
  const int dx = (to & 7) - (at & 7);
  const int dy = ((to >> 3) & 7) - ((at >> 3) & 7);
  if (static_cast<unsigned>(dx + 1) > 2 || static_cast<unsigned>(dy + 1) > 2 ||
      (dx | dy) == 0) {
    return -1;
  }
  return (dy + 1) * 3 + (dx + 1);
}

Square Middle(Square a, Square b) { return kOverSquare[a][HopOffset(a, b)]; }

std::string Leg(Square a, Square b) {
  return absl::StrCat(FormatSquare(a), "-", FormatSquare(b));
}

// The message of an illegal verdict of CheckPathLegs (or of the shorthand
// branch) for the move `squares`, whose leg `leg` is at fault.
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
  Square path[kMaxPathSquares];
  if (count == 2 && IsShorthand(origin, squares[1])) {
    // From here to there by any legal chain.
    const Square to = squares[1];
    if (!position.pieces[SeatIndex(mover)].Test(origin)) {
      // The origin's verdict, as for any other move.
      int failed_leg = 0;
      const MoveVerdict verdict = CheckPathLegs(variant, position, occupied,
                                                squares, count, &failed_leg);
      return Illegal(verdict, Message(position, squares, count, verdict, 0));
    }
    if (occupied.Test(to)) {
      return Illegal(MoveVerdict::kDestinationOccupied,
                     Message(position, squares, count,
                             MoveVerdict::kDestinationOccupied, 1));
    }
    const int found = FewestHopPath(variant, position, origin, to, path);
    if (found > 0) return Legal(variant, position, path, found, detail);
    if (variant.spec.target_lock &&
        FewestHopPath(variant, position, origin, to, path,
                      /*ignore_target_lock=*/true) > 0) {
      return Illegal(
          MoveVerdict::kLeavesTarget,
          Message(position, squares, count, MoveVerdict::kLeavesTarget, 1));
    }
    return Illegal(
        MoveVerdict::kUnreachable,
        absl::StrCat("no jump chain leads from ", FormatSquare(origin), " to ",
                     FormatSquare(to)));
  }

  int failed_leg = 0;
  const MoveVerdict verdict =
      CheckPathLegs(variant, position, occupied, squares, count, &failed_leg);
  if (verdict != MoveVerdict::kLegal) {
    return Illegal(verdict,
                   Message(position, squares, count, verdict, failed_leg));
  }
  const Square destination = squares[count - 1];
  if (detail == MoveDetail::kPositionOnly || count == 2) {
    path[0] = origin;
    path[1] = destination;
    return Legal(variant, position, path, 2, detail);
  }
  // Answers give the fewest-hop path to the same square.
  const int found = FewestHopPath(variant, position, origin, destination, path);
  return Legal(variant, position, path, found, detail);
}

MoveVerdict CheckPathLegs(const Variant& variant, const Position& position,
                          const Bitboard& occupied, const Square* squares,
                          int count, int* failed_leg) {
  const Seat mover = position.to_move;
  const Square origin = squares[0];
  *failed_leg = 0;
  if (!occupied.Test(origin)) return MoveVerdict::kEmptyOrigin;
  if (!position.pieces[SeatIndex(mover)].Test(origin)) {
    return MoveVerdict::kNotYourPiece;
  }
  const bool lock = variant.spec.target_lock;
  const Bitboard& target = variant.TargetCamp(mover);
  *failed_leg = 1;
  if (count == 2) {
    // A step or a single hop.
    const Square to = squares[1];
    if (to == origin) return MoveVerdict::kSquareVisitedTwice;
    const int hop = HopOffset(origin, to);
    if (hop >= 0 && !occupied.Test(kOverSquare[origin][hop])) {
      return MoveVerdict::kNothingToJump;
    }
    if (occupied.Test(to)) return MoveVerdict::kDestinationOccupied;
    if (lock && target.Test(origin) && !target.Test(to)) {
      return MoveVerdict::kLeavesTarget;
    }
    return MoveVerdict::kLegal;
  }
  // A chain, hop by hop exactly as written. Every landing square is in the
  // origin's class, so the squares visited are bits of one grid word.
  const int cls = ClassOf(origin);
  std::uint64_t visited = std::uint64_t{1} << ClassIndexOf(origin);
  bool in_target = lock && target.Test(origin);
  Square at = origin;
  for (int i = 1; i < count; ++i) {
    const Square to = squares[i];
    *failed_leg = i;
    if (ClassOf(to) == cls && ((visited >> ClassIndexOf(to)) & 1) != 0) {
      return MoveVerdict::kSquareVisitedTwice;
    }
    const int hop = HopOffset(at, to);
    if (hop < 0) return MoveVerdict::kNotAHop;
    const Square over = kOverSquare[at][hop];
    // The origin is empty once the piece has left it.
    if (!occupied.Test(over) || over == origin) {
      return MoveVerdict::kNothingToJump;
    }
    if (occupied.Test(to)) return MoveVerdict::kDestinationOccupied;
    if (lock) {
      const bool lands_in_target = target.Test(to);
      if (in_target && !lands_in_target) return MoveVerdict::kLeavesTarget;
      in_target = in_target || lands_in_target;
    }
    visited |= std::uint64_t{1} << ClassIndexOf(to);
    at = to;
  }
  return MoveVerdict::kLegal;
}

bool IsShorthand(Square from, Square to) {
  return from != to && !AreNeighbours(from, to) && HopOffset(from, to) < 0;
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
