// halmactl start and halmactl legal: both show a position's legal moves.

#include <iostream>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "common.h"
#include "text_output.h"

namespace halma::halmactl {
namespace {

int ShowLegalMoves(const CommandLine& cl, client::HalmaClient& client,
                   bool start_only) {
  v1::LegalMovesRequest request;
  absl::StatusOr<v1::Variant> variant = ParseVariant(*cl.variant);
  if (!variant.ok())
    return UsageFailure(cl.command, variant.status().message());
  *request.mutable_variant() = *variant;
  if (cl.position) request.set_position(*cl.position);
  if (cl.origin) request.set_origin(*cl.origin);
  absl::StatusOr<v1::LegalMovesResponse> response = client.LegalMoves(request);
  if (!response.ok()) return RpcError(response.status());
  if (cl.json) {
    PrintJson(*response);
    return kExitOk;
  }
  PrintPosition(start_only ? "Start position" : "Position",
                response->position());
  std::cout << "Status: " << StatusLine(response->status()) << "\n";
  const char mover = SeatLetter(response->status().to_move());
  if (response->status().state() != v1::GameStatus::STATE_IN_PROGRESS) {
    std::cout << "No legal moves: the game is over.\n";
    return kExitOk;
  }
  if (response->status().must_pass()) {
    std::cout << "No legal move for " << mover << ": the only move is pass.\n";
    return kExitOk;
  }
  std::cout << response->count() << " legal move"
            << (response->count() == 1 ? "" : "s") << " for " << mover
            << (cl.origin ? absl::StrCat(" from ", *cl.origin) : "")
            << (start_only ? "." : ":") << "\n";
  if (!start_only) PrintMoves(*response);
  return kExitOk;
}

}  // namespace

int CmdStart(const CommandLine& cl, client::HalmaClient& client) {
  return ShowLegalMoves(cl, client, /*start_only=*/true);
}

int CmdLegal(const CommandLine& cl, client::HalmaClient& client) {
  return ShowLegalMoves(cl, client, /*start_only=*/false);
}

}  // namespace halma::halmactl
