#include "service/stream/adjudicate_stream.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "google/protobuf/arena.h"
#include "grpcpp/alarm.h"
#include "halma/v1/halma.pb.h"
#include "service/concurrency_limit.h"
#include "service/halma_rules_service.h"
#include "service/request_codec.h"

namespace halma::service {

bool StreamRegistry::Add(Member* member) {
  std::lock_guard<std::mutex> lock(mu_);
  if (ending_) return false;
  members_.insert(member);
  return true;
}

void StreamRegistry::Remove(Member* member) {
  std::lock_guard<std::mutex> lock(mu_);
  members_.erase(member);
}

void StreamRegistry::EndAll() {
  std::lock_guard<std::mutex> lock(mu_);
  ending_ = true;
  for (Member* member : members_) member->EndForShutdown();
}

int StreamRegistry::open() const {
  std::lock_guard<std::mutex> lock(mu_);
  return static_cast<int>(members_.size());
}

namespace {

using grpc::ByteBuffer;

// How long a record waits between two tries for a replay slot, at first
// and at most. Every slot is busy only when replays keep the CPUs busy, so
// waiting a little longer than needed costs the stream little throughput.
constexpr absl::Duration kFirstSlotWait = absl::Microseconds(50);
constexpr absl::Duration kLongestSlotWait = absl::Milliseconds(2);

class AdjudicateStreamReactor final
    : public grpc::ServerBidiReactor<ByteBuffer, ByteBuffer>,
      public StreamRegistry::Member {
 public:
  AdjudicateStreamReactor(HalmaRulesService* rules, StreamRegistry* registry,
                          grpc::CallbackServerContext* context)
      : rules_(rules),
        registry_(registry),
        context_(context),
        call_(rules->TrackCall()) {
    if (!registry_->Add(this)) {
      Finish(grpc::Status(grpc::StatusCode::UNAVAILABLE,
                          "AdjudicateStream: the server is shutting down; "
                          "send the records to another server"));
      return;
    }
    registered_ = true;
    {
      std::lock_guard<std::mutex> lock(mu_);
      read_outstanding_ = true;
    }
    StartRead(&request_);
  }

  void OnReadDone(bool ok) override {
    if (!ok) {
      Actions actions;
      {
        std::lock_guard<std::mutex> lock(mu_);
        read_outstanding_ = false;
        input_closed_ = true;
        actions = NextActionsLocked();
      }
      Perform(actions);
      return;
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      read_outstanding_ = false;
      if (finished_) return;  // Arrived as the call was being ended.
      processing_ = true;
    }
    record_arrived_ = absl::Now();
    slot_wait_ = kFirstSlotWait;
    AnswerRecord();
  }

  void OnWriteDone(bool ok) override {
    Actions actions;
    {
      std::lock_guard<std::mutex> lock(mu_);
      writing_ = false;
      if (!ok) broken_ = true;
      actions = NextActionsLocked();
    }
    Perform(actions);
  }

  void OnCancel() override {
    Actions actions;
    {
      std::lock_guard<std::mutex> lock(mu_);
      broken_ = true;
      actions = NextActionsLocked();
    }
    Perform(actions);
  }

  void OnDone() override {
    if (registered_) registry_->Remove(this);
    delete this;
  }

  void EndForShutdown() override {
    Actions actions;
    {
      std::lock_guard<std::mutex> lock(mu_);
      ending_ = true;
      actions = NextActionsLocked();
    }
    // Only Finish can follow from ending (no read or write starts), and
    // Finish never calls back into the registry: safe under its lock.
    Perform(actions);
  }

 private:
  // What to start once the lock is released: gRPC's Start* and Finish are
  // never called with mu_ held.
  struct Actions {
    bool read = false;
    bool write = false;
    bool finish = false;
    grpc::Status status;
  };

  // Answers the record in request_, or waits for a replay slot first.
  void AnswerRecord() {
    ConcurrencyLimit::Slot slot = rules_->TryReserveReplay();
    if (!slot) {
      if (absl::Now() - record_arrived_ < rules_->options().max_call_duration &&
          !context_->IsCancelled()) {
        // A new alarm each time: one whose callback is running may not be
        // set again, but may be destroyed (gRPC keeps it alive until the
        // callback returns).
        alarm_ = std::make_unique<grpc::Alarm>();
        alarm_->Set(std::chrono::system_clock::now() +
                        absl::ToChronoMicroseconds(slot_wait_),
                    [this](bool) { AnswerRecord(); });
        slot_wait_ = std::min(slot_wait_ * 2, kLongestSlotWait);
        return;
      }
    }
    ByteBuffer answer;
    {
      // The slot is given back before the answer is queued.
      const ConcurrencyLimit::Slot held = std::move(slot);
      if (held) {
        answer = Answer(nullptr);
      } else {
        const absl::Status busy = absl::ResourceExhaustedError(
            "Adjudicate: no replay slot came free within this server's "
            "maximum call time (max_concurrent_adjudications, "
            "max_call_seconds); retry later");
        answer = Answer(&busy);
      }
    }
    Actions actions;
    {
      std::lock_guard<std::mutex> lock(mu_);
      processing_ = false;
      ++answered_;
      if (writing_) {
        pending_ = std::move(answer);
        has_pending_ = true;
      } else {
        response_ = std::move(answer);
        writing_ = true;
        actions.write = true;
      }
      Actions more = NextActionsLocked();
      actions.read = more.read;
      actions.finish = more.finish;
      actions.status = more.status;
    }
    Perform(actions);
  }

  // The answer to request_: its id and the adjudication, or the error
  // Adjudicate would have ended the call with. `refused` is that error
  // when no replay slot was free for as long as the record may take.
  ByteBuffer Answer(const absl::Status* refused) {
    alignas(16) char first_block[8192];
    google::protobuf::ArenaOptions arena_options;
    arena_options.initial_block = first_block;
    arena_options.initial_block_size = sizeof(first_block);
    arena_options.max_block_size = 256 * 1024;
    google::protobuf::Arena arena(arena_options);
    auto* answer =
        google::protobuf::Arena::CreateMessage<v1::AdjudicateStreamResponse>(
            &arena);
    // The common form is read in place, as Adjudicate reads its request:
    // no string of the record is copied.
    grpc::Slice slice;
    absl::string_view id;
    const absl::string_view bytes = FlatBytes(request_, &slice, &storage_);
    if (ReadAdjudicateStreamRequest(bytes, &id, &view_) &&
        id.size() <= kMaxRecordIdBytes) {
      auto* variant =
          google::protobuf::Arena::CreateMessage<v1::Variant>(&arena);
      if (variant->ParseFromArray(view_.variant.data(),
                                  static_cast<int>(view_.variant.size()))) {
        answer->set_id(std::string(id));
        absl::Status status =
            refused != nullptr
                ? *refused
                : rules_->AdjudicateViewInSlot(
                      *variant, view_, answer->mutable_result(),
                      absl::FromChrono(context_->deadline()),
                      [this] { return context_->IsCancelled(); });
        request_.Clear();
        ReleaseLargeBuffers();
        return Serialized(status, answer);
      }
    }
    auto* request =
        google::protobuf::Arena::CreateMessage<v1::AdjudicateStreamRequest>(
            &arena);
    absl::Status status = ParseRequest(bytes, request);
    request_.Clear();
    ReleaseLargeBuffers();
    if (status.ok()) {
      if (request->id().size() > kMaxRecordIdBytes) {
        answer->set_id(request->id().substr(0, kMaxRecordIdBytes));
        status = absl::InvalidArgumentError(
            absl::StrCat("id: ", request->id().size(), " bytes, more than the ",
                         kMaxRecordIdBytes, " an id may have"));
      } else {
        answer->set_id(request->id());
      }
    }
    if (status.ok() && refused != nullptr) status = *refused;
    if (status.ok()) {
      status =
          rules_->AdjudicateInSlot(request->record(), answer->mutable_result(),
                                   absl::FromChrono(context_->deadline()),
                                   [this] { return context_->IsCancelled(); });
    }
    return Serialized(status, answer);
  }

  // A stream keeps the buffers of ordinary records from one to the next,
  // not those of a long one.
  void ReleaseLargeBuffers() {
    if (view_.moves.capacity() > 4096) view_.moves = {};
    if (storage_.capacity() > 64 * 1024) storage_ = std::string();
  }

  // The answer's bytes, with `status` as its error when not OK.
  static ByteBuffer Serialized(const absl::Status& status,
                               v1::AdjudicateStreamResponse* answer) {
    if (!status.ok()) {
      v1::RecordError* error = answer->mutable_error();
      error->set_code(static_cast<int>(status.code()));
      error->set_message(std::string(status.message()));
    }
    ByteBuffer bytes;
    if (!SerializeResponse(*answer, &bytes).ok()) bytes.Clear();
    return bytes;
  }

  // Decides, under mu_, what comes next: the pending answer's write, the
  // next read, or the end of the call.
  Actions NextActionsLocked() {
    Actions actions;
    if (finished_) return actions;
    if (!writing_ && has_pending_ && !broken_) {
      response_ = std::move(pending_);
      has_pending_ = false;
      writing_ = true;
      actions.write = true;
    }
    const bool stopping = input_closed_ || ending_ || broken_;
    if (!stopping && !read_outstanding_ && !processing_ && !has_pending_) {
      read_outstanding_ = true;
      actions.read = true;
    }
    if (stopping && !processing_ && !writing_ && !actions.write &&
        (!has_pending_ || broken_)) {
      finished_ = true;
      actions.finish = true;
      if (broken_) {
        actions.status = grpc::Status(grpc::StatusCode::CANCELLED,
                                      "AdjudicateStream: call cancelled");
      } else if (input_closed_) {
        actions.status = grpc::Status::OK;
      } else {
        actions.status = grpc::Status(
            grpc::StatusCode::UNAVAILABLE,
            absl::StrCat("AdjudicateStream: the server is shutting down "
                         "after answering ",
                         answered_,
                         " records; send the rest to another server"));
      }
    }
    return actions;
  }

  void Perform(const Actions& actions) {
    if (actions.write) StartWrite(&response_);
    if (actions.read) StartRead(&request_);
    if (actions.finish) Finish(actions.status);
  }

  HalmaRulesService* const rules_;
  StreamRegistry* const registry_;
  grpc::CallbackServerContext* const context_;
  // Counts the stream in calls_in_progress() for the graceful shutdown.
  const ConcurrencyLimit::Slot call_;
  bool registered_ = false;

  // Touched only by the one record being answered at a time.
  ByteBuffer request_;
  // The record read in place, and the bytes of a request that came in
  // several slices.
  AdjudicateRequestView view_;
  std::string storage_;
  absl::Time record_arrived_;
  absl::Duration slot_wait_;
  std::unique_ptr<grpc::Alarm> alarm_;

  // Guards what follows (std::mutex: see StreamRegistry).
  std::mutex mu_;
  ByteBuffer response_;  // Being written.
  ByteBuffer pending_;   // Answered, not yet written.
  bool has_pending_ = false;
  bool read_outstanding_ = false;
  bool processing_ = false;
  bool writing_ = false;
  bool input_closed_ = false;  // The client's half-close.
  bool ending_ = false;        // Server shutdown.
  bool broken_ = false;        // Cancelled or write failed.
  bool finished_ = false;
  long answered_ = 0;
};

}  // namespace

grpc::ServerBidiReactor<ByteBuffer, ByteBuffer>* NewAdjudicateStream(
    HalmaRulesService* rules, StreamRegistry* registry,
    grpc::CallbackServerContext* context) {
  return new AdjudicateStreamReactor(rules, registry, context);
}

}  // namespace halma::service
