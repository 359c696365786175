// AdjudicateRecord on arbitrary records: text records, and records played
// out from the bytes so that games reach their ends.
//
// Input: byte 0 picks the variant. Then either text: line 1 the start
// position (empty: the variant's; text that does not parse is used as bytes
// to build a position, see PositionFromBytes), each further line one move;
// or '!' followed by playout bytes: from the start position, each byte
// picks the next move among the legal ones (bit 7: the most advancing one,
// else bits 2-6 an index) and how it is written (bits 0-1: full path twice
// as often as shorthand, or a corrupted destination); "pass" when the seat
// must pass, the first legal move again once the game is over.
// Properties: replay is deterministic (a run through the vector overload and
// one through the overload with a checkpoint give identical results); it
// matches a step-by-step replay with ParseMove, EvaluateStatus and CheckMove
// (status, deciding ply, moves played, final position, first illegal move and
// its reason); the final position is consistent and round-trips; a checkpoint's
// error is returned as is; a malformed record is an INVALID_ARGUMENT "ply N:
// move ..." naming the first malformed move, bounded and printable.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "fuzz/fuzz_input.h"
#include "halma/record_replay.h"
#include "halma/move_check.h"
#include "halma/movegen.h"
#include "halma/notation.h"
#include "halma/position.h"
#include "halma/game_status.h"

namespace {

using namespace halma;

constexpr size_t kMaxPlayoutPlies = 300;

bool SameStatus(const GameStatus& a, const GameStatus& b) {
  return a.over == b.over && a.to_move == b.to_move &&
         a.round_completion_turn == b.round_completion_turn &&
         a.must_pass == b.must_pass && a.winners == b.winners &&
         a.rule == b.rule && a.finished == b.finished &&
         a.eliminated == b.eliminated;
}

std::string Describe(const GameStatus& s) {
  return absl::StrCat(
      "over=", s.over, " to_move=", std::string(1, SeatLetter(s.to_move)),
      " rc=", s.round_completion_turn, " pass=", s.must_pass,
      " winners=", s.winners.bits, " rule=", DecidingRuleName(s.rule),
      " finished=", s.finished.bits, " eliminated=", s.eliminated.bits);
}

bool SameResult(const GameRecordResult& a, const GameRecordResult& b) {
  return SameStatus(a.status, b.status) && a.deciding_ply == b.deciding_ply &&
         a.final_position == b.final_position &&
         a.legal_moves_played == b.legal_moves_played &&
         a.illegal_ply == b.illegal_ply &&
         a.illegal_verdict == b.illegal_verdict &&
         a.illegal_message == b.illegal_message;
}

std::string Describe(const Variant& v, const GameRecordResult& r) {
  return absl::StrCat(
      Describe(r.status), " deciding=", r.deciding_ply,
      " final=", FormatPosition(r.final_position, v),
      " played=", r.legal_moves_played, " illegal=", r.illegal_ply, " ",
      MoveVerdictName(r.illegal_verdict), " ", r.illegal_message);
}

// How far a square is along a seat's way to its target corner.
int Progress(Seat seat, Square s) {
  const int x = FileOf(s), y = RankOf(s);
  switch (TargetCorner(seat)) {
    case Corner::kSouthWest:
      return -x - y;
    case Corner::kNorthWest:
      return y - x;
    case Corner::kNorthEast:
      return x + y;
    case Corner::kSouthEast:
      return x - y;
  }
  return 0;
}

// Plays a game out of `bytes` from `start`, writing its moves.
std::vector<std::string> Playout(const Variant& v, const Position& start,
                                 absl::string_view bytes) {
  std::vector<std::string> moves;
  fuzz::Buffers& buffers = fuzz::SharedBuffers();
  Position p = start;
  GameStatus status = EvaluateStatus(v, p);
  for (size_t k = 0; k < bytes.size() && k < kMaxPlayoutPlies; ++k) {
    const uint8_t c = static_cast<uint8_t>(bytes[k]);
    MoveList& list = buffers.list;
    GenerateLegalMoves(v, p, p.to_move, &list);
    MoveText move;
    if (list.size == 0) {
      move.is_pass = true;
    } else {
      int pick = 0;
      if (status.over) {
        pick = 0;
      } else if (c & 0x80) {
        int best = -1000;
        for (int i = 0; i < list.size; ++i) {
          const LegalMove& m = list.moves[i];
          const int gain = Progress(p.to_move, m.destination) -
                           Progress(p.to_move, m.origin);
          if (gain > best) best = gain, pick = i;
        }
      } else {
        pick = static_cast<int>(((c >> 2) & 31) * list.size / 32);
      }
      const LegalMove& m = list.moves[pick];
      switch (c & 3) {
        case 0:
        case 1: {
          Square path[kMaxPathSquares];
          const int length = FewestHopPath(v, p, m.origin, m.destination, path);
          FUZZ_CHECK(length >= 2, "no path for a listed move");
          move.squares.assign(path, path + length);
          break;
        }
        case 2:
          move.squares = {m.origin, m.destination};
          break;
        case 3:
          move.squares = {m.origin,
                          MakeSquare((FileOf(m.destination) + k) % v.size,
                                     RankOf(m.destination))};
          break;
      }
    }
    moves.push_back(FormatMove(move));
    if (status.over || !CheckRoomForMove(p).ok()) break;
    const MoveCheck check = CheckMove(v, p, status, move);
    if (check.verdict != MoveVerdict::kLegal) break;
    p = check.after;
    status = EvaluateStatus(v, p);
  }
  return moves;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const fuzz::FuzzText in = fuzz::SplitSelector(data, size);
  const fuzz::FuzzVariant& fv = fuzz::PickVariant(in.selector);
  const Variant& v = fv.variant;

  Position start;
  std::vector<std::string> moves;
  if (!in.text.empty() && in.text[0] == '!') {
    start = StartPosition(v);
    moves = Playout(v, start, in.text.substr(1));
  } else {
    const std::vector<absl::string_view> lines = fuzz::Lines(in.text);
    start = fuzz::PositionFromText(v, lines[0]);
    for (size_t i = 1; i < lines.size(); ++i) moves.emplace_back(lines[i]);
  }
  std::string context =
      absl::StrCat(fv.label, " from ", FormatPosition(start, v), ", moves:");
  for (size_t i = 0; i < moves.size() && i < 40; ++i) {
    absl::StrAppend(&context, " ", QuoteForError(moves[i]));
  }
  if (moves.size() > 40) absl::StrAppend(&context, " ...");

  const absl::StatusOr<GameRecordResult> first =
      AdjudicateRecord(v, start, moves);
  int checkpoints = 0;
  const absl::StatusOr<GameRecordResult> again = AdjudicateRecord(
      v, start, static_cast<int>(moves.size()),
      [&](int i) { return absl::string_view(moves[i]); },
      [&] {
        ++checkpoints;
        return absl::OkStatus();
      });
  // The same replay twice (the vector overload, then the checkpoint one).
  FUZZ_CHECK(first.status() == again.status(),
             context + ": " + first.status().ToString() + " / " +
                 again.status().ToString());
  const int max_checkpoints =
      2 * (static_cast<int>(moves.size()) / kCheckpointInterval) + 1;
  FUZZ_CHECK(checkpoints <= max_checkpoints, context);

  // A checkpoint that fails on its k-th call stops the replay with its error.
  const int fail_at = 1 + static_cast<int>(size % 3);
  if (checkpoints >= fail_at) {
    int calls = 0;
    const absl::Status stop = absl::CancelledError("fuzz: stop");
    const absl::StatusOr<GameRecordResult> stopped = AdjudicateRecord(
        v, start, static_cast<int>(moves.size()),
        [&](int i) { return absl::string_view(moves[i]); },
        [&]() -> absl::Status {
          return ++calls == fail_at ? stop : absl::OkStatus();
        });
    FUZZ_CHECK(stopped.status() == stop,
               context + ": " + stopped.status().ToString());
  }

  // The step-by-step replay.
  int malformed = 0;
  std::vector<MoveText> parsed;
  parsed.reserve(moves.size());
  for (size_t i = 0; i < moves.size() && malformed == 0; ++i) {
    absl::StatusOr<MoveText> move = ParseMove(moves[i], v.size);
    if (move.ok()) {
      parsed.push_back(*std::move(move));
    } else {
      malformed = static_cast<int>(i) + 1;
    }
  }
  if (malformed > 0) {
    FUZZ_CHECK(!first.ok(), context);
    fuzz::CheckRequestError(
        first.status(), {absl::StrCat("ply ", malformed, ": move ")}, context);
    return 0;
  }
  GameRecordResult expected;
  expected.final_position = start;
  expected.status = EvaluateStatus(v, start);
  bool no_room = false;
  for (size_t i = 0; i < moves.size(); ++i) {
    const Position& at = expected.final_position;
    if (!expected.status.over && !CheckRoomForMove(at).ok()) {
      no_room = true;
      break;
    }
    const MoveCheck check = CheckMove(v, at, expected.status, parsed[i]);
    if (check.verdict != MoveVerdict::kLegal) {
      expected.illegal_ply = static_cast<int>(i) + 1;
      expected.illegal_verdict = check.verdict;
      expected.illegal_message = check.message;
      break;
    }
    expected.final_position = check.after;
    expected.status = EvaluateStatus(v, check.after);
    ++expected.legal_moves_played;
    if (expected.status.over) expected.deciding_ply = static_cast<int>(i) + 1;
  }
  if (no_room) {
    FUZZ_CHECK(!first.ok(), context);
    fuzz::CheckRequestError(first.status(), {"ply "}, context);
    return 0;
  }
  FUZZ_CHECK(first.ok(), context + ": " + first.status().ToString());
  FUZZ_CHECK(SameResult(*first, *again), context + ": " + Describe(v, *first) +
                                             " / " + Describe(v, *again));
  FUZZ_CHECK(SameResult(*first, expected),
             context + ": " + Describe(v, *first) + ", expected " +
                 Describe(v, expected));
  FUZZ_CHECK(first->illegal_message.size() <= fuzz::kMaxErrorMessage, context);
  if (first->illegal_ply == 0) {
    FUZZ_CHECK(first->legal_moves_played == static_cast<int>(moves.size()),
               context);
  } else {
    FUZZ_CHECK(first->legal_moves_played == first->illegal_ply - 1, context);
  }
  FUZZ_CHECK(first->deciding_ply <= first->legal_moves_played, context);
  FUZZ_CHECK(
      SameStatus(first->status, EvaluateStatus(v, first->final_position)),
      context);
  fuzz::CheckPositionRoundTrip(v, first->final_position, context);
  return 0;
}
