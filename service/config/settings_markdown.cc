#include "service/config/settings_markdown.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "service/config/settings.h"

namespace halma::service {
namespace {

std::string DefaultText(const SettingValue& value) {
  if (const auto* text = std::get_if<absl::string_view>(&value)) {
    return text->empty() ? "none" : absl::StrCat("`", *text, "`");
  }
  if (const auto* flag = std::get_if<bool>(&value)) {
    return *flag ? "`true`" : "`false`";
  }
  return absl::StrCat(std::get<std::int64_t>(value));
}

std::string RangeText(const SettingInfo& info) {
  if (info.type == "string" || info.type == "bool") return "";
  if (info.max == kIntMax || info.max == kInt64Max) {
    return absl::StrCat("at least ", info.min);
  }
  return absl::StrCat(info.min, " to ", info.max);
}

}  // namespace

std::string SettingsMarkdown() {
  std::string text = absl::StrCat(kSettingsTableBegin, "\n");
  absl::StrAppend(&text,
                  "| flag | environment | default | range | applies to | "
                  "meaning |\n|---|---|---|---|---|---|\n");
  ForEachSetting(Settings(), [&text](const SettingInfo& info,
                                     const SettingValue& default_value) {
    absl::StrAppend(&text, "| `--", info.name, "` | `", info.env, "` | ",
                    DefaultText(default_value), " | ", RangeText(info), " | ",
                    ScopeName(info.scope), " | ",
                    absl::StrReplaceAll(info.help, {{"|", "\\|"}}), " |\n");
  });
  absl::StrAppend(&text, kSettingsTableEnd, "\n");
  return text;
}

absl::StatusOr<std::string> WithSettingsMarkdown(absl::string_view document) {
  const std::size_t begin = document.find(kSettingsTableBegin);
  const std::size_t end = begin == absl::string_view::npos
                              ? absl::string_view::npos
                              : document.find(kSettingsTableEnd, begin);
  if (end == absl::string_view::npos) {
    return absl::InvalidArgumentError(absl::StrCat(
        "no settings table: expected a line \"", kSettingsTableBegin,
        "\" and later a line \"", kSettingsTableEnd, "\""));
  }
  std::size_t after = end + kSettingsTableEnd.size();
  if (after < document.size() && document[after] == '\n') ++after;
  return absl::StrCat(document.substr(0, begin), SettingsMarkdown(),
                      document.substr(after));
}

}  // namespace halma::service
