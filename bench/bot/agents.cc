#include "agents.h"

#include <algorithm>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "halma/bot/eval_tables.h"
#include "halma/bot/levels.h"
#include "halma/bot/search.h"
#include "halma/bot/zobrist.h"
#include "halma/game_status.h"
#include "halma/movegen.h"

namespace halma::arena {
namespace {

using bot::BotMove;
using bot::SplitMix64;

BotMove FromLegal(const LegalMove& m) {
  BotMove b;
  b.origin = m.origin;
  b.destination = m.destination;
  b.hops = m.hops;
  return b;
}

// The distance tables of a variant, rebuilt when the variant changes.
class Distances {
 public:
  const bot::EvalTables& For(const Variant& variant) {
    if (!valid_ || variant.spec.name != spec_.name ||
        variant.spec.board_size != spec_.board_size ||
        variant.spec.camp_rows != spec_.camp_rows ||
        variant.spec.seat_count != spec_.seat_count) {
      bot::BuildEvalTables(variant, bot::EvalWeights(), &tables_);
      spec_ = variant.spec;
      valid_ = true;
    }
    return tables_;
  }

 private:
  bool valid_ = false;
  VariantSpec spec_;
  bot::EvalTables tables_;
};

// The bot itself.
class BotAgent : public Agent {
 public:
  explicit BotAgent(bot::SearchOptions options) : options_(options) {}
  absl::StatusOr<AgentMove> ChooseMove(const Variant& variant,
                                       const Position& position,
                                       std::uint64_t seed) override {
    bot::SearchOptions options = options_;
    options.seed = seed;
    absl::StatusOr<bot::SearchResult> result =
        bot::SuggestMove(variant, position, options, &workspace_);
    if (!result.ok()) return result.status();
    AgentMove move;
    move.move = result->move().move;
    move.nodes = result->nodes;
    move.depth = result->depth;
    return move;
  }

 private:
  bot::SearchOptions options_;
  bot::SearchWorkspace workspace_;
};

class RandomAgent : public Agent {
 public:
  absl::StatusOr<AgentMove> ChooseMove(const Variant& variant,
                                       const Position& position,
                                       std::uint64_t seed) override {
    GenerateLegalMoves(variant, position, position.to_move, list_.get());
    SortMoves(list_.get());
    AgentMove move;
    if (list_->size == 0) {
      move.move = BotMove::Pass();
    } else {
      move.move = FromLegal(list_->moves[SplitMix64(seed) % list_->size]);
    }
    return move;
  }

 private:
  std::unique_ptr<MoveList> list_ = std::make_unique<MoveList>();
};

// The legal moves in a fixed order, with their gain in distance for the
// mover and a seeded tie-break.
struct RankedMove {
  BotMove move;
  int gain;
  std::uint64_t tie;
};

void RankMoves(const Variant& variant, const Position& position,
               const bot::EvalTables& tables, std::uint64_t seed,
               MoveList* list, std::vector<RankedMove>* out) {
  GenerateLegalMoves(variant, position, position.to_move, list);
  SortMoves(list);
  out->clear();
  const int seat = SeatIndex(position.to_move);
  for (const LegalMove& m : *list) {
    out->push_back(RankedMove{
        FromLegal(m),
        tables.distance[seat][m.origin] - tables.distance[seat][m.destination],
        SplitMix64(seed ^ (std::uint64_t{m.origin} << 8) ^ m.destination)});
  }
}

// The best of `moves` by gain, ties by the seeded key; false when empty.
bool Greediest(const std::vector<RankedMove>& moves, BotMove* best) {
  const RankedMove* pick = nullptr;
  for (const RankedMove& m : moves) {
    if (pick == nullptr || m.gain > pick->gain ||
        (m.gain == pick->gain && m.tie > pick->tie)) {
      pick = &m;
    }
  }
  if (pick == nullptr) return false;
  *best = pick->move;
  return true;
}

class GreedyAgent : public Agent {
 public:
  absl::StatusOr<AgentMove> ChooseMove(const Variant& variant,
                                       const Position& position,
                                       std::uint64_t seed) override {
    RankMoves(variant, position, distances_.For(variant), seed, list_.get(),
              &moves_);
    AgentMove move;
    if (!Greediest(moves_, &move.move)) move.move = BotMove::Pass();
    return move;
  }

 private:
  Distances distances_;
  std::unique_ptr<MoveList> list_ = std::make_unique<MoveList>();
  std::vector<RankedMove> moves_;
};

// Keeps pieces at home as long as the rules allow: under a home-exit limit
// it leaves just in time (one piece per move, a move to spare), otherwise
// it moves a home piece out only when nothing else can move.
class SpoilerAgent : public Agent {
 public:
  absl::StatusOr<AgentMove> ChooseMove(const Variant& variant,
                                       const Position& position,
                                       std::uint64_t seed) override {
    const bot::EvalTables& tables = distances_.For(variant);
    RankMoves(variant, position, tables, seed, list_.get(), &moves_);
    AgentMove move;
    if (moves_.empty()) {
      move.move = BotMove::Pass();
      return move;
    }
    const Seat me = position.to_move;
    const Bitboard& home = variant.HomeCamp(me);
    const int at_home = (position.pieces[SeatIndex(me)] & home).Count();
    const int limit = variant.spec.home_exit_limit;
    const std::int64_t left =
        limit > 0 ? limit + 1 - position.move_count[SeatIndex(me)] : 0;
    const bool evacuate = limit > 0 && at_home > 0 && left <= at_home + 1;
    std::vector<RankedMove> preferred;
    for (const RankedMove& m : moves_) {
      const bool leaves =
          home.Test(m.move.origin) && !home.Test(m.move.destination);
      if (evacuate ? leaves : !leaves) preferred.push_back(m);
    }
    if (!Greediest(preferred, &move.move)) Greediest(moves_, &move.move);
    return move;
  }

 private:
  Distances distances_;
  std::unique_ptr<MoveList> list_ = std::make_unique<MoveList>();
  std::vector<RankedMove> moves_;
};

// Plain alpha-beta with the sum of distances: negamax with two players,
// paranoid (everyone else against the mover) with four.
class DistanceAbAgent : public Agent {
 public:
  DistanceAbAgent(int depth, std::int64_t node_budget)
      : depth_(depth), node_budget_(node_budget) {
    for (auto& list : lists_) list = std::make_unique<MoveList>();
    for (auto& sorted : sorted_) {
      sorted = std::make_unique<LegalMove[]>(kMaxLegalMoves + kDirectionCount);
    }
  }

  absl::StatusOr<AgentMove> ChooseMove(const Variant& variant,
                                       const Position& position,
                                       std::uint64_t seed) override {
    const bot::EvalTables& tables = distances_.For(variant);
    state_.Reset(variant, tables, position);
    me_ = position.to_move;
    seed_ = seed;
    nodes_ = 1;
    AgentMove answer;
    MoveList& root = *lists_[0];
    Order(variant, 0);
    if (root.size == 0) {
      answer.move = BotMove::Pass();
      answer.nodes = nodes_;
      return answer;
    }
    BotMove best = FromLegal(root.moves[0]);
    const int max_depth = node_budget_ > 0 ? kMaxDepth : depth_;
    for (int depth = 1; depth <= max_depth; ++depth) {
      stopped_ = false;
      int best_value = -kInfinity;
      BotMove iteration_best = best;
      // The previous best first.
      for (int i = 0; i < root.size; ++i) {
        if (FromLegal(root.moves[i]) == best) {
          std::rotate(root.moves, root.moves + i, root.moves + i + 1);
          break;
        }
      }
      for (int i = 0; i < root.size; ++i) {
        const BotMove move = FromLegal(root.moves[i]);
        ++nodes_;
        state_.Play(move);
        const int v = Value(variant, depth - 1, best_value, kInfinity, 1);
        state_.Undo();
        if (stopped_) break;
        if (v > best_value) {
          best_value = v;
          iteration_best = move;
        }
      }
      if (stopped_) break;
      best = iteration_best;
      answer.depth = depth;
      if (best_value >= kWin - 100) break;
    }
    answer.move = best;
    answer.nodes = nodes_;
    return answer;
  }

 private:
  static constexpr int kWin = 1'000'000;
  static constexpr int kInfinity = 2'000'000;
  static constexpr int kMaxDepth = 12;

  // Sum of distances: the best opponent's minus the mover's (me_).
  int Evaluate(const Variant& variant) const {
    int opponent = kInfinity;
    for (int i = 0; i < variant.seat_count; ++i) {
      const Seat s = variant.seats[i];
      if (s != me_ && state_.playing().Has(s)) {
        opponent = std::min(opponent, state_.distance(s));
      }
    }
    if (opponent == kInfinity) opponent = state_.distance(me_);
    return opponent - state_.distance(me_);
  }

  int Terminal(const GameStatus& status, int ply) const {
    if (status.winners.Has(me_)) {
      return status.winners.Count() == 1 ? kWin - ply : 0;
    }
    return -(kWin - ply);
  }

  // The moves of the side to move at `ply`, best gain first (then in
  // the order LegalMoves lists them).
  void Order(const Variant& variant, int ply) {
    MoveList& list = *lists_[ply];
    const Position& p = state_.position();
    GenerateLegalMoves(variant, p, p.to_move, &list);
    const auto& distance = state_.tables().distance[SeatIndex(p.to_move)];
    // Sorted by one integer key each: gain, then LegalMoves' order.
    std::vector<std::int64_t>& keys = keys_[ply];
    keys.resize(list.size);
    for (int i = 0; i < list.size; ++i) {
      const LegalMove& m = list.moves[i];
      const int gain = distance[m.origin] - distance[m.destination];
      const int order = (FileOf(m.origin) << 12) | (RankOf(m.origin) << 8) |
                        (FileOf(m.destination) << 4) | RankOf(m.destination);
      keys[i] = (static_cast<std::int64_t>(1024 - gain) << 32) |
                (static_cast<std::int64_t>(order) << 16) | i;
    }
    std::sort(keys.begin(), keys.end());
    LegalMove* sorted = sorted_[ply].get();
    for (int i = 0; i < list.size; ++i)
      sorted[i] = list.moves[keys[i] & 0xFFFF];
    std::copy(sorted, sorted + list.size, list.moves);
  }

  // Minimax value for me_ (paranoid: every other seat minimises it).
  int Value(const Variant& variant, int depth, int alpha, int beta, int ply) {
    if (state_.over()) return Terminal(state_.status(), ply);
    if (!state_.playing().Has(me_)) return -(kWin - ply);
    if (depth == 0 || ply >= kMaxDepth) return Evaluate(variant);
    if (node_budget_ > 0 && nodes_ >= node_budget_) {
      stopped_ = true;
      return 0;
    }
    const Seat mover = state_.to_move();
    const bool maximise = mover == me_;
    Order(variant, ply);
    MoveList& list = *lists_[ply];
    if (list.size == 0) {
      const GameStatus& status = state_.status();
      if (status.over) return Terminal(status, ply);
      ++nodes_;
      state_.Play(BotMove::Pass());
      const int v = Value(variant, depth - 1, alpha, beta, ply + 1);
      state_.Undo();
      return v;
    }
    int best = maximise ? -kInfinity : kInfinity;
    // The last ply: the sum of distances after a move is the mover's
    // distance less its gain, so the leaves are scored without playing
    // them (unless a rule may end the game: then they are played).
    const bool leaves = depth == 1 && !state_.RuleMayFireFor(mover);
    const auto& distance = state_.tables().distance[SeatIndex(mover)];
    int others = kInfinity;  // The nearest opponent of me_ but the mover.
    for (int i = 0; i < variant.seat_count; ++i) {
      const Seat s = variant.seats[i];
      if (s != me_ && s != mover && state_.playing().Has(s)) {
        others = std::min(others, state_.distance(s));
      }
    }
    for (int i = 0; i < list.size; ++i) {
      ++nodes_;
      int v;
      if (leaves) {
        const LegalMove& m = list.moves[i];
        const int after = state_.distance(mover) - distance[m.origin] +
                          distance[m.destination];
        if (maximise) {
          v = (others == kInfinity ? after : others) - after;
        } else {
          v = std::min(others, after) - state_.distance(me_);
        }
      } else {
        state_.Play(FromLegal(list.moves[i]));
        v = Value(variant, depth - 1, alpha, beta, ply + 1);
        state_.Undo();
      }
      if (stopped_) return 0;
      if (maximise) {
        best = std::max(best, v);
        alpha = std::max(alpha, v);
      } else {
        best = std::min(best, v);
        beta = std::min(beta, v);
      }
      if (alpha >= beta) break;
    }
    return best;
  }

  int depth_;
  std::int64_t node_budget_;
  Distances distances_;
  bot::SearchState state_;
  std::unique_ptr<MoveList> lists_[kMaxDepth + 1];
  std::vector<std::int64_t> keys_[kMaxDepth + 1];
  std::unique_ptr<LegalMove[]> sorted_[kMaxDepth + 1];
  Seat me_ = Seat::kW;
  std::uint64_t seed_ = 0;
  std::int64_t nodes_ = 0;
  bool stopped_ = false;
};

absl::StatusOr<std::unique_ptr<Agent>> Parse(absl::string_view spec,
                                             bool build) {
  const std::vector<absl::string_view> parts = absl::StrSplit(spec, ':');
  const auto bad = [&](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat(
        "agent \"", spec, "\": ", why,
        "; expected level:N, nodes:N[:depth:beam[:pool:temperature]], "
        "random, greedy, "
        "distance-ab:D, distance-ab-nodes:N or spoiler"));
  };
  const auto number = [&](int i, std::int64_t lo, std::int64_t hi,
                          std::int64_t* out) {
    return i < static_cast<int>(parts.size()) &&
           absl::SimpleAtoi(parts[i], out) && *out >= lo && *out <= hi;
  };
  std::unique_ptr<Agent> agent;
  const absl::string_view kind = parts[0];
  if (kind == "level") {
    std::int64_t level;
    if (parts.size() != 2 ||
        !number(1, bot::kMinLevel, bot::kTopLevel, &level)) {
      return bad(absl::StrCat("the level must be ", bot::kMinLevel, " to ",
                              bot::kTopLevel));
    }
    bot::SearchOptions options;
    options.level = static_cast<int>(level);
    if (build) agent = std::make_unique<BotAgent>(options);
  } else if (kind == "nodes") {
    std::int64_t nodes, depth = 0, beam = 0, pool = 0, temperature = 0;
    if ((parts.size() != 2 && parts.size() != 4 && parts.size() != 6) ||
        !number(1, 1, bot::kMaxNodeBudget, &nodes) ||
        (parts.size() >= 4 && (!number(2, 0, bot::kMaxSearchDepth, &depth) ||
                               !number(3, 0, 64, &beam))) ||
        (parts.size() == 6 && (!number(4, 1, bot::kMaxCandidates, &pool) ||
                               !number(5, 0, 100000, &temperature)))) {
      return bad(
          "expected nodes:N, nodes:N:depth:beam or "
          "nodes:N:depth:beam:pool:temperature");
    }
    bot::SearchOptions options;
    options.node_budget = nodes;
    options.depth_limit = static_cast<int>(depth);
    options.beam = static_cast<int>(beam);
    options.choice_pool = static_cast<int>(pool);
    options.temperature = static_cast<int>(temperature);
    if (build) agent = std::make_unique<BotAgent>(options);
  } else if (kind == "random" && parts.size() == 1) {
    if (build) agent = std::make_unique<RandomAgent>();
  } else if (kind == "greedy" && parts.size() == 1) {
    if (build) agent = std::make_unique<GreedyAgent>();
  } else if (kind == "spoiler" && parts.size() == 1) {
    if (build) agent = std::make_unique<SpoilerAgent>();
  } else if (kind == "distance-ab") {
    std::int64_t depth;
    if (parts.size() != 2 || !number(1, 1, 8, &depth)) {
      return bad("the depth must be 1 to 8");
    }
    if (build) {
      agent = std::make_unique<DistanceAbAgent>(static_cast<int>(depth), 0);
    }
  } else if (kind == "distance-ab-nodes") {
    std::int64_t nodes;
    if (parts.size() != 2 || !number(1, 1, bot::kMaxNodeBudget, &nodes)) {
      return bad("the node budget must be a positive number");
    }
    if (build) agent = std::make_unique<DistanceAbAgent>(0, nodes);
  } else {
    return bad("unknown agent");
  }
  return agent;
}

}  // namespace

absl::StatusOr<std::unique_ptr<Agent>> MakeAgent(absl::string_view spec) {
  return Parse(spec, /*build=*/true);
}

absl::Status CheckAgentSpec(absl::string_view spec) {
  return Parse(spec, /*build=*/false).status();
}

}  // namespace halma::arena
