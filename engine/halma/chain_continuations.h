// The squares a jump chain in progress can hop to next: what a player
// building a chain hop by hop may add to it.
#ifndef HALMA_CHAIN_CONTINUATIONS_H_
#define HALMA_CHAIN_CONTINUATIONS_H_

#include <vector>

#include "halma/position.h"
#include "halma/square.h"
#include "halma/variant.h"

namespace halma {

// The squares a piece could hop to next after the jump chain `chain`
// (origin first, then each landing; at least one hop), which must be a
// legal move of the side to move of `position`: a hop from the chain's last
// square over an occupied square to an empty one not on the chain, kept
// inside the target camp under target lock. The chain's origin counts as
// empty (the piece left it) and as visited. Squares in the order LegalMoves
// lists destinations (file first, then rank). Appending any of them to the
// chain gives a legal move. Since target lock applies after every hop,
// every prefix of a legal chain is a legal chain, so a player can build a
// chain hop by hop from these squares. With `count` 1 (the origin alone)
// they are the piece's first hops; after a step (two neighbouring squares)
// there are none.
std::vector<Square> ChainContinuations(const Variant& variant,
                                       const Position& position,
                                       const Square* chain, int count);

}  // namespace halma

#endif  // HALMA_CHAIN_CONTINUATIONS_H_
