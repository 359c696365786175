// Game records played by the engine for the service tests: seeded random
// legal moves from a preset's start.
#ifndef HALMA_TESTS_SERVICE_PLAYED_RECORDS_H_
#define HALMA_TESTS_SERVICE_PLAYED_RECORDS_H_

#include <cstdint>
#include <memory>
#include <random>
#include <string>

#include "gtest/gtest.h"
#include "halma/move_check.h"
#include "halma/movegen.h"
#include "halma/notation.h"
#include "halma/status.h"
#include "halma/v1/halma.pb.h"
#include "halma/variant.h"

namespace halma::service {

// A record of up to `plies` moves of `preset` from its start, each chosen
// at random (seeded) among the legal moves and written as its fewest-hop
// path; it stops early when the game ends.
inline v1::AdjudicateRequest PlayedRecord(const std::string& preset, int plies,
                                          std::uint32_t seed) {
  v1::AdjudicateRequest request;
  request.mutable_variant()->set_preset(preset);
  const absl::StatusOr<Variant> variant = PresetVariant(preset);
  EXPECT_TRUE(variant.ok());
  if (!variant.ok()) return request;
  Position position = StartPosition(*variant);
  std::mt19937 random(seed);
  auto list = std::make_unique<MoveList>();
  for (int ply = 0; ply < plies; ++ply) {
    const GameStatus status = EvaluateStatus(*variant, position);
    if (status.over) break;
    MoveText move;
    if (status.must_pass) {
      move.is_pass = true;
    } else {
      GenerateLegalMoves(*variant, position, position.to_move, list.get());
      const LegalMove& chosen = list->moves[random() % list->size];
      // The fewest-hop path: a two-square move two apart would be read as
      // one hop.
      Square path[kMaxPathSquares];
      const int length = FewestHopPath(*variant, position, chosen.origin,
                                       chosen.destination, path);
      move.squares.assign(path, path + length);
    }
    request.add_moves(FormatMove(move));
    position = ApplyMove(*variant, position, move);
  }
  return request;
}

}  // namespace halma::service

#endif  // HALMA_TESTS_SERVICE_PLAYED_RECORDS_H_
