// halma_service_load: a small closed-loop load generator for halma_server.
//
// Without --target it starts an in-process server (the same StartServer the
// binary uses) on 127.0.0.1 and loads it; with --target=HOST:PORT it loads a
// running server. Each client thread has its own channel and sends one
// request after another for --seconds; the tool prints requests/s and
// latency percentiles.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "grpcpp/grpcpp.h"
#include "halma/v1/halma.grpc.pb.h"
#include "service/core/rules_core.h"
#include "service/server/server.h"

ABSL_FLAG(std::string, target, "",
          "host:port of a running server; empty = start one in-process");
ABSL_FLAG(int, threads, 4, "client threads (one channel each)");
ABSL_FLAG(int, seconds, 5, "duration of the run");
ABSL_FLAG(std::string, rpc, "legal_moves",
          "legal_moves, validate_move, adjudicate or list_variants");
ABSL_FLAG(std::string, variant, "brainking-8x8", "preset name");
ABSL_FLAG(std::string, position, "", "position; empty = the start");
ABSL_FLAG(std::string, move, "d1-e2", "move for validate_move");
ABSL_FLAG(bool, direct, false,
          "measure the LegalMoves handler alone (no gRPC), one thread");

namespace {

using halma::v1::HalmaRules;

bool CallOnce(HalmaRules::Stub& stub, const std::string& rpc) {
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::seconds(10));
  halma::v1::Variant variant;
  variant.set_preset(absl::GetFlag(FLAGS_variant));
  if (rpc == "legal_moves") {
    halma::v1::LegalMovesRequest request;
    *request.mutable_variant() = variant;
    request.set_position(absl::GetFlag(FLAGS_position));
    halma::v1::LegalMovesResponse response;
    return stub.LegalMoves(&context, request, &response).ok();
  }
  if (rpc == "validate_move") {
    halma::v1::ValidateMoveRequest request;
    *request.mutable_variant() = variant;
    request.set_position(absl::GetFlag(FLAGS_position));
    request.set_move(absl::GetFlag(FLAGS_move));
    halma::v1::ValidateMoveResponse response;
    return stub.ValidateMove(&context, request, &response).ok();
  }
  if (rpc == "adjudicate") {
    halma::v1::AdjudicateRequest request;
    *request.mutable_variant() = variant;
    for (const char* m : {"b1-d3", "h7-f5", "a2-c4", "h8-f6-f4"}) {
      request.add_moves(m);
    }
    halma::v1::AdjudicateResponse response;
    return stub.Adjudicate(&context, request, &response).ok();
  }
  halma::v1::ListVariantsResponse response;
  return stub
      .ListVariants(&context, halma::v1::ListVariantsRequest(), &response)
      .ok();
}

}  // namespace

// The rules core's own cost: LegalMoves in a loop, without gRPC.
int RunDirect() {
  const halma::service::RulesCore service;
  halma::v1::LegalMovesRequest request;
  request.mutable_variant()->set_preset(absl::GetFlag(FLAGS_variant));
  request.set_position(absl::GetFlag(FLAGS_position));
  const absl::Time start = absl::Now();
  const absl::Time end = start + absl::Seconds(absl::GetFlag(FLAGS_seconds));
  long calls = 0;
  int moves = 0;
  while (absl::Now() < end) {
    for (int i = 0; i < 100; ++i) {
      halma::v1::LegalMovesResponse response;
      if (!service.LegalMoves(request, &response).ok()) return 1;
      moves = response.count();
    }
    calls += 100;
  }
  const double seconds = absl::ToDoubleSeconds(absl::Now() - start);
  std::printf(
      "LegalMoves handler alone: %d moves per answer, %.0f calls/s, "
      "%.1f us per call\n",
      moves, calls / seconds, 1e6 * seconds / calls);
  return 0;
}

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  if (absl::GetFlag(FLAGS_direct)) return RunDirect();
  std::unique_ptr<halma::service::HalmaServer> server;
  std::string target = absl::GetFlag(FLAGS_target);
  if (target.empty()) {
    halma::service::ServerConfig config;
    config.host = "127.0.0.1";
    config.port = 0;
    config.http = false;
    auto started = halma::service::StartServer(config);
    if (!started.ok()) {
      std::fprintf(stderr, "%s\n", started.status().ToString().c_str());
      return 1;
    }
    server = *std::move(started);
    target = server->address();
  }
  const std::string rpc = absl::GetFlag(FLAGS_rpc);
  const int threads = absl::GetFlag(FLAGS_threads);
  const absl::Duration duration = absl::Seconds(absl::GetFlag(FLAGS_seconds));

  std::atomic<bool> stop{false};
  std::atomic<long> failures{0};
  std::vector<std::vector<double>> latencies(threads);
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      // A distinct channel argument keeps channels from sharing a
      // subchannel (one TCP connection per thread).
      grpc::ChannelArguments args;
      args.SetInt("halma.load.channel", t);
      auto stub = HalmaRules::NewStub(grpc::CreateCustomChannel(
          target, grpc::InsecureChannelCredentials(), args));
      CallOnce(*stub, rpc);  // Connect and warm up.
      while (!stop.load(std::memory_order_relaxed)) {
        const absl::Time start = absl::Now();
        if (!CallOnce(*stub, rpc)) ++failures;
        latencies[t].push_back(absl::ToDoubleMicroseconds(absl::Now() - start));
      }
    });
  }
  const absl::Time start = absl::Now();
  absl::SleepFor(duration);
  stop = true;
  for (auto& w : workers) w.join();
  const double seconds = absl::ToDoubleSeconds(absl::Now() - start);

  std::vector<double> all;
  for (const auto& l : latencies) all.insert(all.end(), l.begin(), l.end());
  std::sort(all.begin(), all.end());
  auto pct = [&](double p) {
    return all.empty() ? 0.0 : all[static_cast<size_t>(p * (all.size() - 1))];
  };
  std::printf(
      "%s against %s, %d threads, %.1f s: %zu requests (%ld failed), "
      "%.0f requests/s, latency p50 %.0f us, p99 %.0f us\n",
      rpc.c_str(), target.c_str(), threads, seconds, all.size(),
      failures.load(), all.size() / seconds, pct(0.5), pct(0.99));
  if (server != nullptr) server->Shutdown(absl::ZeroDuration());
  return failures.load() == 0 ? 0 : 1;
}
