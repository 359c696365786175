// halmactl validate.

#include <iostream>
#include <string>

#include "absl/status/statusor.h"
#include "common.h"
#include "text_output.h"

namespace halma::halmactl {

int CmdValidate(const CommandLine& cl, client::HalmaClient& client) {
  if (cl.args.size() != 1) {
    return UsageFailure(cl.command, "validate needs exactly one MOVE argument");
  }
  v1::ValidateMoveRequest request;
  absl::StatusOr<v1::Variant> variant = ParseVariant(*cl.variant);
  if (!variant.ok())
    return UsageFailure(cl.command, variant.status().message());
  *request.mutable_variant() = *variant;
  if (cl.position) request.set_position(*cl.position);
  request.set_move(cl.args[0]);
  absl::StatusOr<v1::ValidateMoveResponse> response =
      client.ValidateMove(request);
  if (!response.ok()) return RpcError(response.status());
  if (cl.json) {
    PrintJson(*response);
    return response->legal() ? kExitOk : kExitNegative;
  }
  const char mover = SeatLetter(response->mover());
  if (!response->legal()) {
    std::cout << "Illegal move " << cl.args[0] << " for " << mover << ": "
              << ReasonWords(response->reason());
    if (!response->message().empty()) std::cout << ": " << response->message();
    std::cout << "\nStatus: " << StatusLine(response->status()) << "\n";
    return kExitNegative;
  }
  std::cout << "Legal move for " << mover << ": " << response->path();
  if (response->hops() > 0) {
    std::cout << " (" << response->hops() << " hop"
              << (response->hops() == 1 ? "" : "s") << ")";
  } else if (response->path() != "pass") {
    std::cout << " (step)";
  }
  std::cout << "\n\n";
  PrintPosition("Position after", response->position_after());
  std::cout << "Status: " << StatusLine(response->status()) << "\n";
  return kExitOk;
}

}  // namespace halma::halmactl
