#include "service/metrics/interceptor.h"

#include <atomic>
#include <chrono>
#include <cstddef>

#include "grpcpp/server_context.h"
#include "grpcpp/support/byte_buffer.h"
#include "grpcpp/support/interceptor.h"

namespace halma::service::metrics {
namespace {

using grpc::experimental::InterceptionHookPoints;

class MetricsInterceptor final : public grpc::experimental::Interceptor {
 public:
  MetricsInterceptor(Metrics* metrics, Method method,
                     const GrpcCallObserver* observer,
                     grpc::ServerContextBase* context, bool count)
      : count_(count),
        metrics_(metrics),
        observer_(observer),
        context_(context),
        method_(method),
        raw_request_(HasRawRequest(method)),
        start_(std::chrono::steady_clock::now()) {
    if (count_) metrics_->CallStarted(Protocol::kGrpc, method_);
    published_.store(true, std::memory_order_release);
  }

  ~MetricsInterceptor() override {
    Acquire();
    // A call that ended without the server sending a status (torn down by
    // a cancellation or a shutdown) still counts, as CANCELLED.
    Record(grpc::StatusCode::CANCELLED, /*context_alive=*/false);
    if (count_) metrics_->CallFinished(Protocol::kGrpc, method_);
  }

  void Intercept(
      grpc::experimental::InterceptorBatchMethods* methods) override {
    Acquire();
    if (raw_request_ && methods->QueryInterceptionHookPoint(
                            InterceptionHookPoints::POST_RECV_MESSAGE)) {
      // Only for raw methods is the received message a ByteBuffer.
      if (const auto* request =
              static_cast<const grpc::ByteBuffer*>(methods->GetRecvMessage());
          request != nullptr) {
        request_bytes_.fetch_add(request->Length(), std::memory_order_relaxed);
      }
    }
    if (methods->QueryInterceptionHookPoint(
            InterceptionHookPoints::PRE_SEND_MESSAGE)) {
      if (const grpc::ByteBuffer* response =
              methods->GetSerializedSendMessage();
          response != nullptr) {
        response_bytes_.fetch_add(response->Length(),
                                  std::memory_order_relaxed);
      }
    }
    if (methods->QueryInterceptionHookPoint(
            InterceptionHookPoints::PRE_SEND_STATUS)) {
      Record(methods->GetSendStatus().error_code(), /*context_alive=*/true);
    }
    methods->Proceed();
  }

 private:
  // gRPC makes the interceptor on one thread and runs its hooks and its
  // destructor on others, handing it over inside Debian's uninstrumented
  // libgrpc where ThreadSanitizer cannot see the ordering. This
  // acquire (of the constructor's release) shows it; on x86-64 it is a
  // plain load.
  void Acquire() const { (void)published_.load(std::memory_order_acquire); }

  // Records the call the first time only.
  void Record(grpc::StatusCode code, bool context_alive) {
    if (recorded_.exchange(true, std::memory_order_relaxed)) return;
    const auto elapsed = std::chrono::steady_clock::now() - start_;
    const std::size_t request_bytes =
        request_bytes_.load(std::memory_order_relaxed);
    const std::size_t response_bytes =
        response_bytes_.load(std::memory_order_relaxed);
    if (count_) {
      metrics_->RecordCall(Protocol::kGrpc, method_, code,
                           absl::FromChrono(elapsed), request_bytes,
                           response_bytes);
    }
    if (observer_ == nullptr || !*observer_) return;
    GrpcCallRecord record{
        method_, code, absl::FromChrono(elapsed), request_bytes, response_bytes,
        "",      ""};
    if (context_alive && context_ != nullptr) {
      record.peer = context_->peer();
      const auto& metadata = context_->client_metadata();
      if (auto found = metadata.find("traceparent"); found != metadata.end()) {
        record.traceparent.assign(found->second.data(), found->second.size());
      }
    }
    (*observer_)(record);
  }

  // False for HalmaRules methods, which their handlers count (the
  // interceptor then exists only for the access log).
  const bool count_;
  Metrics* const metrics_;
  const GrpcCallObserver* const observer_;
  grpc::ServerContextBase* const context_;
  const Method method_;
  const bool raw_request_;
  const std::chrono::steady_clock::time_point start_;
  // Atomic because a streaming call's reads and writes are separate
  // batches whose hooks may run at once on different threads (a unary
  // call's never do; the relaxed adds cost the same there).
  std::atomic<std::size_t> request_bytes_{0};
  std::atomic<std::size_t> response_bytes_{0};
  std::atomic<bool> recorded_{false};
  std::atomic<bool> published_{false};
};

}  // namespace

grpc::experimental::Interceptor*
MetricsInterceptorFactory::CreateServerInterceptor(
    grpc::experimental::ServerRpcInfo* info) {
  const Method method = MethodFromName(info->method());
  // HalmaRules' unary methods count themselves (HalmaRulesService): without
  // an access log they need no interceptor, and gRPC then takes its fast
  // path (the interception machinery cost about 10,000 instructions a
  // call). AdjudicateStream is counted here, once per stream.
  const bool rules = HasRawRequest(method);
  if (rules && !observer_) return nullptr;
  return new MetricsInterceptor(metrics_, method, &observer_,
                                info->server_context(), /*count=*/!rules);
}

}  // namespace halma::service::metrics
