// halmactl perft.

#include <iostream>
#include <string>

#include "absl/status/statusor.h"
#include "common.h"

namespace halma::halmactl {

int CmdPerft(const CommandLine& cl, client::HalmaClient& client) {
  if (!cl.depth) {
    return UsageFailure(cl.command, "perft needs --depth (plies, from 0)");
  }
  v1::PerftRequest request;
  absl::StatusOr<v1::Variant> variant = ParseVariant(*cl.variant);
  if (!variant.ok())
    return UsageFailure(cl.command, variant.status().message());
  *request.mutable_variant() = *variant;
  if (cl.position) request.set_position(*cl.position);
  request.set_depth(*cl.depth);
  request.set_split_by_first_move(cl.split);
  absl::StatusOr<v1::PerftResponse> response = client.Perft(request);
  if (!response.ok()) return RpcError(response.status());
  if (cl.json) {
    PrintJson(*response);
    return kExitOk;
  }
  if (cl.split) {
    size_t width = 0;
    for (const v1::PerftFirstMove& first : response->first_moves()) {
      width = std::max(width, first.move().size());
    }
    for (const v1::PerftFirstMove& first : response->first_moves()) {
      std::cout << first.move() << ":"
                << std::string(width - first.move().size() + 1, ' ')
                << first.nodes() << "\n";
    }
    std::cout << "\nFirst moves: " << response->first_moves_size() << "\n";
  }
  std::cout << "Nodes at depth " << *cl.depth << ": " << response->nodes()
            << "\n";
  return kExitOk;
}

}  // namespace halma::halmactl
