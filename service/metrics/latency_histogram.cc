#include "service/metrics/latency_histogram.h"

#include <limits>

namespace halma::service::metrics {

std::uint64_t LatencyHistogram::Count() const {
  std::uint64_t count = 0;
  for (const std::atomic<std::uint64_t>& bucket : counts_) {
    count += bucket.load(std::memory_order_relaxed);
  }
  return count;
}

prometheus::ClientMetric::Histogram LatencyHistogram::Collect() const {
  prometheus::ClientMetric::Histogram histogram;
  histogram.bucket.reserve(kBucketCount + 1);
  std::uint64_t cumulative = 0;
  // Dividing by 1e9 (exact in a double) rounds 10'000 to the double
  // nearest 1e-05, so `le` prints as 1e-05, not 1.0000000000000001e-05.
  for (int i = 0; i <= kBucketCount; ++i) {
    cumulative += counts_[i].load(std::memory_order_relaxed);
    prometheus::ClientMetric::Bucket bucket;
    bucket.cumulative_count = cumulative;
    bucket.upper_bound = i < kBucketCount
                             ? static_cast<double>(kUpperBoundsNanos[i]) / 1e9
                             : std::numeric_limits<double>::infinity();
    histogram.bucket.push_back(bucket);
  }
  histogram.sample_count = cumulative;
  histogram.sample_sum =
      static_cast<double>(sum_nanos_.load(std::memory_order_relaxed)) / 1e9;
  return histogram;
}

}  // namespace halma::service::metrics
