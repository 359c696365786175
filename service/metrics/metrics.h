// The service's Prometheus metrics: calls, latency, bytes and calls in
// flight per RPC; calls per variant; illegal-move answers; calls refused by
// a limit; process and build information. Exposition() is the body of
// GET /metrics.
//
// Recording is cheap enough for every call: each label combination is a
// bounded enum set (methods, codes, protocols, the preset names given at
// construction, IllegalReason, limits) whose series are all made in
// Create(), kept in fixed arrays indexed by the enums. A record is then one
// to four atomic read-modify-writes: no lock, no map, no allocation. Values
// outside the sets (a cast enum, an unknown preset name) go to a fixed
// fallback series, so no request can add a series.
#ifndef HALMA_SERVICE_METRICS_METRICS_H_
#define HALMA_SERVICE_METRICS_METRICS_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "halma/v1/halma.pb.h"
#include "prometheus/counter.h"
#include "prometheus/gauge.h"
#include "prometheus/histogram.h"
#include "prometheus/metric_family.h"
#include "prometheus/registry.h"
#include "service/core/rules_methods.h"
#include "service/metrics/latency_histogram.h"
#include "service/metrics/process_collector.h"

namespace halma::service::metrics {

// How the call arrived: gRPC (HTTP/2) or the Connect protocol of the HTTP
// listener.
enum class Protocol : std::uint8_t { kGrpc, kConnect };
inline constexpr int kProtocolCount = 2;
// "grpc", "connect".
absl::string_view ProtocolName(Protocol protocol);

// The methods the server serves: HalmaRules' (rules_methods.h, in its
// order), Health's and reflection's; kOther for any other name (an
// unimplemented method), so that a client cannot add label values.
enum class Method : std::uint8_t {
#define HALMA_METRICS_METHOD(name, work) k##name,
  HALMA_RULES_METHODS(HALMA_METRICS_METHOD)
#undef HALMA_METRICS_METHOD
      kHealthCheck,
  kHealthWatch,
  kReflectionV1,
  kReflectionV1Alpha,
  kOther,
};
inline constexpr int kMethodCount = kRulesMethodCount + 5;
// A HalmaRules method's label.
constexpr Method MethodOf(RulesMethod method) {
  return static_cast<Method>(method);
}
// The full gRPC name without the leading '/': "halma.v1.HalmaRules/LegalMoves";
// "other" for kOther.
absl::string_view MethodName(Method method);
// The inverse of MethodName, also accepting gRPC's leading '/'
// ("/halma.v1.HalmaRules/LegalMoves", the :path of both protocols); kOther
// for any name not served.
Method MethodFromName(absl::string_view name);
// gRPC's name of a status code: "OK", "INVALID_ARGUMENT"; "UNKNOWN" for a
// value outside 0..16 (absl::StatusCode has gRPC's numbering).
inline constexpr int kCodeCount = 17;
absl::string_view CodeName(absl::StatusCode code);

// The server's limits that refuse a call (docs/security.md), named as the
// settings are.
enum class Limit : std::uint8_t {
  kMaxConcurrentAdjudications,
  kMaxRecordMoves,
  kMaxMessageBytes,
  kMaxCallSeconds,
  kMaxQueueLength,
  kMaxQueueWaitMs,
  kMaxSuggestNodes,
  kMaxSuggestTimeMs,
};
inline constexpr int kLimitCount = 8;
// "max_concurrent_adjudications", ...
absl::string_view LimitName(Limit limit);
// The inverse; false for a name that is no limit.
bool LimitFromName(absl::string_view name, Limit* limit);

// The level a SuggestMove request asks for, the `level` label of
// halma_suggest_nodes: "default" (none), "1" to "8", or "budget" (an
// explicit budget instead of a level). Bounded: no request adds a value.
inline constexpr int kSuggestLevelCount = 10;
inline constexpr int kSuggestLevelDefault = 0;  // Levels 1..8 are 1..8.
inline constexpr int kSuggestLevelBudget = 9;
absl::string_view SuggestLevelName(int level);

struct MetricsOptions {
  // halma_build_info's labels: Version() and the active flood-fill kernel's
  // name (FloodFillKernelName(ActiveFloodFillKernel())).
  std::string version;
  std::string flood_fill_kernel;
  // The preset variant names (PresetTable's), the only values of the
  // `variant` label besides "custom" and "unknown".
  std::vector<std::string> preset_names;
  // Where procfs is mounted, for the process_* metrics.
  std::string proc = "/proc";
};

class Metrics {
 public:
  // Makes every family and series. INVALID_ARGUMENT for empty, repeated or
  // reserved ("custom", "unknown") preset names, or more than
  // kMaxPresets of them.
  static constexpr int kMaxPresets = 64;
  static absl::StatusOr<std::unique_ptr<Metrics>> Create(
      const MetricsOptions& options);

  Metrics(const Metrics&) = delete;
  Metrics& operator=(const Metrics&) = delete;
  ~Metrics();

  // --- Recording: thread-safe, lock-free, allocation-free. ---

  // One finished call: halma_rpc_calls_total, halma_rpc_duration_seconds
  // and the byte counters (the call observer, service/observe/, calls this
  // for both protocols, with the request's bytes counted when they arrived:
  // RecordRequestBytes).
  void RecordCall(Protocol protocol, Method method, absl::StatusCode code,
                  absl::Duration latency, std::size_t request_bytes,
                  std::size_t response_bytes);
  // Request bytes received: halma_rpc_request_bytes_total.
  void RecordRequestBytes(Protocol protocol, Method method, std::size_t bytes);
  // halma_rpc_calls_in_flight: +1 / -1. Pair them, or use InFlightCall.
  void CallStarted(Protocol protocol, Method method);
  void CallFinished(Protocol protocol, Method method);
  // The variant a ValidateMove, LegalMoves or Adjudicate request names:
  // its preset when that is one of the preset names, "unknown" for another
  // preset name or none, "custom" for a custom spec. Other methods are
  // ignored (they name no variant).
  void RecordVariant(Method method, const v1::Variant& variant);
  // An answer that a move is illegal (ValidateMove's reason, Adjudicate's
  // illegal_move.reason). Values outside the enum count as UNSPECIFIED.
  void RecordIllegal(v1::IllegalReason reason);
  // A call refused by one of the server's limits.
  void RecordRejected(Limit limit);
  // How long an expensive call waited for a slot of the admission gate
  // (zero when one was free): halma_admission_wait_seconds.
  void RecordQueueWait(Method method, absl::Duration waited);
  // One SuggestMove search answered: halma_suggest_nodes (a histogram of
  // the nodes searched per call, by the level asked for; its sum is the
  // nodes searched). `level` is 0..kSuggestLevelCount-1.
  void RecordSuggestNodes(int level, std::int64_t nodes);

  // CallStarted now, CallFinished when it goes out of scope.
  class InFlightCall {
   public:
    InFlightCall(Metrics& metrics, Protocol protocol, Method method)
        : metrics_(&metrics), protocol_(protocol), method_(method) {
      metrics_->CallStarted(protocol_, method_);
    }
    InFlightCall(const InFlightCall&) = delete;
    InFlightCall& operator=(const InFlightCall&) = delete;
    ~InFlightCall() { metrics_->CallFinished(protocol_, method_); }

   private:
    Metrics* metrics_;
    Protocol protocol_;
    Method method_;
  };

  // --- Scraping. ---

  // Every family, the process_* ones read from /proc now. Latency
  // histograms are left out until they have an observation: all of them
  // would be 306 x 22 lines of zeros.
  std::vector<prometheus::MetricFamily> Collect() const;
  // Collect() in the Prometheus text exposition format (version 0.0.4),
  // the body of GET /metrics.
  std::string Exposition() const;
  // Its Content-Type.
  static constexpr absl::string_view kContentType =
      "text/plain; version=0.0.4; charset=utf-8";

  // For families the integrator adds later; they appear in Collect().
  prometheus::Registry& registry() { return *registry_; }

 private:
  explicit Metrics(const MetricsOptions& options);
  absl::Status Build(const MetricsOptions& options);

  // The methods whose requests name a variant, in their rows' order
  // (AdjudicateStream's records count as Adjudicate).
  static constexpr std::array<Method, 5> kVariantMethods = {
      Method::kValidateMove, Method::kLegalMoves, Method::kAdjudicate,
      Method::kPerft, Method::kSuggestMove};
  // The row of variants_ for `method`, or -1 for one that names none.
  static constexpr int VariantRow(Method method) {
    for (std::size_t i = 0; i < kVariantMethods.size(); ++i) {
      if (kVariantMethods[i] == method) return static_cast<int>(i);
    }
    return -1;
  }
  static int CallIndex(Protocol protocol, Method method) {
    const int p = static_cast<int>(protocol) < kProtocolCount
                      ? static_cast<int>(protocol)
                      : 0;
    const int m = static_cast<int>(method) < kMethodCount
                      ? static_cast<int>(method)
                      : static_cast<int>(Method::kOther);
    return p * kMethodCount + m;
  }
  static int CodeIndex(absl::StatusCode code) {
    const int c = static_cast<int>(code);
    return c >= 0 && c < kCodeCount
               ? c
               : static_cast<int>(absl::StatusCode::kUnknown);
  }

  std::shared_ptr<prometheus::Registry> registry_;
  ProcessCollector process_;
  std::vector<std::string> preset_names_;
  // [CallIndex * kCodeCount + code].
  std::array<prometheus::Counter*, kProtocolCount * kMethodCount * kCodeCount>
      calls_{};
  std::unique_ptr<
      std::array<LatencyHistogram, kProtocolCount * kMethodCount * kCodeCount>>
      latency_;
  // [CallIndex].
  std::array<prometheus::Counter*, kProtocolCount * kMethodCount>
      request_bytes_{};
  std::array<prometheus::Counter*, kProtocolCount * kMethodCount>
      response_bytes_{};
  std::array<prometheus::Gauge*, kProtocolCount * kMethodCount> in_flight_{};
  // [method][preset index], then "custom", then "unknown".
  std::array<std::vector<prometheus::Counter*>, kVariantMethods.size()>
      variants_;
  // [IllegalReason number]; out-of-range numbers use [0].
  std::vector<prometheus::Counter*> illegal_;
  std::array<prometheus::Counter*, kLimitCount> rejected_{};
  // [Method]: only the gated methods' are ever observed.
  std::unique_ptr<std::array<LatencyHistogram, kMethodCount>> queue_wait_;
  // [level]: a search takes milliseconds, so prometheus-cpp's histogram
  // (a mutex per Observe) costs nothing that matters here.
  std::array<prometheus::Histogram*, kSuggestLevelCount> suggest_nodes_{};
};

}  // namespace halma::service::metrics

#endif  // HALMA_SERVICE_METRICS_METRICS_H_
