// A LegalMovesResponse written straight from the engine's move list.
//
// A dense 16x16 answer holds about 180 moves of three strings each. Built
// as a protobuf message, every one of those strings is an arena-allocated
// std::string with a destructor to run (and a heap block when longer than
// 15 characters), and is then measured, checked for UTF-8 and copied once
// more by the serializer: several times the cost of the engine's work. The
// square names are ASCII from a table, so the answer is written here, once,
// into a buffer of its exact size.
//
// The bytes are exactly those protobuf serializes for the same message
// (fields in number order, proto3 defaults left out), which
// tests/service/core/legal_moves_encoding_test checks on thousands of
// positions.
#ifndef HALMA_SERVICE_CORE_LEGAL_MOVES_ENCODING_H_
#define HALMA_SERVICE_CORE_LEGAL_MOVES_ENCODING_H_

#include <cstddef>
#include <cstdint>

#include "absl/functional/function_ref.h"
#include "absl/strings/string_view.h"
#include "halma/movegen.h"
#include "halma/v1/halma.pb.h"

namespace halma::service {

// The legal moves as the answer lists them: indices into `list`, ordered by
// origin then destination, file first, then rank (MoveOrder). `order` must
// have room for list.size entries.
void AnswerOrder(const MoveList& list, std::uint16_t* order);

// What a LegalMovesResponse holds. `list`, `paths` and `order` are unused
// when `move_count` is 0.
struct LegalMovesAnswer {
  const MoveList* list = nullptr;
  const MovePaths* paths = nullptr;
  const std::uint16_t* order = nullptr;
  int move_count = 0;
  const v1::GameStatus* status = nullptr;
  absl::string_view position;
};

// Serializes `answer` as a halma.v1.LegalMovesResponse: computes its size,
// asks `allocate` for a buffer of exactly that many bytes and fills it.
void EncodeLegalMovesResponse(const LegalMovesAnswer& answer,
                              absl::FunctionRef<char*(std::size_t)> allocate);

}  // namespace halma::service

#endif  // HALMA_SERVICE_CORE_LEGAL_MOVES_ENCODING_H_
