// The cost of recording, per call (not a test: run metrics_bench).
#include <memory>

#include "benchmark/benchmark.h"
#include "service/metrics/metrics.h"

namespace halma::service::metrics {
namespace {

std::unique_ptr<Metrics> NewMetrics() {
  return *Metrics::Create({.version = "bench",
                           .flood_fill_kernel = "bench",
                           .preset_names = {"brainking-8x8", "brainking-10x10",
                                            "iggamecenter-10x10",
                                            "halma-16x16-2", "halma-16x16-4"}});
}

// What the interceptor does for one unary call: in flight +1, the call
// (counter, histogram, two byte counters), in flight -1.
void BM_RecordCall(benchmark::State& state) {
  static Metrics* metrics = NewMetrics().release();
  int i = 0;
  for (auto _ : state) {
    Metrics::InFlightCall call(*metrics, Protocol::kGrpc, Method::kLegalMoves);
    metrics->RecordCall(Protocol::kGrpc, Method::kLegalMoves,
                        absl::StatusCode::kOk,
                        absl::Microseconds(20 + (i++ & 1023)), 48, 1200);
  }
}
BENCHMARK(BM_RecordCall)->Threads(1)->Threads(2);

void BM_RecordCallOnly(benchmark::State& state) {
  static Metrics* metrics = NewMetrics().release();
  for (auto _ : state) {
    metrics->RecordCall(Protocol::kGrpc, Method::kLegalMoves,
                        absl::StatusCode::kOk, absl::Microseconds(42), 48,
                        1200);
  }
}
BENCHMARK(BM_RecordCallOnly);

void BM_RecordVariant(benchmark::State& state) {
  static Metrics* metrics = NewMetrics().release();
  v1::Variant variant;
  variant.set_preset("halma-16x16-4");  // The last one scanned.
  for (auto _ : state) metrics->RecordVariant(Method::kAdjudicate, variant);
}
BENCHMARK(BM_RecordVariant);

void BM_RecordIllegal(benchmark::State& state) {
  static Metrics* metrics = NewMetrics().release();
  for (auto _ : state) metrics->RecordIllegal(v1::ILLEGAL_REASON_NOT_A_HOP);
}
BENCHMARK(BM_RecordIllegal);

void BM_MethodFromName(benchmark::State& state) {
  // Per call in the interceptor factory; the worst case (not found).
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        MethodFromName("/grpc.reflection.v1alpha.ServerReflection/Nope"));
  }
}
BENCHMARK(BM_MethodFromName);

void BM_Exposition(benchmark::State& state) {
  static Metrics* metrics = NewMetrics().release();
  for (auto _ : state) benchmark::DoNotOptimize(metrics->Exposition());
}
BENCHMARK(BM_Exposition);

}  // namespace
}  // namespace halma::service::metrics
