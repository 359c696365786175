// ValidateMove's request handling: arbitrary bytes as the serialized
// request, through ParseRequest and RulesCore::ValidateMove.
//
// Properties: ParseRequest's two overloads (flat bytes, sliced ByteBuffer)
// agree; every error is INVALID_ARGUMENT, bounded, printable, and starts
// with a field of the request ("request", "variant", "position", "move");
// an OK answer serializes and parses back. A legal move's answer has a
// normalised path from the move's origin to its destination, a canonical
// position after it that parses, and LegalMoves lists it with the same
// hops; an illegal one has a reason and a bounded message and no position.
#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "fuzz/service_fuzz.h"
#include "halma/notation.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace halma;
  const absl::string_view bytes(reinterpret_cast<const char*>(data), size);
  v1::ValidateMoveRequest request;
  if (!fuzz::ParseBoth(bytes, {"request", "variant", "position", "move"},
                       &request)
           .ok()) {
    return 0;
  }
  const service::RulesCore& rules = fuzz::Service();
  v1::ValidateMoveResponse response;
  const absl::Status status = rules.ValidateMove(request, &response);
  const std::string context = request.ShortDebugString().substr(0, 2000);
  if (!status.ok()) {
    fuzz::CheckServiceError(status, {"variant", "position", "move"}, context);
    return 0;
  }
  fuzz::CheckSerializes(response);
  Variant variant;
  FUZZ_CHECK(fuzz::RequestVariant(request.variant(), &variant), context);
  const absl::StatusOr<MoveText> move = ParseMove(request.move(), variant.size);
  FUZZ_CHECK(move.ok(), context);
  FUZZ_CHECK(response.mover() != v1::SEAT_UNSPECIFIED, context);
  FUZZ_CHECK(response.status().state() != v1::GameStatus::STATE_UNSPECIFIED,
             context);
  if (!response.legal()) {
    FUZZ_CHECK(response.reason() != v1::ILLEGAL_REASON_UNSPECIFIED &&
                   !response.message().empty() &&
                   response.message().size() <= fuzz::kMaxErrorMessage &&
                   response.position_after().empty() && response.path().empty(),
               context + " -> " + response.ShortDebugString());
    return 0;
  }
  const std::string answer = context + " -> " + response.ShortDebugString();
  FUZZ_CHECK(response.reason() == v1::ILLEGAL_REASON_UNSPECIFIED &&
                 response.message().empty(),
             answer);
  fuzz::CheckAnswerPosition(variant, response.position_after(), answer);
  const absl::StatusOr<MoveText> path =
      ParseMove(response.path(), variant.size);
  FUZZ_CHECK(path.ok(), answer);
  FUZZ_CHECK(path->is_pass == move->is_pass, answer);
  if (move->is_pass) {
    FUZZ_CHECK(response.hops() == 0, answer);
    return 0;
  }
  FUZZ_CHECK(path->squares.front() == move->squares.front() &&
                 path->squares.back() == move->squares.back(),
             answer);

  // LegalMoves lists it, with the same hops.
  v1::LegalMovesRequest list_request;
  *list_request.mutable_variant() = request.variant();
  list_request.set_position(request.position());
  list_request.set_origin(FormatSquare(move->squares.front()));
  v1::LegalMovesResponse list;
  const absl::Status listed = rules.LegalMoves(list_request, &list);
  FUZZ_CHECK(listed.ok(), answer + ": " + listed.ToString());
  const std::string destination = FormatSquare(move->squares.back());
  bool found = false;
  for (const v1::Move& m : list.moves()) {
    if (m.destination() != destination) continue;
    found = true;
    FUZZ_CHECK(m.hops() == response.hops(),
               answer + " vs " + m.ShortDebugString());
  }
  FUZZ_CHECK(found, answer + ": not in " + list.ShortDebugString());
  return 0;
}
