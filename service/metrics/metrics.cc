#include "service/metrics/metrics.h"

#include <algorithm>
#include <exception>
#include <utility>

#include "absl/strings/str_cat.h"
#include "google/protobuf/descriptor.h"
#include "prometheus/text_serializer.h"

namespace halma::service::metrics {
namespace {

constexpr std::array<absl::string_view, kMethodCount> kMethodNames = {
#define HALMA_METRICS_METHOD_NAME(name, work) "halma.v1.HalmaRules/" #name,
    HALMA_RULES_METHODS(HALMA_METRICS_METHOD_NAME)
#undef HALMA_METRICS_METHOD_NAME
        "grpc.health.v1.Health/Check",
    "grpc.health.v1.Health/Watch",
    "grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
    "grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
    "other",
};

constexpr std::array<absl::string_view, kCodeCount> kCodeNames = {
    "OK",
    "CANCELLED",
    "UNKNOWN",
    "INVALID_ARGUMENT",
    "DEADLINE_EXCEEDED",
    "NOT_FOUND",
    "ALREADY_EXISTS",
    "PERMISSION_DENIED",
    "RESOURCE_EXHAUSTED",
    "FAILED_PRECONDITION",
    "ABORTED",
    "OUT_OF_RANGE",
    "UNIMPLEMENTED",
    "INTERNAL",
    "UNAVAILABLE",
    "DATA_LOSS",
    "UNAUTHENTICATED",
};

constexpr std::array<absl::string_view, kLimitCount> kLimitNames = {
    "max_concurrent_adjudications",
    "max_record_moves",
    "max_message_bytes",
    "max_call_seconds",
    "max_queue_length",
    "max_queue_wait_ms",
    "max_suggest_nodes",
    "max_suggest_time_ms",
};

constexpr std::array<absl::string_view, kSuggestLevelCount> kSuggestLevels = {
    "default", "1", "2", "3", "4", "5", "6", "7", "8", "budget"};

constexpr absl::string_view kCustomVariant = "custom";
constexpr absl::string_view kUnknownVariant = "unknown";

// IllegalReason numbers above this are not expected (the enum has a dozen);
// it bounds the lookup table.
constexpr int kMaxIllegalReasonNumber = 255;

std::string Str(absl::string_view text) { return std::string(text); }

}  // namespace

absl::string_view ProtocolName(Protocol protocol) {
  return protocol == Protocol::kConnect ? "connect" : "grpc";
}

absl::string_view MethodName(Method method) {
  const int index = static_cast<int>(method);
  return index < kMethodCount ? kMethodNames[index] : kMethodNames.back();
}

Method MethodFromName(absl::string_view name) {
  if (!name.empty() && name.front() == '/') name.remove_prefix(1);
  for (int i = 0; i + 1 < kMethodCount; ++i) {
    if (kMethodNames[i] == name) return static_cast<Method>(i);
  }
  return Method::kOther;
}

absl::string_view CodeName(absl::StatusCode code) {
  const int index = static_cast<int>(code);
  return index >= 0 && index < kCodeCount
             ? kCodeNames[index]
             : kCodeNames[static_cast<int>(absl::StatusCode::kUnknown)];
}

absl::string_view LimitName(Limit limit) {
  const int index = static_cast<int>(limit);
  return index < kLimitCount ? kLimitNames[index] : "unknown";
}

bool LimitFromName(absl::string_view name, Limit* limit) {
  for (int i = 0; i < kLimitCount; ++i) {
    if (kLimitNames[i] == name) {
      *limit = static_cast<Limit>(i);
      return true;
    }
  }
  return false;
}

absl::StatusOr<std::unique_ptr<Metrics>> Metrics::Create(
    const MetricsOptions& options) {
  if (options.preset_names.size() > static_cast<std::size_t>(kMaxPresets)) {
    return absl::InvalidArgumentError(
        absl::StrCat("preset_names: ", options.preset_names.size(),
                     " names, more than ", kMaxPresets));
  }
  for (std::size_t i = 0; i < options.preset_names.size(); ++i) {
    const std::string& name = options.preset_names[i];
    if (name.empty() || name == kCustomVariant || name == kUnknownVariant) {
      return absl::InvalidArgumentError(
          absl::StrCat("preset_names[", i, "]: \"", name,
                       "\" is empty or a reserved label value"));
    }
    for (std::size_t j = 0; j < i; ++j) {
      if (options.preset_names[j] == name) {
        return absl::InvalidArgumentError(
            absl::StrCat("preset_names[", i, "]: \"", name, "\" given twice"));
      }
    }
  }
  std::unique_ptr<Metrics> metrics(new Metrics(options));
  // prometheus-cpp reports bad names and label sets by throwing; none is
  // expected (every name here is a constant), but it must not escape.
  try {
    if (absl::Status status = metrics->Build(options); !status.ok()) {
      return status;
    }
  } catch (const std::exception& error) {
    return absl::InternalError(
        absl::StrCat("prometheus-cpp refused a metric: ", error.what()));
  }
  return metrics;
}

Metrics::Metrics(const MetricsOptions& options)
    : registry_(std::make_shared<prometheus::Registry>()),
      process_(options.proc),
      preset_names_(options.preset_names),
      latency_(
          std::make_unique<std::array<
              LatencyHistogram, kProtocolCount * kMethodCount * kCodeCount>>()),
      queue_wait_(
          std::make_unique<std::array<LatencyHistogram, kMethodCount>>()) {}

Metrics::~Metrics() = default;

absl::Status Metrics::Build(const MetricsOptions& options) {
  prometheus::Registry& registry = *registry_;
  auto& calls = prometheus::BuildCounter()
                    .Name("halma_rpc_calls_total")
                    .Help(
                        "Calls answered, by method, status code and "
                        "protocol.")
                    .Register(registry);
  auto& request_bytes =
      prometheus::BuildCounter()
          .Name("halma_rpc_request_bytes_total")
          .Help(
              "Bytes of request messages received, as sent (protobuf; JSON "
              "or protobuf over Connect); none for gRPC calls of the "
              "generated, non-raw methods (Health, reflection).")
          .Register(registry);
  auto& response_bytes =
      prometheus::BuildCounter()
          .Name("halma_rpc_response_bytes_total")
          .Help(
              "Bytes of response messages sent, as sent (protobuf; JSON or "
              "protobuf over Connect).")
          .Register(registry);
  auto& in_flight = prometheus::BuildGauge()
                        .Name("halma_rpc_calls_in_flight")
                        .Help("Calls being answered now.")
                        .Register(registry);
  for (int p = 0; p < kProtocolCount; ++p) {
    const std::string protocol = Str(ProtocolName(static_cast<Protocol>(p)));
    for (int m = 0; m < kMethodCount; ++m) {
      const std::string method = Str(kMethodNames[m]);
      const int index = p * kMethodCount + m;
      const prometheus::Labels labels = {{"method", method},
                                         {"protocol", protocol}};
      request_bytes_[index] = &request_bytes.Add(labels);
      response_bytes_[index] = &response_bytes.Add(labels);
      in_flight_[index] = &in_flight.Add(labels);
      for (int c = 0; c < kCodeCount; ++c) {
        calls_[index * kCodeCount + c] =
            &calls.Add({{"method", method},
                        {"code", Str(kCodeNames[c])},
                        {"protocol", protocol}});
      }
    }
  }

  auto& variants = prometheus::BuildCounter()
                       .Name("halma_variant_calls_total")
                       .Help(
                           "Calls by the variant they name: a preset, "
                           "\"custom\", or \"unknown\" (no or an unknown "
                           "preset name).")
                       .Register(registry);
  for (std::size_t r = 0; r < kVariantMethods.size(); ++r) {
    const std::string method =
        Str(kMethodNames[static_cast<int>(kVariantMethods[r])]);
    std::vector<prometheus::Counter*>& row = variants_[r];
    for (const std::string& preset : preset_names_) {
      row.push_back(&variants.Add({{"method", method}, {"variant", preset}}));
    }
    row.push_back(
        &variants.Add({{"method", method}, {"variant", Str(kCustomVariant)}}));
    row.push_back(
        &variants.Add({{"method", method}, {"variant", Str(kUnknownVariant)}}));
  }

  auto& illegal = prometheus::BuildCounter()
                      .Name("halma_illegal_moves_total")
                      .Help(
                          "Answers that a move is illegal (ValidateMove, "
                          "Adjudicate), by reason.")
                      .Register(registry);
  const google::protobuf::EnumDescriptor* reasons =
      v1::IllegalReason_descriptor();
  int max_number = 0;
  for (int i = 0; i < reasons->value_count(); ++i) {
    max_number = std::max(max_number, reasons->value(i)->number());
  }
  if (max_number > kMaxIllegalReasonNumber) {
    return absl::InternalError(absl::StrCat("IllegalReason: value ", max_number,
                                            " is beyond the table's ",
                                            kMaxIllegalReasonNumber));
  }
  prometheus::Counter& unspecified = illegal.Add(
      {{"reason",
        Str(v1::IllegalReason_Name(v1::ILLEGAL_REASON_UNSPECIFIED))}});
  illegal_.assign(max_number + 1, &unspecified);
  for (int i = 0; i < reasons->value_count(); ++i) {
    const google::protobuf::EnumValueDescriptor* value = reasons->value(i);
    if (value->number() < 0) continue;
    illegal_[value->number()] = &illegal.Add({{"reason", value->name()}});
  }

  auto& rejected = prometheus::BuildCounter()
                       .Name("halma_rejected_calls_total")
                       .Help(
                           "Calls refused by one of the server's limits, "
                           "named as its setting (an AdjudicateStream record "
                           "counts as a call).")
                       .Register(registry);
  for (int i = 0; i < kLimitCount; ++i) {
    rejected_[i] = &rejected.Add({{"limit", Str(kLimitNames[i])}});
  }

  auto& suggest_nodes =
      prometheus::BuildHistogram()
          .Name("halma_suggest_nodes")
          .Help(
              "Nodes searched per SuggestMove answered (the sum: nodes "
              "searched), by the level asked for: default, 1 to 8, or "
              "budget.")
          .Register(registry);
  const prometheus::Histogram::BucketBoundaries node_buckets = {
      1e3, 3e3, 1e4, 3e4, 1e5, 3e5, 1e6, 3e6, 1e7, 3e7, 1e8};
  for (int i = 0; i < kSuggestLevelCount; ++i) {
    suggest_nodes_[i] =
        &suggest_nodes.Add({{"level", Str(kSuggestLevels[i])}}, node_buckets);
  }

  prometheus::BuildGauge()
      .Name("halma_build_info")
      .Help("Always 1; the labels say which build is running.")
      .Register(registry)
      .Add({{"version", options.version},
            {"flood_fill_kernel", options.flood_fill_kernel}})
      .Set(1);
  return absl::OkStatus();
}

void Metrics::RecordCall(Protocol protocol, Method method,
                         absl::StatusCode code, absl::Duration latency,
                         std::size_t request_bytes,
                         std::size_t response_bytes) {
  const int call = CallIndex(protocol, method);
  const int series = call * kCodeCount + CodeIndex(code);
  calls_[series]->Increment();
  (*latency_)[series].Observe(latency);
  if (request_bytes > 0) {
    request_bytes_[call]->Increment(static_cast<double>(request_bytes));
  }
  if (response_bytes > 0) {
    response_bytes_[call]->Increment(static_cast<double>(response_bytes));
  }
}

void Metrics::RecordRequestBytes(Protocol protocol, Method method,
                                 std::size_t bytes) {
  if (bytes > 0) {
    request_bytes_[CallIndex(protocol, method)]->Increment(
        static_cast<double>(bytes));
  }
}

void Metrics::CallStarted(Protocol protocol, Method method) {
  in_flight_[CallIndex(protocol, method)]->Increment();
}

void Metrics::CallFinished(Protocol protocol, Method method) {
  in_flight_[CallIndex(protocol, method)]->Decrement();
}

void Metrics::RecordVariant(Method method, const v1::Variant& variant) {
  const int r = VariantRow(method);
  if (r < 0) return;
  std::vector<prometheus::Counter*>& row = variants_[r];
  const std::size_t presets = preset_names_.size();
  std::size_t slot = presets + 1;  // "unknown"
  if (variant.kind_case() == v1::Variant::kCustom) {
    slot = presets;
  } else if (variant.kind_case() == v1::Variant::kPreset) {
    // A linear scan: there are a handful of presets, fewer than a hash
    // costs to compute.
    const std::string& name = variant.preset();
    for (std::size_t i = 0; i < presets; ++i) {
      if (preset_names_[i] == name) {
        slot = i;
        break;
      }
    }
  }
  row[slot]->Increment();
}

void Metrics::RecordIllegal(v1::IllegalReason reason) {
  const int number = static_cast<int>(reason);
  illegal_[number >= 0 && number < static_cast<int>(illegal_.size()) ? number
                                                                     : 0]
      ->Increment();
}

void Metrics::RecordRejected(Limit limit) {
  const int index = static_cast<int>(limit);
  if (index < kLimitCount) rejected_[index]->Increment();
}

absl::string_view SuggestLevelName(int level) {
  return level >= 0 && level < kSuggestLevelCount ? kSuggestLevels[level]
                                                  : "default";
}

void Metrics::RecordSuggestNodes(int level, std::int64_t nodes) {
  suggest_nodes_[level >= 0 && level < kSuggestLevelCount ? level : 0]->Observe(
      static_cast<double>(nodes));
}

void Metrics::RecordQueueWait(Method method, absl::Duration waited) {
  const int index = static_cast<int>(method);
  (*queue_wait_)[index < kMethodCount ? index : kMethodCount - 1].Observe(
      waited);
}

std::vector<prometheus::MetricFamily> Metrics::Collect() const {
  std::vector<prometheus::MetricFamily> families = registry_->Collect();
  // prometheus-cpp keeps series in a hash map; in label order the page is
  // readable and two scrapes diff cleanly.
  for (prometheus::MetricFamily& family : families) {
    std::sort(
        family.metric.begin(), family.metric.end(),
        [](const prometheus::ClientMetric& a,
           const prometheus::ClientMetric& b) { return a.label < b.label; });
  }

  prometheus::MetricFamily latency;
  latency.name = "halma_rpc_duration_seconds";
  latency.help =
      "Time from a call's arrival (its request read) to its status being "
      "sent, by method, status code and protocol.";
  latency.type = prometheus::MetricType::Histogram;
  for (int p = 0; p < kProtocolCount; ++p) {
    for (int m = 0; m < kMethodCount; ++m) {
      for (int c = 0; c < kCodeCount; ++c) {
        const LatencyHistogram& histogram =
            (*latency_)[(p * kMethodCount + m) * kCodeCount + c];
        if (histogram.Count() == 0) continue;
        prometheus::ClientMetric metric;
        metric.label = {
            {"code", Str(kCodeNames[c])},
            {"method", Str(kMethodNames[m])},
            {"protocol", Str(ProtocolName(static_cast<Protocol>(p)))}};
        metric.histogram = histogram.Collect();
        latency.metric.push_back(std::move(metric));
      }
    }
  }
  // An empty family still prints its HELP and TYPE, which tells a reader
  // that the histogram exists before the first call.
  families.push_back(std::move(latency));

  prometheus::MetricFamily queue_wait;
  queue_wait.name = "halma_admission_wait_seconds";
  queue_wait.help =
      "Time an expensive call (Adjudicate, an AdjudicateStream record, "
      "Perft, SuggestMove) waited for a slot of the admission gate, zero when "
      "one was "
      "free; calls refused while waiting included, by method.";
  queue_wait.type = prometheus::MetricType::Histogram;
  for (int m = 0; m < kMethodCount; ++m) {
    const LatencyHistogram& histogram = (*queue_wait_)[m];
    if (histogram.Count() == 0) continue;
    prometheus::ClientMetric metric;
    metric.label = {{"method", Str(kMethodNames[m])}};
    metric.histogram = histogram.Collect();
    queue_wait.metric.push_back(std::move(metric));
  }
  families.push_back(std::move(queue_wait));

  for (prometheus::MetricFamily& family : process_.Collect()) {
    families.push_back(std::move(family));
  }
  return families;
}

std::string Metrics::Exposition() const {
  return prometheus::TextSerializer().Serialize(Collect());
}

}  // namespace halma::service::metrics
