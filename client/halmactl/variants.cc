// halmactl variants.

#include <cstdio>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common.h"
#include "text_output.h"

namespace halma::halmactl {

int CmdVariants(const CommandLine& cl, client::HalmaClient& client) {
  absl::StatusOr<v1::ListVariantsResponse> response = client.ListVariants();
  if (!response.ok()) return RpcError(response.status());
  if (cl.json) {
    PrintJson(*response);
    return kExitOk;
  }
  std::printf("%-20s %5s  %-8s %-10s %6s  %-9s  %-16s  %-11s  %s\n", "NAME",
              "BOARD", "SEATS", "CAMP", "PIECES", "HOME-EXIT",
              "ROUND-COMPLETION", "TARGET-LOCK", "SOURCE");
  for (const v1::VariantInfo& info : response->variants()) {
    const v1::VariantSpec& spec = info.spec();
    std::vector<std::string> seats;
    for (int s : info.seats()) {
      seats.emplace_back(1, SeatLetter(v1::Seat(s)));
    }
    const std::string board =
        absl::StrCat(spec.board_size(), "x", spec.board_size());
    const std::string exit_limit = spec.home_exit_limit() > 0
                                       ? absl::StrCat(spec.home_exit_limit())
                                       : "off";
    std::printf(
        "%-20s %5s  %-8s %-10s %6d  %-9s  %-16s  %-11s  %s\n",
        info.name().c_str(), board.c_str(), absl::StrJoin(seats, " ").c_str(),
        absl::StrJoin(spec.camp_rows(), ".").c_str(), info.pieces_per_seat(),
        exit_limit.c_str(), spec.round_completion() ? "on" : "off",
        spec.target_lock() ? "on" : "off", info.source().c_str());
    if (spec.move_cap() > 0)
      std::printf("%21s move cap %d\n", "", spec.move_cap());
  }
  std::printf("\nStart positions:\n");
  for (const v1::VariantInfo& info : response->variants()) {
    std::printf("  %-20s %s\n", info.name().c_str(),
                info.start_position().c_str());
  }
  return kExitOk;
}

}  // namespace halma::halmactl
