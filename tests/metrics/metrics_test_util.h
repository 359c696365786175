// Reading series back out of Metrics::Collect() in tests.
#ifndef HALMA_TESTS_METRICS_METRICS_TEST_UTIL_H_
#define HALMA_TESTS_METRICS_METRICS_TEST_UTIL_H_

#include <map>
#include <string>
#include <vector>

#include "prometheus/client_metric.h"
#include "prometheus/metric_family.h"

namespace halma::service::metrics {

using LabelMap = std::map<std::string, std::string>;

inline const prometheus::MetricFamily* FindFamily(
    const std::vector<prometheus::MetricFamily>& families,
    const std::string& name) {
  for (const prometheus::MetricFamily& family : families) {
    if (family.name == name) return &family;
  }
  return nullptr;
}

inline LabelMap Labels(const prometheus::ClientMetric& metric) {
  LabelMap labels;
  for (const prometheus::ClientMetric::Label& label : metric.label) {
    labels[label.name] = label.value;
  }
  return labels;
}

// The series of family `name` with exactly `labels`, or null.
inline const prometheus::ClientMetric* FindSeries(
    const std::vector<prometheus::MetricFamily>& families,
    const std::string& name, const LabelMap& labels) {
  const prometheus::MetricFamily* family = FindFamily(families, name);
  if (family == nullptr) return nullptr;
  for (const prometheus::ClientMetric& metric : family->metric) {
    if (Labels(metric) == labels) return &metric;
  }
  return nullptr;
}

// A counter's or gauge's value; -1 when the series does not exist.
inline double Value(const std::vector<prometheus::MetricFamily>& families,
                    const std::string& name, const LabelMap& labels) {
  const prometheus::MetricFamily* family = FindFamily(families, name);
  const prometheus::ClientMetric* metric = FindSeries(families, name, labels);
  if (metric == nullptr) return -1;
  return family->type == prometheus::MetricType::Counter ? metric->counter.value
                                                         : metric->gauge.value;
}

// A histogram's observation count; 0 when the series is absent (empty
// histograms are left out of the exposition).
inline double HistogramCount(
    const std::vector<prometheus::MetricFamily>& families,
    const LabelMap& labels,
    const std::string& name = "halma_rpc_duration_seconds") {
  const prometheus::ClientMetric* metric = FindSeries(families, name, labels);
  return metric == nullptr
             ? 0
             : static_cast<double>(metric->histogram.sample_count);
}

}  // namespace halma::service::metrics

#endif  // HALMA_TESTS_METRICS_METRICS_TEST_UTIL_H_
