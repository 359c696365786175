// The one place a call is observed: its metrics (method, code, latency,
// bytes, in flight, variant, illegal moves, the limit that refused it, the
// wait for a slot) and its access-log line. Shared by the gRPC handlers,
// the AdjudicateStream reactor, the gRPC interceptor (Health, reflection,
// unimplemented methods) and the HTTP/JSON edge, so that both protocols
// count alike.
//
// It also counts the HalmaRules calls open now, waiting for a slot
// included: a graceful shutdown waits for them.
#ifndef HALMA_SERVICE_OBSERVE_CALL_OBSERVER_H_
#define HALMA_SERVICE_OBSERVE_CALL_OBSERVER_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "halma/v1/halma.pb.h"
#include "service/log/logger.h"
#include "service/metrics/metrics.h"

namespace halma::service {

class CallObserver {
 public:
  // Either may be null (no metrics, no access log); both must outlive the
  // observer and every call it observes.
  CallObserver(metrics::Metrics* metrics, Logger* access_log);
  CallObserver(const CallObserver&) = delete;
  CallObserver& operator=(const CallObserver&) = delete;

  // Whether calls should give their peer and traceparent (SetPeer): only
  // the access log uses them.
  bool wants_peer() const { return access_log_ != nullptr; }
  // HalmaRules calls begun and not finished, on both protocols.
  int rules_calls_in_progress() const {
    return rules_calls_.load(std::memory_order_acquire);
  }
  // A refusal that is not a call (a request too large to be read): counted
  // by its limit (limit_status.h), when it has one.
  void CountRefusal(const absl::Status& status) const;

 private:
  friend class ObservedCall;
  metrics::Metrics* const metrics_;
  Logger* const access_log_;
  mutable std::atomic<int> rules_calls_{0};
};

// One call, from its arrival (construction) to its status (Finish). Used
// by one thread at a time: a call handed between threads is handed with
// the synchronisation that hands its other state.
class ObservedCall {
 public:
  ObservedCall(const CallObserver& observer, metrics::Protocol protocol,
               metrics::Method method, std::size_t request_bytes = 0);
  ObservedCall(const ObservedCall&) = delete;
  ObservedCall& operator=(const ObservedCall&) = delete;
  // A call torn down without a status (a cancellation, a shutdown) counts
  // as CANCELLED.
  ~ObservedCall();

  // For the access log, when the observer wants_peer().
  void SetPeer(std::string peer, absl::string_view traceparent);
  // Counted at once (halma_rpc_request_bytes_total grows as requests
  // arrive, not when they are answered).
  void AddRequestBytes(std::size_t bytes);
  void AddResponseBytes(std::size_t bytes) { response_bytes_ += bytes; }
  // The variant the request names (halma_variant_calls_total; the access
  // log's `variant`).
  void NoteVariant(const v1::Variant& variant);
  // An answer that a move is illegal.
  void NoteIllegal(v1::IllegalReason reason);
  // SuggestMove: the level asked for (metrics::kSuggestLevel*; the access
  // log's `level`, the label of the nodes searched).
  void NoteSuggestLevel(int level) { suggest_level_ = level; }
  // SuggestMove: the nodes its search visited.
  void NoteNodesSearched(std::int64_t nodes);
  // The wait for a slot of the admission gate (zero when one was free).
  void NoteQueueWait(absl::Duration waited);
  // A part of the call ended by `status` (an AdjudicateStream record):
  // counted by its limit, when a limit refused it.
  void NoteRefusal(const absl::Status& status);

  // The call's end; later calls do nothing. A status refused by a limit is
  // counted by it.
  void Finish(const absl::Status& status);
  // The same when only the code is known (the gRPC interceptor).
  void Finish(absl::StatusCode code);
  bool finished() const { return finished_; }

 private:
  void Record(absl::StatusCode code);

  const CallObserver& observer_;
  const metrics::Protocol protocol_;
  const metrics::Method method_;
  const absl::Time started_;
  const bool rules_call_;
  bool finished_ = false;
  std::size_t request_bytes_;
  std::size_t response_bytes_ = 0;
  std::string peer_;
  std::string trace_id_;
  std::string variant_;
  int suggest_level_ = -1;  // None: not a SuggestMove.
};

// What a request tells the observer: the variant it names, if any.
template <typename Request>
void NoteRequest(ObservedCall& call, const Request& request) {
  if constexpr (requires { request.variant(); }) {
    call.NoteVariant(request.variant());
  }
}

// SuggestMove's: the variant and the level asked for.
void NoteRequest(ObservedCall& call, const v1::SuggestMoveRequest& request);

// What an answer tells the observer: nothing by default; one overload per
// method whose answers it counts (the place to add a new method's).
template <typename Response>
void NoteAnswer(ObservedCall& /*call*/, const Response& /*response*/) {}
void NoteAnswer(ObservedCall& call, const v1::ValidateMoveResponse& response);
void NoteAnswer(ObservedCall& call, const v1::AdjudicateResponse& response);
void NoteAnswer(ObservedCall& call, const v1::SuggestMoveResponse& response);

}  // namespace halma::service

#endif  // HALMA_SERVICE_OBSERVE_CALL_OBSERVER_H_
