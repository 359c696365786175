// The engine's preset variants, validated once, with where their rules come
// from: requests that name a preset use these without rebuilding the
// variant.
#ifndef HALMA_SERVICE_CORE_PRESETS_H_
#define HALMA_SERVICE_CORE_PRESETS_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"
#include "halma/variant.h"

namespace halma::service {

class PresetTable {
 public:
  struct Entry {
    Variant variant;
    std::string source;  // Where the rules come from, for ListVariants.
  };

  // The engine's presets, in its order, with their sources.
  static const PresetTable& Get();

  const std::vector<Entry>& entries() const { return entries_; }
  // nullptr when `name` is not a preset.
  const Variant* Find(absl::string_view name) const;

 private:
  PresetTable();
  std::vector<Entry> entries_;
};

}  // namespace halma::service

#endif  // HALMA_SERVICE_CORE_PRESETS_H_
