// halmactl health.

#include <iostream>
#include <string>

#include "absl/status/statusor.h"
#include "common.h"

namespace halma::halmactl {

int CmdHealth(const CommandLine& cl, client::HalmaClient& client) {
  const std::string service = cl.service.value_or("");
  absl::StatusOr<client::HealthStatus> status = client.CheckHealth(service);
  if (!status.ok()) return RpcError(status.status());
  const char* name = client::HealthStatusName(*status);
  if (cl.json) {
    std::cout << "{\n  \"service\": " << JsonQuote(service)
              << ",\n  \"status\": \"" << name << "\"\n}\n";
  } else {
    std::cout << (service.empty() ? "server" : service) << ": " << name << "\n";
  }
  return *status == client::HealthStatus::kServing ? kExitOk : kExitNegative;
}

}  // namespace halma::halmactl
