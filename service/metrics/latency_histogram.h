// A fixed-bucket latency histogram whose Observe is two relaxed atomic adds.
//
// prometheus-cpp 1.0.1's Histogram::Observe takes a std::mutex (see
// /usr/include/prometheus/histogram.h), which every RPC would contend on;
// this one keeps a counter per bucket instead and builds the cumulative
// counts only when scraped.
#ifndef HALMA_SERVICE_METRICS_LATENCY_HISTOGRAM_H_
#define HALMA_SERVICE_METRICS_LATENCY_HISTOGRAM_H_

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>

#include "absl/time/time.h"
#include "prometheus/client_metric.h"

namespace halma::service::metrics {

class LatencyHistogram {
 public:
  // Upper bounds (inclusive, as Prometheus' `le`): tens of microseconds,
  // where ListVariants and most LegalMoves answers lie, up to the seconds
  // that a long Adjudicate record can take before max_call_seconds.
  static constexpr int kBucketCount = 19;
  static constexpr std::array<std::int64_t, kBucketCount> kUpperBoundsNanos = {
      10'000,        25'000,        50'000,        100'000,       250'000,
      500'000,       1'000'000,     2'500'000,     5'000'000,     10'000'000,
      25'000'000,    50'000'000,    100'000'000,   250'000'000,   500'000'000,
      1'000'000'000, 2'500'000'000, 5'000'000'000, 10'000'000'000};

  LatencyHistogram() = default;
  LatencyHistogram(const LatencyHistogram&) = delete;
  LatencyHistogram& operator=(const LatencyHistogram&) = delete;

  // Thread-safe, lock-free; negative durations count as zero.
  void Observe(absl::Duration latency) {
    const std::int64_t nanos =
        std::max<std::int64_t>(0, absl::ToInt64Nanoseconds(latency));
    // First bound >= nanos; kBucketCount (the +Inf bucket) past the last.
    const auto bucket = std::lower_bound(kUpperBoundsNanos.begin(),
                                         kUpperBoundsNanos.end(), nanos) -
                        kUpperBoundsNanos.begin();
    counts_[bucket].fetch_add(1, std::memory_order_relaxed);
    sum_nanos_.fetch_add(static_cast<std::uint64_t>(nanos),
                         std::memory_order_relaxed);
  }

  // Observations so far (the sum of the buckets).
  std::uint64_t Count() const;

  // The histogram as prometheus-cpp's serializer wants it: cumulative
  // buckets in seconds, the last one +Inf. The count is the +Inf bucket's,
  // so the two always agree; the sum may lag an Observe running at the
  // same time by that one observation.
  prometheus::ClientMetric::Histogram Collect() const;

 private:
  std::array<std::atomic<std::uint64_t>, kBucketCount + 1> counts_{};
  std::atomic<std::uint64_t> sum_nanos_{0};
};

}  // namespace halma::service::metrics

#endif  // HALMA_SERVICE_METRICS_LATENCY_HISTOGRAM_H_
