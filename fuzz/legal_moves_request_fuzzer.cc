// LegalMoves' request handling: arbitrary bytes as the serialized request,
// through ParseRequest and RulesCore::LegalMoves.
//
// Properties: ParseRequest's two overloads agree; every error is
// INVALID_ARGUMENT, bounded, printable, and starts with a field of the
// request ("request", "variant", "position", "origin"); an OK answer
// serializes and parses back, its position is canonical, its count is the
// number of moves, which are none when the game is over or the side must
// pass, are in answer order (origin, then destination, file before rank),
// come from the requested origin, and have paths from their origin to their
// destination with the hops they say. A sample of them validates through
// RulesCore::ValidateMove, as path and as two squares, with the same hops (but
// two squares two apart on a line are a single hop: when only a longer
// chain reaches the destination, that is nothing-to-jump).
#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "fuzz/service_fuzz.h"
#include "halma/movegen.h"
#include "halma/notation.h"

namespace {

using namespace halma;

// Squares two apart on a line: written as two squares, a single hop.
bool IsHopShaped(Square a, Square b) {
  const int dx = FileOf(b) - FileOf(a), dy = RankOf(b) - RankOf(a);
  return (dx == 0 || dx == 2 || dx == -2) && (dy == 0 || dy == 2 || dy == -2) &&
         (dx | dy) != 0;
}

void CheckValidates(const v1::LegalMovesRequest& request, const v1::Move& m,
                    absl::string_view move_text, const Variant& variant,
                    const std::string& context) {
  v1::ValidateMoveRequest check;
  *check.mutable_variant() = request.variant();
  check.set_position(request.position());
  check.set_move(std::string(move_text));
  v1::ValidateMoveResponse answer;
  const absl::Status status = fuzz::Service().ValidateMove(check, &answer);
  const Square from = *ParseSquare(m.origin(), variant.size);
  const Square to = *ParseSquare(m.destination(), variant.size);
  if (move_text.size() == m.origin().size() + 1 + m.destination().size() &&
      IsHopShaped(from, to) && m.hops() > 1) {
    // Two squares two apart on a line are one hop (docs/rules.md section 4),
    // over an empty square here: only a longer chain gets there.
    FUZZ_CHECK(
        status.ok() && !answer.legal() &&
            answer.reason() == v1::ILLEGAL_REASON_NOTHING_TO_JUMP,
        absl::StrCat(context, ": ", m.ShortDebugString(), " as ", move_text,
                     ": ", status.ToString(), " ", answer.ShortDebugString()));
    return;
  }
  FUZZ_CHECK(
      status.ok() && answer.legal() && answer.hops() == m.hops() &&
          absl::EndsWith(answer.path(), "-" + m.destination()),
      absl::StrCat(context, ": ", m.ShortDebugString(), " as ", move_text, ": ",
                   status.ToString(), " ", answer.ShortDebugString()));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view bytes(reinterpret_cast<const char*>(data), size);
  v1::LegalMovesRequest request;
  if (!fuzz::ParseBoth(bytes, {"request", "variant", "position", "origin"},
                       &request)
           .ok()) {
    return 0;
  }
  v1::LegalMovesResponse response;
  const absl::Status status = fuzz::Service().LegalMoves(request, &response);
  const std::string context = request.ShortDebugString().substr(0, 2000);
  if (!status.ok()) {
    fuzz::CheckServiceError(status, {"variant", "position", "origin"}, context);
    return 0;
  }
  fuzz::CheckSerializes(response);
  Variant variant;
  FUZZ_CHECK(fuzz::RequestVariant(request.variant(), &variant), context);
  fuzz::CheckAnswerPosition(variant, response.position(), context);
  FUZZ_CHECK(response.count() == response.moves_size(), context);
  const v1::GameStatus& game = response.status();
  FUZZ_CHECK(game.state() != v1::GameStatus::STATE_UNSPECIFIED, context);
  if (game.state() != v1::GameStatus::STATE_IN_PROGRESS || game.must_pass()) {
    FUZZ_CHECK(response.moves_size() == 0, context);
  } else if (request.origin().empty()) {
    FUZZ_CHECK(response.moves_size() > 0, context);
  }
  LegalMove previous{};
  for (int i = 0; i < response.moves_size(); ++i) {
    const v1::Move& m = response.moves(i);
    const std::string name = absl::StrCat(context, ": ", m.ShortDebugString());
    const absl::StatusOr<Square> from = ParseSquare(m.origin(), variant.size);
    const absl::StatusOr<Square> to =
        ParseSquare(m.destination(), variant.size);
    FUZZ_CHECK(from.ok() && to.ok(), name);
    if (!request.origin().empty()) {
      FUZZ_CHECK(m.origin() == request.origin(), name);
    }
    const LegalMove current{*from, *to, static_cast<uint8_t>(m.hops())};
    if (i > 0) FUZZ_CHECK(MoveOrder(previous, current), name);
    previous = current;
    const absl::StatusOr<MoveText> path = ParseMove(m.path(), variant.size);
    FUZZ_CHECK(path.ok() && !path->is_pass, name);
    FUZZ_CHECK(path->squares.front() == *from && path->squares.back() == *to,
               name);
    const int squares = static_cast<int>(path->squares.size());
    FUZZ_CHECK(m.hops() == 0 ? squares == 2 : squares == m.hops() + 1, name);
  }
  // A sample: the first, the last and a few between.
  const int n = response.moves_size();
  for (int k = 0; k < 6 && n > 0; ++k) {
    const v1::Move& m = response.moves(k * (n - 1) / 5);
    CheckValidates(request, m, m.path(), variant, context);
    CheckValidates(request, m, m.origin() + "-" + m.destination(), variant,
                   context);
  }
  return 0;
}
