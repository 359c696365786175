#include "service/observe/call_observer.h"

#include <optional>
#include <utility>

#include "absl/time/clock.h"
#include "service/admission/limit_status.h"
#include "service/log/traceparent.h"

namespace halma::service {
namespace {

void CountLimit(metrics::Metrics* metrics, const absl::Status& status) {
  if (metrics == nullptr || status.ok()) return;
  const std::optional<std::string> name = LimitOf(status);
  metrics::Limit limit;
  if (name.has_value() && metrics::LimitFromName(*name, &limit)) {
    metrics->RecordRejected(limit);
  }
}

// The access log's variant: the preset name (cut), or "custom".
std::string VariantLabel(const v1::Variant& variant) {
  if (variant.has_custom()) return "custom";
  return std::string(variant.preset().substr(0, 40));
}

}  // namespace

CallObserver::CallObserver(metrics::Metrics* metrics, Logger* access_log)
    : metrics_(metrics), access_log_(access_log) {}

void CallObserver::CountRefusal(const absl::Status& status) const {
  CountLimit(metrics_, status);
}

ObservedCall::ObservedCall(const CallObserver& observer,
                           metrics::Protocol protocol, metrics::Method method,
                           std::size_t request_bytes)
    : observer_(observer),
      protocol_(protocol),
      method_(method),
      started_(absl::Now()),
      rules_call_(static_cast<int>(method) < kRulesMethodCount),
      request_bytes_(0) {
  if (rules_call_) {
    observer_.rules_calls_.fetch_add(1, std::memory_order_acq_rel);
  }
  if (observer_.metrics_ != nullptr) {
    observer_.metrics_->CallStarted(protocol_, method_);
  }
  AddRequestBytes(request_bytes);
}

void ObservedCall::AddRequestBytes(std::size_t bytes) {
  request_bytes_ += bytes;
  if (observer_.metrics_ != nullptr) {
    observer_.metrics_->RecordRequestBytes(protocol_, method_, bytes);
  }
}

ObservedCall::~ObservedCall() { Finish(absl::StatusCode::kCancelled); }

void ObservedCall::SetPeer(std::string peer, absl::string_view traceparent) {
  peer_ = std::move(peer);
  if (std::optional<std::string> trace = TraceIdFromTraceparent(
          std::string_view(traceparent.data(), traceparent.size()));
      trace.has_value()) {
    trace_id_ = *std::move(trace);
  }
}

void ObservedCall::NoteVariant(const v1::Variant& variant) {
  if (observer_.metrics_ != nullptr) {
    // An AdjudicateStream record is counted as the Adjudicate it stands for.
    observer_.metrics_->RecordVariant(
        method_ == metrics::Method::kAdjudicateStream
            ? metrics::Method::kAdjudicate
            : method_,
        variant);
  }
  if (observer_.access_log_ != nullptr) variant_ = VariantLabel(variant);
}

void ObservedCall::NoteIllegal(v1::IllegalReason reason) {
  if (observer_.metrics_ != nullptr) observer_.metrics_->RecordIllegal(reason);
}

void ObservedCall::NoteNodesSearched(std::int64_t nodes) {
  if (observer_.metrics_ != nullptr) {
    observer_.metrics_->RecordSuggestNodes(suggest_level_, nodes);
  }
}

void ObservedCall::NoteQueueWait(absl::Duration waited) {
  if (observer_.metrics_ != nullptr) {
    observer_.metrics_->RecordQueueWait(method_, waited);
  }
}

void ObservedCall::NoteRefusal(const absl::Status& status) {
  CountLimit(observer_.metrics_, status);
}

void ObservedCall::Finish(const absl::Status& status) {
  if (finished_) return;
  CountLimit(observer_.metrics_, status);
  Record(status.code());
}

void ObservedCall::Finish(absl::StatusCode code) {
  if (finished_) return;
  Record(code);
}

void ObservedCall::Record(absl::StatusCode code) {
  finished_ = true;
  const absl::Duration latency = absl::Now() - started_;
  if (metrics::Metrics* metrics = observer_.metrics_; metrics != nullptr) {
    // The request's bytes were counted as they arrived.
    metrics->RecordCall(protocol_, method_, code, latency, 0, response_bytes_);
    metrics->CallFinished(protocol_, method_);
  }
  if (Logger* log = observer_.access_log_; log != nullptr) {
    const absl::string_view method = metrics::MethodName(method_);
    const absl::string_view code_name = metrics::CodeName(code);
    const absl::string_view protocol = metrics::ProtocolName(protocol_);
    log->Access(AccessRecord{
        .protocol = std::string_view(protocol.data(), protocol.size()),
        .method = std::string_view(method.data(), method.size()),
        .code = std::string_view(code_name.data(), code_name.size()),
        .latency = latency,
        .peer = peer_,
        .request_bytes = static_cast<std::int64_t>(request_bytes_),
        .response_bytes = static_cast<std::int64_t>(response_bytes_),
        .variant = variant_,
        .level = suggest_level_ < 0
                     ? std::string_view()
                     : std::string_view(
                           metrics::SuggestLevelName(suggest_level_).data(),
                           metrics::SuggestLevelName(suggest_level_).size()),
        .trace_id = trace_id_,
    });
  }
  if (rules_call_) {
    observer_.rules_calls_.fetch_sub(1, std::memory_order_acq_rel);
  }
}

void NoteAnswer(ObservedCall& call, const v1::ValidateMoveResponse& response) {
  if (!response.legal()) call.NoteIllegal(response.reason());
}

void NoteRequest(ObservedCall& call, const v1::SuggestMoveRequest& request) {
  call.NoteVariant(request.variant());
  int level = metrics::kSuggestLevelDefault;
  if (request.level() >= 1 && request.level() < metrics::kSuggestLevelBudget) {
    level = request.level();
  } else if (request.max_nodes() != 0 || request.max_time_ms() != 0) {
    level = metrics::kSuggestLevelBudget;
  }
  call.NoteSuggestLevel(level);
}

void NoteAnswer(ObservedCall& call, const v1::SuggestMoveResponse& response) {
  call.NoteNodesSearched(response.nodes());
}

void NoteAnswer(ObservedCall& call, const v1::AdjudicateResponse& response) {
  if (response.has_illegal_move()) {
    call.NoteIllegal(response.illegal_move().reason());
  }
}

}  // namespace halma::service
