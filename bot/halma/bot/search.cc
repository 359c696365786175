#include "halma/bot/search.h"

#include <algorithm>
#include <array>
#include <bit>
#include <chrono>
#include <cstdlib>
#include <functional>
#include <limits>
#include <string>

#include "absl/strings/str_cat.h"
#include "halma/bot/camp_escape.h"
#include "halma/bot/eval_tables.h"
#include "halma/bot/levels.h"
#include "halma/bot/score_units.h"
#include "halma/bot/transposition_table.h"
#include "halma/bot/zobrist.h"
#include "halma/record_text.h"

namespace halma::bot {
namespace {

// Values are from the root seat's point of view. Evaluations are odd
// (2 * e + 1) and a draw is 0, so that a reported draw is never an
// estimate that happens to be zero; a won game is kWin - ply.
constexpr std::int32_t kWin = 1'000'000;
constexpr std::int32_t kInfinity = 2'000'000;
constexpr std::int32_t kWinThreshold = kWin - 10'000;
constexpr std::int32_t kDraw = 0;

// A piece walled in where a deadlock may close on it (Blockades) costs the
// root as much as 24 squares of distance.
constexpr std::int32_t kBlockadePenalty = 24 * 16;

// kAround[s] and kNear[s]: the squares one and at most two king steps
// from s (s excluded), in the 16x16 frame.
struct SquareRings {
  Bitboard around[kSquareCount];
  Bitboard near[kSquareCount];
};
constexpr SquareRings MakeSquareRings() {
  SquareRings t{};
  for (int s = 0; s < kSquareCount; ++s) {
    const int x = FileOf(static_cast<Square>(s));
    const int y = RankOf(static_cast<Square>(s));
    for (int dy = -2; dy <= 2; ++dy) {
      for (int dx = -2; dx <= 2; ++dx) {
        const int nx = x + dx, ny = y + dy;
        if ((dx | dy) == 0 || nx < 0 || ny < 0 || nx >= kMaxBoardSize ||
            ny >= kMaxBoardSize) {
          continue;
        }
        t.near[s].Set(MakeSquare(nx, ny));
        if (dx >= -1 && dx <= 1 && dy >= -1 && dy <= 1) {
          t.around[s].Set(MakeSquare(nx, ny));
        }
      }
    }
  }
  return t;
}
constexpr SquareRings kRings = MakeSquareRings();

// The root's cost is multiplied by up to kMaxStallScale once it has made
// more than kStallStartPerSize moves per square of the board side (one
// more for every half side's moves).
constexpr int kStallStartPerSize = 5;
constexpr int kMaxStallScale = 12;
// The endgame term: this much per king step beyond the first from a piece
// outside its target to the nearest hole, with at most kEndgamePieces out.
constexpr int kEndgamePieces = 4;
constexpr std::int32_t kEndgameStep = 12;

// A level's node budget is divided by this with more than two players.
constexpr std::int64_t kMultiPlayerBudgetDivisor = 4;

// Moves of a node searched to full depth before late ones are reduced.
constexpr int kLateMoveFull = 4;

// The widest beam below the root.
constexpr int kMaxBeam = 64;
// With at most this many of the root's pieces outside its target (the
// top level's 12 plies hold 6 of its moves), an opponent's node keeps
// its blocks and guards beyond the beam (Collect), where the rules let a
// block last.
constexpr int kBlockWatchPieces = 6;
// The most blocks (moves into the root's target camp) and guards (moves
// onto the squares around it) a node keeps beyond the beam, best first.
constexpr int kMaxBlocks = 16;
constexpr int kMaxGuards = 8;
// Entries of a ply's move list: the beam, the table move, two killers,
// the blocks, the guards and per seat two moves that keep its pieces in
// the camp, and in the camp's zone, where they stand.
constexpr int kPlyListSize =
    kMaxBeam + 4 + kMaxBlocks + kMaxGuards + 2 * kMaxSeats;

// How often the checkpoint and the clock are consulted.
constexpr std::int64_t kPollExpansions = kCheckpointExpansions;
constexpr std::int64_t kPollNodes = kCheckpointNodes;

struct ScoredMove {
  BotMove move;
  Seat seat = Seat::kW;
  // Ordering key, larger first: the child's static value for the mover,
  // then the mover's own gain, then a seeded tie-break.
  std::int64_t key = 0;
};

struct PvLine {
  int length = 0;
  BotMove moves[kMaxPly];
  Seat seats[kMaxPly];
};

bool SameSpec(const VariantSpec& a, const VariantSpec& b) {
  return a.name == b.name && a.board_size == b.board_size &&
         a.seat_count == b.seat_count && a.camp_rows == b.camp_rows &&
         a.home_exit_limit == b.home_exit_limit &&
         a.round_completion == b.round_completion &&
         a.target_lock == b.target_lock && a.move_cap == b.move_cap;
}

std::int32_t ToTable(std::int32_t v, int ply) {
  if (v >= kWinThreshold) return v + ply;
  if (v <= -kWinThreshold) return v - ply;
  return v;
}
std::int32_t FromTable(std::int32_t v, int ply) {
  if (v >= kWinThreshold) return v - ply;
  if (v <= -kWinThreshold) return v + ply;
  return v;
}

std::int64_t OrderKey(std::int32_t value, std::int32_t gain,
                      std::uint64_t tie) {
  const std::int32_t g = std::clamp(gain, -32767, 32767);
  return (static_cast<std::int64_t>(value) << 32) |
         (static_cast<std::int64_t>(g + 32768) << 16) |
         static_cast<std::int64_t>(tie & 0xFFFF);
}

}  // namespace

class SearchWorkspace::Impl {
 public:
  explicit Impl(int table_bits) : table_(table_bits) {}

  int table_bits() const { return table_.bits(); }
  std::size_t MemoryBytes() const {
    return sizeof(Impl) + table_.MemoryBytes();
  }

  absl::StatusOr<SearchResult> Run(
      const Variant& variant, const Position& position,
      const SearchOptions& options,
      absl::FunctionRef<absl::Status()> checkpoint);

 private:
  // The gain context of one seat: what leaving or entering its home camp
  // costs at its next move count.
  struct Mover {
    Seat seat;
    const std::int32_t* cost;
    const std::uint8_t* exit_steps;
    Bitboard home;
    std::int32_t rate;         // HomeRate at the next move count.
    std::int32_t leave;        // ExitUrgency change when a piece leaves home.
    std::int32_t enter;        // ... when one goes back.
    std::int32_t count_shift;  // HomePenalty's change with the count alone.
    std::int32_t scale;        // The seat's cost multiplier at the next count.
  };

  // Evaluation.
  std::int32_t SeatValue(Seat s) const;
  std::int32_t StallScale(std::int64_t moves) const;
  int EndgameSteps(Seat s) const;
  std::int32_t SeatValueNextCount(Seat s) const;
  std::int32_t Evaluate() const;
  Mover MakeMover(Seat s) const;
  std::int32_t Gain(const Mover& m, Square from, Square to) const {
    const int home_delta = int(m.home.Test(to)) - int(m.home.Test(from));
    return m.scale * (m.cost[from] - m.cost[to]) +
           m.rate * (m.exit_steps[from] - m.exit_steps[to]) -
           (home_delta < 0   ? m.leave
            : home_delta > 0 ? m.enter
                             : 0);
  }
  std::int32_t TerminalValue(const GameStatus& status, int ply) const;
  bool RootLost() const { return !state_.playing().Has(root_); }

  // Moves.
  template <typename Fn>
  void ForEachMove(Seat seat, Fn&& fn);
  int Opponents(Seat* out) const;
  int PlayRound(Seat seat, const BotMove& move);
  BotMove DefaultMove(Seat seat);
  bool Separated() const;
  void UndoRound(int played) {
    for (int i = 0; i < played; ++i) state_.Undo();
  }
  bool Careful(bool max_node) const;
  int Blockades(Bitboard* touch) const;
  void KeepConcedingRootMoves();
  void KeepRootMovesThatWallNoPieceIn();
  // Keeps the root moves of the least cost(move), in their order.
  template <typename Cost>
  void KeepRootMovesOfLeastCost(Cost&& cost);
  template <typename Special>
  std::int32_t BestGain(const Mover& m, const Bitboard& touch,
                        std::int64_t enough, std::int64_t* count,
                        Special&& special);
  // The value of a node one ply above the leaves, `ply` plies below the
  // root (a game its children end is valued at their ply: TerminalValue).
  std::int32_t BulkValue(bool max_node, std::int32_t alpha, std::int32_t beta,
                         int ply, bool* any_move);
  std::int32_t CarefulLeafValue(bool max_node, int ply, bool* any_move);
  int Collect(bool max_node, int ply, const TableEntry* entry,
              ScoredMove* list);

  // Search.
  std::int32_t Search(int depth, std::int32_t alpha, std::int32_t beta,
                      int ply);
  // Plies less for the `index`-th move (0 first) of a node `depth` plies
  // above the leaves. Always two, one move of each side: the evaluation
  // has no term for the side to move, so a line cut one ply short ends
  // with one side a move ahead (worth a few squares in a race), and the
  // search would cut the opponent's late moves for a tempo the root does
  // not have (docs/bot.md, "Late move reductions keep the tempo").
  static int LateMoveReduction(int depth, int index) {
    if (depth < 4 || index < kLateMoveFull) return 0;
    return 2;
  }
  void Poll();
  bool OutOfNodes() {
    if (nodes_ >= node_limit_) {
      if (!stop_) stop_reason_ = StopReason::kNodeBudget;
      stop_ = true;
    }
    return stop_;
  }
  void UpdatePv(int ply, const BotMove& move, Seat seat) {
    PvLine& line = pv_[ply];
    line.moves[0] = move;
    line.seats[0] = seat;
    const PvLine& child = pv_[ply + 1];
    const int n = std::min(child.length, kMaxPly - 1);
    for (int i = 0; i < n; ++i) {
      line.moves[i + 1] = child.moves[i];
      line.seats[i + 1] = child.seats[i];
    }
    line.length = n + 1;
  }
  Score MakeScore(std::int32_t value) const;

  // Per workspace.
  TranspositionTable table_;
  EvalTables tables_;
  VariantSpec tables_spec_;
  bool tables_valid_ = false;
  SearchState state_;
  MoveSet move_set_;
  MoveSet default_set_;  // DefaultMove's, apart: it runs inside scans.
  ScoredMove ply_lists_[kMaxPly + 1][kPlyListSize];
  BotMove killers_[kMaxPly + 1][2];
  PvLine pv_[kMaxPly + 2];

  struct RootMove {
    BotMove move;
    std::int32_t value = 0;  // Of the last iteration that searched it.
    bool exact = false;
    int depth = 0;  // The iteration that gave `value`.
    std::int64_t key = 0;
    int order = 0;
  };
  RootMove root_moves_[kMaxLegalMoves + 8];
  int root_costs_[kMaxLegalMoves + 8];  // KeepRootMovesOfLeastCost's.
  RootMove root_scratch_[kMaxLegalMoves + 8];
  std::int32_t root_values_[kMaxLegalMoves + 8];
  bool root_exact_[kMaxLegalMoves + 8];
  int root_count_ = 0;

  // Per call.
  const Variant* variant_ = nullptr;
  Seat root_ = Seat::kW;
  int beam_ = 16;
  std::uint64_t seed_ = 0;
  std::int64_t nodes_ = 0;
  std::int64_t expansions_ = 0;
  std::int64_t node_limit_ = 0;
  std::int64_t next_poll_expansions_ = 0;
  std::int64_t next_poll_nodes_ = 0;
  std::int64_t time_budget_us_ = 0;
  std::chrono::steady_clock::time_point start_;
  const absl::FunctionRef<absl::Status()>* checkpoint_ = nullptr;
  bool race_ = false;  // Separated(): the sides can no longer meet.
  bool stop_ = false;
  StopReason stop_reason_ = StopReason::kCompleted;
  absl::Status stop_status_;
};

// ---------------------------------------------------------------------------
// Evaluation

// A seat's standing: minus what its pieces cost (distance, stragglers,
// lateral). The root's own pieces at home cost it too; an opponent's do
// not count for the root, or the root would gain by keeping them there
// (walling them in: the spoiler's game).
//
// The root's cost also weighs more and more once its game drags on
// (StallScale): a search that sees no gain in moving (two sides whose
// stragglers would give each other ladders) otherwise marks time for
// ever; the root then prefers its own progress to denying the opponent's,
// and games end.
std::int32_t SearchWorkspace::Impl::SeatValue(Seat s) const {
  if (s != root_) return -state_.cost(s);
  return -(StallScale(state_.moves(s)) * state_.cost(s) +
           HomePenalty(tables_, variant_->spec.home_exit_limit,
                       state_.at_home(s), state_.exit_steps(s),
                       state_.moves(s)));
}

std::int32_t SearchWorkspace::Impl::SeatValueNextCount(Seat s) const {
  if (s != root_) return -state_.cost(s);
  return -(StallScale(state_.moves(s) + 1) * state_.cost(s) +
           HomePenalty(tables_, variant_->spec.home_exit_limit,
                       state_.at_home(s), state_.exit_steps(s),
                       state_.moves(s) + 1));
}

std::int32_t SearchWorkspace::Impl::StallScale(std::int64_t moves) const {
  const std::int64_t start = kStallStartPerSize * variant_->size;
  if (moves <= start) return 1;
  const std::int64_t step = std::max(1, variant_->size / 2);
  return static_cast<std::int32_t>(
      std::min<std::int64_t>(kMaxStallScale, 1 + (moves - start) / step));
}

// Deadlocks the root seat is part of (docs/bot.md, "How it plays"): a
// piece in another seat's target camp, walled in there by that seat: no
// empty square next to it towards its own target, and one of those
// squares held by the camp's owner. Under target lock the owner may no
// longer be able to make room, and then neither seat ever finishes. Either
// way round (an opponent's piece in the root's target, or the root's piece
// in an opponent's) it costs the root, so the root neither builds such a
// wall nor waits at home until one closes on it.
//
// Returns the number of such pieces. `touch` (if given) gets the squares a
// move must leave or reach to change that number, for the pieces the
// camp's owner is within two squares of (a wall rarely closes by a jump
// from afar: BulkValue accepts that approximation).
int SearchWorkspace::Impl::Blockades(Bitboard* touch) const {
  const Position& p = state_.position();
  const Bitboard occupied = p.Occupied();
  int found = 0;
  // The pieces of `piece_owner` in the target camp of `camp_owner`.
  const auto camp = [&](Seat camp_owner, Seat piece_owner) {
    const Bitboard& wall = p.pieces[SeatIndex(camp_owner)];
    // Only a piece with the wall within two squares is looked at, and all
    // of those lie in the camp's zone.
    if (!(wall & tables_.target_zone[SeatIndex(camp_owner)]).Any()) return;
    const Bitboard inside = p.pieces[SeatIndex(piece_owner)] &
                            tables_.target[SeatIndex(camp_owner)];
    const Bitboard* forward_of = tables_.forward[SeatIndex(piece_owner)];
    ForEachSquare(inside, [&](Square q) {
      if (!(kRings.near[q] & wall).Any()) return;
      const Bitboard& forward = forward_of[q];
      if (touch != nullptr) {
        *touch |= forward;
        touch->Set(q);
      }
      if (!(forward & ~occupied).Any() && (forward & wall).Any()) ++found;
    });
  };
  const SeatSet playing = state_.playing();
  for (int i = 0; i < variant_->seat_count; ++i) {
    const Seat s = variant_->seats[i];
    if (s == root_ || !playing.Has(s)) continue;
    camp(root_, s);
    camp(s, root_);
  }
  return found;
}

// A game that drags on is not held by sitting in an opponent's target
// (docs/bot.md, "Where a game did not end"). A seat finishes only with all
// its pieces in its target (docs/rules.md section 5, rule 1), so a root
// piece left there blocks that opponent for as long as it stays; a search
// that sees a loss in every move that leaves stays for ever, since no
// finite cost outweighs a loss. Past the stall threshold the root concedes
// instead: of its moves, only those that leave the fewest of its pieces on
// squares of a playing opponent's target are searched (they take a piece
// out when one can leave, and never bring one in).
void SearchWorkspace::Impl::KeepConcedingRootMoves() {
  if (root_count_ < 2 || StallScale(state_.moves(root_)) == 1) return;
  Bitboard needed;
  const SeatSet playing = state_.playing();
  for (int i = 0; i < variant_->seat_count; ++i) {
    const Seat s = variant_->seats[i];
    if (s != root_ && playing.Has(s)) needed |= tables_.target[SeatIndex(s)];
  }
  KeepRootMovesOfLeastCost([&needed](const BotMove& m) {
    return int(needed.Test(m.destination)) - int(needed.Test(m.origin));
  });
}

template <typename Cost>
void SearchWorkspace::Impl::KeepRootMovesOfLeastCost(Cost&& cost) {
  int least = std::numeric_limits<int>::max();
  for (int i = 0; i < root_count_; ++i) {
    root_costs_[i] = cost(root_moves_[i].move);
    least = std::min(least, root_costs_[i]);
  }
  int kept = 0;
  for (int i = 0; i < root_count_; ++i) {
    if (root_costs_[i] == least) root_moves_[kept++] = root_moves_[i];
  }
  root_count_ = kept;
}

// A deadlock the root would close itself (docs/bot.md, "Games end"): a
// piece of a playing opponent in the root's target camp that can no
// longer get out (CanLeaveCamp) once the root's move is made. The root
// must fill every square of its camp to finish (docs/rules.md section 5,
// rule 1), so while that piece stays neither seat finishes; under target
// lock the root's pieces in the camp can never make room again, and a
// game without a move cap goes on for ever. The search's Blockades cost
// is finite and a root far ahead outweighs it by filling its camp, so
// here the root plays only the moves that leave the fewest such pieces:
// it waits outside rather than closes the last way out, whatever filling
// would gain. A move that neither leaves nor reaches a square within two
// king steps of the camp changes no piece's way out.
void SearchWorkspace::Impl::KeepRootMovesThatWallNoPieceIn() {
  if (root_count_ < 2) return;
  const Position& p = state_.position();
  const Bitboard& camp = tables_.target[SeatIndex(root_)];
  const Bitboard& zone = tables_.target_zone[SeatIndex(root_)];
  Bitboard inside;
  const SeatSet playing = state_.playing();
  for (int i = 0; i < variant_->seat_count; ++i) {
    const Seat s = variant_->seats[i];
    if (s != root_ && playing.Has(s)) inside |= p.pieces[SeatIndex(s)] & camp;
  }
  if (!inside.Any()) return;
  const Bitboard occupied = p.Occupied();
  const auto walled_in = [&](const Bitboard& board) {
    int n = 0;
    ForEachSquare(inside, [&](Square q) {
      if (!CanLeaveCamp(variant_->size, board, camp, q)) ++n;
    });
    return n;
  };
  const int unchanged = walled_in(occupied);
  KeepRootMovesOfLeastCost([&](const BotMove& m) {
    if (!zone.Test(m.origin) && !zone.Test(m.destination)) return unchanged;
    Bitboard after = occupied;
    after.Clear(m.origin);
    after.Set(m.destination);
    return walled_in(after);
  });
}

// The endgame (a seat with at most kEndgamePieces outside its target):
// the king steps from each piece outside to the nearest empty square of
// the target, beyond the first. The distance table measures towards the
// corner, and a last piece next to the camp may be four steps from the
// only hole left; the evaluation then keeps holes near the pieces still
// to come.
int SearchWorkspace::Impl::EndgameSteps(Seat s) const {
  const int outside = variant_->pieces_per_seat - state_.in_target(s);
  if (outside == 0 || outside > kEndgamePieces) return 0;
  const Position& p = state_.position();
  const Bitboard& target = tables_.target[SeatIndex(s)];
  const Bitboard holes = target & ~p.Occupied();
  if (!holes.Any()) return 0;
  int steps = 0;
  ForEachSquare(p.pieces[SeatIndex(s)] & ~target, [&](Square q) {
    int nearest = kMaxBoardSize;
    ForEachSquare(holes, [&](Square h) {
      nearest = std::min(nearest, std::max(std::abs(FileOf(h) - FileOf(q)),
                                           std::abs(RankOf(h) - RankOf(q))));
    });
    steps += nearest - 1;
  });
  return steps;
}

std::int32_t SearchWorkspace::Impl::Evaluate() const {
  const std::int32_t mine =
      SeatValue(root_) - kBlockadePenalty * Blockades(nullptr) -
      kEndgameStep * StallScale(state_.moves(root_)) * EndgameSteps(root_);
  std::int32_t best_opponent = -kInfinity;
  const SeatSet playing = state_.playing();
  for (int i = 0; i < variant_->seat_count; ++i) {
    const Seat s = variant_->seats[i];
    if (s != root_ && playing.Has(s)) {
      best_opponent = std::max(best_opponent,
                               SeatValue(s) - kEndgameStep * EndgameSteps(s));
    }
  }
  if (best_opponent == -kInfinity) best_opponent = mine;
  return 2 * (mine - best_opponent) + 1;
}

SearchWorkspace::Impl::Mover SearchWorkspace::Impl::MakeMover(Seat s) const {
  const int limit = variant_->spec.home_exit_limit;
  const int h = state_.at_home(s);
  const int steps = state_.exit_steps(s);
  const std::int64_t c = state_.moves(s);
  const std::int32_t now = ExitUrgency(tables_, limit, h, c + 1);
  Mover m;
  m.seat = s;
  m.cost = tables_.cost[SeatIndex(s)];
  m.exit_steps = tables_.exit_steps[SeatIndex(s)];
  m.home = tables_.home[SeatIndex(s)];
  if (s != root_) {
    // Opponents are judged by their distance alone (SeatValue).
    m.rate = m.leave = m.enter = m.count_shift = 0;
    m.scale = 1;
    return m;
  }
  m.scale = StallScale(c + 1);
  m.rate = HomeRate(tables_, c + 1);
  m.leave = h > 0 ? ExitUrgency(tables_, limit, h - 1, c + 1) - now : 0;
  m.enter = ExitUrgency(tables_, limit, h + 1, c + 1) - now;
  m.count_shift = HomePenalty(tables_, limit, h, steps, c + 1) -
                  HomePenalty(tables_, limit, h, steps, c) +
                  (m.scale - StallScale(c)) * state_.cost(s);
  return m;
}

std::int32_t SearchWorkspace::Impl::TerminalValue(const GameStatus& status,
                                                  int ply) const {
  if (status.winners.Has(root_)) {
    return status.winners.Count() == 1 ? kWin - ply : kDraw;
  }
  return -(kWin - ply);
}

// ---------------------------------------------------------------------------
// Moves

template <typename Fn>
void SearchWorkspace::Impl::ForEachMove(Seat seat, Fn&& fn) {
  GenerateMoveSet(*variant_, state_.position(), seat, &move_set_);
  for (int d = 0; d < kDirectionCount; ++d) {
    for (int c = 0; c < 4; ++c) {
      for (std::uint64_t w = move_set_.steps[d][c]; w != 0; w &= w - 1) {
        const Square origin = FromClass(c, std::countr_zero(w));
        fn(origin, Neighbour(origin, d), 0);
      }
    }
  }
  move_set_.ForEachJumper([&fn](const MoveSet::Jumper& jumper) {
    const int cls = ClassOf(jumper.origin);
    for (int k = 1; k <= jumper.depth; ++k) {
      for (std::uint64_t w = jumper.Layer(k); w != 0; w &= w - 1) {
        fn(jumper.origin, FromClass(cls, std::countr_zero(w)), k);
      }
    }
  });
}

// The seats that move between two turns of the root seat, in turn order.
int SearchWorkspace::Impl::Opponents(Seat* out) const {
  int n = 0;
  const SeatSet playing = state_.playing();
  Seat s = root_;
  for (int i = 0; i < variant_->seat_count - 1; ++i) {
    s = variant_->NextSeat(s);
    if (playing.Has(s)) out[n++] = s;
  }
  return n;
}

// One ply of the opponents (Best-Reply Search, in the BRS+ form that keeps
// the turn order): `seat` plays `move`, every other opponent plays its
// default move (DefaultMove), so that the position stays one of the game.
// In two-player games that is just the opponent's move.
int SearchWorkspace::Impl::PlayRound(Seat seat, const BotMove& move) {
  int played = 0;
  while (played < kMaxSeats && state_.to_move() != root_) {
    const Seat mover = state_.to_move();
    if (mover == seat) {
      state_.Play(move);
    } else if (state_.status().must_pass) {
      state_.Play(BotMove::Pass());
    } else {
      state_.Play(DefaultMove(mover));
    }
    ++played;
    if (state_.over() || RootLost()) break;
  }
  return played;
}

// What an opponent the round does not search plays: its move that gains
// the most distance (ties: the first in generation order).
BotMove SearchWorkspace::Impl::DefaultMove(Seat seat) {
  GenerateMoveSet(*variant_, state_.position(), seat, &default_set_);
  const std::int32_t* cost = tables_.cost[SeatIndex(seat)];
  BotMove best;
  std::int32_t best_gain = -kInfinity;
  default_set_.ForEach([&](Square from, Square to, int) {
    const std::int32_t gain = cost[from] - cost[to];
    if (gain > best_gain) {
      best_gain = gain;
      best.origin = from;
      best.destination = to;
    }
  });
  if (best_gain == -kInfinity) return BotMove::Pass();
  return best;
}

// Two players whose pieces have passed each other (docs/bot.md, "How it
// plays"): every piece of the root is at least three squares (Manhattan,
// towards the root's target corner) nearer that corner than every piece
// of the opponent, so no piece is next to an enemy piece, none can jump
// over one, and none will unless it goes back. The rest is a race.
bool SearchWorkspace::Impl::Separated() const {
  if (variant_->seat_count != 2) return false;
  const std::uint8_t* corner = tables_.corner_distance[SeatIndex(root_)];
  const Position& p = state_.position();
  int mine = 0, theirs = 4 * kMaxBoardSize;
  ForEachSquare(p.pieces[SeatIndex(root_)],
                [&](Square q) { mine = std::max<int>(mine, corner[q]); });
  ForEachSquare(p.pieces[SeatIndex(variant_->NextSeat(root_))],
                [&](Square q) { theirs = std::min<int>(theirs, corner[q]); });
  return mine + 3 <= theirs;
}

bool SearchWorkspace::Impl::Careful(bool max_node) const {
  // The endgame term is not a sum over squares: a move of any seat may
  // change it.
  const SeatSet playing = state_.playing();
  for (int i = 0; i < variant_->seat_count; ++i) {
    const Seat s = variant_->seats[i];
    if (playing.Has(s) &&
        variant_->pieces_per_seat - state_.in_target(s) <= kEndgamePieces + 1) {
      return true;
    }
  }
  if (max_node) return state_.RuleMayFireFor(root_);
  Seat opponents[kMaxSeats];
  const int n = Opponents(opponents);
  for (int i = 0; i < n; ++i) {
    if (state_.RuleMayFireFor(opponents[i])) return true;
  }
  return false;
}

// The best gain among the moves of `m.seat` that neither leave nor reach a
// square of `touch` (-kInfinity if none), calling special(from, to) for
// the others (which returns true to stop). Stops as soon as a gain reaches
// `enough` (alpha-beta at the last ply: the node is cut off), jumps first;
// *count gets the moves looked at. A jumping piece's destinations are
// scanned as one set: the best is the cheapest square.
template <typename Special>
std::int32_t SearchWorkspace::Impl::BestGain(const Mover& m,
                                             const Bitboard& touch,
                                             std::int64_t enough,
                                             std::int64_t* count,
                                             Special&& special) {
  GenerateMoveSet(*variant_, state_.position(), m.seat, &move_set_);
  const bool any_touch = touch.Any();
  std::int32_t best = -kInfinity;
  std::int64_t n = 0;
  bool stop = false;
  move_set_.ForEachJumper([&](const MoveSet::Jumper& jumper) {
    if (stop) return;
    std::uint64_t all = 0;
    for (int k = 1; k <= jumper.depth; ++k) all |= jumper.Layer(k);
    n += std::popcount(all);
    const Square from = jumper.origin;
    const int cls = ClassOf(from);
    if (any_touch) {
      std::uint64_t odd = touch.Test(from) ? all : all & touch.word[cls];
      all &= ~odd;
      for (; odd != 0 && !stop; odd &= odd - 1) {
        stop = special(from, FromClass(cls, std::countr_zero(odd)));
      }
    }
    const std::uint64_t home = m.home.word[cls];
    const bool from_home = m.home.Test(from);
    const std::int32_t base =
        m.scale * m.cost[from] + m.rate * m.exit_steps[from];
    const std::int32_t* cost = m.cost + (cls << 6);
    if (std::uint64_t out = all & ~home; out != 0) {
      std::int32_t low = cost[std::countr_zero(out)];
      for (out &= out - 1; out != 0; out &= out - 1) {
        low = std::min(low, cost[std::countr_zero(out)]);
      }
      best = std::max(best, base - m.scale * low - (from_home ? m.leave : 0));
    }
    if (std::uint64_t in = all & home; in != 0) {
      const std::uint8_t* exit = m.exit_steps + (cls << 6);
      std::int32_t low = kInfinity;
      for (; in != 0; in &= in - 1) {
        const int i = std::countr_zero(in);
        low = std::min(low, m.scale * cost[i] + m.rate * exit[i]);
      }
      best = std::max(best, base - low - (from_home ? 0 : m.enter));
    }
    stop = stop || best >= enough;
  });
  for (int d = 0; d < kDirectionCount && !stop; ++d) {
    for (int c = 0; c < 4 && !stop; ++c) {
      for (std::uint64_t w = move_set_.steps[d][c]; w != 0 && !stop;
           w &= w - 1) {
        ++n;
        const Square from = FromClass(c, std::countr_zero(w));
        const Square to = Neighbour(from, d);
        if (any_touch && (touch.Test(from) || touch.Test(to))) {
          stop = special(from, to);
        } else {
          best = std::max(best, Gain(m, from, to));
          stop = best >= enough;
        }
      }
    }
  }
  *count = n;
  return best;
}

namespace {
// ceil(a / 2) for any sign.
inline std::int64_t HalfUp(std::int64_t a) { return (a + 1) >> 1; }
}  // namespace

// The value of a node one ply above the leaves when no rule can fire: the
// best child for the side to move, read off the gain tables (the children
// are scored without being played, and the scan stops at a cutoff of the
// window (alpha, beta)), except for moves that may change a blockade
// (Blockades' touch squares), which are played and evaluated.
std::int32_t SearchWorkspace::Impl::BulkValue(bool max_node, std::int32_t alpha,
                                              std::int32_t beta, int ply,
                                              bool* any_move) {
  Bitboard touch;
  const std::int32_t blockade = kBlockadePenalty * Blockades(&touch);
  const auto played_value = [&](Seat seat, Square from, Square to) {
    BotMove move;
    move.origin = from;
    move.destination = to;
    const int played =
        max_node ? (state_.Play(move), 1) : PlayRound(seat, move);
    std::int32_t v;
    if (state_.over()) {
      v = TerminalValue(state_.status(), ply + 1);
    } else if (RootLost()) {
      v = -(kWin - ply - 1);
    } else {
      v = Evaluate();
    }
    UndoRound(played);
    return v;
  };
  Seat opponents[kMaxSeats];
  const int n = Opponents(opponents);
  if (max_node) {
    const Mover m = MakeMover(root_);
    std::int32_t best_opponent = -kInfinity;
    for (int i = 0; i < n; ++i) {
      best_opponent = std::max(best_opponent, SeatValue(opponents[i]));
    }
    const std::int32_t mine = SeatValue(root_) - blockade - m.count_shift;
    if (n == 0) best_opponent = mine;
    // value = 2 * (mine + gain - best_opponent) + 1 >= beta cuts off.
    const std::int64_t enough =
        HalfUp(static_cast<std::int64_t>(beta) - 1) - (mine - best_opponent);
    std::int32_t best_played = -kInfinity;
    std::int64_t count = 0;
    const std::int32_t best_gain =
        BestGain(m, touch, enough, &count, [&](Square from, Square to) {
          best_played = std::max(best_played, played_value(root_, from, to));
          return best_played >= beta;
        });
    nodes_ += count;
    *any_move = count > 0;
    if (count == 0) return 0;
    if (best_gain == -kInfinity) return best_played;
    return std::max(best_played, 2 * (mine + best_gain - best_opponent) + 1);
  }
  // Opponents: in the round every opponent moves, one the search chose and
  // the others their default; at the leaves that is every opponent's best
  // move (with two players, the opponent's best).
  const std::int32_t mine = SeatValue(root_) - blockade;
  // value = 2 * (mine - best) + 1 <= alpha cuts off.
  const std::int64_t bar =
      HalfUp(2 * static_cast<std::int64_t>(mine) + 1 - alpha);
  std::int32_t worst = kInfinity;
  std::int32_t best_opponent = -kInfinity;
  std::int64_t total = 0;
  for (int i = 0; i < n; ++i) {
    const Mover m = MakeMover(opponents[i]);
    const std::int32_t after = SeatValueNextCount(opponents[i]);
    std::int64_t count = 0;
    const std::int32_t best_gain =
        BestGain(m, touch, bar - after, &count, [&](Square from, Square to) {
          worst = std::min(worst, played_value(opponents[i], from, to));
          return worst <= alpha;
        });
    total += count;
    best_opponent = std::max(best_opponent,
                             after + (best_gain == -kInfinity ? 0 : best_gain));
    if (worst <= alpha || best_opponent >= bar) break;
  }
  nodes_ += total;
  *any_move = total > 0;
  if (total == 0) return 0;
  if (best_opponent > -kInfinity) {
    worst = std::min(worst, 2 * (mine - best_opponent) + 1);
  }
  return worst;
}

// The same by playing every child: near the end of a game, where a move
// may finish, break the home-exit rule or reach the move cap.
std::int32_t SearchWorkspace::Impl::CarefulLeafValue(bool max_node, int ply,
                                                     bool* any_move) {
  // Collect first: playing a move asks the engine for the status, which
  // must not run while this node's move set is being read.
  std::int32_t best = max_node ? -kInfinity : kInfinity;
  bool any = false;
  Seat seats[kMaxSeats];
  int n = 0;
  if (max_node) {
    seats[n++] = root_;
  } else {
    n = Opponents(seats);
  }
  for (int i = 0; i < n; ++i) {
    const Seat seat = seats[i];
    ForEachMove(seat, [&](Square from, Square to, int hops) {
      BotMove move;
      move.origin = from;
      move.destination = to;
      move.hops = static_cast<std::uint8_t>(hops);
      any = true;
      ++nodes_;
      int played = 1;
      if (max_node) {
        state_.Play(move);
      } else {
        played = PlayRound(seat, move);
      }
      std::int32_t v;
      if (state_.over()) {
        v = TerminalValue(state_.status(), ply + 1);
      } else if (RootLost()) {
        v = -(kWin - ply - 1);
      } else {
        v = Evaluate();
      }
      UndoRound(played);
      best = max_node ? std::max(best, v) : std::min(best, v);
    });
  }
  *any_move = any;
  return best;
}

namespace {
// Inserts `sm` into `list`, the `*count` best moves by key (largest first,
// at most `capacity`), when it is among the best `capacity`.
inline void KeepBest(const ScoredMove& sm, ScoredMove* list, int* count,
                     int capacity) {
  int j;
  if (*count < capacity) {
    j = (*count)++;
  } else if (sm.key > list[capacity - 1].key) {
    j = capacity - 1;
  } else {
    return;
  }
  while (j > 0 && list[j - 1].key < sm.key) {
    list[j] = list[j - 1];
    --j;
  }
  list[j] = sm;
}
}  // namespace

// The moves a node searches, best first: the table's move, the killers,
// then the `beam_` best by static value. Near the root's end (at most
// kBlockWatchPieces of its pieces outside its target), an opponent's node
// also keeps its blocks: moves onto a square of the root's target camp,
// which an opponent's static value ranks low (they lose it distance) but
// which can keep the root from ever finishing (the classic-16x16
// equal-nodes games of docs/bot.md, "The equal-nodes match"); its guards,
// moves onto the squares within two king steps of the camp, where a
// piece stands in the way of the root's last ones; and, for each
// opponent, its best move that leaves every piece it has in the camp
// where it stands, and its best that leaves every piece it has in the
// camp's zone where it stands. Without them the search saw the root fill
// its last hole against every reply it looked at, and claimed a win the
// opponent stopped by stepping back in, or by staying in the way.
//
// Only where the rules let a block last: under a home-exit limit
// (docs/rules.md section 5, rule 2) a piece in its home camp past the
// limit loses its seat the game, and a piece that blocks or guards keeps
// its owner from finishing too, so a block only delays the root's win
// while the extra replies cost the search its depth in every race near
// the root's end: at equal nodes on brainking-10x10 the top level lost
// 23 games of 200 to distance-ab with the watch, and won 19 of those 23
// without it (docs/bot.md, "The equal-nodes match").
int SearchWorkspace::Impl::Collect(bool max_node, int ply,
                                   const TableEntry* entry, ScoredMove* list) {
  ScoredMove top[kMaxBeam];
  int top_count = 0;
  const int beam = beam_;
  const Bitboard& root_target = tables_.target[SeatIndex(root_)];
  const Bitboard& root_zone = tables_.target_zone[SeatIndex(root_)];
  const bool watch_blocks =
      !max_node && variant_->spec.home_exit_limit == 0 &&
      variant_->pieces_per_seat - state_.in_target(root_) <= kBlockWatchPieces;
  ScoredMove blocks[kMaxBlocks];
  int block_count = 0;
  ScoredMove guards[kMaxGuards];
  int guard_count = 0;
  // Per opponent, its best move from outside the camp, and from outside
  // the zone.
  ScoredMove keepers[2][kMaxSeats];
  bool have_keeper[2][kMaxSeats] = {};
  bool have_table_move = false;
  ScoredMove table_move;
  ScoredMove killer_moves[2];
  bool have_killer[2] = {false, false};

  Seat seats[kMaxSeats];
  int n = 0;
  if (max_node) {
    seats[n++] = root_;
  } else {
    n = Opponents(seats);
  }
  std::int32_t after[kMaxSeats];
  for (int i = 0; i < n; ++i) after[i] = SeatValueNextCount(seats[i]);
  const std::int32_t mine = SeatValue(root_);
  Seat others[kMaxSeats];
  const int other_count = max_node ? Opponents(others) : 0;
  std::int32_t best_other = -kInfinity;
  for (int i = 0; i < other_count; ++i) {
    best_other = std::max(best_other, SeatValue(others[i]));
  }

  for (int i = 0; i < n; ++i) {
    const Seat seat = seats[i];
    const Mover m = MakeMover(seat);
    // The best of the other opponents after the round (four players).
    std::int32_t rest = -kInfinity;
    for (int j = 0; j < n; ++j) {
      if (j != i) rest = std::max(rest, after[j]);
    }
    const std::int32_t base = mine - m.count_shift - best_other;
    const bool table_here = entry != nullptr && entry->has_move() &&
                            !entry->move().is_pass && entry->seat() == seat;
    const BotMove& killer0 = killers_[ply][0];
    const BotMove& killer1 = killers_[ply][1];
    const bool have_killers =
        !(killer0 == BotMove()) || !(killer1 == BotMove());
    const std::uint32_t salt =
        static_cast<std::uint32_t>(seed_) ^
        (static_cast<std::uint32_t>(SeatIndex(seat)) << 16);
    ForEachMove(seat, [&](Square from, Square to, int hops) {
      const std::int32_t gain = Gain(m, from, to);
      // The child's static value for the mover.
      const std::int32_t value =
          max_node ? base + gain : std::max(after[i] + gain, rest) - mine;
      const std::int64_t partial = OrderKey(value, gain, 0);
      int special = 0;  // 1 the table move, 2 and 3 the killers.
      if (table_here && entry->origin == from && entry->destination == to) {
        special = 1;
      } else if (have_killers) {
        if (killer0.origin == from && killer0.destination == to &&
            !killer0.is_pass) {
          special = 2;
        } else if (killer1.origin == from && killer1.destination == to &&
                   !killer1.is_pass) {
          special = 3;
        }
      }
      const bool guard_or_block = watch_blocks && root_zone.Test(to);
      const bool block = guard_or_block && root_target.Test(to);
      const bool keeper = watch_blocks && !root_target.Test(from);
      const bool zone_keeper = watch_blocks && !root_zone.Test(from);
      if (special == 0 && !guard_or_block && !keeper && top_count == beam &&
          partial + 0xFFFF < top[beam - 1].key) {
        return;
      }
      ScoredMove sm;
      sm.move.origin = from;
      sm.move.destination = to;
      sm.move.hops = static_cast<std::uint8_t>(hops);
      sm.seat = seat;
      sm.key = partial |
               ((((std::uint32_t{from} << 8) | to) * 0x9E3779B1u ^ salt) >> 16);
      if (special == 1) {
        have_table_move = true;
        table_move = sm;
        return;
      }
      if (special > 1) {
        have_killer[special - 2] = true;
        killer_moves[special - 2] = sm;
        return;
      }
      const bool keeps[2] = {keeper, zone_keeper};
      for (int k = 0; k < 2; ++k) {
        if (keeps[k] && (!have_keeper[k][i] || sm.key > keepers[k][i].key)) {
          have_keeper[k][i] = true;
          keepers[k][i] = sm;
        }
      }
      // Blocks and guards compete for the beam like any move, and the best
      // of them are kept beyond it too: a guard taken out of the beam cost
      // the top level races on brainking-8x8 where the zone is most of
      // the opponent's half (3 games of 200 against greedy).
      if (block) {
        KeepBest(sm, blocks, &block_count, kMaxBlocks);
      } else if (guard_or_block) {
        KeepBest(sm, guards, &guard_count, kMaxGuards);
      }
      KeepBest(sm, top, &top_count, beam);
    });
  }
  int count = 0;
  if (have_table_move) list[count++] = table_move;
  for (int k = 0; k < 2; ++k) {
    if (have_killer[k]) list[count++] = killer_moves[k];
  }
  for (int i = 0; i < top_count; ++i) list[count++] = top[i];
  // A block or guard the beam kept is there already (the beam holds every
  // move better than its last).
  const bool beam_full = top_count == beam;
  const std::int64_t beam_last = beam_full ? top[beam - 1].key : 0;
  for (int b = 0; b < block_count; ++b) {
    if (beam_full && blocks[b].key < beam_last) list[count++] = blocks[b];
  }
  for (int g = 0; g < guard_count; ++g) {
    if (beam_full && guards[g].key < beam_last) list[count++] = guards[g];
  }
  const Bitboard* const kept_in[2] = {&root_target, &root_zone};
  for (int k = 0; k < 2; ++k) {
    for (int i = 0; i < n; ++i) {
      if (!have_keeper[k][i]) continue;
      bool kept = false;
      for (int j = 0; j < count && !kept; ++j) {
        kept =
            list[j].seat == seats[i] && !kept_in[k]->Test(list[j].move.origin);
      }
      if (!kept) list[count++] = keepers[k][i];
    }
  }
  return count;
}

// ---------------------------------------------------------------------------
// Search

void SearchWorkspace::Impl::Poll() {
  next_poll_expansions_ = expansions_ + kPollExpansions;
  next_poll_nodes_ = nodes_ + kPollNodes;
  if (time_budget_us_ > 0) {
    const auto elapsed = std::chrono::duration_cast<std::chrono::microseconds>(
        std::chrono::steady_clock::now() - start_);
    if (elapsed.count() >= time_budget_us_) {
      if (!stop_) stop_reason_ = StopReason::kTimeBudget;
      stop_ = true;
      return;
    }
  }
  absl::Status status = (*checkpoint_)();
  if (!status.ok()) {
    if (!stop_) {
      stop_reason_ = StopReason::kCheckpoint;
      stop_status_ = std::move(status);
    }
    stop_ = true;
  }
}

std::int32_t SearchWorkspace::Impl::Search(int depth, std::int32_t alpha,
                                           std::int32_t beta, int ply) {
  pv_[ply].length = 0;
  if (depth <= 0 || ply >= kMaxPly) return Evaluate();
  if (OutOfNodes()) return 0;
  ++expansions_;
  if (expansions_ >= next_poll_expansions_ || nodes_ >= next_poll_nodes_) {
    Poll();
    if (stop_) return 0;
  }
  const bool max_node = state_.to_move() == root_;

  if (depth == 1) {
    bool any_move = false;
    const std::int32_t v =
        Careful(max_node) ? CarefulLeafValue(max_node, ply, &any_move)
                          : BulkValue(max_node, alpha, beta, ply, &any_move);
    if (any_move) return v;
    // No move: the status decides (everyone stuck) or the mover passes.
  }

  const TableEntry* entry = nullptr;
  if (depth >= 2) {
    entry = table_.Probe(state_.key());
    if (entry != nullptr && entry->depth >= depth) {
      const std::int32_t v = FromTable(entry->value, ply);
      const Bound bound = entry->bound();
      if (bound == Bound::kExact || (bound == Bound::kLower && v >= beta) ||
          (bound == Bound::kUpper && v <= alpha)) {
        return v;
      }
    }
  }

  ScoredMove* list = ply_lists_[ply];
  int count = 0;
  if (depth >= 2) {
    if (race_ && !max_node && !state_.status().must_pass) {
      // A race: the opponent's moves no longer matter to the root's, so
      // it plays its default move and the depth goes to the root's own.
      list[0].move = DefaultMove(state_.to_move());
      list[0].seat = state_.to_move();
      count = 1;
    } else {
      count = Collect(max_node, ply, entry, list);
    }
  }
  if (count == 0) {
    const GameStatus& status = state_.status();
    if (status.over) return TerminalValue(status, ply);
    list[0].move = BotMove::Pass();
    list[0].seat = state_.to_move();
    count = 1;
  }

  const std::int32_t alpha0 = alpha, beta0 = beta;
  std::int32_t best = max_node ? -kInfinity : kInfinity;
  const ScoredMove* best_move = nullptr;
  for (int i = 0; i < count; ++i) {
    const ScoredMove& sm = list[i];
    ++nodes_;
    const int played =
        max_node ? (state_.Play(sm.move), 1) : PlayRound(sm.seat, sm.move);
    std::int32_t v;
    if (state_.over()) {
      v = TerminalValue(state_.status(), ply + 1);
      pv_[ply + 1].length = 0;
    } else if (RootLost()) {
      v = -(kWin - ply - 1);
      pv_[ply + 1].length = 0;
    } else if (i == 0) {
      v = Search(depth - 1, alpha, beta, ply + 1);
    } else {
      // Late moves first get a shallower look (late move reductions).
      const int reduction = LateMoveReduction(depth, i);
      if (max_node) {
        v = Search(depth - 1 - reduction, alpha, alpha + 1, ply + 1);
        if (reduction > 0 && v > alpha && !stop_) {
          v = Search(depth - 1, alpha, alpha + 1, ply + 1);
        }
        if (v > alpha && v < beta && !stop_) {
          v = Search(depth - 1, alpha, beta, ply + 1);
        }
      } else {
        v = Search(depth - 1 - reduction, beta - 1, beta, ply + 1);
        if (reduction > 0 && v < beta && !stop_) {
          v = Search(depth - 1, beta - 1, beta, ply + 1);
        }
        if (v < beta && v > alpha && !stop_) {
          v = Search(depth - 1, alpha, beta, ply + 1);
        }
      }
    }
    UndoRound(played);
    if (stop_) return 0;
    if (max_node) {
      if (v > best) {
        best = v;
        best_move = &sm;
        if (v > alpha) {
          alpha = v;
          UpdatePv(ply, sm.move, sm.seat);
        }
      }
    } else {
      if (v < best) {
        best = v;
        best_move = &sm;
        if (v < beta) {
          beta = v;
          UpdatePv(ply, sm.move, sm.seat);
        }
      }
    }
    if (alpha >= beta) {
      if (!sm.move.is_pass && !(killers_[ply][0] == sm.move)) {
        killers_[ply][1] = killers_[ply][0];
        killers_[ply][0] = sm.move;
      }
      break;
    }
  }
  Bound bound;
  if (max_node) {
    bound = best >= beta0   ? Bound::kLower
            : best > alpha0 ? Bound::kExact
                            : Bound::kUpper;
  } else {
    bound = best <= alpha0 ? Bound::kUpper
            : best < beta0 ? Bound::kExact
                           : Bound::kLower;
  }
  if (depth >= 2) {
    table_.Store(state_.key(), depth, ToTable(best, ply), bound,
                 best_move != nullptr ? &best_move->move : nullptr,
                 best_move != nullptr ? best_move->seat : state_.to_move());
  }
  return best;
}

Score SearchWorkspace::Impl::MakeScore(std::int32_t value) const {
  Score score;
  score.value = value;
  const double per_turn = 2.0 * kEvalUnitsPerSquare *
                          SquaresPerTurn(variant_->size) *
                          StallScale(state_.moves(root_));
  if (value >= kWinThreshold) {
    score.kind = ScoreKind::kWin;
    score.moves = (kWin - value + 1) / 2;
    score.value = value;
  } else if (value <= -kWinThreshold) {
    score.kind = ScoreKind::kLoss;
    score.moves = (kWin + value + 1) / 2;
  } else if (value == kDraw) {
    score.kind = ScoreKind::kDraw;
  } else {
    score.kind = ScoreKind::kEstimate;
    score.value = (value - 1) / 2;
    score.turns_ahead = static_cast<double>(value - 1) / per_turn;
    return score;
  }
  if (score.kind == ScoreKind::kWin) score.turns_ahead = score.moves;
  if (score.kind == ScoreKind::kLoss) score.turns_ahead = -score.moves;
  return score;
}

// ---------------------------------------------------------------------------
// The call

absl::StatusOr<SearchResult> SearchWorkspace::Impl::Run(
    const Variant& variant, const Position& position,
    const SearchOptions& options,
    absl::FunctionRef<absl::Status()> checkpoint) {
  // Options.
  if (options.level < 0 || options.level > kTopLevel) {
    return absl::InvalidArgumentError(
        absl::StrCat("level ", options.level, ": expected ", kMinLevel, " to ",
                     kTopLevel, ", or 0 with a node or time budget"));
  }
  if (options.node_budget < 0 || options.node_budget > kMaxNodeBudget) {
    return absl::InvalidArgumentError(
        absl::StrCat("node_budget ", options.node_budget, ": expected 0 to ",
                     kMaxNodeBudget));
  }
  constexpr std::int64_t kMaxTimeBudgetUs = 3'600'000'000;
  if (options.time_budget_us < 0 || options.time_budget_us > kMaxTimeBudgetUs) {
    return absl::InvalidArgumentError(
        absl::StrCat("time_budget_us ", options.time_budget_us,
                     ": expected 0 to ", kMaxTimeBudgetUs, " (one hour)"));
  }
  if (options.depth_limit < 0 || options.depth_limit > kMaxSearchDepth) {
    return absl::InvalidArgumentError(
        absl::StrCat("depth_limit ", options.depth_limit, ": expected 0 to ",
                     kMaxSearchDepth));
  }
  if (options.beam < 0 || options.beam > kMaxBeam) {
    return absl::InvalidArgumentError(
        absl::StrCat("beam ", options.beam, ": expected 0 to ", kMaxBeam));
  }
  if (options.candidates < 1 || options.candidates > kMaxCandidates) {
    return absl::InvalidArgumentError(absl::StrCat(
        "candidates ", options.candidates, ": expected 1 to ", kMaxCandidates));
  }
  if (options.level > 0 && (options.node_budget > 0 ||
                            options.depth_limit > 0 || options.beam > 0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "level ", options.level,
        ": expected either a level or an explicit budget (node_budget, "
        "depth_limit, beam), not both"));
  }
  if (options.level == 0 && options.node_budget == 0 &&
      options.time_budget_us == 0) {
    return absl::InvalidArgumentError(
        "level 0: expected a level (1 to " + std::to_string(kTopLevel) +
        ") or a node_budget or time_budget_us above 0");
  }
  // Position.
  if (absl::Status consistent = CheckPositionConsistency(variant, position);
      !consistent.ok()) {
    return consistent;
  }
  for (int i = 0; i < kMaxSeats; ++i) {
    if (position.move_count[i] > (std::int64_t{1} << 62)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "position move count of '", std::string(1, SeatLetter(SeatAt(i))),
          "' is ", position.move_count[i], ": the search takes counts up to ",
          std::int64_t{1} << 62));
    }
  }
  const GameStatus status = EvaluateStatus(variant, position);
  if (status.over) {
    GameRecordResult over;
    over.status = status;
    return absl::InvalidArgumentError(
        absl::StrCat("position: the game is over (", ResultToken(variant, over),
                     "), so there is no move to suggest"));
  }

  // Limits.
  int depth_limit = kMaxSearchDepth;
  std::int64_t budget = kMaxNodeBudget;
  int pool = 1, temperature = 0;
  beam_ = LevelSpecOf(kTopLevel).beam;
  if (options.level > 0) {
    const LevelSpec& level = LevelSpecOf(options.level);
    depth_limit = level.depth_limit;
    budget = level.node_budget;
    // Four players: a leaf of the opponents' ply plays a whole round
    // (BRS+: the other opponents' default moves, each a move generation),
    // several times the cost of a two-player leaf, so a level searches a
    // quarter of its nodes there (docs/bot.md, "Levels"): at the full
    // budget the top level's slowest moves took 2 s.
    if (variant.seat_count > 2) {
      budget = std::max<std::int64_t>(1, budget / kMultiPlayerBudgetDivisor);
    }
    beam_ = level.beam;
    pool = level.choice_pool;
    temperature = level.temperature;
  } else {
    if (options.node_budget > 0) budget = options.node_budget;
    if (options.depth_limit > 0) depth_limit = options.depth_limit;
    if (options.beam > 0) beam_ = options.beam;
    if (options.choice_pool > 1 && options.temperature > 0) {
      pool = std::min(options.choice_pool, kMaxCandidates);
      temperature = options.temperature;
    }
  }
  depth_limit = std::min(depth_limit, kMaxPly - 1);

  // Per call state.
  variant_ = &variant;
  if (!tables_valid_ || !SameSpec(tables_spec_, variant.spec)) {
    BuildEvalTables(variant, EvalWeights(), &tables_);
    tables_spec_ = variant.spec;
    tables_valid_ = true;
  }
  state_.Reset(variant, tables_, position);
  table_.NewSearch();
  root_ = position.to_move;
  race_ = Separated();
  seed_ = SplitMix64(options.seed);
  nodes_ = 1;
  expansions_ = 0;
  node_limit_ = budget;
  next_poll_expansions_ = kPollExpansions;
  next_poll_nodes_ = kPollNodes;
  time_budget_us_ = options.time_budget_us;
  start_ = std::chrono::steady_clock::now();
  checkpoint_ = &checkpoint;
  stop_ = false;
  stop_reason_ = StopReason::kCompleted;
  stop_status_ = absl::OkStatus();
  for (auto& k : killers_) k[0] = k[1] = BotMove();

  SearchResult result;
  for (int i = 0; i < variant.seat_count; ++i) {
    const Seat s = variant.seats[i];
    result.turns_needed[SeatIndex(s)] = TurnsNeeded(
        state_.distance(s) - tables_.min_distance_sum,
        variant.pieces_per_seat - state_.in_target(s), variant.size);
  }

  // Root moves, ordered by their static value.
  root_count_ = 0;
  {
    const Mover m = MakeMover(root_);
    Seat others[kMaxSeats];
    const int n = Opponents(others);
    std::int32_t best_other = -kInfinity;
    for (int i = 0; i < n; ++i) {
      best_other = std::max(best_other, SeatValue(others[i]));
    }
    if (n == 0) best_other = 0;
    ForEachMove(root_, [&](Square from, Square to, int hops) {
      RootMove& r = root_moves_[root_count_++];
      r.move.origin = from;
      r.move.destination = to;
      r.move.hops = static_cast<std::uint8_t>(hops);
      r.move.is_pass = false;
      const std::int32_t gain = Gain(m, from, to);
      r.key =
          OrderKey(SeatValue(root_) + gain - m.count_shift - best_other, gain,
                   SplitMix64(seed_ ^ (std::uint64_t{from} << 8) ^ to));
      r.value = -kInfinity;
      r.exact = false;
    });
  }
  KeepConcedingRootMoves();
  KeepRootMovesThatWallNoPieceIn();
  if (root_count_ == 0) {
    // docs/rules.md section 3: pass when no other move exists.
    root_moves_[0].move = BotMove::Pass();
    root_moves_[0].key = 0;
    root_count_ = 1;
  }
  // std::sort with a total order (stable_sort would allocate a buffer).
  std::sort(root_moves_, root_moves_ + root_count_,
            [](const RootMove& a, const RootMove& b) {
              if (a.key != b.key) return a.key > b.key;
              if (a.move.origin != b.move.origin) {
                return a.move.origin < b.move.origin;
              }
              return a.move.destination < b.move.destination;
            });
  for (int i = 0; i < root_count_; ++i) root_moves_[i].order = i;

  // Iterative deepening. multipv root moves get exact values (the weaker
  // levels choose among them).
  const int multipv = std::min(std::max(pool, 1), root_count_);
  PvLine best_line;
  int depth_done = 0;
  std::int32_t best_value = -kInfinity;
  RootMove* scratch = root_scratch_;
  for (int depth = 1; depth <= depth_limit; ++depth) {
    std::int32_t* values = root_values_;
    bool* exact = root_exact_;
    int completed = 0;
    // The multipv-th best exact value so far: the bar a move must clear.
    std::int32_t top[kMaxCandidates + 1];
    int top_count = 0;
    PvLine iteration_line;
    for (int i = 0; i < root_count_; ++i) {
      const RootMove& r = root_moves_[i];
      const std::int32_t bar =
          top_count < multipv ? -kInfinity : top[multipv - 1];
      ++nodes_;
      state_.Play(r.move);
      std::int32_t v;
      bool is_exact = true;
      if (state_.over()) {
        v = TerminalValue(state_.status(), 1);
        pv_[1].length = 0;
      } else if (RootLost()) {
        v = -(kWin - 1);
        pv_[1].length = 0;
      } else if (bar == -kInfinity) {
        v = Search(depth - 1, -kInfinity, kInfinity, 1);
      } else {
        const int reduction = LateMoveReduction(depth, i / 2);
        v = Search(depth - 1 - reduction, bar, bar + 1, 1);
        if (reduction > 0 && v > bar && !stop_) {
          v = Search(depth - 1, bar, bar + 1, 1);
        }
        if (v > bar && !stop_) {
          v = Search(depth - 1, bar, kInfinity, 1);
        } else {
          is_exact = false;
        }
      }
      state_.Undo();
      if (stop_) break;
      values[i] = v;
      exact[i] = is_exact;
      ++completed;
      if (is_exact) {
        // Keep the multipv best values, best first.
        if (top_count < multipv) {
          top[top_count++] = v;
        } else if (v > top[multipv - 1]) {
          top[multipv - 1] = v;
        }
        std::sort(top, top + top_count, std::greater<std::int32_t>());
      }
      // The line of the best move so far.
      bool is_best = true;
      for (int k = 0; k < i; ++k) {
        if (exact[k] && values[k] >= v) is_best = false;
      }
      if (is_exact && is_best) {
        iteration_line.moves[0] = r.move;
        iteration_line.seats[0] = root_;
        const int n = std::min(pv_[1].length, kMaxPly - 1);
        for (int k = 0; k < n; ++k) {
          iteration_line.moves[k + 1] = pv_[1].moves[k];
          iteration_line.seats[k + 1] = pv_[1].seats[k];
        }
        iteration_line.length = n + 1;
      }
    }
    if (completed == 0) break;
    // Moves of an unfinished iteration keep their last values and order
    // after the completed ones: its first move (the previous best) has been
    // searched again, so the best of the completed ones stands.
    for (int i = 0; i < completed; ++i) {
      root_moves_[i].value = values[i];
      root_moves_[i].exact = exact[i];
      root_moves_[i].depth = depth;
    }
    std::copy(root_moves_, root_moves_ + root_count_, scratch);
    std::sort(scratch, scratch + completed,
              [](const RootMove& a, const RootMove& b) {
                if (a.exact != b.exact) return a.exact;
                if (a.value != b.value) return a.value > b.value;
                return a.order < b.order;
              });
    for (int i = 0; i < root_count_; ++i) scratch[i].order = i;
    std::copy(scratch, scratch + root_count_, root_moves_);
    best_line = iteration_line;
    best_value = root_moves_[0].value;
    if (completed == root_count_) depth_done = depth;
    if (stop_) break;
    if (root_count_ == 1) break;
    if (best_value >= kWinThreshold || best_value <= -kWinThreshold) break;
  }
  if (stop_ && stop_reason_ == StopReason::kCheckpoint &&
      !options.best_so_far_on_stop) {
    return stop_status_;
  }
  if (depth_done == 0 && best_value == -kInfinity) {
    // Not even one move searched (a checkpoint at once): the static order.
    best_line.length = 1;
    best_line.moves[0] = root_moves_[0].move;
    best_line.seats[0] = root_;
  }

  // The choice: the best, or (weaker levels) a seeded pick among the
  // multipv best, weighted by how close each is to the best.
  int chosen = 0;
  if (multipv > 1 && temperature > 0) {
    std::int64_t weights[kMaxCandidates];
    std::int64_t total = 0;
    int pool_size = 0;
    for (int i = 0; i < multipv && i < root_count_; ++i) {
      if (!root_moves_[i].exact ||
          root_moves_[i].depth != root_moves_[0].depth) {
        break;
      }
      const std::int64_t gap =
          (static_cast<std::int64_t>(root_moves_[0].value) -
           root_moves_[i].value) /
          2;
      weights[i] = std::max<std::int64_t>(0, temperature - gap);
      total += weights[i];
      ++pool_size;
    }
    if (total > 0) {
      std::int64_t pick =
          static_cast<std::int64_t>(SplitMix64(seed_ ^ 0x43686F6963650000ULL) %
                                    static_cast<std::uint64_t>(total));
      for (int i = 0; i < pool_size; ++i) {
        if (pick < weights[i]) {
          chosen = i;
          break;
        }
        pick -= weights[i];
      }
    }
  }

  // Hints: candidates beyond the first, each searched with a full window to
  // the depth of the last iteration (a budget of their own, as large as the
  // main one).
  const int wanted = std::min(options.candidates, root_count_);
  int order[kMaxCandidates];
  int candidate_count = 0;
  for (int i = 0; i < root_count_ && candidate_count < wanted; ++i) {
    order[candidate_count++] = i;
  }
  if (chosen >= wanted) {
    order[wanted - 1] = chosen;
  }
  // A search stopped by its node budget still gets its hints (they have a
  // budget of their own); one stopped by time or the checkpoint does not.
  const bool main_stopped = stop_;
  const StopReason main_reason = stop_reason_;
  if (wanted > 1 && depth_done >= 1 &&
      (!main_stopped || main_reason == StopReason::kNodeBudget)) {
    stop_ = false;
    node_limit_ = nodes_ + budget;
    const int best_depth = root_moves_[0].depth;
    for (int c = 0; c < candidate_count; ++c) {
      RootMove& r = root_moves_[order[c]];
      if (order[c] == 0 || (r.exact && r.depth == best_depth)) continue;
      ++nodes_;
      state_.Play(r.move);
      std::int32_t v;
      if (state_.over()) {
        v = TerminalValue(state_.status(), 1);
      } else if (RootLost()) {
        v = -(kWin - 1);
      } else {
        v = Search(depth_done - 1, -kInfinity, kInfinity, 1);
      }
      state_.Undo();
      if (stop_) break;
      r.value = v;
      r.exact = true;
      r.depth = depth_done;
    }
    if (stop_ && stop_reason_ == StopReason::kCheckpoint &&
        !options.best_so_far_on_stop) {
      return stop_status_;
    }
    if (!stop_ || stop_reason_ == StopReason::kNodeBudget) {
      stop_ = main_stopped;
      stop_reason_ = main_reason;
    }
  }
  // The search showed the best move to be no worse than any other.
  for (int c = 0; c < candidate_count; ++c) {
    if (order[c] != 0) {
      root_moves_[order[c]].value =
          std::min(root_moves_[order[c]].value, root_moves_[0].value);
    }
  }

  // The answer.
  result.depth = depth_done;
  result.nodes = nodes_;
  result.expansions = expansions_;
  result.stop_reason = stop_ ? stop_reason_ : StopReason::kCompleted;
  if (stop_) result.stop_status = stop_status_;
  // Candidates by value, the order of the search among equals.
  std::sort(order, order + candidate_count, [&](int a, int b) {
    if (root_moves_[a].value != root_moves_[b].value) {
      return root_moves_[a].value > root_moves_[b].value;
    }
    return a < b;
  });
  const int chosen_root = chosen;
  for (int c = 0; c < candidate_count; ++c) {
    const RootMove& r = root_moves_[order[c]];
    Suggestion& s = result.candidates[c];
    s.move = r.move;
    if (!r.move.is_pass) {
      s.path_length = FewestHopPath(variant, position, r.move.origin,
                                    r.move.destination, s.path);
    }
    s.score = MakeScore(r.value == -kInfinity ? Evaluate() : r.value);
    if (order[c] == chosen_root) result.chosen = c;
  }
  result.candidate_count = candidate_count;
  // The principal variation: the chosen move's line when it is the best.
  if (chosen_root == 0) {
    result.pv_length = best_line.length;
    for (int i = 0; i < best_line.length; ++i) {
      result.pv[i] = best_line.moves[i];
      result.pv_seat[i] = best_line.seats[i];
    }
  } else {
    result.pv_length = 1;
    result.pv[0] = root_moves_[chosen_root].move;
    result.pv_seat[0] = root_;
  }
  return result;
}

// ---------------------------------------------------------------------------

SearchWorkspace::SearchWorkspace(int table_bits)
    : impl_(std::make_unique<Impl>(
          std::clamp(table_bits, kMinTableBits, kMaxTableBits))) {}
SearchWorkspace::~SearchWorkspace() = default;
int SearchWorkspace::table_bits() const { return impl_->table_bits(); }
std::size_t SearchWorkspace::MemoryBytes() const {
  return impl_->MemoryBytes();
}

absl::StatusOr<SearchResult> SuggestMove(
    const Variant& variant, const Position& position,
    const SearchOptions& options, SearchWorkspace* workspace,
    absl::FunctionRef<absl::Status()> checkpoint) {
  return workspace->impl()->Run(variant, position, options, checkpoint);
}

absl::StatusOr<SearchResult> SuggestMove(const Variant& variant,
                                         const Position& position,
                                         const SearchOptions& options,
                                         SearchWorkspace* workspace) {
  return SuggestMove(variant, position, options, workspace,
                     [] { return absl::OkStatus(); });
}

const char* ScoreKindName(ScoreKind kind) {
  switch (kind) {
    case ScoreKind::kEstimate:
      return "estimate";
    case ScoreKind::kWin:
      return "win";
    case ScoreKind::kLoss:
      return "loss";
    case ScoreKind::kDraw:
      return "draw";
  }
  return "estimate";
}

const char* StopReasonName(StopReason reason) {
  switch (reason) {
    case StopReason::kCompleted:
      return "completed";
    case StopReason::kNodeBudget:
      return "node-budget";
    case StopReason::kTimeBudget:
      return "time-budget";
    case StopReason::kCheckpoint:
      return "checkpoint";
  }
  return "completed";
}

}  // namespace halma::bot
