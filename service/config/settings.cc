#include "service/config/settings.h"

#include <array>
#include <type_traits>

#include "absl/strings/str_cat.h"

namespace halma::service {
namespace {

template <typename T>
constexpr absl::string_view TypeName() {
  if constexpr (std::is_same_v<T, std::string>) return "string";
  if constexpr (std::is_same_v<T, bool>) return "bool";
  if constexpr (std::is_same_v<T, std::int64_t>) return "int64";
  return "int";
}

constexpr SettingInfo kTable[] = {
#define HALMA_SETTING_INFO(type, name, env, default_value, min, max, scope, \
                           help)                                            \
  SettingInfo{#name, env, TypeName<type>(), min, max, scope, help},
    HALMA_SETTINGS(HALMA_SETTING_INFO)
#undef HALMA_SETTING_INFO
};

SettingValue ValueOf(const std::string& value) {
  return absl::string_view(value);
}
SettingValue ValueOf(bool value) { return value; }
SettingValue ValueOf(std::int64_t value) { return value; }
SettingValue ValueOf(int value) { return static_cast<std::int64_t>(value); }

}  // namespace

absl::Span<const SettingInfo> SettingTable() { return kTable; }

void ForEachSetting(
    const Settings& settings,
    absl::FunctionRef<void(const SettingInfo&, const SettingValue&)> visit) {
  const SettingInfo* row = kTable;
#define HALMA_VISIT_SETTING(type, name, env, default_value, min, max, scope, \
                            help)                                            \
  visit(*row++, ValueOf(settings.name));
  HALMA_SETTINGS(HALMA_VISIT_SETTING)
#undef HALMA_VISIT_SETTING
}

absl::string_view ScopeName(SettingScope scope) {
  switch (scope) {
    case SettingScope::kListeners:
      return "both listeners";
    case SettingScope::kGrpc:
      return "gRPC port";
    case SettingScope::kFrontProxy:
      return "front proxy";
    case SettingScope::kFrontProxyAndHttp:
      return "front proxy, HTTP listener";
    case SettingScope::kHttp:
      return "HTTP listener";
    case SettingScope::kRules:
      return "rules";
    case SettingScope::kAdmission:
      return "admission gate";
    case SettingScope::kShutdown:
      return "shutdown";
    case SettingScope::kLogs:
      return "logs";
  }
  return "";
}

bool InUse(SettingScope scope, const Settings& settings) {
  const bool front = !settings.front_proxy.empty();
  switch (scope) {
    case SettingScope::kFrontProxy:
      return front;
    case SettingScope::kFrontProxyAndHttp:
      return front || settings.http;
    case SettingScope::kHttp:
      return settings.http;
    default:
      return true;
  }
}

absl::Status ValidateSettings(const Settings& settings) {
  absl::Status status;
  ForEachSetting(settings, [&status](const SettingInfo& info,
                                     const SettingValue& value) {
    const auto* number = std::get_if<std::int64_t>(&value);
    if (!status.ok() || number == nullptr) return;
    if (*number < info.min || *number > info.max) {
      status = absl::InvalidArgumentError(absl::StrCat(
          info.name, " ", *number, ": expected ", info.min, " to ", info.max));
    }
  });
  if (!status.ok()) return status;
  if (settings.host.empty()) {
    return absl::InvalidArgumentError("host: empty, expected an address");
  }
  if (settings.tls_cert.empty() != settings.tls_key.empty()) {
    return absl::InvalidArgumentError(
        "tls_cert and tls_key: expected both (TLS) or neither (plaintext)");
  }
  return absl::OkStatus();
}

}  // namespace halma::service
