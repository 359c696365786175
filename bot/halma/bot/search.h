#ifndef HALMA_BOT_SEARCH_H_
#define HALMA_BOT_SEARCH_H_

#include <cstdint>
#include <memory>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "halma/bot/search_state.h"
#include "halma/movegen.h"
#include "halma/position.h"
#include "halma/seat.h"
#include "halma/square.h"
#include "halma/variant.h"

namespace halma::bot {

// The move-suggestion search (docs/bot.md): a pure function of the variant,
// the position and the options, computed in a workspace the caller
// preallocates (one per concurrent call, e.g. one per admission slot).

// The most ranked candidates a call may ask for.
inline constexpr int kMaxCandidates = 16;
// The largest node budget accepted at all (a server sets a lower cap).
inline constexpr std::int64_t kMaxNodeBudget = 1'000'000'000'000;
// The deepest iteration an explicit depth limit may ask for.
inline constexpr int kMaxSearchDepth = 48;
// The checkpoint (and the clock of a time budget) is consulted after at
// most this many expansions or kCheckpointNodes nodes, whichever comes
// first (docs/bot.md, "Bounds": about 0.1 ms of search).
inline constexpr int kCheckpointExpansions = 32;
inline constexpr std::int64_t kCheckpointNodes = 16'384;

struct SearchOptions {
  // 1 (beginner) .. kTopLevel, or 0 for an explicit budget below.
  int level = 0;
  // With level 0: the nodes the search may visit (docs/bot.md, "What a
  // node is"); at least one of node_budget and time_budget_us is needed.
  std::int64_t node_budget = 0;
  // With level 0: the deepest iteration (0 = kMaxSearchDepth).
  int depth_limit = 0;
  // With level 0: the beam below the root (0 = the top level's).
  int beam = 0;
  // With level 0: the choice rule of a weaker level (LevelSpec's
  // choice_pool and temperature; 0 keeps the best). The arena uses them
  // to try a level before it is one (docs/bot.md, "Levels").
  int choice_pool = 0;
  int temperature = 0;
  // Stops the search after this much time (wall clock, microseconds; 0 =
  // none). An answer cut short by time is not reproducible: the result's
  // stop_reason says so.
  std::int64_t time_budget_us = 0;
  // Picks among equally good moves (and, at the weaker levels, among the
  // good ones): part of the request, so the answer stays reproducible.
  std::uint64_t seed = 0;
  // Ranked candidates wanted (1..kMaxCandidates). The chosen move does not
  // depend on it: candidates beyond the first cost a search of their own.
  int candidates = 1;
  // When the checkpoint stops the search: false answers with its status;
  // true answers with the best move found so far (stop_reason kCheckpoint,
  // stop_status the checkpoint's status).
  bool best_so_far_on_stop = false;
};

// A score a UI can show, from the side to move's point of view.
enum class ScoreKind {
  kEstimate,  // No forced result found: see turns_ahead.
  kWin,       // The side to move ends the game in its favour by its
              // `moves`-th move from now (within the moves searched).
  kLoss,      // An opponent ends it against the side to move by its
              // `moves`-th move from now (within the moves searched).
  kDraw,      // A draw (move cap, everyone stuck, round completion).
};

struct Score {
  ScoreKind kind = ScoreKind::kEstimate;
  int moves = 0;
  // The search's value in evaluation units (16 per square of distance).
  std::int32_t value = 0;
  // The estimate in turns: how many turns the side to move is ahead of its
  // most advanced opponent (negative: behind). Set for every kind.
  double turns_ahead = 0;
};

struct Suggestion {
  BotMove move;  // origin, destination, hops (0 = a step), or pass.
  // The fewest-hop path, origin first (as LegalMoves gives it); empty for
  // a pass.
  int path_length = 0;
  Square path[kMaxPathSquares] = {};
  Score score;
};

enum class StopReason {
  kCompleted,   // The depth limit, a forced result, or the only move.
  kNodeBudget,  // The node budget (a level's or the caller's).
  kTimeBudget,  // The time budget: not reproducible.
  kCheckpoint,  // The checkpoint said stop (best_so_far_on_stop).
};

struct SearchResult {
  // The move to play is candidates[chosen]. Candidates are ranked by score
  // (best first); without a level's randomness the chosen one is the first.
  int candidate_count = 0;
  int chosen = 0;
  Suggestion candidates[kMaxCandidates];
  // The principal variation from the position (the chosen move first when
  // it is the best), one entry per ply of the search; in four-player games
  // a ply of the opponents is one opponent's move (the others sit out).
  int pv_length = 0;
  BotMove pv[kMaxPly];
  Seat pv_seat[kMaxPly] = {};
  // The deepest iteration completed, nodes visited and positions expanded
  // (docs/bot.md, "What a node is"), hint searches included.
  int depth = 0;
  std::int64_t nodes = 0;
  std::int64_t expansions = 0;
  // Per seat in play: the evaluation's estimate of the turns it still
  // needs (docs/bot.md, "Scores").
  double turns_needed[kMaxSeats] = {};
  StopReason stop_reason = StopReason::kCompleted;
  absl::Status stop_status;

  const Suggestion& move() const { return candidates[chosen]; }
};

// The memory of one concurrent search: a transposition table of
// 2^table_bits entries (16 bytes each) and fixed-size move stacks, all
// allocated here, once; a search allocates nothing. Answers are a function
// of the request and of table_bits (docs/bot.md, "Determinism"): servers
// that must agree use the default. Not thread-safe: one search at a time.
class SearchWorkspace {
 public:
  static constexpr int kDefaultTableBits = 17;  // 2 MiB.
  static constexpr int kMinTableBits = 10;
  static constexpr int kMaxTableBits = 26;

  explicit SearchWorkspace(int table_bits = kDefaultTableBits);
  ~SearchWorkspace();
  SearchWorkspace(const SearchWorkspace&) = delete;
  SearchWorkspace& operator=(const SearchWorkspace&) = delete;

  int table_bits() const;
  // Bytes this workspace holds.
  std::size_t MemoryBytes() const;

  class Impl;
  Impl* impl() { return impl_.get(); }

 private:
  std::unique_ptr<Impl> impl_;
};

// Suggests a move for the side to move of `position` (well-formed for
// `variant`, as the engine's parsers give it). Errors (INVALID_ARGUMENT,
// naming the field): a finished game ("position"), options out of range
// ("level", "node_budget", "time_budget_us", "depth_limit", "beam",
// "candidates"). `checkpoint` is polled at least every ~0.1 ms of search;
// a non-OK status stops the search (see best_so_far_on_stop).
absl::StatusOr<SearchResult> SuggestMove(
    const Variant& variant, const Position& position,
    const SearchOptions& options, SearchWorkspace* workspace,
    absl::FunctionRef<absl::Status()> checkpoint);
absl::StatusOr<SearchResult> SuggestMove(const Variant& variant,
                                         const Position& position,
                                         const SearchOptions& options,
                                         SearchWorkspace* workspace);

const char* ScoreKindName(ScoreKind kind);
const char* StopReasonName(StopReason reason);

}  // namespace halma::bot

#endif  // HALMA_BOT_SEARCH_H_
