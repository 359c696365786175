#include "service/grpc/health.h"

#include <atomic>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "halma/notation.h"
#include "service/grpc/byte_buffers.h"

namespace halma::service {

using grpc::health::v1::HealthCheckRequest;
using grpc::health::v1::HealthCheckResponse;

// One Watch stream. At most one write is in flight; a status that changes
// meanwhile is kept and sent when the write completes (only the latest
// counts). After the final status of a shutdown the stream is finished.
// Finish is never called while a write is in flight.
class HealthService::WatchReactor
    : public grpc::ServerWriteReactor<HealthCheckResponse> {
 public:
  WatchReactor(HealthService* owner, std::string service)
      : owner_(owner), service_(std::move(service)) {
    owner_->AddWatcher(this);
    constructed_.store(true, std::memory_order_release);
  }

  const std::string& service() const { return service_; }

  // Called by the owner with its lock held: a new status, and whether it is
  // the last one (shutdown).
  void Update(ServingStatus status, bool last) {
    std::lock_guard<std::mutex> lock(mu_);
    if (finished_) return;
    if (status != queued_) {
      queued_ = status;
      pending_ = true;
    }
    if (last) finish_after_writes_ = true;
    if (!writing_) SendOrFinishLocked();
  }

  void OnWriteDone(bool ok) override {
    SeeConstruction();
    std::lock_guard<std::mutex> lock(mu_);
    writing_ = false;
    if (!ok || cancelled_) {
      // The stream is broken (client gone or call cancelled).
      FinishLocked(grpc::Status::CANCELLED);
      return;
    }
    SendOrFinishLocked();
  }

  void OnCancel() override {
    SeeConstruction();
    std::lock_guard<std::mutex> lock(mu_);
    cancelled_ = true;
    // Finish waits for a write in flight: OnWriteDone finishes then.
    if (!writing_) FinishLocked(grpc::Status::CANCELLED);
  }

  void OnDone() override {
    SeeConstruction();
    owner_->RemoveWatcher(this);
    delete this;
  }

 private:
  // gRPC calls the reactor's callbacks on its own threads, after handing the
  // new reactor over inside libgrpc, where ThreadSanitizer cannot see it
  // (Debian's build is not instrumented). This acquire pairs with the
  // release at the end of the constructor, so that TSan sees the handover;
  // it costs one load per callback.
  void SeeConstruction() const {
    (void)constructed_.load(std::memory_order_acquire);
  }

  void SendOrFinishLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (finished_ || cancelled_) return;
    if (pending_) {
      pending_ = false;
      response_.set_status(queued_);
      writing_ = true;
      StartWrite(&response_);
    } else if (finish_after_writes_) {
      FinishLocked(grpc::Status::OK);
    }
  }

  void FinishLocked(const grpc::Status& status)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (finished_) return;
    finished_ = true;
    Finish(status);
  }

  HealthService* const owner_;
  const std::string service_;
  std::atomic<bool> constructed_{false};
  std::mutex mu_;
  HealthCheckResponse response_ ABSL_GUARDED_BY(mu_);
  // The latest status for the client; `pending_` while not yet written.
  ServingStatus queued_ ABSL_GUARDED_BY(mu_) = HealthCheckResponse::UNKNOWN;
  bool pending_ ABSL_GUARDED_BY(mu_) = false;
  bool writing_ ABSL_GUARDED_BY(mu_) = false;
  bool finish_after_writes_ ABSL_GUARDED_BY(mu_) = false;
  bool cancelled_ ABSL_GUARDED_BY(mu_) = false;
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
};

void HealthService::SetServingStatus(absl::string_view service, bool serving) {
  std::lock_guard<std::mutex> lock(mu_);
  if (shutdown_) return;
  const ServingStatus status =
      serving ? HealthCheckResponse::SERVING : HealthCheckResponse::NOT_SERVING;
  statuses_.insert_or_assign(std::string(service), status);
  for (WatchReactor* watcher : watchers_) {
    if (watcher->service() == service) watcher->Update(status, false);
  }
}

HealthService::ServingStatus HealthService::GetServingStatus(
    absl::string_view service) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = statuses_.find(service);
  return it == statuses_.end() ? HealthCheckResponse::SERVICE_UNKNOWN
                               : it->second;
}

HealthService::ServingStatus HealthService::StatusLocked(
    const std::string& service) const {
  auto it = statuses_.find(service);
  return it == statuses_.end() ? HealthCheckResponse::SERVICE_UNKNOWN
                               : it->second;
}

void HealthService::Shutdown() {
  std::lock_guard<std::mutex> lock(mu_);
  if (shutdown_) return;
  shutdown_ = true;
  for (auto& [name, status] : statuses_) {
    status = HealthCheckResponse::NOT_SERVING;
  }
  for (WatchReactor* watcher : watchers_) {
    watcher->Update(StatusLocked(watcher->service()), /*last=*/true);
  }
}

bool HealthService::WaitForWatchersToEnd(absl::Time deadline) {
  std::unique_lock<std::mutex> lock(mu_);
  return watcher_removed_.wait_until(
      lock, absl::ToChronoTime(deadline),
      [this]() ABSL_NO_THREAD_SAFETY_ANALYSIS { return watchers_.empty(); });
}

void HealthService::AddWatcher(WatchReactor* watcher) {
  std::lock_guard<std::mutex> lock(mu_);
  watchers_.insert(watcher);
  watcher->Update(StatusLocked(watcher->service()), /*last=*/shutdown_);
}

void HealthService::RemoveWatcher(WatchReactor* watcher) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    watchers_.erase(watcher);
  }
  watcher_removed_.notify_all();
}

grpc::ServerUnaryReactor* HealthService::Check(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* request_bytes,
    grpc::ByteBuffer* response_bytes) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  HealthCheckRequest request;
  absl::Status parsed = ParseRequest(*request_bytes, &request);
  if (!parsed.ok()) {
    reactor->Finish(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                                 std::string(parsed.message())));
    return reactor;
  }
  const ServingStatus status = GetServingStatus(request.service());
  if (status == HealthCheckResponse::SERVICE_UNKNOWN) {
    reactor->Finish(
        grpc::Status(grpc::StatusCode::NOT_FOUND,
                     absl::StrCat("service: unknown service ",
                                  QuoteForError(request.service()))));
    return reactor;
  }
  HealthCheckResponse response;
  response.set_status(status);
  absl::Status serialized = SerializeResponse(response, response_bytes);
  reactor->Finish(serialized.ok()
                      ? grpc::Status::OK
                      : grpc::Status(grpc::StatusCode::INTERNAL,
                                     std::string(serialized.message())));
  return reactor;
}

grpc::ServerWriteReactor<HealthCheckResponse>* HealthService::Watch(
    grpc::CallbackServerContext* /*context*/,
    const HealthCheckRequest* request) {
  return new WatchReactor(this, request->service());
}

}  // namespace halma::service
