// halma.v1.HalmaRules on gRPC's callback API: the gRPC edge of the rules
// core. The class holds what its handlers share and one override per RPC;
// each override says how its request is read (unary_calls.h) and which
// core method answers it.
#ifndef HALMA_SERVICE_GRPC_RULES_SERVICE_H_
#define HALMA_SERVICE_GRPC_RULES_SERVICE_H_

#include "grpcpp/grpcpp.h"
#include "halma/v1/halma.grpc.pb.h"
#include "service/admission/admission_gate.h"
#include "service/core/rules_core.h"
#include "service/grpc/adjudicate_stream.h"
#include "service/grpc/unary_calls.h"
#include "service/observe/call_observer.h"

namespace halma::service {

// Every method is raw (its request arrives as bytes): the handler parses it
// itself onto the call's arena, so that bytes that do not parse get
// INVALID_ARGUMENT naming the field, and a call refused by a limit costs no
// parsing.
using RulesServiceBase = v1::HalmaRules::WithRawCallbackMethod_ValidateMove<
    v1::HalmaRules::WithRawCallbackMethod_LegalMoves<
        v1::HalmaRules::WithRawCallbackMethod_Adjudicate<
            v1::HalmaRules::WithRawCallbackMethod_ListVariants<
                v1::HalmaRules::WithRawCallbackMethod_AdjudicateStream<
                    v1::HalmaRules::WithRawCallbackMethod_Perft<
                        v1::HalmaRules::WithRawCallbackMethod_SuggestMove<
                            v1::HalmaRules::Service>>>>>>>;

class RulesService final : public RulesServiceBase {
 public:
  // All three must outlive the service.
  RulesService(const RulesCore& core, AdmissionGate& gate,
               const CallObserver& observer);

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
  grpc::ServerUnaryReactor* SuggestMove(grpc::CallbackServerContext* context,
                                        const grpc::ByteBuffer* request,
                                        grpc::ByteBuffer* response) override;

  // Server shutdown: every open AdjudicateStream answers the records it
  // has received and ends (UNAVAILABLE); new ones are refused.
  void EndStreams() { streams_.EndAll(); }
  int open_streams() const { return streams_.open(); }

 private:
  const GrpcRulesEdge edge_;
  StreamRegistry streams_;
};

}  // namespace halma::service

#endif  // HALMA_SERVICE_GRPC_RULES_SERVICE_H_
