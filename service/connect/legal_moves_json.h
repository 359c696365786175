// LegalMoves' answer in protobuf's JSON mapping, written directly.
//
// protobuf 3.21's MessageToJsonString serializes the message again and
// renders the bytes through a type resolver, field by field: for a dense
// position (150+ moves, three strings each) that was most of the HTTP
// endpoint's cost (docs/benchmarks.md). The moves, squares and positions
// are plain ASCII that JSON needs no escaping for, so they are written as
// they are; the small GameStatus goes through protobuf. The output is
// byte for byte MessageToJsonString's
// (tests/service/connect/legal_moves_json_test).
#ifndef HALMA_SERVICE_CONNECT_LEGAL_MOVES_JSON_H_
#define HALMA_SERVICE_CONNECT_LEGAL_MOVES_JSON_H_

#include <string>

#include "absl/strings/string_view.h"
#include "halma/v1/halma.pb.h"

namespace halma::service {

// Appends `response` as JSON to `out`. Returns false (leaving `out` as it
// was) when a string holds a character this writer does not write, which
// the service never produces; the caller then uses protobuf's converter.
bool WriteLegalMovesJson(const v1::LegalMovesResponse& response,
                         std::string* out);

// The same from the answer's serialized bytes (HalmaRulesService::
// EncodeLegalMoves), without making the message: no Move objects, no
// strings but the output. False (leaving `out` as it was) for bytes it
// does not read (anything EncodeLegalMoves does not write).
bool WriteLegalMovesJsonFromWire(absl::string_view bytes, std::string* out);

}  // namespace halma::service

#endif  // HALMA_SERVICE_CONNECT_LEGAL_MOVES_JSON_H_
