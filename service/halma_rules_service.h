// The halma.v1.HalmaRules service on gRPC's callback API.
//
// Each handler converts the request to engine types, calls the engine and
// converts the answer back; the rules themselves live in the engine. The
// Answer* methods hold that logic without any gRPC types, and the callback
// handlers only finish a default reactor with their result.
#ifndef HALMA_SERVICE_HALMA_RULES_SERVICE_H_
#define HALMA_SERVICE_HALMA_RULES_SERVICE_H_

#include <cstddef>
#include <string>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/time/time.h"
#include "grpcpp/grpcpp.h"
#include "halma/v1/halma.grpc.pb.h"
#include "halma/v1/halma.pb.h"
#include "service/concurrency_limit.h"
#include "service/metrics/metrics.h"
#include "service/request_codec.h"
#include "service/stream/adjudicate_stream.h"

namespace halma::service {

struct RulesOptions {
  // Longest game record Adjudicate accepts, in moves.
  int max_record_moves = 10000;
  // Adjudicate calls replayed at once; more get RESOURCE_EXHAUSTED.
  int max_concurrent_adjudications = 2;
  // Longest a call may run: the client's deadline, when earlier, wins.
  absl::Duration max_call_duration = absl::Seconds(10);
  // Deepest Perft accepted (its cost grows about tenfold a ply).
  int max_perft_depth = 8;
  // Where the answers are counted (variants named, illegal moves, calls
  // refused by a limit) for both edges; none when null. Must outlive the
  // service.
  metrics::Metrics* metrics = nullptr;
};

// Every method is raw (its request arrives as bytes): the handler parses it
// itself onto the call's arena (ParseRequest), so that bytes that do not
// parse get INVALID_ARGUMENT naming the field, and a call refused by a
// limit costs no parsing.
using RulesServiceBase = v1::HalmaRules::WithRawCallbackMethod_ValidateMove<
    v1::HalmaRules::WithRawCallbackMethod_LegalMoves<
        v1::HalmaRules::WithRawCallbackMethod_Adjudicate<
            v1::HalmaRules::WithRawCallbackMethod_ListVariants<
                v1::HalmaRules::WithRawCallbackMethod_AdjudicateStream<
                    v1::HalmaRules::WithRawCallbackMethod_Perft<
                        v1::HalmaRules::Service>>>>>>;

class HalmaRulesService final : public RulesServiceBase {
 public:
  explicit HalmaRulesService(RulesOptions options = RulesOptions{});

  // gRPC handlers.
  grpc::ServerUnaryReactor* ValidateMove(grpc::CallbackServerContext* context,
                                         const grpc::ByteBuffer* request,
                                         grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* LegalMoves(grpc::CallbackServerContext* context,
                                       const grpc::ByteBuffer* request,
                                       grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* Adjudicate(grpc::CallbackServerContext* context,
                                       const grpc::ByteBuffer* request,
                                       grpc::ByteBuffer* response) override;
  grpc::ServerUnaryReactor* ListVariants(grpc::CallbackServerContext* context,
                                         const grpc::ByteBuffer* request,
                                         grpc::ByteBuffer* response) override;
  grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer>* AdjudicateStream(
      grpc::CallbackServerContext* context) override;
  grpc::ServerUnaryReactor* Perft(grpc::CallbackServerContext* context,
                                  const grpc::ByteBuffer* request,
                                  grpc::ByteBuffer* response) override;

  // The same answers without gRPC: INVALID_ARGUMENT for malformed input,
  // naming the request field; OK otherwise (an illegal move is an answer).
  absl::Status AnswerValidateMove(const v1::ValidateMoveRequest& request,
                                  v1::ValidateMoveResponse* response) const;
  absl::Status AnswerLegalMoves(const v1::LegalMovesRequest& request,
                                v1::LegalMovesResponse* response) const;
  // LegalMoves' answer serialized (what the gRPC handler sends): asks
  // `allocate` for a buffer of the answer's exact size and writes it there.
  absl::Status EncodeLegalMoves(
      const v1::LegalMovesRequest& request,
      absl::FunctionRef<char*(std::size_t)> allocate) const;
  absl::Status AnswerAdjudicate(const v1::AdjudicateRequest& request,
                                v1::AdjudicateResponse* response) const;
  // The same, calling `checkpoint` every few dozen plies; a non-OK status
  // from it (deadline, cancellation) ends the call with that status.
  absl::Status AnswerAdjudicate(
      const v1::AdjudicateRequest& request, v1::AdjudicateResponse* response,
      absl::FunctionRef<absl::Status()> checkpoint) const;
  // The same over the request's parts: the moves are `move_at(0)` to
  // `move_at(move_count - 1)` (the handler reads them in place).
  // `text`, when not null, is the record as a TextRecord (from the
  // request's record_text, or made for want_record_text): the answer then
  // gets `result`, and `claimed_result` or `record_text` as asked.
  struct TextAnswer;
  absl::Status AnswerRecord(const v1::Variant& variant,
                            absl::string_view start_position, int move_count,
                            absl::FunctionRef<absl::string_view(int)> move_at,
                            v1::AdjudicateResponse* response,
                            absl::FunctionRef<absl::Status()> checkpoint,
                            TextAnswer* text = nullptr) const;
  absl::Status AnswerListVariants(const v1::ListVariantsRequest& request,
                                  v1::ListVariantsResponse* response) const;
  // Perft, calling `checkpoint` every few milliseconds of counting.
  absl::Status AnswerPerft(const v1::PerftRequest& request,
                           v1::PerftResponse* response,
                           absl::FunctionRef<absl::Status()> checkpoint) const;

  // For edges other than gRPC (the Connect listener): Adjudicate with the
  // gRPC handler's limits (concurrent replays, the maximum call time).
  // `deadline` is the client's (absl::InfiniteFuture() when it set none);
  // `cancelled` says whether the client has gone.
  absl::Status ServeAdjudicate(const v1::AdjudicateRequest& request,
                               v1::AdjudicateResponse* response,
                               absl::Time deadline,
                               absl::FunctionRef<bool()> cancelled);
  // Perft with the same limits (it holds a replay slot: it is the most
  // expensive call there is).
  absl::Status ServePerft(const v1::PerftRequest& request,
                          v1::PerftResponse* response, absl::Time deadline,
                          absl::FunctionRef<bool()> cancelled);
  // For AdjudicateStream, which waits for a slot rather than refusing its
  // record: a replay slot (empty when none is free), and Adjudicate within
  // one already held.
  ConcurrencyLimit::Slot TryReserveReplay() {
    return adjudications_.TryAcquire();
  }
  absl::Status AdjudicateInSlot(const v1::AdjudicateRequest& request,
                                v1::AdjudicateResponse* response,
                                absl::Time deadline,
                                absl::FunctionRef<bool()> cancelled);
  // The same for a record read in place (ReadAdjudicateRequest), whose
  // variant's bytes parsed as `variant`.
  absl::Status AdjudicateViewInSlot(const v1::Variant& variant,
                                    const AdjudicateRequestView& record,
                                    v1::AdjudicateResponse* response,
                                    absl::Time deadline,
                                    absl::FunctionRef<bool()> cancelled);
  // Server shutdown: every open AdjudicateStream answers the records it
  // has received and ends (UNAVAILABLE); new ones are refused.
  void EndStreams() { streams_.EndAll(); }
  int open_streams() const { return streams_.open(); }
  // Counts a call of another edge in calls_in_progress() while it lives.
  ConcurrencyLimit::Slot TrackCall() { return calls_.TryAcquire(); }

  // HalmaRules calls being answered now (for a graceful shutdown).
  int calls_in_progress() const { return calls_.in_use(); }
  const RulesOptions& options() const { return options_; }

 private:
  // Adjudicate of a request holding record_text.
  absl::Status AnswerTextRecord(
      const v1::AdjudicateRequest& request, v1::AdjudicateResponse* response,
      absl::FunctionRef<absl::Status()> checkpoint) const;
  // RESOURCE_EXHAUSTED naming max_concurrent_adjudications.
  absl::Status TooManyAdjudications() const;
  // The replay's checkpoint: CANCELLED when `cancelled()`, DEADLINE_EXCEEDED
  // past the earlier of `deadline` and the maximum call time from now.
  class ReplayCheckpoint;

  RulesOptions options_;
  // Every call holds a slot of `calls_` (unbounded: it only counts);
  // Adjudicate also holds one of `adjudications_`.
  ConcurrencyLimit calls_{1 << 30};
  ConcurrencyLimit adjudications_;
  StreamRegistry streams_;
  // Built once: presets never change. Also kept serialized, for the answer.
  v1::ListVariantsResponse variants_;
  std::string variants_bytes_;
};

}  // namespace halma::service

#endif  // HALMA_SERVICE_HALMA_RULES_SERVICE_H_
