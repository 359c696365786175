#include "service/config/settings_flags.h"

#include <cstdlib>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/reflection.h"
#include "absl/flags/usage.h"
#include "absl/flags/usage_config.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "service/config/version.h"

// One flag per setting; its help ends with its environment variable.
#define HALMA_SETTING_FLAG(type, name, env, default_value, min, max, scope, \
                           help)                                            \
  ABSL_FLAG(type, name, default_value, help " Env: " env ".");
HALMA_SETTINGS(HALMA_SETTING_FLAG)
#undef HALMA_SETTING_FLAG

namespace halma::service {

absl::Status ApplyEnvironmentToFlags(
    const std::function<const char*(const char*)>& getenv) {
  for (const SettingInfo& setting : SettingTable()) {
    const std::string env(setting.env);
    const char* value = getenv ? getenv(env.c_str()) : std::getenv(env.c_str());
    if (value == nullptr) continue;
    absl::CommandLineFlag* flag = absl::FindCommandLineFlag(setting.name);
    if (flag == nullptr) continue;  // Every row has a flag (above).
    std::string error;
    if (!flag->ParseFrom(value, &error)) {
      return absl::InvalidArgumentError(absl::StrCat(
          env, "=\"", value, "\": ", error, " (for --", setting.name, ")"));
    }
  }
  return absl::OkStatus();
}

Settings SettingsFromFlags() {
  Settings settings;
#define HALMA_SETTING_FROM_FLAG(type, name, env, default_value, min, max, \
                                scope, help)                              \
  settings.name = absl::GetFlag(FLAGS_##name);
  HALMA_SETTINGS(HALMA_SETTING_FROM_FLAG)
#undef HALMA_SETTING_FROM_FLAG
  return settings;
}

void SetServerUsage() {
  absl::SetProgramUsageMessage(
      "The Halma rules service (gRPC halma.v1.HalmaRules, grpc.health.v1 "
      "Health and server reflection; the same API over HTTP/JSON).\n"
      "Usage: halma_server [--flag=value ...]\n"
      "Every flag can also be set with an environment variable "
      "HALMA_<FLAG>; an explicit flag wins over the variable.\n"
      "SIGTERM or SIGINT: health turns NOT_SERVING, calls accepted before "
      "it get --grace_period_seconds to finish, then the server exits 0.");
  absl::FlagsUsageConfig usage;
  usage.version_string = [] {
    return absl::StrCat("halma_server ", Version(), "\n");
  };
  // Only this program's flags in --help (not every linked library's).
  usage.contains_help_flags = [](absl::string_view file) {
    return absl::StrContains(file, "settings_flags");
  };
  absl::SetFlagsUsageConfig(usage);
}

absl::StatusOr<Settings> ParseServerFlags(int argc, char** argv,
                                          std::vector<char*>* rest) {
  SetServerUsage();
  // Environment first, so that the command line overrides it; its errors
  // are reported after parsing so that --help and --version still work.
  const absl::Status env_status = ApplyEnvironmentToFlags();
  std::vector<char*> positional = absl::ParseCommandLine(argc, argv);
  if (!env_status.ok()) return env_status;
  if (rest != nullptr) {
    rest->assign(positional.begin() + 1, positional.end());
  }
  Settings settings = SettingsFromFlags();
  if (absl::Status status = ValidateSettings(settings); !status.ok()) {
    return status;
  }
  return settings;
}

}  // namespace halma::service
