#include "service/metrics/metrics.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "service/metrics/latency_histogram.h"
#include "service/metrics/process_collector.h"
#include "tests/metrics/metrics_test_util.h"

namespace halma::service::metrics {
namespace {

using ::testing::HasSubstr;

constexpr char kLegalMoves[] = "halma.v1.HalmaRules/LegalMoves";

std::unique_ptr<Metrics> MustCreate() {
  absl::StatusOr<std::unique_ptr<Metrics>> metrics = Metrics::Create(
      {.version = "1.2.3",
       .flood_fill_kernel = "avx2",
       .preset_names = {"brainking-8x8", "brainking-10x10", "halma-16x16"}});
  EXPECT_TRUE(metrics.ok()) << metrics.status();
  return metrics.ok() ? *std::move(metrics) : nullptr;
}

v1::Variant Preset(const std::string& name) {
  v1::Variant variant;
  variant.set_preset(name);
  return variant;
}

// Series per family, histograms included.
std::map<std::string, std::size_t> SeriesCounts(const Metrics& metrics) {
  std::map<std::string, std::size_t> counts;
  for (const prometheus::MetricFamily& family : metrics.Collect()) {
    counts[family.name] = family.metric.size();
  }
  return counts;
}

TEST(MetricsNamesTest, MethodNamesRoundTrip) {
  for (int i = 0; i < kMethodCount; ++i) {
    const Method method = static_cast<Method>(i);
    EXPECT_EQ(MethodFromName(MethodName(method)), method) << i;
    EXPECT_EQ(MethodFromName(absl::StrCat("/", MethodName(method))), method);
  }
  EXPECT_EQ(MethodFromName("/halma.v1.HalmaRules/LegalMoves"),
            Method::kLegalMoves);
  EXPECT_EQ(MethodFromName("/halma.v1.HalmaRules/Nope"), Method::kOther);
  EXPECT_EQ(MethodFromName(""), Method::kOther);
  EXPECT_EQ(MethodFromName("/"), Method::kOther);
  EXPECT_EQ(MethodName(static_cast<Method>(200)), "other");
  EXPECT_EQ(CodeName(absl::StatusCode::kInvalidArgument), "INVALID_ARGUMENT");
  EXPECT_EQ(CodeName(absl::StatusCode::kUnauthenticated), "UNAUTHENTICATED");
  // absl::StatusCode has no fixed underlying type, so only 0..31 are
  // values of it (a cast of 99 or -1 would be undefined: UBSan says so);
  // 17..31 are the ones with no name.
  EXPECT_EQ(CodeName(static_cast<absl::StatusCode>(17)), "UNKNOWN");
  EXPECT_EQ(CodeName(static_cast<absl::StatusCode>(31)), "UNKNOWN");
  EXPECT_EQ(LimitName(Limit::kMaxRecordMoves), "max_record_moves");
  EXPECT_EQ(ProtocolName(Protocol::kConnect), "connect");
}

TEST(MetricsTest, CreateRefusesBadPresetNames) {
  for (const std::vector<std::string>& names :
       std::vector<std::vector<std::string>>{
           {"a", "a"}, {""}, {"custom"}, {"b", "unknown"}}) {
    MetricsOptions options;
    options.preset_names = names;
    absl::StatusOr<std::unique_ptr<Metrics>> metrics = Metrics::Create(options);
    EXPECT_EQ(metrics.status().code(), absl::StatusCode::kInvalidArgument)
        << names.back();
  }
  std::vector<std::string> many;
  for (int i = 0; i <= Metrics::kMaxPresets; ++i) {
    many.push_back(absl::StrCat("p", i));
  }
  MetricsOptions options;
  options.preset_names = many;
  EXPECT_EQ(Metrics::Create(options).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(MetricsTest, EverySeriesExistsAtZeroBeforeAnyCall) {
  std::unique_ptr<Metrics> metrics = MustCreate();
  const auto families = metrics->Collect();
  EXPECT_EQ(Value(families, "halma_rpc_calls_total",
                  {{"method", kLegalMoves},
                   {"code", "DATA_LOSS"},
                   {"protocol", "connect"}}),
            0);
  EXPECT_EQ(
      FindFamily(families, "halma_rpc_calls_total")->metric.size(),
      static_cast<std::size_t>(kProtocolCount * kMethodCount * kCodeCount));
  EXPECT_EQ(
      Value(families, "halma_rpc_calls_in_flight",
            {{"method", "grpc.health.v1.Health/Watch"}, {"protocol", "grpc"}}),
      0);
  EXPECT_EQ(Value(families, "halma_illegal_moves_total",
                  {{"reason", "ILLEGAL_REASON_UNREACHABLE"}}),
            0);
  EXPECT_EQ(Value(families, "halma_rejected_calls_total",
                  {{"limit", "max_call_seconds"}}),
            0);
  EXPECT_EQ(Value(families, "halma_variant_calls_total",
                  {{"method", "halma.v1.HalmaRules/Adjudicate"},
                   {"variant", "halma-16x16"}}),
            0);
  // The histogram family is there, empty, until a call is recorded.
  ASSERT_NE(FindFamily(families, "halma_rpc_duration_seconds"), nullptr);
  EXPECT_TRUE(
      FindFamily(families, "halma_rpc_duration_seconds")->metric.empty());
}

TEST(MetricsTest, RecordCallCountsLatencyAndBytes) {
  std::unique_ptr<Metrics> metrics = MustCreate();
  metrics->RecordCall(Protocol::kGrpc, Method::kLegalMoves,
                      absl::StatusCode::kOk, absl::Microseconds(30), 40, 700);
  metrics->RecordCall(Protocol::kGrpc, Method::kLegalMoves,
                      absl::StatusCode::kOk, absl::Milliseconds(3), 60, 300);
  metrics->RecordCall(Protocol::kGrpc, Method::kLegalMoves,
                      absl::StatusCode::kInvalidArgument, absl::Microseconds(5),
                      10, 0);
  metrics->RecordCall(Protocol::kConnect, Method::kLegalMoves,
                      absl::StatusCode::kDeadlineExceeded, absl::Seconds(20), 1,
                      2);
  const auto families = metrics->Collect();
  const LabelMap ok = {
      {"method", kLegalMoves}, {"code", "OK"}, {"protocol", "grpc"}};
  EXPECT_EQ(Value(families, "halma_rpc_calls_total", ok), 2);
  EXPECT_EQ(Value(families, "halma_rpc_calls_total",
                  {{"method", kLegalMoves},
                   {"code", "INVALID_ARGUMENT"},
                   {"protocol", "grpc"}}),
            1);
  EXPECT_EQ(Value(families, "halma_rpc_calls_total",
                  {{"method", kLegalMoves},
                   {"code", "DEADLINE_EXCEEDED"},
                   {"protocol", "connect"}}),
            1);
  EXPECT_EQ(Value(families, "halma_rpc_request_bytes_total",
                  {{"method", kLegalMoves}, {"protocol", "grpc"}}),
            110);
  EXPECT_EQ(Value(families, "halma_rpc_response_bytes_total",
                  {{"method", kLegalMoves}, {"protocol", "grpc"}}),
            1000);
  EXPECT_EQ(Value(families, "halma_rpc_response_bytes_total",
                  {{"method", kLegalMoves}, {"protocol", "connect"}}),
            2);

  const prometheus::ClientMetric* histogram =
      FindSeries(families, "halma_rpc_duration_seconds", ok);
  ASSERT_NE(histogram, nullptr);
  EXPECT_EQ(histogram->histogram.sample_count, 2u);
  EXPECT_NEAR(histogram->histogram.sample_sum, 0.00303, 1e-12);
  const auto& buckets = histogram->histogram.bucket;
  ASSERT_EQ(buckets.size(), LatencyHistogram::kBucketCount + 1u);
  // 30 us is in (25 us, 50 us]; 3 ms in (2.5 ms, 5 ms].
  EXPECT_EQ(buckets[0].upper_bound, 1e-05);
  EXPECT_EQ(buckets[1].cumulative_count, 0u);  // le 25 us
  EXPECT_EQ(buckets[2].upper_bound, 5e-05);
  EXPECT_EQ(buckets[2].cumulative_count, 1u);  // le 50 us
  EXPECT_EQ(buckets[7].cumulative_count, 1u);  // le 2.5 ms
  EXPECT_EQ(buckets[8].upper_bound, 0.005);
  EXPECT_EQ(buckets[8].cumulative_count, 2u);  // le 5 ms
  EXPECT_EQ(buckets[18].upper_bound, 10.0);
  EXPECT_TRUE(std::isinf(buckets.back().upper_bound));
  EXPECT_EQ(buckets.back().cumulative_count, 2u);
  // 20 s is past the last bound: only +Inf holds it.
  const prometheus::ClientMetric* slow =
      FindSeries(families, "halma_rpc_duration_seconds",
                 {{"method", kLegalMoves},
                  {"code", "DEADLINE_EXCEEDED"},
                  {"protocol", "connect"}});
  ASSERT_NE(slow, nullptr);
  EXPECT_EQ(slow->histogram.bucket[18].cumulative_count, 0u);
  EXPECT_EQ(slow->histogram.bucket.back().cumulative_count, 1u);
  // Only the three histograms that saw a call are exposed.
  EXPECT_EQ(FindFamily(families, "halma_rpc_duration_seconds")->metric.size(),
            3u);
}

TEST(MetricsTest, BoundaryLatencyFallsInItsOwnBucket) {
  LatencyHistogram histogram;
  histogram.Observe(absl::Microseconds(10));  // le="1e-05" is inclusive.
  histogram.Observe(absl::Nanoseconds(10'001));
  histogram.Observe(-absl::Seconds(1));  // A clock step: counts as zero.
  const prometheus::ClientMetric::Histogram collected = histogram.Collect();
  EXPECT_EQ(collected.bucket[0].cumulative_count, 2u);
  EXPECT_EQ(collected.bucket[1].cumulative_count, 3u);
  EXPECT_EQ(histogram.Count(), 3u);
}

TEST(MetricsTest, InFlightCallsGoUpAndDown) {
  std::unique_ptr<Metrics> metrics = MustCreate();
  const LabelMap adjudicate = {{"method", "halma.v1.HalmaRules/Adjudicate"},
                               {"protocol", "connect"}};
  {
    Metrics::InFlightCall first(*metrics, Protocol::kConnect,
                                Method::kAdjudicate);
    metrics->CallStarted(Protocol::kConnect, Method::kAdjudicate);
    EXPECT_EQ(
        Value(metrics->Collect(), "halma_rpc_calls_in_flight", adjudicate), 2);
    metrics->CallFinished(Protocol::kConnect, Method::kAdjudicate);
  }
  EXPECT_EQ(Value(metrics->Collect(), "halma_rpc_calls_in_flight", adjudicate),
            0);
}

TEST(MetricsTest, VariantsByPresetCustomOrUnknown) {
  std::unique_ptr<Metrics> metrics = MustCreate();
  metrics->RecordVariant(Method::kLegalMoves, Preset("brainking-8x8"));
  metrics->RecordVariant(Method::kLegalMoves, Preset("brainking-8x8"));
  metrics->RecordVariant(Method::kAdjudicate, Preset("halma-16x16"));
  v1::Variant custom;
  custom.mutable_custom()->set_board_size(9);
  metrics->RecordVariant(Method::kValidateMove, custom);
  metrics->RecordVariant(Method::kValidateMove, Preset("no-such-preset"));
  metrics->RecordVariant(Method::kValidateMove, v1::Variant());
  metrics->RecordVariant(Method::kPerft, Preset("halma-16x16"));
  metrics->RecordVariant(Method::kSuggestMove, Preset("brainking-10x10"));
  metrics->RecordVariant(Method::kSuggestMove, Preset("brainking-10x10"));
  // ListVariants names no variant: ignored.
  metrics->RecordVariant(Method::kListVariants, Preset("brainking-8x8"));
  const auto families = metrics->Collect();
  auto variant = [&](const std::string& method, const std::string& name) {
    return Value(families, "halma_variant_calls_total",
                 {{"method", absl::StrCat("halma.v1.HalmaRules/", method)},
                  {"variant", name}});
  };
  EXPECT_EQ(variant("LegalMoves", "brainking-8x8"), 2);
  EXPECT_EQ(variant("Adjudicate", "halma-16x16"), 1);
  EXPECT_EQ(variant("ValidateMove", "custom"), 1);
  EXPECT_EQ(variant("ValidateMove", "unknown"), 2);
  EXPECT_EQ(variant("Perft", "halma-16x16"), 1);
  EXPECT_EQ(variant("SuggestMove", "brainking-10x10"), 2);
  EXPECT_EQ(variant("ValidateMove", "no-such-preset"), -1);
  EXPECT_EQ(variant("ListVariants", "brainking-8x8"), -1);
}

TEST(MetricsTest, IllegalReasonsAndRejectedLimits) {
  std::unique_ptr<Metrics> metrics = MustCreate();
  metrics->RecordIllegal(v1::ILLEGAL_REASON_NOT_A_HOP);
  metrics->RecordIllegal(v1::ILLEGAL_REASON_NOT_A_HOP);
  metrics->RecordIllegal(v1::ILLEGAL_REASON_GAME_OVER);
  metrics->RecordRejected(Limit::kMaxConcurrentAdjudications);
  metrics->RecordRejected(Limit::kMaxMessageBytes);
  metrics->RecordRejected(Limit::kMaxMessageBytes);
  const auto families = metrics->Collect();
  EXPECT_EQ(Value(families, "halma_illegal_moves_total",
                  {{"reason", "ILLEGAL_REASON_NOT_A_HOP"}}),
            2);
  EXPECT_EQ(Value(families, "halma_illegal_moves_total",
                  {{"reason", "ILLEGAL_REASON_GAME_OVER"}}),
            1);
  // Every value of the enum has its series, and only those.
  EXPECT_EQ(
      FindFamily(families, "halma_illegal_moves_total")->metric.size(),
      static_cast<std::size_t>(v1::IllegalReason_descriptor()->value_count()));
  EXPECT_EQ(Value(families, "halma_rejected_calls_total",
                  {{"limit", "max_concurrent_adjudications"}}),
            1);
  EXPECT_EQ(Value(families, "halma_rejected_calls_total",
                  {{"limit", "max_message_bytes"}}),
            2);
  EXPECT_EQ(Value(families, "halma_rejected_calls_total",
                  {{"limit", "max_record_moves"}}),
            0);
}

TEST(MetricsTest, BuildInfo) {
  std::unique_ptr<Metrics> metrics = MustCreate();
  EXPECT_EQ(Value(metrics->Collect(), "halma_build_info",
                  {{"version", "1.2.3"}, {"flood_fill_kernel", "avx2"}}),
            1);
  EXPECT_THAT(metrics->Exposition(),
              HasSubstr("halma_build_info{flood_fill_kernel=\"avx2\","
                        "version=\"1.2.3\"} 1\n"));
}

TEST(MetricsTest, HostileValuesAddNoSeries) {
  std::unique_ptr<Metrics> metrics = MustCreate();
  // Every histogram once, so that they are all exposed from here on.
  for (int p = 0; p < kProtocolCount; ++p) {
    for (int m = 0; m < kMethodCount; ++m) {
      for (int c = 0; c < kCodeCount; ++c) {
        metrics->RecordCall(static_cast<Protocol>(p), static_cast<Method>(m),
                            static_cast<absl::StatusCode>(c),
                            absl::Microseconds(1), 1, 1);
      }
    }
  }
  const std::map<std::string, std::size_t> before = SeriesCounts(*metrics);
  EXPECT_EQ(
      before.at("halma_rpc_duration_seconds"),
      static_cast<std::size_t>(kProtocolCount * kMethodCount * kCodeCount));

  for (int i = 0; i < 2000; ++i) {
    const std::string junk = absl::StrCat("preset-", i, "\"\n\\{}");
    metrics->RecordVariant(Method::kAdjudicate, Preset(junk));
    metrics->RecordVariant(static_cast<Method>(i % 256), Preset(junk));
    metrics->RecordCall(
        static_cast<Protocol>(i % 256), static_cast<Method>(i % 256),
        static_cast<absl::StatusCode>(i % 32), absl::Microseconds(i), i, i);
    metrics->CallStarted(static_cast<Protocol>(i % 7),
                         static_cast<Method>(i % 256));
    metrics->CallFinished(static_cast<Protocol>(i % 7),
                          static_cast<Method>(i % 256));
    metrics->RecordIllegal(static_cast<v1::IllegalReason>(i - 1000));
    metrics->RecordRejected(static_cast<Limit>(i % 256));
  }
  EXPECT_EQ(SeriesCounts(*metrics), before);

  // The junk went to the fallback series.
  const auto families = metrics->Collect();
  EXPECT_EQ(Value(families, "halma_variant_calls_total",
                  {{"method", "halma.v1.HalmaRules/Adjudicate"},
                   {"variant", "unknown"}}),
            2000 + 8);  // And the 8 times i % 256 was kAdjudicate.
  EXPECT_GT(Value(families, "halma_illegal_moves_total",
                  {{"reason", "ILLEGAL_REASON_UNSPECIFIED"}}),
            1900);
  // Every label value is one of the known ones.
  std::set<std::string> methods;
  for (int m = 0; m < kMethodCount; ++m) {
    methods.insert(std::string(MethodName(static_cast<Method>(m))));
  }
  for (const prometheus::ClientMetric& metric :
       FindFamily(families, "halma_rpc_calls_total")->metric) {
    EXPECT_TRUE(methods.count(Labels(metric).at("method")));
  }
}

TEST(MetricsTest, ConcurrentRecordsAreAllCounted) {
  std::unique_ptr<Metrics> metrics = MustCreate();
  constexpr int kThreads = 4;
  constexpr int kCalls = 20000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&metrics] {
      for (int i = 0; i < kCalls; ++i) {
        Metrics::InFlightCall call(*metrics, Protocol::kGrpc,
                                   Method::kValidateMove);
        metrics->RecordCall(Protocol::kGrpc, Method::kValidateMove,
                            absl::StatusCode::kOk, absl::Microseconds(i % 100),
                            3, 5);
        metrics->RecordVariant(Method::kValidateMove, Preset("halma-16x16"));
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  const auto families = metrics->Collect();
  const LabelMap ok = {{"method", "halma.v1.HalmaRules/ValidateMove"},
                       {"code", "OK"},
                       {"protocol", "grpc"}};
  EXPECT_EQ(Value(families, "halma_rpc_calls_total", ok), kThreads * kCalls);
  EXPECT_EQ(HistogramCount(families, ok), kThreads * kCalls);
  EXPECT_EQ(Value(families, "halma_rpc_request_bytes_total",
                  {{"method", "halma.v1.HalmaRules/ValidateMove"},
                   {"protocol", "grpc"}}),
            3.0 * kThreads * kCalls);
  EXPECT_EQ(Value(families, "halma_rpc_calls_in_flight",
                  {{"method", "halma.v1.HalmaRules/ValidateMove"},
                   {"protocol", "grpc"}}),
            0);
  EXPECT_EQ(Value(families, "halma_variant_calls_total",
                  {{"method", "halma.v1.HalmaRules/ValidateMove"},
                   {"variant", "halma-16x16"}}),
            kThreads * kCalls);
}

TEST(ProcessCollectorTest, ParsesStatWithAWickedCommandName) {
  // Fields 3.. of a real /proc/<pid>/stat; the name holds ") (" and spaces.
  const std::string stat =
      "4242 (my) (odd prog) S 1 4242 4242 0 -1 4194560 1205 0 0 0 "
      "250 125 0 0 20 0 7 0 98765 123456789 2048 18446744073709551615 1 1 0 "
      "0 0 0 0 0 0 0 0 0 17 1 0 0 0 0 0\n";
  absl::StatusOr<ProcStat> parsed = ParseProcStat(stat);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->utime_ticks, 250u);
  EXPECT_EQ(parsed->stime_ticks, 125u);
  EXPECT_EQ(parsed->threads, 7);
  EXPECT_EQ(parsed->start_ticks, 98765u);
  EXPECT_EQ(parsed->virtual_bytes, 123456789u);
  EXPECT_EQ(parsed->resident_pages, 2048);

  EXPECT_FALSE(ParseProcStat("no parenthesis").ok());
  EXPECT_FALSE(ParseProcStat("1 (x) S 1 2 3").ok());
  EXPECT_EQ(*ParseBootTime("cpu 1 2 3\nbtime 1700000000\nprocesses 9\n"),
            1700000000);
  EXPECT_FALSE(ParseBootTime("cpu 1 2 3\n").ok());
  EXPECT_FALSE(ParseBootTime("btime soon\n").ok());
}

TEST(ProcessCollectorTest, ReadsThisProcess) {
  ProcessCollector collector;
  absl::StatusOr<ProcessStats> stats = collector.Read();
  ASSERT_TRUE(stats.ok()) << stats.status();
  EXPECT_GT(stats->resident_memory_bytes, 1 << 20);
  EXPECT_GE(stats->virtual_memory_bytes, stats->resident_memory_bytes);
  EXPECT_GE(stats->threads, 1);
  EXPECT_GE(stats->open_fds, 3);  // stdin, stdout, stderr.
  EXPECT_GT(stats->max_fds, stats->open_fds);
  const double now = absl::ToDoubleSeconds(absl::Now() - absl::UnixEpoch());
  EXPECT_LE(stats->start_time_seconds, now + 1);
  EXPECT_GT(stats->start_time_seconds, now - 3600);

  // A new thread and a new descriptor show at the next read.
  const int fd = dup(1);
  std::thread sleeper([] { absl::SleepFor(absl::Milliseconds(300)); });
  absl::SleepFor(absl::Milliseconds(50));
  absl::StatusOr<ProcessStats> later = collector.Read();
  ASSERT_TRUE(later.ok());
  EXPECT_EQ(later->open_fds, stats->open_fds + 1);
  EXPECT_GE(later->threads, stats->threads + 1);
  EXPECT_GE(later->cpu_seconds, stats->cpu_seconds);
  sleeper.join();
  close(fd);
}

TEST(ProcessCollectorTest, NoProcGivesAnErrorAndNoFamilies) {
  ProcessCollector collector("/nonexistent-proc");
  EXPECT_EQ(collector.Read().status().code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(collector.Collect().empty());
}

TEST(MetricsTest, ExpositionHasTheProcessMetrics) {
  std::unique_ptr<Metrics> metrics = MustCreate();
  const std::string text = metrics->Exposition();
  for (const char* name :
       {"process_cpu_seconds_total", "process_resident_memory_bytes",
        "process_virtual_memory_bytes", "process_open_fds", "process_max_fds",
        "process_threads", "process_start_time_seconds"}) {
    EXPECT_THAT(text, HasSubstr(absl::StrCat("\n", name, " "))) << name;
  }
  EXPECT_THAT(text, HasSubstr("# TYPE process_cpu_seconds_total counter\n"));
  EXPECT_THAT(text, HasSubstr("# TYPE halma_rpc_duration_seconds histogram\n"));
}

// promtool (Debian's prometheus package) over the exposition of a registry
// with every kind of series filled in: the format and Prometheus' naming
// lints (units, _total on counters only, ...).
TEST(MetricsTest, ExpositionPassesPromtool) {
  const std::string promtool = HALMA_PROMTOOL;
  ASSERT_FALSE(promtool.empty())
      << "promtool not found at configure time: apt-get install prometheus";
  std::unique_ptr<Metrics> metrics = MustCreate();
  metrics->RecordCall(Protocol::kGrpc, Method::kLegalMoves,
                      absl::StatusCode::kOk, absl::Microseconds(42), 20, 900);
  metrics->RecordCall(Protocol::kConnect, Method::kAdjudicate,
                      absl::StatusCode::kResourceExhausted, absl::Seconds(30),
                      1, 1);
  metrics->RecordVariant(Method::kLegalMoves, Preset("brainking-8x8"));
  metrics->RecordIllegal(v1::ILLEGAL_REASON_UNREACHABLE);
  metrics->RecordRejected(Limit::kMaxCallSeconds);
  const std::string text = metrics->Exposition();

  char path[] = "/tmp/halma_metrics_XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  std::ofstream(path) << text;
  const std::string command =
      absl::StrCat(promtool, " check metrics < ", path, " 2>&1");
  FILE* pipe = popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string output;
  char buffer[4096];
  while (std::size_t n = fread(buffer, 1, sizeof(buffer), pipe)) {
    output.append(buffer, n);
  }
  const int status = pclose(pipe);
  unlink(path);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
      << "promtool exit status " << status << ":\n"
      << output;
  EXPECT_EQ(output, "");
  // And it does complain about a bad one (the check can fail).
  std::ofstream(path) << "# TYPE bad_counter counter\nbad_counter 1\n";
  pipe = popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  output.clear();
  while (std::size_t n = fread(buffer, 1, sizeof(buffer), pipe)) {
    output.append(buffer, n);
  }
  pclose(pipe);
  unlink(path);
  EXPECT_THAT(output, HasSubstr("_total"));
}

}  // namespace
}  // namespace halma::service::metrics
