// The settings table as Markdown, for docs/configuration.md: the block
// between kSettingsTableBegin and kSettingsTableEnd there is this text,
// which a test checks (tests/service/config/).
#ifndef HALMA_SERVICE_CONFIG_SETTINGS_MARKDOWN_H_
#define HALMA_SERVICE_CONFIG_SETTINGS_MARKDOWN_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace halma::service {

inline constexpr absl::string_view kSettingsTableBegin =
    "<!-- settings table: made by halma_settings_table from "
    "service/config/settings.h; do not edit by hand -->";
inline constexpr absl::string_view kSettingsTableEnd =
    "<!-- end of settings table -->";

// The block: kSettingsTableBegin, the table (one row per setting, in table
// order: flag, environment variable, default, range, where it applies,
// help), kSettingsTableEnd, each on its own line(s), ending in a newline.
std::string SettingsMarkdown();

// `document` with its block replaced by SettingsMarkdown().
// INVALID_ARGUMENT when it has no block (both markers, in order).
absl::StatusOr<std::string> WithSettingsMarkdown(absl::string_view document);

}  // namespace halma::service

#endif  // HALMA_SERVICE_CONFIG_SETTINGS_MARKDOWN_H_
