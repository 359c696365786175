// The RPCs of halma.v1.HalmaRules, listed once: the metrics' method labels
// (service/metrics), the edges' errors and which calls go through the
// admission gate all come from this list.
#ifndef HALMA_SERVICE_CORE_RULES_METHODS_H_
#define HALMA_SERVICE_CORE_RULES_METHODS_H_

#include <cstdint>

#include "absl/strings/string_view.h"

namespace halma::service {

// X(Name, gated work): the method's name in halma.proto, and, for an
// expensive method (one that runs with a slot of the admission gate), what
// its checkpoint's error says it was doing; "" for a cheap one.
#define HALMA_RULES_METHODS(X)                \
  X(ValidateMove, "")                         \
  X(LegalMoves, "")                           \
  X(Adjudicate, "replaying the record")       \
  X(ListVariants, "")                         \
  X(AdjudicateStream, "replaying the record") \
  X(Perft, "counting")                        \
  X(SuggestMove, "searching")

enum class RulesMethod : std::uint8_t {
#define HALMA_RULES_METHOD_ENUM(name, work) k##name,
  HALMA_RULES_METHODS(HALMA_RULES_METHOD_ENUM)
#undef HALMA_RULES_METHOD_ENUM
};

#define HALMA_RULES_METHOD_COUNT(name, work) +1
inline constexpr int kRulesMethodCount =
    0 HALMA_RULES_METHODS(HALMA_RULES_METHOD_COUNT);
#undef HALMA_RULES_METHOD_COUNT

// "Adjudicate".
constexpr absl::string_view RulesMethodName(RulesMethod method) {
  constexpr absl::string_view kNames[] = {
#define HALMA_RULES_METHOD_NAME(name, work) #name,
      HALMA_RULES_METHODS(HALMA_RULES_METHOD_NAME)
#undef HALMA_RULES_METHOD_NAME
  };
  return kNames[static_cast<int>(method)];
}

// What an expensive method's work is called in errors ("replaying the
// record"); empty for a cheap method.
constexpr absl::string_view GatedWork(RulesMethod method) {
  constexpr absl::string_view kWork[] = {
#define HALMA_RULES_METHOD_WORK(name, work) work,
      HALMA_RULES_METHODS(HALMA_RULES_METHOD_WORK)
#undef HALMA_RULES_METHOD_WORK
  };
  return kWork[static_cast<int>(method)];
}

// Whether the method runs with a slot of the admission gate.
constexpr bool IsGated(RulesMethod method) {
  return !GatedWork(method).empty();
}

}  // namespace halma::service

#endif  // HALMA_SERVICE_CORE_RULES_METHODS_H_
