// What the observing interceptor (service/grpc/interceptor.h) adds to a
// whole gRPC call: Health/Check (the cheapest call, so the overhead shows
// most) over loopback, with and without it. HalmaRules' calls have none:
// their handlers observe themselves. Not a test: run
// halma_interceptor_bench.
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "grpcpp/grpcpp.h"
#include "service/grpc/health.h"
#include "service/grpc/interceptor.h"
#include "service/metrics/metrics.h"
#include "service/observe/call_observer.h"

namespace halma::service {
namespace {

void BM_HealthCheckCall(benchmark::State& state) {
  const bool intercepted = state.range(0) != 0;
  std::unique_ptr<metrics::Metrics> metrics = *metrics::Metrics::Create({});
  CallObserver observer(metrics.get(), nullptr);
  HealthService health;
  health.SetServingStatus("", true);
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(),
                           &port);
  builder.RegisterService(&health);
  if (intercepted) {
    std::vector<
        std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>>
        creators;
    creators.push_back(
        std::make_unique<ObservingInterceptorFactory>(&observer));
    builder.experimental().SetInterceptorCreators(std::move(creators));
  }
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  auto stub = grpc::health::v1::Health::NewStub(grpc::CreateChannel(
      "127.0.0.1:" + std::to_string(port), grpc::InsecureChannelCredentials()));
  for (auto _ : state) {
    grpc::ClientContext context;
    grpc::health::v1::HealthCheckResponse response;
    if (!stub->Check(&context, grpc::health::v1::HealthCheckRequest(),
                     &response)
             .ok()) {
      state.SkipWithError("call failed");
      break;
    }
  }
  server->Shutdown(std::chrono::system_clock::now());
}
BENCHMARK(BM_HealthCheckCall)->Arg(0)->Arg(1)->UseRealTime();

}  // namespace
}  // namespace halma::service
