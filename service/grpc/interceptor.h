// A gRPC server interceptor that observes the calls no handler of ours
// observes (call_observer.h): Health, reflection, and methods the server
// does not have (metrics label "other"). HalmaRules' handlers and the
// AdjudicateStream reactor observe their own calls, which is cheaper: with
// an interceptor, gRPC's interception machinery cost about 10,000
// instructions a call (callgrind), so for them none is made.
//
// What gRPC 1.51 lets an interceptor see (grpcpp/impl/call_op_set.h,
// impl/codegen/interceptor_common.h, src/cpp/server/server_cc.cc):
// - It is made when a call arrives (for unary callback methods, once the
//   request message has been read) and destroyed with the call's
//   ServerContext, after the call's last operation has completed: the
//   in-flight gauge and the latency's start.
// - PRE_SEND_MESSAGE's GetSerializedSendMessage() serializes the answer a
//   moment earlier than gRPC would anyway (CallOpSendMessage::AddOp), so
//   response bytes cost nothing extra. Request bytes are not counted here
//   (Health and reflection get messages, not bytes).
// - PRE_SEND_STATUS gives the status code: the call is recorded there,
//   before the client can see the answer; a call torn down without one
//   (a cancellation) is recorded as CANCELLED when the interceptor goes.
// - A request larger than the server's max receive size is refused by
//   gRPC's core before any interceptor exists, so it is not seen here.
#ifndef HALMA_SERVICE_GRPC_INTERCEPTOR_H_
#define HALMA_SERVICE_GRPC_INTERCEPTOR_H_

#include "grpcpp/support/server_interceptor.h"
#include "service/observe/call_observer.h"

namespace halma::service {

class ObservingInterceptorFactory final
    : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  // `observer` must outlive the server.
  explicit ObservingInterceptorFactory(const CallObserver* observer)
      : observer_(observer) {}

  // Null (no interceptor) for HalmaRules' methods.
  grpc::experimental::Interceptor* CreateServerInterceptor(
      grpc::experimental::ServerRpcInfo* info) override;

 private:
  const CallObserver* observer_;
};

}  // namespace halma::service

#endif  // HALMA_SERVICE_GRPC_INTERCEPTOR_H_
