#include "service/grpc/rules_service.h"

#include <string>

#include "grpc/slice.h"
#include "service/core/record_view.h"

namespace halma::service {
namespace {

// Adjudicate's work. The common form of the request is read in place (no
// strings copied); anything else goes through the parser, which names what
// is wrong.
absl::Status AdjudicateRequestBytes(const RulesCore& core,
                                    const Checkpoint& checkpoint,
                                    const grpc::ByteBuffer& request,
                                    grpc::ByteBuffer* response,
                                    ObservedCall& call) {
  thread_local AdjudicateRequestView view;
  thread_local std::string storage;
  grpc::Slice slice;
  if (ReadAdjudicateRequest(FlatBytes(request, &slice, &storage), &view)) {
    alignas(16) char first_block[4096];
    google::protobuf::Arena arena(
        ArenaOnStack(first_block, sizeof(first_block)));
    auto* answer =
        google::protobuf::Arena::CreateMessage<v1::AdjudicateResponse>(&arena);
    std::optional<absl::Status> status =
        AdjudicateInPlace(core, view, &arena, checkpoint, call, answer);
    if (status.has_value()) {
      if (status->ok()) *status = SerializeResponse(*answer, response);
      if (storage.capacity() > 64 * 1024) storage = std::string();
      return *status;
    }
  }
  if (storage.capacity() > 64 * 1024) storage = std::string();
  return AnswerMessage<v1::AdjudicateRequest, v1::AdjudicateResponse>(
      request, response, call, [&](const auto& in, auto* out) {
        return core.Adjudicate(in, out, checkpoint);
      });
}

}  // namespace

RulesService::RulesService(const RulesCore& core, AdmissionGate& gate,
                           const CallObserver& observer)
    : edge_{.core = &core, .gate = &gate, .observer = &observer} {}

grpc::ServerUnaryReactor* RulesService::ValidateMove(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
    grpc::ByteBuffer* response) {
  return ServeCheapCall(
      edge_, RulesMethod::kValidateMove, context, request, response,
      [this](const grpc::ByteBuffer& in, grpc::ByteBuffer* out,
             ObservedCall& call) {
        return AnswerMessage<v1::ValidateMoveRequest, v1::ValidateMoveResponse>(
            in, out, call, [this](const auto& request, auto* response) {
              return edge_.core->ValidateMove(request, response);
            });
      });
}

grpc::ServerUnaryReactor* RulesService::LegalMoves(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
    grpc::ByteBuffer* response) {
  return ServeCheapCall(
      edge_, RulesMethod::kLegalMoves, context, request, response,
      [this](const grpc::ByteBuffer& in, grpc::ByteBuffer* out,
             ObservedCall& call) {
        alignas(16) char first_block[4096];
        google::protobuf::Arena arena(
            ArenaOnStack(first_block, sizeof(first_block)));
        auto* parsed =
            google::protobuf::Arena::CreateMessage<v1::LegalMovesRequest>(
                &arena);
        absl::Status status = ParseRequest(in, parsed);
        if (!status.ok()) return status;
        NoteRequest(call, *parsed);
        // The answer is written straight into the slice gRPC sends.
        grpc_slice slice = grpc_empty_slice();
        status =
            edge_.core->EncodeLegalMoves(*parsed, [&slice](std::size_t size) {
              slice = grpc_slice_malloc(size);
              return reinterpret_cast<char*>(GRPC_SLICE_START_PTR(slice));
            });
        grpc::Slice answer(slice, grpc::Slice::STEAL_REF);
        if (status.ok()) *out = grpc::ByteBuffer(&answer, 1);
        return status;
      });
}

grpc::ServerUnaryReactor* RulesService::Adjudicate(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
    grpc::ByteBuffer* response) {
  return GatedUnaryCall::Start(
      edge_, RulesMethod::kAdjudicate, context, request, response,
      [core = edge_.core](const Checkpoint& checkpoint,
                          const grpc::ByteBuffer& in, grpc::ByteBuffer* out,
                          ObservedCall& call) {
        return AdjudicateRequestBytes(*core, checkpoint, in, out, call);
      });
}

grpc::ServerUnaryReactor* RulesService::ListVariants(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
    grpc::ByteBuffer* response) {
  return ServeCheapCall(
      edge_, RulesMethod::kListVariants, context, request, response,
      [this](const grpc::ByteBuffer& in, grpc::ByteBuffer* out,
             ObservedCall& /*call*/) {
        v1::ListVariantsRequest parsed;
        absl::Status status = ParseRequest(in, &parsed);
        if (!status.ok()) return status;
        // The answer never changes: its bytes are sent as they are,
        // uncopied.
        const absl::string_view bytes = edge_.core->ListVariantsBytes();
        grpc::Slice slice(bytes.data(), bytes.size(),
                          grpc::Slice::STATIC_SLICE);
        *out = grpc::ByteBuffer(&slice, 1);
        return absl::OkStatus();
      });
}

grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer>*
RulesService::AdjudicateStream(grpc::CallbackServerContext* context) {
  return NewAdjudicateStream(edge_, &streams_, context);
}

grpc::ServerUnaryReactor* RulesService::Perft(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
    grpc::ByteBuffer* response) {
  return GatedUnaryCall::Start(
      edge_, RulesMethod::kPerft, context, request, response,
      [core = edge_.core](const Checkpoint& checkpoint,
                          const grpc::ByteBuffer& in, grpc::ByteBuffer* out,
                          ObservedCall& call) {
        return AnswerMessage<v1::PerftRequest, v1::PerftResponse>(
            in, out, call, [&](const auto& request, auto* response) {
              return core->Perft(request, response, checkpoint);
            });
      });
}

grpc::ServerUnaryReactor* RulesService::SuggestMove(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
    grpc::ByteBuffer* response) {
  return GatedUnaryCall::Start(
      edge_, RulesMethod::kSuggestMove, context, request, response,
      [core = edge_.core](const Checkpoint& checkpoint,
                          const grpc::ByteBuffer& in, grpc::ByteBuffer* out,
                          ObservedCall& call) {
        return AnswerMessage<v1::SuggestMoveRequest, v1::SuggestMoveResponse>(
            in, out, call, [&](const auto& request, auto* response) {
              return core->SuggestMove(request, response, checkpoint);
            });
      });
}

}  // namespace halma::service
