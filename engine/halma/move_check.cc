#include "halma/move_check.h"

#include <cstdlib>

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

// Two squares apart on a rank, file or diagonal: the shape of one hop.
bool IsHopShaped(Square a, Square b) {
  const int dx = FileOf(b) - FileOf(a);
  const int dy = RankOf(b) - RankOf(a);
  return (dx == 0 || dx == 2 || dx == -2) && (dy == 0 || dy == 2 || dy == -2) &&
         (dx | dy) != 0;
}

Square Middle(Square a, Square b) {
  return MakeSquare((FileOf(a) + FileOf(b)) / 2, (RankOf(a) + RankOf(b)) / 2);
}

std::string Leg(Square a, Square b) {
  return absl::StrCat(FormatSquare(a), "-", FormatSquare(b));
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

  const auto& squares = move.squares;
  const Square origin = squares[0];
  Seat owner;
  if (!position.PieceAt(origin, &owner)) {
    return Illegal(MoveVerdict::kEmptyOrigin,
                   absl::StrCat("no piece on ", FormatSquare(origin)));
  }
  if (owner != mover) {
    return Illegal(
        MoveVerdict::kNotYourPiece,
        absl::StrCat(FormatSquare(origin), " holds a '", Letter(owner),
                     "' piece, but '", Letter(mover), "' is to move"));
  }
  const Bitboard occupied = position.Occupied();
  const bool lock = variant.spec.target_lock;
  const Bitboard& target = variant.TargetCamp(mover);
  const auto leaves_target = [&](Square to) {
    return Illegal(MoveVerdict::kLeavesTarget,
                   absl::StrCat("target lock: the piece stands in its target "
                                "camp and may not land outside it on ",
                                FormatSquare(to)));
  };
  const auto occupied_at = [&](Square to) {
    return Illegal(MoveVerdict::kDestinationOccupied,
                   absl::StrCat(FormatSquare(to), " is occupied"));
  };
  Square path[kMaxPathSquares];

  if (squares.size() == 2) {
    const Square to = squares[1];
    if (to == origin) {
      return Illegal(
          MoveVerdict::kSquareVisitedTwice,
          absl::StrCat("the move ends on its origin ", FormatSquare(origin)));
    }
    if (AreNeighbours(origin, to) || IsHopShaped(origin, to)) {
      if (IsHopShaped(origin, to) && !occupied.Test(Middle(origin, to))) {
        return Illegal(
            MoveVerdict::kNothingToJump,
            absl::StrCat("no piece on ", FormatSquare(Middle(origin, to)),
                         " to jump over in ", Leg(origin, to)));
      }
      if (occupied.Test(to)) return occupied_at(to);
      if (lock && target.Test(origin) && !target.Test(to)) {
        return leaves_target(to);
      }
      path[0] = origin;
      path[1] = to;
      return Legal(variant, position, path, 2, detail);
    }
    // Shorthand: from here to there by any legal chain.
    if (occupied.Test(to)) return occupied_at(to);
    const int count = FewestHopPath(variant, position, origin, to, path);
    if (count > 0) return Legal(variant, position, path, count, detail);
    if (lock && FewestHopPath(variant, position, origin, to, path,
                              /*ignore_target_lock=*/true) > 0) {
      return leaves_target(to);
    }
    return Illegal(
        MoveVerdict::kUnreachable,
        absl::StrCat("no jump chain leads from ", FormatSquare(origin), " to ",
                     FormatSquare(to)));
  }

  // A full path, checked hop by hop exactly as given. Each square's file
  // and rank are worked out once, for the three shape tests.
  Bitboard visited;
  visited.Set(origin);
  bool in_target = lock && target.Test(origin);
  Square at = origin;
  int at_x = FileOf(at);
  int at_y = RankOf(at);
  const Square* const given = squares.data();
  const int given_count = static_cast<int>(squares.size());
  for (int i = 1; i < given_count; ++i) {
    const Square to = given[i];
    if (visited.Test(to)) {
      return Illegal(MoveVerdict::kSquareVisitedTwice,
                     absl::StrCat("the chain visits ", FormatSquare(to),
                                  " twice (hop ", i, ")"));
    }
    const int to_x = FileOf(to);
    const int to_y = RankOf(to);
    const int dx = to_x - at_x;
    const int dy = to_y - at_y;
    // Not both 0: `to` is not `at`, which has been visited.
    if (dx >= -1 && dx <= 1 && dy >= -1 && dy <= 1) {
      return Illegal(MoveVerdict::kNotAHop,
                     absl::StrCat(Leg(at, to),
                                  " is a step, and a step cannot be part of a "
                                  "jump chain (hop ",
                                  i, ")"));
    }
    if ((dx != 0 && dx != 2 && dx != -2) || (dy != 0 && dy != 2 && dy != -2)) {
      return Illegal(MoveVerdict::kNotAHop,
                     absl::StrCat(Leg(at, to),
                                  " is not a hop: a hop lands two squares away "
                                  "on a rank, file or diagonal (hop ",
                                  i, ")"));
    }
    const Square over = MakeSquare(at_x + dx / 2, at_y + dy / 2);
    if (!occupied.Test(over) || over == origin) {
      return Illegal(
          MoveVerdict::kNothingToJump,
          absl::StrCat("no piece on ", FormatSquare(over), " to jump over in ",
                       Leg(at, to), " (hop ", i, ")"));
    }
    if (occupied.Test(to)) return occupied_at(to);
    if (in_target && !target.Test(to)) return leaves_target(to);
    if (lock && target.Test(to)) in_target = true;
    visited.Set(to);
    at = to;
    at_x = to_x;
    at_y = to_y;
  }
  if (detail == MoveDetail::kPositionOnly) {
    path[0] = origin;
    path[1] = at;
    return Legal(variant, position, path, 2, detail);
  }
  // Answers give the fewest-hop path to the same square.
  const int count = FewestHopPath(variant, position, origin, at, path);
  return Legal(variant, position, path, count, detail);
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
