#include "service/core/presets.h"

#include <utility>

#include "absl/status/statusor.h"

namespace halma::service {
namespace {

// Where each preset's rules come from (docs/rules.md section 2).
absl::string_view PresetSource(absl::string_view name) {
  static constexpr std::pair<absl::string_view, absl::string_view> kSources[] =
      {
          {"brainking-8x8", "BrainKing Halma 8x8"},
          {"brainking-10x10", "BrainKing Halma 10x10"},
          {"iggamecenter-10x10", "igGameCenter Halma"},
          {"classic-16x16", "original two-handed game (G. H. Monks)"},
          {"classic-16x16-4p", "original four-handed game"},
      };
  for (const auto& [preset, source] : kSources) {
    if (preset == name) return source;
  }
  return "";
}

}  // namespace

PresetTable::PresetTable() {
  for (const std::string& name : PresetNames()) {
    absl::StatusOr<Variant> variant = PresetVariant(name);
    // The engine's own presets always validate.
    if (!variant.ok()) continue;
    entries_.push_back(
        Entry{*std::move(variant), std::string(PresetSource(name))});
  }
}

const PresetTable& PresetTable::Get() {
  static const PresetTable* table = new PresetTable();
  return *table;
}

const Variant* PresetTable::Find(absl::string_view name) const {
  for (const Entry& entry : entries_) {
    if (entry.variant.spec.name == name) return &entry.variant;
  }
  return nullptr;
}

}  // namespace halma::service
