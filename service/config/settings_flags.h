// halma_server's command-line flags and environment variables, one of each
// per row of the settings table (settings.h).
//
// The variable overrides the built-in default and an explicit flag
// overrides the variable: containers set variables, humans flags.
#ifndef HALMA_SERVICE_CONFIG_SETTINGS_FLAGS_H_
#define HALMA_SERVICE_CONFIG_SETTINGS_FLAGS_H_

#include <functional>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "service/config/settings.h"

namespace halma::service {

// Sets each flag whose variable is set (per `getenv`, std::getenv by
// default) to the variable's value. Call before absl::ParseCommandLine so
// that explicit flags win. The error names the variable and its value.
absl::Status ApplyEnvironmentToFlags(
    const std::function<const char*(const char*)>& getenv = nullptr);

// The settings the flags now hold.
Settings SettingsFromFlags();

// Usage text and the --version string ("halma_server VERSION").
void SetServerUsage();

// All of it for main(): environment, then the command line (which handles
// --help and --version and exits on unknown flags), then validation.
// Returns the positional arguments left after parsing in `rest`.
absl::StatusOr<Settings> ParseServerFlags(int argc, char** argv,
                                          std::vector<char*>* rest);

}  // namespace halma::service

#endif  // HALMA_SERVICE_CONFIG_SETTINGS_FLAGS_H_
