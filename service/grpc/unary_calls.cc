#include "service/grpc/unary_calls.h"

#include <chrono>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "service/grpc/hand_over.h"

namespace halma::service {

google::protobuf::ArenaOptions ArenaOnStack(char* block, std::size_t size) {
  google::protobuf::ArenaOptions options;
  options.initial_block = block;
  options.initial_block_size = size;
  options.start_block_size = 4096;
  options.max_block_size = 256 * 1024;
  return options;
}

void NotePeer(ObservedCall& call, const CallObserver& observer,
              grpc::CallbackServerContext* context) {
  if (!observer.wants_peer()) return;
  const auto& metadata = context->client_metadata();
  const auto found = metadata.find("traceparent");
  call.SetPeer(context->peer(), found == metadata.end()
                                    ? absl::string_view()
                                    : absl::string_view(found->second.data(),
                                                        found->second.size()));
}

std::optional<absl::Status> AdjudicateInPlace(
    const RulesCore& core, const AdjudicateRequestView& record,
    google::protobuf::Arena* arena, const Checkpoint& checkpoint,
    ObservedCall& call, v1::AdjudicateResponse* response) {
  auto* variant = google::protobuf::Arena::CreateMessage<v1::Variant>(arena);
  if (!variant->ParseFromArray(record.variant.data(),
                               static_cast<int>(record.variant.size()))) {
    return std::nullopt;
  }
  std::optional<absl::Status> status =
      core.AdjudicateView(*variant, record, response, checkpoint);
  if (!status.has_value()) return std::nullopt;
  call.NoteVariant(*variant);
  if (status->ok()) NoteAnswer(call, *response);
  return status;
}

grpc::ServerUnaryReactor* FinishCall(grpc::CallbackServerContext* context,
                                     const absl::Status& status) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  reactor->Finish(ToGrpcStatus(status, context));
  return reactor;
}

GatedUnaryCall::GatedUnaryCall(const GrpcRulesEdge& edge, RulesMethod method,
                               grpc::CallbackServerContext* context,
                               const grpc::ByteBuffer* request,
                               grpc::ByteBuffer* response, GatedCallWork work)
    : edge_(edge),
      method_(method),
      context_(context),
      request_(request),
      response_(response),
      work_(std::move(work)),
      entered_(absl::Now()),
      deadline_(absl::FromChrono(context->deadline())),
      call_(*edge.observer, metrics::Protocol::kGrpc, metrics::MethodOf(method),
            request->Length()) {
  NotePeer(call_, *edge.observer, context);
}

namespace {

// A gated call's work once it has its slot: the checkpoint, the work, the
// slot given back as soon as the answer is made (the next call may start
// while this one's answer goes out).
absl::Status RunWithSlot(const GrpcRulesEdge& edge, RulesMethod method,
                         grpc::CallbackServerContext* context,
                         absl::Time deadline, const GatedCallWork& work,
                         const grpc::ByteBuffer& request,
                         grpc::ByteBuffer* response, ObservedCall& call,
                         AdmissionGate::Slot slot) {
  call.NoteQueueWait(slot.waited());
  auto cancelled = [context] { return context->IsCancelled(); };
  const Checkpoint checkpoint = edge.gate->MakeCheckpoint(
      RulesMethodName(method), GatedWork(method), deadline, cancelled);
  const absl::Status status = work(checkpoint, request, response, call);
  slot.Release();
  return status;
}

}  // namespace

grpc::ServerUnaryReactor* GatedUnaryCall::Start(
    const GrpcRulesEdge& edge, RulesMethod method,
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
    grpc::ByteBuffer* response, GatedCallWork work) {
  const absl::Time deadline = absl::FromChrono(context->deadline());
  absl::StatusOr<AdmissionGate::Slot> free = edge.gate->TryEnter(
      {.method = RulesMethodName(method), .deadline = deadline});
  if (!free.ok() || *free) {
    // A call that need not wait runs here, on the handler's thread, and is
    // finished through the context's default reactor, whose reactions gRPC
    // runs inline. A reactor of our own would have its OnDone run on
    // gRPC's executor: a thread hop per call (measured on Adjudicate at
    // 64 calls at once: 1.5 context switches a call, none for the cheap
    // calls), which only a call that waits needs.
    return ServeCheapCall(
        edge, method, context, request, response,
        [&](const grpc::ByteBuffer& request_bytes,
            grpc::ByteBuffer* response_bytes, ObservedCall& call) {
          if (!free.ok()) {
            call.NoteQueueWait(absl::ZeroDuration());
            return free.status();
          }
          return RunWithSlot(edge, method, context, deadline, work,
                             request_bytes, response_bytes, call,
                             *std::move(free));
        });
  }
  auto* call = new GatedUnaryCall(edge, method, context, request, response,
                                  std::move(work));
  absl::StatusOr<AdmissionGate::Slot> entered = edge.gate->Enter(
      {.method = RulesMethodName(method), .deadline = call->deadline_}, call);
  if (!entered.ok()) {
    call->call_.NoteQueueWait(absl::ZeroDuration());
    call->End(entered.status());
  } else if (*entered) {
    call->Run(*std::move(entered));
  }
  // Otherwise it waits: Admit or Refuse follows.
  GrpcHandOver();
  return call;
}

void GatedUnaryCall::Admit(AdmissionGate::Slot slot) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    slot_ = std::move(slot);
  }
  // Not here: this is the thread of the call that freed the slot.
  GrpcHandOver();
  alarm_.Set(std::chrono::system_clock::now(), [this](bool /*fired*/) {
    GrpcHandOver();
    AdmissionGate::Slot slot;
    {
      std::lock_guard<std::mutex> lock(mu_);
      slot = std::move(slot_);
    }
    Run(std::move(slot));
  });
}

void GatedUnaryCall::Refuse(absl::Status status) {
  call_.NoteQueueWait(absl::Now() - entered_);
  End(status);
}

namespace {

// How much later than the client's deadline the server's may fall. The
// client sends its time left in the grpc-timeout header, which gRPC rounds
// up to three significant digits: to the millisecond under 1 s, to 10 ms
// under 10 s, to 100 ms under 100 s, and so on. The request's time on the
// wire and in the server's transport before the call reaches us adds a
// little more (kTransit). A client whose own deadline passed cancels the
// stream, which reaches the server as a plain cancellation, up to this long
// before the server's deadline.
absl::Duration DeadlineSkew(absl::Duration timeout) {
  constexpr absl::Duration kTransit = absl::Milliseconds(20);
  absl::Duration rounding = absl::Milliseconds(1);
  for (absl::Duration limit = absl::Seconds(1); timeout >= limit; limit *= 10) {
    rounding *= 10;
    if (limit >= absl::Hours(10000)) break;
  }
  return rounding + kTransit;
}

}  // namespace

void GatedUnaryCall::CancelWait() {
  // A cancellation this close to the deadline is the client's deadline
  // passing (its clock runs a little ahead of ours): record it as such.
  const bool late =
      absl::Now() >= deadline_ - DeadlineSkew(deadline_ - entered_);
  edge_.gate->Cancel(
      this, late ? absl::DeadlineExceededError(absl::StrCat(
                       RulesMethodName(method_),
                       ": the deadline passed while the call waited for a "
                       "slot (max_concurrent_adjudications)"))
                 : absl::CancelledError(absl::StrCat(
                       RulesMethodName(method_),
                       ": call cancelled while it waited for a slot")));
}

void GatedUnaryCall::Run(AdmissionGate::Slot slot) {
  const absl::Status status =
      RunWithSlot(edge_, method_, context_, deadline_, work_, *request_,
                  response_, call_, std::move(slot));
  if (status.ok()) call_.AddResponseBytes(response_->Length());
  End(status);
}

void GatedUnaryCall::End(const absl::Status& status) {
  call_.Finish(status);
  const grpc::Status finished = ToGrpcStatus(status, context_);
  GrpcHandOver();
  Finish(finished);
}

void GatedUnaryCall::OnDone() {
  GrpcHandOver();
  delete this;
}

void GatedUnaryCall::OnCancel() {
  GrpcHandOver();
  CancelWait();
}

}  // namespace halma::service
