#include "halma/move_check.h"

#include <array>
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "halma/move_masks.h"
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

Square Middle(Square a, Square b) {
  return path_check_internal::kOverSquare[a]
                                         [path_check_internal::HopOffset(a, b)];
}

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
      if (path_check_internal::AreNeighbours(at, to)) {
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
    check.hops =
        path_check_internal::AreNeighbours(path[0], path[1]) ? 0 : count - 1;
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
