// Helpers shared by the engine's rule, notation and status tests. Positions
// are always built from text through the engine's parser, so a helper can
// never produce a position the rules (docs/rules.md section 4) would reject.
#ifndef HALMA_TESTS_ENGINE_TEST_UTIL_H_
#define HALMA_TESTS_ENGINE_TEST_UTIL_H_

#include <algorithm>
#include <cstdlib>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "halma/record_replay.h"
#include "halma/move_check.h"
#include "halma/movegen.h"
#include "halma/notation.h"
#include "halma/position.h"
#include "halma/game_status.h"
#include "halma/variant.h"

namespace halma {
namespace testing_util {

// Aborts the calling test (via ADD_FAILURE + a harmless fallback) when the
// engine rejects a fixture: fixtures are hand-checked to be well formed.
inline Variant Preset(const std::string& name) {
  absl::StatusOr<Variant> v = PresetVariant(name);
  EXPECT_TRUE(v.ok()) << name << ": " << v.status();
  return v.ok() ? *v : Variant{};
}

inline VariantSpec Spec(int n, int seats, std::vector<int> rows,
                        int home_exit = 0, bool round_completion = false,
                        bool target_lock = false, int move_cap = 0) {
  VariantSpec spec;
  spec.board_size = n;
  spec.seat_count = seats;
  spec.camp_rows = std::move(rows);
  spec.home_exit_limit = home_exit;
  spec.round_completion = round_completion;
  spec.target_lock = target_lock;
  spec.move_cap = move_cap;
  return spec;
}

inline Variant Custom(const VariantSpec& spec) {
  absl::StatusOr<Variant> v = MakeVariant(spec);
  EXPECT_TRUE(v.ok()) << v.status();
  return v.ok() ? *v : Variant{};
}

inline Position Parse(const std::string& text, const Variant& variant) {
  absl::StatusOr<Position> p = ParsePosition(text, variant);
  EXPECT_TRUE(p.ok()) << text << ": " << p.status();
  return p.ok() ? *p : Position{};
}

// A board drawn rank by rank from the top, one character per square: '.'
// for an empty square, otherwise the seat letter. Returns the board field
// of a position string (canonical form).
inline std::string Board(const std::vector<std::string>& ranks) {
  std::string out;
  for (size_t r = 0; r < ranks.size(); ++r) {
    if (r > 0) out += '/';
    int empty = 0;
    for (char c : ranks[r]) {
      if (c == '.') {
        ++empty;
        continue;
      }
      if (empty > 0) absl::StrAppend(&out, empty);
      empty = 0;
      out += c;
    }
    if (empty > 0) absl::StrAppend(&out, empty);
  }
  return out;
}

// Parses a drawn board plus the "side counts" tail of a position string.
inline Position Drawn(const std::vector<std::string>& ranks,
                      const std::string& tail, const Variant& variant) {
  return Parse(Board(ranks) + " " + tail, variant);
}

inline Square Sq(const std::string& text, int n = kMaxBoardSize) {
  absl::StatusOr<Square> s = ParseSquare(text, n);
  EXPECT_TRUE(s.ok()) << s.status();
  return s.ok() ? *s : Square{0};
}

inline MoveText Move(const std::string& text, int n = kMaxBoardSize) {
  absl::StatusOr<MoveText> m = ParseMove(text, n);
  EXPECT_TRUE(m.ok()) << m.status();
  return m.ok() ? *m : MoveText{};
}

// Checks a move written as text against the side to move of `position`.
inline MoveCheck Check(const Variant& variant, const Position& position,
                       const std::string& move) {
  return CheckMove(variant, position, EvaluateStatus(variant, position),
                   Move(move, variant.size));
}

inline SeatSet Seats(const std::string& letters) {
  SeatSet set;
  for (char c : letters) {
    Seat s;
    if (SeatFromLetter(c, &s)) set.Add(s);
  }
  return set;
}

inline std::string SeatsText(SeatSet set) {
  std::string out;
  for (int i = 0; i < kMaxSeats; ++i) {
    if (set.Has(SeatAt(i))) out += SeatLetter(SeatAt(i));
  }
  return out;
}

// A legal-move set as {(origin, destination) -> fewest hops}, in text.
using MovePairs = std::map<std::pair<std::string, std::string>, int>;

inline MovePairs LegalSet(const Variant& variant, const Position& position,
                          Seat seat, MoveFilter filter = MoveFilter{}) {
  auto list = std::make_unique<MoveList>();
  GenerateLegalMoves(variant, position, seat, list.get(), filter);
  MovePairs out;
  for (const LegalMove& m : *list) {
    const auto key =
        std::make_pair(FormatSquare(m.origin), FormatSquare(m.destination));
    EXPECT_EQ(out.count(key), 0u)
        << "duplicate (origin, destination) " << key.first << "-" << key.second;
    out[key] = m.hops;
  }
  return out;
}

// The same set from the engine's bitboard form (GenerateMoveSet), checked
// for duplicates and against its own Count().
inline MovePairs LegalSetFromMoveSet(const Variant& variant,
                                     const Position& position, Seat seat,
                                     MoveFilter filter = MoveFilter{}) {
  auto set = std::make_unique<MoveSet>();
  GenerateMoveSet(variant, position, seat, set.get(), filter);
  MovePairs out;
  int visits = 0;
  set->ForEach([&](Square origin, Square destination, int hops) {
    ++visits;
    const auto key =
        std::make_pair(FormatSquare(origin), FormatSquare(destination));
    EXPECT_EQ(out.count(key), 0u)
        << "duplicate (origin, destination) " << key.first << "-" << key.second;
    out[key] = hops;
  });
  EXPECT_EQ(set->Count(), visits);
  return out;
}

// Runs a record and fails the test when the record is malformed.
inline GameRecordResult Replay(const Variant& variant, const Position& start,
                               const std::vector<std::string>& moves) {
  absl::StatusOr<GameRecordResult> r = AdjudicateRecord(variant, start, moves);
  EXPECT_TRUE(r.ok()) << r.status();
  return r.ok() ? *r : GameRecordResult{};
}

// The distance of `s` from the far corner of `seat`'s target camp.
inline int DistanceToTarget(const Variant& variant, Seat seat, Square s) {
  const Corner c = TargetCorner(seat);
  const bool east = c == Corner::kNorthEast || c == Corner::kSouthEast;
  const bool north = c == Corner::kNorthEast || c == Corner::kNorthWest;
  const int cx = east ? variant.size - 1 : 0;
  const int cy = north ? variant.size - 1 : 0;
  return std::abs(FileOf(s) - cx) + std::abs(RankOf(s) - cy);
}

// Plays up to `plies` legal moves (a pass when forced) from `start` and
// returns every position reached, `start` first; stops when the game is
// over. With probability `greedy` a move is one of those that bring a piece
// closest to its target, otherwise any legal move, so that games both wander
// and reach the far camps. Every move goes through CheckMove with a
// generated path.
inline std::vector<Position> RandomGame(const Variant& variant,
                                        const Position& start, int plies,
                                        std::mt19937* rng,
                                        double greedy = 0.0) {
  std::vector<Position> out = {start};
  auto list = std::make_unique<MoveList>();
  auto paths = std::make_unique<MovePaths>();
  Position pos = start;
  for (int ply = 0; ply < plies; ++ply) {
    const GameStatus status = EvaluateStatus(variant, pos);
    if (status.over) break;
    GenerateLegalMovesWithPaths(variant, pos, pos.to_move, list.get(),
                                paths.get());
    MoveText move;
    if (list->size == 0) {
      move.is_pass = true;
    } else {
      int chosen = std::uniform_int_distribution<int>(0, list->size - 1)(*rng);
      if (std::uniform_real_distribution<double>(0, 1)(*rng) < greedy) {
        int best = -1000;
        std::vector<int> top;
        for (int i = 0; i < list->size; ++i) {
          const LegalMove& m = list->moves[i];
          const int gain =
              DistanceToTarget(variant, pos.to_move, m.origin) -
              DistanceToTarget(variant, pos.to_move, m.destination);
          if (gain > best) {
            best = gain;
            top.clear();
          }
          if (gain == best) top.push_back(i);
        }
        chosen =
            top[std::uniform_int_distribution<size_t>(0, top.size() - 1)(*rng)];
      }
      move.squares.assign(paths->Path(chosen),
                          paths->Path(chosen) + paths->Length(chosen));
    }
    const MoveCheck check = CheckMove(variant, pos, status, move);
    EXPECT_EQ(check.verdict, MoveVerdict::kLegal)
        << FormatPosition(pos, variant) << " " << FormatMove(move) << ": "
        << check.message;
    if (check.verdict != MoveVerdict::kLegal) break;
    pos = check.after;
    out.push_back(pos);
  }
  return out;
}

}  // namespace testing_util
}  // namespace halma

#endif  // HALMA_TESTS_ENGINE_TEST_UTIL_H_
