#include "halma/perft.h"

#include <bit>
#include <memory>
#include <utility>

#include "absl/strings/str_cat.h"
#include "halma/flood_fill.h"
#include "halma/game_status.h"
#include "halma/move_check.h"
#include "halma/movegen.h"
#include "halma/notation.h"
#include "halma/popcount.h"

namespace halma {
namespace {

// Positions whose moves are generated between two calls of the
// checkpoint: each costs about 150 to 400 ns on this project's machine
// (bench/halma_bench.cc, BM_Perft; dense 16x16 midgames the most), so
// about a millisecond or two.
constexpr std::uint64_t kCheckpointNodes = 4096;

// MoveSet::Count for the bulk-counted last ply, with popcnt where the CPU
// has it (popcount.h).
//
// The layers of a flood-fill group are lanes * depth consecutive words
// (flood_fill.h), and the words of its idle lanes, and of a lane beyond its
// own depth, are zero: so the jump moves are the bits of those blocks, a
// loop without data-dependent exits.
HALMA_POPCNT_CLONES int BulkCount(const MoveSet& set) {
  int count = 0;
  for (int d = 0; d < kDirectionCount; ++d) {
    for (int c = 0; c < 4; ++c) count += std::popcount(set.steps[d][c]);
  }
  for (int g = 0; g < set.group_count; ++g) {
    const FloodFillGroupInfo& group = set.groups[g];
    const std::uint64_t* words = set.layers + group.first_word;
    const int n = group.lanes * group.depth;
    for (int i = 0; i < n; ++i) count += std::popcount(words[i]);
  }
  return count;
}

// The count of one perft: one move set per remaining depth, allocated up
// front, so that the recursion allocates nothing. Every rule comes from the
// engine: the moves from GenerateMoveSet, the position after a move from
// ApplyMove and whether the game goes on, and how, from EvaluateStatus.
class Counter {
 public:
  Counter(const Variant& variant, int depth,
          absl::FunctionRef<absl::Status()> checkpoint)
      : variant_(variant),
        sets_(depth > 0 ? new MoveSet[depth] : nullptr),
        checkpoint_(checkpoint) {
    move_.squares.resize(2);
    pass_.is_pass = true;
  }

  // The sequences of `depth` plies from `position`, whose status is
  // `status`. Once stopped (checkpoint, overflow, a move that cannot be
  // counted) returns 0 and `stop()` says why.
  std::uint64_t Nodes(const Position& position, const GameStatus& status,
                      int depth) {
    if (depth == 0) return 1;
    return Count(position, status, depth);
  }

  // The position after `move` by the side to move, or false (and stopped)
  // when its move count is full.
  bool Play(const Position& position, const MoveText& move, Position* after) {
    if (position.move_count[SeatIndex(position.to_move)] == kMaxMoveCount) {
      Stop(CheckRoomForMove(position));
      return false;
    }
    *after = ApplyMove(variant_, position, move);
    return true;
  }
  bool PlayMove(const Position& position, Square origin, Square destination,
                Position* after) {
    move_.squares[0] = origin;
    move_.squares[1] = destination;
    return Play(position, move_, after);
  }
  bool PlayPass(const Position& position, Position* after) {
    return Play(position, pass_, after);
  }

  // Adds `n` to `*total`; false (and stopped) past 2^64 - 1.
  bool Add(std::uint64_t* total, std::uint64_t n) {
    if (__builtin_add_overflow(*total, n, total)) {
      Stop(absl::OutOfRangeError(
          "the perft count exceeds 2^64 - 1 (18446744073709551615)"));
      return false;
    }
    return true;
  }

  bool stopped() const { return stopped_; }
  const absl::Status& stop() const { return stop_; }
  // Calls the checkpoint; false (and stopped) when it says stop.
  bool Checkpoint() {
    if (absl::Status status = checkpoint_(); !status.ok()) {
      Stop(std::move(status));
      return false;
    }
    return true;
  }

 private:
  void Stop(absl::Status status) {
    if (!stopped_) stop_ = std::move(status);
    stopped_ = true;
  }

  // Nodes for depth >= 1.
  std::uint64_t Count(const Position& position, const GameStatus& status,
                      int depth) {
    if (stopped_ || status.over) return 0;
    if (++visits_ % kCheckpointNodes == 0 && !Checkpoint()) return 0;
    if (status.must_pass) {
      if (depth == 1) return 1;
      Position after;
      if (!PlayPass(position, &after)) return 0;
      return Count(after, EvaluateStatus(variant_, after), depth - 1);
    }
    MoveSet& set = sets_[depth - 1];
    GenerateMoveSet(variant_, position, position.to_move, &set);
    // Bulk counting: the last ply's moves are counted, not played.
    if (depth == 1) return static_cast<std::uint64_t>(BulkCount(set));
    std::uint64_t total = 0;
    set.ForEach([&](Square origin, Square destination, int /*hops*/) {
      if (stopped_) return;
      Position after;
      if (!PlayMove(position, origin, destination, &after)) return;
      Add(&total, Count(after, EvaluateStatus(variant_, after), depth - 1));
    });
    return stopped_ ? 0 : total;
  }

  const Variant& variant_;
  std::unique_ptr<MoveSet[]> sets_;
  absl::FunctionRef<absl::Status()> checkpoint_;
  MoveText move_;
  MoveText pass_;
  std::uint64_t visits_ = 0;
  bool stopped_ = false;
  absl::Status stop_;
};

}  // namespace

absl::StatusOr<PerftResult> Perft(
    const Variant& variant, const Position& position, int depth,
    bool split_by_first_move, absl::FunctionRef<absl::Status()> checkpoint) {
  if (depth < 0 || depth > kMaxPerftDepth) {
    return absl::InvalidArgumentError(
        absl::StrCat("perft depth ", depth, " is out of range, expected 0 to ",
                     kMaxPerftDepth));
  }
  Counter counter(variant, depth, checkpoint);
  if (!counter.Checkpoint()) return counter.stop();
  const GameStatus status = EvaluateStatus(variant, position);
  PerftResult result;
  if (!split_by_first_move || depth == 0 || status.over) {
    result.nodes = counter.Nodes(position, status, depth);
    if (counter.stopped()) return counter.stop();
    return result;
  }
  // One entry per first move, in the order of LegalMoves.
  const auto first = [&](PerftFirstMove entry, const Position& after) {
    entry.nodes =
        depth == 1
            ? 1
            : counter.Nodes(after, EvaluateStatus(variant, after), depth - 1);
    counter.Add(&result.nodes, entry.nodes);
    result.first_moves.push_back(entry);
  };
  if (status.must_pass) {
    Position after;
    if (depth > 1 && !counter.PlayPass(position, &after)) return counter.stop();
    PerftFirstMove entry;
    entry.is_pass = true;
    first(entry, after);
  } else {
    auto list = std::make_unique<MoveList>();
    GenerateLegalMoves(variant, position, position.to_move, list.get());
    SortMoves(list.get());
    result.first_moves.reserve(list->size);
    for (const LegalMove& move : *list) {
      Position after;
      if (depth > 1 &&
          !counter.PlayMove(position, move.origin, move.destination, &after)) {
        break;
      }
      PerftFirstMove entry;
      entry.origin = move.origin;
      entry.destination = move.destination;
      first(entry, after);
      if (counter.stopped()) break;
    }
  }
  if (counter.stopped()) return counter.stop();
  return result;
}

}  // namespace halma
