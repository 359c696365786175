// The halma.v1.HalmaRules service on gRPC's callback API.
//
// Each handler converts the request to engine types, calls the engine and
// converts the answer back; the rules themselves live in the engine. The
// Answer* methods hold that logic without any gRPC types, and the callback
// handlers only finish a default reactor with their result.
#ifndef HALMA_SERVICE_HALMA_RULES_SERVICE_H_
#define HALMA_SERVICE_HALMA_RULES_SERVICE_H_

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/time/time.h"
#include "google/protobuf/arena.h"
#include "grpcpp/grpcpp.h"
#include "grpcpp/support/message_allocator.h"
#include "halma/v1/halma.grpc.pb.h"
#include "halma/v1/halma.pb.h"
#include "service/concurrency_limit.h"

namespace halma::service {

struct RulesOptions {
  // Longest game record Adjudicate accepts, in moves.
  int max_record_moves = 10000;
  // Adjudicate calls replayed at once; more get RESOURCE_EXHAUSTED.
  int max_concurrent_adjudications = 2;
  // Longest a call may run: the client's deadline, when earlier, wins.
  absl::Duration max_call_duration = absl::Seconds(10);
};

// The arena blocks of one call: small first, growing for large answers.
inline google::protobuf::ArenaOptions CallArenaOptions() {
  google::protobuf::ArenaOptions options;
  options.start_block_size = 4096;
  options.max_block_size = 256 * 1024;
  return options;
}

// Allocates each call's request and response on one protobuf arena, so that
// a large answer (thousands of Move messages) costs a few block allocations
// instead of one per message and string.
template <typename Request, typename Response>
class ArenaMessageAllocator : public grpc::MessageAllocator<Request, Response> {
 public:
  grpc::MessageHolder<Request, Response>* AllocateMessages() override {
    return new Holder();
  }

 private:
  class Holder : public grpc::MessageHolder<Request, Response> {
   public:
    Holder() : arena_(CallArenaOptions()) {
      this->set_request(
          google::protobuf::Arena::CreateMessage<Request>(&arena_));
      this->set_response(
          google::protobuf::Arena::CreateMessage<Response>(&arena_));
    }
    void Release() override { delete this; }

   private:
    google::protobuf::Arena arena_;
  };
};

// Adjudicate is a raw method (the request arrives as bytes): its requests
// are the large ones, and a call refused by the concurrency limit should
// cost no parsing. The handler parses them itself, onto an arena.
using RulesServiceBase = v1::HalmaRules::WithRawCallbackMethod_Adjudicate<
    v1::HalmaRules::CallbackService>;

class HalmaRulesService final : public RulesServiceBase {
 public:
  explicit HalmaRulesService(RulesOptions options = RulesOptions{});

  // gRPC handlers.
  grpc::ServerUnaryReactor* ValidateMove(
      grpc::CallbackServerContext* context,
      const v1::ValidateMoveRequest* request,
      v1::ValidateMoveResponse* response) override;
  grpc::ServerUnaryReactor* LegalMoves(
      grpc::CallbackServerContext* context,
      const v1::LegalMovesRequest* request,
      v1::LegalMovesResponse* response) override;
  grpc::ServerUnaryReactor* Adjudicate(grpc::CallbackServerContext* context,
                                       const grpc::ByteBuffer* request,
                                       grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* ListVariants(
      grpc::CallbackServerContext* context,
      const v1::ListVariantsRequest* request,
      v1::ListVariantsResponse* response) override;

  // The same answers without gRPC: INVALID_ARGUMENT for malformed input,
  // naming the request field; OK otherwise (an illegal move is an answer).
  absl::Status AnswerValidateMove(const v1::ValidateMoveRequest& request,
                                  v1::ValidateMoveResponse* response) const;
  absl::Status AnswerLegalMoves(const v1::LegalMovesRequest& request,
                                v1::LegalMovesResponse* response) const;
  absl::Status AnswerAdjudicate(const v1::AdjudicateRequest& request,
                                v1::AdjudicateResponse* response) const;
  // The same, calling `checkpoint` every few dozen plies; a non-OK status
  // from it (deadline, cancellation) ends the call with that status.
  absl::Status AnswerAdjudicate(
      const v1::AdjudicateRequest& request, v1::AdjudicateResponse* response,
      absl::FunctionRef<absl::Status()> checkpoint) const;
  absl::Status AnswerListVariants(const v1::ListVariantsRequest& request,
                                  v1::ListVariantsResponse* response) const;

  // HalmaRules calls being answered now (for a graceful shutdown).
  int calls_in_progress() const { return calls_.in_use(); }
  const RulesOptions& options() const { return options_; }

 private:
  RulesOptions options_;
  // Every call holds a slot of `calls_` (unbounded: it only counts);
  // Adjudicate also holds one of `adjudications_`.
  ConcurrencyLimit calls_{1 << 30};
  ConcurrencyLimit adjudications_;
  v1::ListVariantsResponse variants_;  // Built once: presets never change.
  ArenaMessageAllocator<v1::ValidateMoveRequest, v1::ValidateMoveResponse>
      validate_allocator_;
  ArenaMessageAllocator<v1::LegalMovesRequest, v1::LegalMovesResponse>
      legal_moves_allocator_;
};

}  // namespace halma::service

#endif  // HALMA_SERVICE_HALMA_RULES_SERVICE_H_
