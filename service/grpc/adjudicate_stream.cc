#include "service/grpc/adjudicate_stream.h"

#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "google/protobuf/arena.h"
#include "grpcpp/alarm.h"
#include "halma/v1/halma.pb.h"
#include "service/core/record_view.h"
#include "service/core/request_bytes.h"
#include "service/core/rules_core.h"
#include "service/grpc/hand_over.h"

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

// The most answer bytes a stream leaves in gRPC's buffer, well under its
// HTTP/2 transport's write buffer (64 KiB), so that a buffered write
// completes at once.
constexpr size_t kMaxBufferedAnswerBytes = 16 * 1024;

// The most records a stream holds read and not yet being answered.
constexpr int kReadAhead = 4;

// The longest an answer is held back for the next one (NextActionsLocked).
constexpr std::chrono::microseconds kFlushDelay(1000);

constexpr absl::string_view kMethod =
    RulesMethodName(RulesMethod::kAdjudicateStream);

class AdjudicateStreamReactor final
    : public grpc::ServerBidiReactor<ByteBuffer, ByteBuffer>,
      public StreamRegistry::Member,
      public AdmissionGate::Waiter {
 public:
  AdjudicateStreamReactor(const GrpcRulesEdge& edge, StreamRegistry* registry,
                          grpc::CallbackServerContext* context)
      : edge_(edge),
        registry_(registry),
        context_(context),
        deadline_(absl::FromChrono(context->deadline())),
        call_(*edge.observer, metrics::Protocol::kGrpc,
              metrics::Method::kAdjudicateStream) {
    NotePeer(call_, *edge.observer, context);
    if (!registry_->Add(this)) {
      const absl::Status refused = absl::UnavailableError(
          "AdjudicateStream: the server is shutting down; send the records "
          "to another server");
      {
        std::lock_guard<std::mutex> lock(mu_);
        finished_ = true;
        call_.Finish(refused);
      }
      GrpcHandOver();
      Finish(ToGrpcStatus(refused, nullptr));
      return;
    }
    registered_ = true;
    {
      std::lock_guard<std::mutex> lock(mu_);
      read_outstanding_ = true;
    }
    GrpcHandOver();
    StartRead(&reading_);
  }

  void OnReadDone(bool ok) override {
    GrpcHandOver();
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
    Actions actions;
    {
      std::lock_guard<std::mutex> lock(mu_);
      read_outstanding_ = false;
      if (finished_) return;  // Arrived as the call was being ended.
      call_.AddRequestBytes(reading_.Length());
      // A client that sends a record before the answer to the one before
      // it is out sends ahead: a bulk client, whose answers may wait a
      // little to go out together (NextActionsLocked). One that waits for
      // each answer never sees them wait.
      sends_ahead_ = writing_ || has_pending_ || processing_ || held_count_ > 0;
      // The record waits while the one before it is answered.
      TakeBuffer(&reading_, &held_[(held_first_ + held_count_) % kReadAhead]);
      ++held_count_;
      actions = NextActionsLocked();
    }
    Perform(actions);
  }

  // The gate's answer for the waiting record, on the thread that freed a
  // slot, found the wait over or cancelled it: the record is answered on
  // one of gRPC's executor threads instead (an alarm due at once).
  void Admit(AdmissionGate::Slot slot) override { Resume(std::move(slot), {}); }
  void Refuse(absl::Status status) override {
    Resume(AdmissionGate::Slot(), std::move(status));
  }

  void OnWriteDone(bool ok) override {
    GrpcHandOver();
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
    GrpcHandOver();
    Actions actions;
    {
      std::lock_guard<std::mutex> lock(mu_);
      broken_ = true;
      actions = NextActionsLocked();
    }
    // A record waiting for a slot stops waiting.
    edge_.gate->Cancel(this, absl::CancelledError(
                                 absl::StrCat(kMethod,
                                              ": call cancelled while a record "
                                              "waited for a slot")));
    Perform(actions);
  }

  void OnDone() override {
    GrpcHandOver();
    if (registered_) registry_->Remove(this);
    {
      std::lock_guard<std::mutex> lock(mu_);
      done_ = true;
      // A held-back answer's alarm rings now, to let go of the reactor.
      if (flush_alarm_set_) flush_alarm_->Cancel();
    }
    Unref();
  }

  void EndForShutdown() override {
    Actions actions;
    {
      std::lock_guard<std::mutex> lock(mu_);
      ending_ = true;
      actions = NextActionsLocked();
    }
    // Only the write of an answer held back for the next one (see
    // NextActionsLocked) or Finish can follow from ending (no read starts,
    // no record is taken up), and neither calls back into the registry:
    // safe under its lock. A record waiting for a slot goes on waiting: it
    // was received.
    Perform(actions);
  }

 private:
  // What to start once the lock is released: gRPC's Start* and Finish are
  // never called with mu_ held.
  struct Actions {
    bool read = false;
    bool write = false;
    // The write's options (made under mu_: the buffer hint, see
    // NextActionsLocked).
    grpc::WriteOptions write_options;
    bool answer = false;  // BeginRecord on current_.
    bool finish = false;
    // The flush alarm to set (made under mu_; read here, not through
    // flush_alarm_, which a later NextActionsLocked may replace).
    grpc::Alarm* set_flush_alarm = nullptr;
    grpc::Status status;
  };

  void Resume(AdmissionGate::Slot slot, absl::Status refused) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      resumed_slot_ = std::move(slot);
      resumed_refusal_ = std::move(refused);
    }
    // A new alarm each time: one whose callback is running may not be set
    // again, but may be destroyed (gRPC keeps it alive until the callback
    // returns).
    alarm_ = std::make_unique<grpc::Alarm>();
    Ref();
    GrpcHandOver();
    alarm_->Set(std::chrono::system_clock::now(), [this](bool /*fired*/) {
      GrpcHandOver();
      AdmissionGate::Slot slot;
      absl::Status refused;
      {
        std::lock_guard<std::mutex> lock(mu_);
        slot = std::move(resumed_slot_);
        refused = std::move(resumed_refusal_);
      }
      Perform(AnswerRecord(std::move(slot), refused));
      Unref();
    });
  }

  // The reactor is deleted by the last of its holders to let go: gRPC, at
  // OnDone, and each alarm whose callback has not yet returned. An alarm's
  // callback is no reaction of gRPC's, so OnDone does not wait for it: a
  // write it started may complete, and the call end, while it is still
  // returning from StartWrite. The count's release and acquire also order
  // that thread's last use of the reactor before its deletion where
  // ThreadSanitizer sees it (hand_over.h).
  void Ref() { refs_.fetch_add(1, std::memory_order_relaxed); }
  void Unref() {
    if (refs_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
  }

  // Starts answering the record in current_ (taken from held_ by
  // NextActionsLocked): at once when the gate has a slot (then what follows
  // is returned), or else once it has waited for one (Admit or Refuse).
  std::optional<Actions> BeginRecord() {
    record_arrived_ = absl::Now();
    absl::StatusOr<AdmissionGate::Slot> entered =
        edge_.gate->Enter({.method = kMethod, .deadline = deadline_}, this);
    if (!entered.ok())
      return AnswerRecord(AdmissionGate::Slot(), entered.status());
    if (*entered) return AnswerRecord(*std::move(entered), absl::OkStatus());
    return std::nullopt;
  }

  // Answers the record in current_, with `slot` held, or with the error
  // `refused` when the gate refused it; returns what follows.
  Actions AnswerRecord(AdmissionGate::Slot slot, const absl::Status& refused) {
    call_.NoteQueueWait(slot ? slot.waited() : absl::Now() - record_arrived_);
    ByteBuffer answer = Answer(refused);
    // The slot is given back before the answer is queued.
    slot.Release();
    Actions actions;
    {
      std::lock_guard<std::mutex> lock(mu_);
      processing_ = false;
      ++answered_;
      call_.AddResponseBytes(answer.Length());
      TakeBuffer(&answer, &pending_);
      has_pending_ = true;
      actions = NextActionsLocked();
    }
    return actions;
  }

  // The answer to current_: its id and the adjudication, or the error
  // Adjudicate would have ended the call with (`refused`, when the gate
  // refused the record).
  ByteBuffer Answer(const absl::Status& refused) {
    alignas(16) char first_block[8192];
    google::protobuf::Arena arena(
        ArenaOnStack(first_block, sizeof(first_block)));
    auto* answer =
        google::protobuf::Arena::CreateMessage<v1::AdjudicateStreamResponse>(
            &arena);
    grpc::CallbackServerContext* const context = context_;
    auto cancelled = [context] { return context->IsCancelled(); };
    // Each record gets the maximum call time from its own start.
    const Checkpoint checkpoint = edge_.gate->MakeCheckpoint(
        kMethod, GatedWork(RulesMethod::kAdjudicateStream), deadline_,
        cancelled);
    // The common form is read in place, as Adjudicate reads its request:
    // no string of the record is copied.
    grpc::Slice slice;
    absl::string_view id;
    const absl::string_view bytes = FlatBytes(current_, &slice, &storage_);
    if (ReadAdjudicateStreamRequest(bytes, &id, &view_) &&
        id.size() <= kMaxRecordIdBytes) {
      std::optional<absl::Status> status =
          refused.ok()
              ? AdjudicateInPlace(*edge_.core, view_, &arena, checkpoint, call_,
                                  answer->mutable_result())
              : std::optional<absl::Status>(refused);
      if (status.has_value()) {
        answer->set_id(std::string(id));
        current_.Clear();
        ReleaseBuffers();
        return Serialized(*status, answer);
      }
    }
    auto* request =
        google::protobuf::Arena::CreateMessage<v1::AdjudicateStreamRequest>(
            &arena);
    absl::Status status = ParseRequest(bytes, request);
    current_.Clear();
    ReleaseBuffers();
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
    if (status.ok()) status = refused;
    if (status.ok()) {
      call_.NoteVariant(request->record().variant());
      status = edge_.core->Adjudicate(request->record(),
                                      answer->mutable_result(), checkpoint);
      if (status.ok()) NoteAnswer(call_, answer->result());
    }
    return Serialized(status, answer);
  }

  // A stream keeps the buffer of ordinary records from one to the next,
  // not that of a long one.
  void ReleaseBuffers() {
    if (storage_.capacity() > 64 * 1024) storage_ = std::string();
  }

  // The answer's bytes, with `status` as its error when not OK.
  ByteBuffer Serialized(const absl::Status& status,
                        v1::AdjudicateStreamResponse* answer) {
    if (!status.ok()) {
      call_.NoteRefusal(status);
      answer->clear_result();
      v1::RecordError* error = answer->mutable_error();
      error->set_code(static_cast<int>(status.code()));
      error->set_message(std::string(status.message()));
    }
    ByteBuffer bytes;
    if (!SerializeResponse(*answer, &bytes).ok()) bytes.Clear();
    return bytes;
  }

  // Decides, under mu_, what comes next: the pending answer's write, the
  // held record's answer, the next read, or the end of the call (observed
  // here, under the lock).
  Actions NextActionsLocked() {
    Actions actions;
    if (finished_) return actions;
    const bool stopping = input_closed_ || ending_ || broken_;
    // An answer with nothing to follow it yet, to a client that sends
    // ahead, is held back until its next record arrives (then it goes into
    // gRPC's buffer, see below) or the flush alarm rings: the next record
    // of such a client is usually already here, its read done as soon as
    // this callback returns.
    const bool hold_back = has_pending_ && !writing_ && !processing_ &&
                           held_count_ == 0 && sends_ahead_ &&
                           read_outstanding_ && !stopping && !flush_due_;
    if (hold_back && !flush_alarm_set_ && !done_) {
      flush_alarm_set_ = true;
      // A new alarm each time, as in Resume.
      flush_alarm_ = std::make_unique<grpc::Alarm>();
      actions.set_flush_alarm = flush_alarm_.get();
    }
    if (!writing_ && has_pending_ && !broken_ && !hold_back) {
      TakeBuffer(&pending_, &response_);
      has_pending_ = false;
      writing_ = true;
      actions.write = true;
    }
    if (!processing_ && held_count_ > 0 && !has_pending_ && !broken_) {
      TakeBuffer(&held_[held_first_], &current_);
      held_first_ = (held_first_ + 1) % kReadAhead;
      --held_count_;
      processing_ = true;
      actions.answer = true;
    }
    if (actions.write) {
      // While a record is being answered another answer surely follows
      // this one (an answer or a refusal, at the latest when the record's
      // wait for a slot ends), so this one may wait in gRPC's buffer for
      // it: one sendmsg then carries a run of answers, not each its own.
      // The next write without the hint, or Finish, sends the run.
      const size_t bytes = response_.Length();
      const bool buffered = wrote_before_ && processing_ &&
                            buffered_bytes_ + bytes <= kMaxBufferedAnswerBytes;
      if (buffered) {
        buffered_bytes_ += bytes;
        actions.write_options.set_buffer_hint();
      } else {
        buffered_bytes_ = 0;
        flush_due_ = false;
      }
      wrote_before_ = true;
    }
    // The next records are read while this one is answered, so that they
    // are here when this one's answer is written.
    if (!stopping && !read_outstanding_ && held_count_ < kReadAhead) {
      read_outstanding_ = true;
      actions.read = true;
    }
    if (stopping && !processing_ && !writing_ && !actions.write &&
        ((!has_pending_ && held_count_ == 0) || broken_)) {
      finished_ = true;
      actions.finish = true;
      absl::Status status;
      if (broken_) {
        status = absl::CancelledError("AdjudicateStream: call cancelled");
      } else if (!input_closed_) {
        status = absl::UnavailableError(
            absl::StrCat("AdjudicateStream: the server is shutting down "
                         "after answering ",
                         answered_,
                         " records; send the rest to another "
                         "server"));
      }
      call_.Finish(status);
      actions.status = ToGrpcStatus(status, nullptr);
    }
    return actions;
  }

  // The flush alarm rang (or was cancelled by OnDone): an answer still held
  // back goes out now.
  void OnFlushAlarm() {
    GrpcHandOver();
    Actions actions;
    {
      std::lock_guard<std::mutex> lock(mu_);
      flush_alarm_set_ = false;
      if (!done_) {
        flush_due_ = has_pending_;
        actions = NextActionsLocked();
      }
    }
    Perform(actions);
    Unref();
  }

  // Moves `from`'s bytes to `to` (ByteBuffer has no move: its copy would
  // allocate), leaving `from` empty.
  static void TakeBuffer(ByteBuffer* from, ByteBuffer* to) {
    to->Clear();
    to->Swap(from);
  }

  // Carries out `actions`, and those that follow while records are
  // answered at once: a loop, not a recursion, since with writes done and
  // records read on other threads meanwhile there may be many.
  void Perform(Actions actions) {
    while (true) {
      if (actions.write || actions.read || actions.finish) GrpcHandOver();
      if (actions.write) {
        StartWrite(&response_, actions.write_options);
      }
      if (actions.read) StartRead(&reading_);
      // After Finish the reactor may be gone: nothing follows it here.
      if (actions.finish) Finish(actions.status);
      if (actions.set_flush_alarm != nullptr) {
        Ref();
        GrpcHandOver();
        actions.set_flush_alarm->Set(
            std::chrono::system_clock::now() + kFlushDelay,
            [this](bool /*fired*/) { OnFlushAlarm(); });
      }
      if (!actions.answer) return;
      std::optional<Actions> next = BeginRecord();
      if (!next.has_value()) return;
      actions = *std::move(next);
    }
  }

  const GrpcRulesEdge edge_;
  StreamRegistry* const registry_;
  grpc::CallbackServerContext* const context_;
  const absl::Time deadline_;
  bool registered_ = false;

  // The target of the outstanding read (touched by gRPC and OnReadDone
  // only).
  ByteBuffer reading_;
  // Touched only by the one record being answered at a time (and the
  // ObservedCall below by it, or under mu_).
  ByteBuffer current_;
  // The record read in place, and the bytes of a request that came in
  // several slices.
  AdjudicateRequestView view_;
  std::string storage_;
  absl::Time record_arrived_;
  std::unique_ptr<grpc::Alarm> alarm_;
  ObservedCall call_;
  // gRPC's reference and one per alarm set (Ref, Unref).
  std::atomic<int> refs_{1};

  // Guards what follows (std::mutex: see StreamRegistry).
  std::mutex mu_;
  AdmissionGate::Slot resumed_slot_;
  absl::Status resumed_refusal_;
  // Read, waiting for the records before them: a ring of held_count_ from
  // held_first_.
  ByteBuffer held_[kReadAhead];
  int held_first_ = 0;
  int held_count_ = 0;
  ByteBuffer response_;  // Being written.
  ByteBuffer pending_;   // Answered, not yet written.
  bool has_pending_ = false;
  // The bytes of the answers the transport may be holding back.
  size_t buffered_bytes_ = 0;
  // The client sent its last record before the answer to the one before.
  bool sends_ahead_ = false;
  // Rings kFlushDelay after an answer was held back (see
  // NextActionsLocked); flush_alarm_set_ until its callback has run.
  std::unique_ptr<grpc::Alarm> flush_alarm_;
  bool flush_alarm_set_ = false;
  bool flush_due_ = false;  // The answer held back goes out at once.
  bool done_ = false;       // OnDone has run.
  // The first write, which carries the response's headers, is never
  // hinted: when it was, about one service benchmark run in three had a
  // stream of h2load's (a client without BDP pings) stalled until the
  // keepalive ping 60 s later, and none in twelve runs since. gRPC's
  // tracker has hangs of first writes with the hint (grpc/grpc#12975,
  // #34231).
  bool wrote_before_ = false;
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
    const GrpcRulesEdge& edge, StreamRegistry* registry,
    grpc::CallbackServerContext* context) {
  return new AdjudicateStreamReactor(edge, registry, context);
}

}  // namespace halma::service
