// What the metrics interceptor adds to a whole gRPC call: ListVariants (the
// cheapest RPC, so the overhead shows most) over loopback, with and
// without the interceptor. Not a test: run metrics_interceptor_bench.
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "grpcpp/grpcpp.h"
#include "halma/v1/halma.grpc.pb.h"
#include "service/halma_rules_service.h"
#include "service/metrics/metrics.h"

namespace halma::service::metrics {
namespace {

void BM_ListVariantsCall(benchmark::State& state) {
  const bool intercepted = state.range(0) != 0;
  std::unique_ptr<Metrics> metrics = *Metrics::Create({});
  HalmaRulesService rules;
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(),
                           &port);
  builder.RegisterService(&rules);
  if (intercepted) {
    std::vector<
        std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>>
        creators;
    creators.push_back(metrics->NewInterceptorFactory());
    builder.experimental().SetInterceptorCreators(std::move(creators));
  }
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  auto stub = v1::HalmaRules::NewStub(grpc::CreateChannel(
      "127.0.0.1:" + std::to_string(port), grpc::InsecureChannelCredentials()));
  for (auto _ : state) {
    grpc::ClientContext context;
    v1::ListVariantsResponse response;
    if (!stub->ListVariants(&context, v1::ListVariantsRequest(), &response)
             .ok()) {
      state.SkipWithError("call failed");
      break;
    }
  }
  server->Shutdown(std::chrono::system_clock::now());
}
BENCHMARK(BM_ListVariantsCall)->Arg(0)->Arg(1)->UseRealTime();

}  // namespace
}  // namespace halma::service::metrics
