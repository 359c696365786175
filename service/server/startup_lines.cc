#include "service/server/startup_lines.h"

#include <variant>

#include "absl/strings/str_cat.h"
#include "halma/flood_fill.h"
#include "service/config/version.h"
#include "service/server/server.h"

namespace halma::service {
namespace {

std::string ValueText(const SettingValue& value) {
  if (const auto* flag = std::get_if<bool>(&value)) return *flag ? "on" : "off";
  if (const auto* text = std::get_if<absl::string_view>(&value)) {
    return text->empty() ? "none" : std::string(*text);
  }
  return absl::StrCat(std::get<std::int64_t>(value));
}

absl::string_view UnusedNote(SettingScope scope) {
  switch (scope) {
    case SettingScope::kFrontProxy:
      return " (unused: no front proxy)";
    case SettingScope::kFrontProxyAndHttp:
      return " (unused: no front proxy, no HTTP listener)";
    case SettingScope::kHttp:
      return " (unused: no HTTP listener)";
    default:
      return "";
  }
}

}  // namespace

std::string ListeningLine(const Settings& settings, const StartupFacts& facts) {
  std::string line = absl::StrCat("halma_server listening on ",
                                  JoinHostPort(settings.host, settings.port),
                                  " (version ", Version(), "; tls ",
                                  settings.tls_cert.empty() ? "off" : "on");
  ForEachSetting(settings, [&](const SettingInfo& info,
                               const SettingValue& value) {
    absl::StrAppend(&line, "; ", info.name, " ", ValueText(value),
                    InUse(info.scope, settings) ? "" : UnusedNote(info.scope));
  });
  absl::StrAppend(
      &line, "; ",
      facts.http ? absl::StrCat("http ",
                                JoinHostPort(settings.host, settings.http_port),
                                " (Connect protocol)")
                 : std::string("http off"),
      "; flood_fill ", FloodFillKernelName(ActiveFloodFillKernel()), ")");
  return line;
}

JsonLine StartupLine(const Settings& settings, const StartupFacts& facts) {
  JsonLine line("info", "server.start");
  line.Add("message", ListeningLine(settings, facts));
  line.Add("version", Version());
  line.Add("tls", !settings.tls_cert.empty());
  ForEachSetting(
      settings, [&line](const SettingInfo& info, const SettingValue& value) {
        const std::string_view name(info.name.data(), info.name.size());
        if (const auto* text = std::get_if<absl::string_view>(&value)) {
          line.Add(name, std::string_view(text->data(), text->size()));
        } else if (const auto* flag = std::get_if<bool>(&value)) {
          line.Add(name, *flag);
        } else {
          line.Add(name, std::get<std::int64_t>(value));
        }
      });
  line.Add("http_enabled", facts.http);
  line.Add("playground_enabled", facts.playground);
  line.Add("flood_fill", FloodFillKernelName(ActiveFloodFillKernel()));
  return line;
}

}  // namespace halma::service
