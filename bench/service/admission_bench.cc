// The admission gate's cost per expensive call (service/admission/): a
// slot taken and given back with no one waiting (what every Adjudicate,
// stream record and Perft pays), and a slot handed from one thread to a
// waiting one. Not a test: run halma_admission_bench.
#include <atomic>
#include <thread>

#include "benchmark/benchmark.h"
#include "service/admission/admission_gate.h"

namespace halma::service {
namespace {

class NullWaiter final : public AdmissionGate::Waiter {
 public:
  void Admit(AdmissionGate::Slot /*slot*/) override {}
  void Refuse(absl::Status /*status*/) override {}
};

void BM_EnterAndRelease(benchmark::State& state) {
  AdmissionGate gate({.slots = 1, .max_queue_length = 256});
  NullWaiter waiter;
  const AdmissionGate::Call call{.method = "Adjudicate"};
  for (auto _ : state) {
    absl::StatusOr<AdmissionGate::Slot> slot = gate.Enter(call, &waiter);
    benchmark::DoNotOptimize(slot);
  }
}
BENCHMARK(BM_EnterAndRelease);

// Two threads, one slot: each iteration waits (Wait) for the slot the other
// gives back, so every slot passes through the queue and a wake-up.
void BM_HandOverToAWaiter(benchmark::State& state) {
  static AdmissionGate* gate = nullptr;
  if (state.thread_index() == 0) {
    gate = new AdmissionGate({.slots = 1, .max_queue_length = 256});
  }
  const AdmissionGate::Call call{.method = "Adjudicate"};
  for (auto _ : state) {
    absl::StatusOr<AdmissionGate::Slot> slot = gate->Wait(call);
    benchmark::DoNotOptimize(slot);
  }
  if (state.thread_index() == 0) {
    delete gate;
    gate = nullptr;
  }
}
BENCHMARK(BM_HandOverToAWaiter)->Threads(2)->UseRealTime();

}  // namespace
}  // namespace halma::service
