// How the gRPC edge answers a unary HalmaRules call: the request's bytes
// parsed onto an arena whose first block is on the stack, the core's
// answer, its bytes, the call observed, the reactor finished. A cheap
// method runs at once on the handler's thread; an expensive one
// (IsGated) takes a slot of the admission gate first, and while it waits
// for one no gRPC thread waits with it.
#ifndef HALMA_SERVICE_GRPC_UNARY_CALLS_H_
#define HALMA_SERVICE_GRPC_UNARY_CALLS_H_

#include <cstddef>
#include <functional>
#include <mutex>
#include <optional>
#include <utility>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "google/protobuf/arena.h"
#include "grpcpp/alarm.h"
#include "grpcpp/grpcpp.h"
#include "service/admission/admission_gate.h"
#include "service/core/record_view.h"
#include "service/core/rules_core.h"
#include "service/core/rules_methods.h"
#include "service/grpc/byte_buffers.h"
#include "service/observe/call_observer.h"

namespace halma::service {

// What the rules service's handlers share.
struct GrpcRulesEdge {
  const RulesCore* core;
  AdmissionGate* gate;
  const CallObserver* observer;
};

// Arena options whose first block is `block` (on the caller's stack), so
// that an ordinary call allocates no arena memory at all.
google::protobuf::ArenaOptions ArenaOnStack(char* block, std::size_t size);

// Gives the call its peer and trace id when the access log wants them.
void NotePeer(ObservedCall& call, const CallObserver& observer,
              grpc::CallbackServerContext* context);

// Finishes the call's default reactor with `status`.
grpc::ServerUnaryReactor* FinishCall(grpc::CallbackServerContext* context,
                                     const absl::Status& status);

// Parses the request onto an arena, notes it, answers it with `answer`
// (absl::Status(const Request&, Response*)), notes the answer and
// serializes it into `response_bytes`.
template <typename Request, typename Response, typename Answer>
absl::Status AnswerMessage(const grpc::ByteBuffer& request_bytes,
                           grpc::ByteBuffer* response_bytes, ObservedCall& call,
                           Answer answer) {
  alignas(16) char first_block[4096];
  google::protobuf::Arena arena(ArenaOnStack(first_block, sizeof(first_block)));
  auto* request = google::protobuf::Arena::CreateMessage<Request>(&arena);
  auto* response = google::protobuf::Arena::CreateMessage<Response>(&arena);
  absl::Status status = ParseRequest(request_bytes, request);
  if (!status.ok()) return status;
  NoteRequest(call, *request);
  status = answer(*request, response);
  if (!status.ok()) return status;
  NoteAnswer(call, *response);
  return SerializeResponse(*response, response_bytes);
}

// Adjudicate of a record read in place (record_view.h), as the unary call
// and each AdjudicateStream record read it: the variant's bytes parsed
// onto `arena`, noted, and the record answered by the core into
// `response` (whose illegal move is noted). Empty when the variant's bytes
// do not parse, or a move is not ASCII (RulesCore::AdjudicateView): the
// caller then parses the whole request, which names the field.
std::optional<absl::Status> AdjudicateInPlace(
    const RulesCore& core, const AdjudicateRequestView& record,
    google::protobuf::Arena* arena, const Checkpoint& checkpoint,
    ObservedCall& call, v1::AdjudicateResponse* response);

// A cheap call: `answer` (absl::Status(const grpc::ByteBuffer& request,
// grpc::ByteBuffer* response, ObservedCall&)) runs at once.
template <typename Answer>
grpc::ServerUnaryReactor* ServeCheapCall(const GrpcRulesEdge& edge,
                                         RulesMethod method,
                                         grpc::CallbackServerContext* context,
                                         const grpc::ByteBuffer* request,
                                         grpc::ByteBuffer* response,
                                         Answer answer) {
  ObservedCall call(*edge.observer, metrics::Protocol::kGrpc,
                    metrics::MethodOf(method), request->Length());
  NotePeer(call, *edge.observer, context);
  const absl::Status status = answer(*request, response, call);
  if (status.ok()) call.AddResponseBytes(response->Length());
  call.Finish(status);
  return FinishCall(context, status);
}

// The work of an expensive call, run with a slot: absl::Status(const
// Checkpoint&, const grpc::ByteBuffer& request, grpc::ByteBuffer* response,
// ObservedCall&).
using GatedCallWork =
    std::function<absl::Status(const Checkpoint&, const grpc::ByteBuffer&,
                               grpc::ByteBuffer*, ObservedCall&)>;

// An expensive call. With a slot free it runs on the handler's thread and
// is finished through the context's default reactor (Start). Otherwise it
// is a reactor of its own that waits in the gate's queue as a Waiter: the
// slot's previous holder admits it, and it runs on one of gRPC's executor
// threads (an alarm due at once), so neither thread waits for the other.
// Deletes itself when the call is done.
class GatedUnaryCall final : public grpc::ServerUnaryReactor,
                             public AdmissionGate::Waiter {
 public:
  // Starts the call: returns the reactor for the handler to return.
  static grpc::ServerUnaryReactor* Start(const GrpcRulesEdge& edge,
                                         RulesMethod method,
                                         grpc::CallbackServerContext* context,
                                         const grpc::ByteBuffer* request,
                                         grpc::ByteBuffer* response,
                                         GatedCallWork work);

  void Admit(AdmissionGate::Slot slot) override;
  void Refuse(absl::Status status) override;
  void OnCancel() override;
  void OnDone() override;

 private:
  GatedUnaryCall(const GrpcRulesEdge& edge, RulesMethod method,
                 grpc::CallbackServerContext* context,
                 const grpc::ByteBuffer* request, grpc::ByteBuffer* response,
                 GatedCallWork work);

  void Run(AdmissionGate::Slot slot);
  // OnCancel's work: out of the gate's queue, if it still waits.
  void CancelWait();
  // Observes and finishes the call; `this` may be gone once it returns.
  void End(const absl::Status& status);

  const GrpcRulesEdge edge_;
  const RulesMethod method_;
  grpc::CallbackServerContext* const context_;
  const grpc::ByteBuffer* const request_;
  grpc::ByteBuffer* const response_;
  const GatedCallWork work_;
  // When the call came to the gate.
  const absl::Time entered_;
  const absl::Time deadline_;
  ObservedCall call_;
  // Hands an admitted slot to the executor thread that runs the work.
  std::mutex mu_;
  AdmissionGate::Slot slot_;  // Guarded by mu_.
  grpc::Alarm alarm_;
};

}  // namespace halma::service

#endif  // HALMA_SERVICE_GRPC_UNARY_CALLS_H_
