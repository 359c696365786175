// A plain perft on top of the reference implementation (reference.h), with
// nothing of the engine: the number of distinct move sequences of `depth`
// plies, each ply's moves being the reference's legal moves of the position
// it is played in (distinct origin-destination pairs, or the single pass
// when the seat to move has none; a finished game has no moves). Shared by
// the perft test and the table generator (bench/perft_tables.cc), which
// checks the published tables against it.
#ifndef HALMA_TESTS_DIFFERENTIAL_REFERENCE_PERFT_H_
#define HALMA_TESTS_DIFFERENTIAL_REFERENCE_PERFT_H_

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "reference.h"

namespace halma_ref {

// What the positions a perft passed through looked like, so that a test
// can show which rules its counts exercised.
struct PerftStats {
  std::uint64_t positions = 0;  // Positions whose status was evaluated.
  std::uint64_t must_pass = 0;  // Of these, the side to move had to pass.
  std::uint64_t round_completion_turns = 0;
  std::uint64_t eliminated = 0;               // Some seat was eliminated.
  std::map<std::string, std::uint64_t> over;  // Finished games by rule.
  std::uint64_t draws = 0;
};

inline std::uint64_t ReferencePerft(const Rules& rules, const Board& board,
                                    int depth, PerftStats* stats = nullptr) {
  if (depth == 0) return 1;
  const Status status = Evaluate(rules, board);
  if (stats != nullptr) {
    ++stats->positions;
    if (!status.eliminated.empty()) ++stats->eliminated;
    if (status.over) {
      ++stats->over[status.rule];
      if (status.winners.size() > 1) ++stats->draws;
    } else {
      if (status.must_pass) ++stats->must_pass;
      if (status.round_completion_turn) ++stats->round_completion_turns;
    }
  }
  if (status.over) return 0;
  if (status.must_pass) {
    return ReferencePerft(rules, ApplyPass(rules, board), depth - 1, stats);
  }
  const std::vector<Move> moves = LegalMoves(rules, board, board.to_move);
  if (depth == 1 && stats == nullptr) return moves.size();
  std::uint64_t total = 0;
  for (const Move& m : moves) {
    total += ReferencePerft(rules, ApplyMove(rules, board, m.from, m.to),
                            depth - 1, stats);
  }
  return total;
}

// The same split by first move, in the reference's move order (origin,
// then destination, each file first, then rank: the order of LegalMoves).
// A pass is the single entry with from == to == {-1, -1}.
struct ReferenceFirstMove {
  Sq from{-1, -1};
  Sq to{-1, -1};
  std::uint64_t nodes = 0;
};

inline std::vector<ReferenceFirstMove> ReferencePerftSplit(const Rules& rules,
                                                           const Board& board,
                                                           int depth) {
  std::vector<ReferenceFirstMove> out;
  if (depth == 0) return out;
  const Status status = Evaluate(rules, board);
  if (status.over) return out;
  if (status.must_pass) {
    ReferenceFirstMove entry;
    entry.nodes = ReferencePerft(rules, ApplyPass(rules, board), depth - 1);
    out.push_back(entry);
    return out;
  }
  for (const Move& m : LegalMoves(rules, board, board.to_move)) {
    ReferenceFirstMove entry;
    entry.from = m.from;
    entry.to = m.to;
    entry.nodes =
        ReferencePerft(rules, ApplyMove(rules, board, m.from, m.to), depth - 1);
    out.push_back(entry);
  }
  return out;
}

}  // namespace halma_ref

#endif  // HALMA_TESTS_DIFFERENTIAL_REFERENCE_PERFT_H_
