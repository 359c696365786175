// A gRPC server interceptor that records each call in Metrics: method,
// status code, latency, request and response bytes, calls in flight. The
// handlers need no change for these.
//
// What gRPC 1.51 lets an interceptor see (grpcpp/impl/call_op_set.h,
// impl/codegen/interceptor_common.h, src/cpp/server/server_cc.cc):
// - The interceptor is made when a call arrives (for unary callback
//   methods, once the request message has been read) and destroyed when
//   the call is done: the in-flight gauge and the latency's start.
// - POST_RECV_MESSAGE gives the request already deserialized, as the
//   handler's type: a grpc::ByteBuffer for raw methods (all of HalmaRules),
//   whose Length() is O(1); a protobuf message otherwise, whose size is not
//   kept, so Health and reflection requests are not counted in bytes.
// - PRE_SEND_MESSAGE's GetSerializedSendMessage() serializes the answer a
//   moment earlier than gRPC would anyway (CallOpSendMessage::AddOp), so
//   response bytes cost nothing extra, for every method.
// - PRE_SEND_STATUS gives the status code: the call is recorded there,
//   before the client can see the answer.
// - Calls of an unimplemented method are intercepted too (method "other").
//   A request larger than the server's max receive size is refused by
//   gRPC's core before any interceptor exists, so it is not seen here.
#ifndef HALMA_SERVICE_METRICS_INTERCEPTOR_H_
#define HALMA_SERVICE_METRICS_INTERCEPTOR_H_

#include <functional>
#include <string>

#include "grpcpp/support/server_interceptor.h"
#include "service/metrics/metrics.h"

namespace halma::service::metrics {

// One finished gRPC call, for an access log.
struct GrpcCallRecord {
  Method method;
  grpc::StatusCode code;
  absl::Duration latency;
  std::size_t request_bytes;
  std::size_t response_bytes;
  std::string peer;         // "ipv4:127.0.0.1:53412"
  std::string traceparent;  // The client's W3C traceparent header, if any.
};
using GrpcCallObserver = std::function<void(const GrpcCallRecord&)>;

class MetricsInterceptorFactory final
    : public grpc::experimental::ServerInterceptorFactoryInterface {
 public:
  // `metrics` must outlive the server. `observer`, when set, is also told
  // of every call that sends a status (the access log); unset, the hot
  // path is as before.
  explicit MetricsInterceptorFactory(Metrics* metrics,
                                     GrpcCallObserver observer = nullptr)
      : metrics_(metrics), observer_(std::move(observer)) {}

  grpc::experimental::Interceptor* CreateServerInterceptor(
      grpc::experimental::ServerRpcInfo* info) override;

 private:
  Metrics* metrics_;
  const GrpcCallObserver observer_;
};

}  // namespace halma::service::metrics

#endif  // HALMA_SERVICE_METRICS_INTERCEPTOR_H_
