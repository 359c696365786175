// The seeded games of the benchmarks' records: halma_make_records writes
// them to bench/data/records for the engine's replay benchmarks, and
// halma_service_payloads plays the same games for the service benchmark's
// Adjudicate scenarios, so both replay the same records.
//
// Each game is seeded; each ply takes, 10-40% of the time (per game), a
// random legal move, and otherwise a move that most advances a piece
// toward its target corner (ties at random), written as its full
// fewest-hop path. std::mt19937 and rng() % k only, so the games are the
// same with every standard library.
#ifndef HALMA_BENCH_SEEDED_GAMES_H_
#define HALMA_BENCH_SEEDED_GAMES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "halma/movegen.h"
#include "halma/position.h"
#include "halma/variant.h"

namespace halma::bench {

// Heap scratch for move generation (MovePaths is about 350 KB).
struct MoveScratch {
  MoveList list;
  MovePaths paths;
};

// A legal move with its fewest-hop path.
struct PathMove {
  LegalMove move;
  std::vector<Square> path;
  std::string Text() const;
};

// The legal moves of the side to move in answer order (origin, then
// destination), each with a fewest-hop path.
std::vector<PathMove> LegalMovesInAnswerOrder(const Variant& variant,
                                              const Position& position,
                                              MoveScratch* scratch);

// `plies` plies of the game seeded with `seed` from the start: its moves
// (full fewest-hop paths, or "pass"), or an empty list when the game ends
// before its last ply.
std::vector<std::string> PlaySeededGame(const Variant& variant,
                                        std::uint32_t seed, int plies,
                                        MoveScratch* scratch);

// The first `count` games of the set seeded with `set_seed` that last
// `plies` plies (game g is seeded with set_seed * 1000003 + g; at most
// 5,000 are played), and in `*played` how many were played to find them.
// Fewer than `count` when the games end sooner.
std::vector<std::vector<std::string>> SeededRecords(const Variant& variant,
                                                    std::uint32_t set_seed,
                                                    int plies, int count,
                                                    MoveScratch* scratch,
                                                    int* played);

}  // namespace halma::bench

#endif  // HALMA_BENCH_SEEDED_GAMES_H_
