// halmactl adjudicate --batch: many records over AdjudicateStream calls.
//
// Design. One channel with round_robin load balancing; --streams workers,
// each with one AdjudicateStream call at a time: its writer (the worker's
// thread) sends records while fewer than --window are unanswered on it, its
// reader thread takes the answers (the server answers in request order).
// A reader thread of the input parses records and numbers them (their
// sequence numbers); it stops reading while the oldest record not yet
// written out is `capacity` records behind, so the records held anywhere
// (queued, in flight, answered but waiting for an older one) never exceed
// `capacity` = 2 x streams x window. The output thread writes the answers in
// input order. When a stream fails (UNAVAILABLE at server shutdown, a server
// killed), its unanswered records go back to a retry queue that every
// worker serves first, and the worker opens a new stream (round_robin picks
// a server that is still READY), at most --retries times per record; a
// worker whose streams keep failing without an answer gives up, and when
// every worker has, the records left are answered with the last error.

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "batch_input.h"
#include "common.h"
#include "grpcpp/client_context.h"

namespace halma::halmactl {
namespace {

using Clock = std::chrono::steady_clock;

constexpr int kDefaultStreams = 8;
constexpr int kDefaultWindow = 32;
constexpr int kDefaultRetries = 5;
// Streams in a row that fail before any answer before a worker gives up.
constexpr int kMaxStreamFailures = 8;
// After the channel first connects, a moment for round_robin to connect to
// the target's other addresses, so that the first streams spread over all.
constexpr auto kSettleTime = std::chrono::milliseconds(250);

// A record on its way through the streams.
struct Item {
  uint64_t seq = 0;
  int64_t line = 0;
  std::string id;
  v1::AdjudicateStreamRequest request;
  int attempts = 0;
  Clock::time_point sent_at;  // On the current stream.
};

// A worker's stream, as the watchdog sees it (under Batch::mu_).
struct ActiveStream {
  grpc::ClientContext* context;
  const std::deque<std::shared_ptr<Item>>* pending;
  Clock::time_point last_answer;
  bool stalled = false;
};

// What is written out for one record.
struct Outcome {
  std::string id;
  bool ok = false;
  v1::AdjudicateResponse result;
  int code = 0;  // absl/gRPC status code of an error.
  std::string message;
};

struct Summary {
  int64_t records = 0, legal = 0, illegal = 0, malformed = 0, failed = 0;
  int64_t mismatches = 0;
};

class Batch {
 public:
  Batch(const CommandLine& cl, client::HalmaClient& client, int fd,
        std::optional<int64_t> total)
      : cl_(cl),
        client_(client),
        input_(fd, cl.text_out),
        total_(total),
        streams_(cl.streams.value_or(kDefaultStreams)),
        window_(cl.window.value_or(kDefaultWindow)),
        retries_(cl.retries.value_or(kDefaultRetries)),
        capacity_(static_cast<uint64_t>(2 * streams_ * window_)),
        live_workers_(streams_) {}

  int Run();

 private:
  void ReadInput();
  void WriteOutput();
  void ShowProgress();
  void Work(int index);
  void RunStreams(int index);
  void Watch();
  // Under term_mu_.
  void ClearProgress();
  void WriteOut(const std::string& text);
  // Under mu_.
  bool AllDelivered() const { return input_done_ && delivered_ == read_seq_; }
  bool HaveWork() const { return !retry_.empty() || !ready_.empty(); }
  std::shared_ptr<Item> TakeWork();
  void Deliver(uint64_t seq, Outcome outcome);
  void Requeue(std::deque<std::shared_ptr<Item>>* pending,
               const grpc::Status& status);
  void Abandon(const grpc::Status& status);

  const CommandLine& cl_;
  client::HalmaClient& client_;
  BatchInput input_;
  const std::optional<int64_t> total_;
  const int streams_, window_, retries_;
  const uint64_t capacity_;
  Clock::time_point start_ = Clock::now();  // Once connected.

  std::mutex mu_;
  std::condition_variable cv_;
  uint64_t read_seq_ = 0;   // Records read (the next one's number).
  uint64_t delivered_ = 0;  // Records answered (or failed for good).
  uint64_t next_out_ = 0;   // The next record to write out.
  bool input_done_ = false;
  bool output_done_ = false;
  std::deque<std::shared_ptr<Item>> ready_;
  std::map<uint64_t, std::shared_ptr<Item>> retry_;
  std::map<uint64_t, Outcome> finished_;
  int live_workers_;
  int workers_running_ = 0;
  // Set once every record is written out: streams still closing are
  // cancelled (a server that hangs would hold them open for ever).
  bool cancel_streams_ = false;
  bool abandoned_ = false;
  grpc::Status abandon_status_;
  int64_t resent_ = 0, stream_failures_ = 0;
  int opened_ = 0;  // Workers that have opened their first stream.
  // The progress line (stderr on a terminal): cleared before anything else
  // is written to the terminal, under term_mu_.
  bool progress_ = false;
  bool stdout_is_terminal_ = false;
  std::mutex term_mu_;
  bool progress_shown_ = false;
  std::vector<ActiveStream*> active_;
  Summary summary_;
};

std::shared_ptr<Item> Batch::TakeWork() {
  std::shared_ptr<Item> item;
  if (!retry_.empty()) {
    item = std::move(retry_.begin()->second);
    retry_.erase(retry_.begin());
  } else {
    item = std::move(ready_.front());
    ready_.pop_front();
  }
  return item;
}

void Batch::Deliver(uint64_t seq, Outcome outcome) {
  finished_.emplace(seq, std::move(outcome));
  ++delivered_;
  cv_.notify_all();
}

Outcome ErrorOutcome(const std::string& id, int code, std::string message) {
  Outcome outcome;
  outcome.id = id;
  outcome.code = code;
  outcome.message = std::move(message);
  return outcome;
}

void Batch::Requeue(std::deque<std::shared_ptr<Item>>* pending,
                    const grpc::Status& status) {
  for (std::shared_ptr<Item>& item : *pending) {
    if (++item->attempts > retries_) {
      Deliver(item->seq,
              ErrorOutcome(
                  item->id,
                  status.ok() ? grpc::StatusCode::UNKNOWN : status.error_code(),
                  absl::StrCat("no answer after ", item->attempts,
                               " streams; the last ended with: ",
                               status.ok() ? "OK before answering"
                                           : status.error_message())));
    } else {
      ++resent_;
      const uint64_t seq = item->seq;
      retry_.emplace(seq, std::move(item));
    }
  }
  pending->clear();
  cv_.notify_all();
}

void Batch::Abandon(const grpc::Status& status) {
  abandoned_ = true;
  abandon_status_ = status;
  auto fail = [&](const std::shared_ptr<Item>& item) {
    Deliver(item->seq,
            ErrorOutcome(item->id, status.error_code(),
                         absl::StrCat("not adjudicated: every stream failed; "
                                      "the last with: ",
                                      status.error_message())));
  };
  for (auto& entry : retry_) fail(entry.second);
  retry_.clear();
  for (auto& item : ready_) fail(item);
  ready_.clear();
}

void Batch::ReadInput() {
  while (true) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return read_seq_ - next_out_ < capacity_; });
    }
    std::optional<BatchRecord> record = input_.Next();
    std::unique_lock<std::mutex> lock(mu_);
    if (!record) {
      input_done_ = true;
      cv_.notify_all();
      return;
    }
    const uint64_t seq = read_seq_++;
    if (!record->request) {
      Deliver(seq,
              ErrorOutcome(record->id, static_cast<int>(record->error.code()),
                           std::string(record->error.message())));
      continue;
    }
    if (abandoned_) {
      Deliver(seq, ErrorOutcome(record->id, abandon_status_.error_code(),
                                absl::StrCat("not adjudicated: every stream "
                                             "failed; the last with: ",
                                             abandon_status_.error_message())));
      continue;
    }
    auto item = std::make_shared<Item>();
    item->seq = seq;
    item->line = record->line;
    item->id = record->id;
    item->request = *std::move(record->request);
    ready_.push_back(std::move(item));
    cv_.notify_all();
  }
}

void Batch::Work(int index) {
  RunStreams(index);
  std::lock_guard<std::mutex> lock(mu_);
  --workers_running_;
  cv_.notify_all();
}

void Batch::RunStreams(int index) {
  int failures = 0;  // Streams in a row that failed before any answer.
  auto backoff = std::chrono::milliseconds(50);
  bool first = true;
  while (true) {
    {
      std::unique_lock<std::mutex> lock(mu_);
      // The first streams open one after another, so that round_robin
      // hands them to the servers in turn.
      if (first) {
        cv_.wait(lock, [&] {
          return opened_ >= index || AllDelivered() || abandoned_;
        });
      }
      if (AllDelivered() || abandoned_) {
        if (first) ++opened_;  // The next worker need not wait for this one.
        cv_.notify_all();
        return;
      }
    }
    grpc::ClientContext context;
    auto stream = client_.AdjudicateStream(&context);
    std::deque<std::shared_ptr<Item>> pending;  // Sent, unanswered; under mu_.
    bool read_ended = false;                    // Under mu_.
    int64_t answered = 0;                       // Under mu_.
    bool protocol_error = false;
    ActiveStream active{&context, &pending, Clock::now()};
    {
      std::lock_guard<std::mutex> lock(mu_);
      active_.push_back(&active);
      if (cancel_streams_) context.TryCancel();
      if (first) {
        first = false;
        ++opened_;
        cv_.notify_all();
      }
    }
    std::thread reader([&] {
      v1::AdjudicateStreamResponse response;
      while (stream->Read(&response)) {
        std::lock_guard<std::mutex> lock(mu_);
        if (pending.empty() || pending.front()->request.id() != response.id()) {
          protocol_error = true;
          break;
        }
        std::shared_ptr<Item> item = std::move(pending.front());
        pending.pop_front();
        ++answered;
        active.last_answer = Clock::now();
        Outcome outcome;
        outcome.id = item->id;
        if (response.has_result()) {
          outcome.ok = true;
          outcome.result = std::move(*response.mutable_result());
        } else {
          outcome.code = response.error().code();
          outcome.message = response.error().message();
        }
        Deliver(item->seq, std::move(outcome));
      }
      std::lock_guard<std::mutex> lock(mu_);
      read_ended = true;
      cv_.notify_all();
    });
    while (true) {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] {
        return read_ended || abandoned_ ||
               (static_cast<int>(pending.size()) < window_ &&
                (HaveWork() || AllDelivered()));
      });
      if (read_ended || abandoned_) break;
      if (!HaveWork()) {  // Every record is answered.
        lock.unlock();
        stream->WritesDone();
        break;
      }
      std::shared_ptr<Item> item = TakeWork();
      item->sent_at = Clock::now();
      pending.push_back(item);
      lock.unlock();
      if (!stream->Write(item->request)) break;  // The stream has failed.
    }
    {
      std::unique_lock<std::mutex> lock(mu_);
      // A stream that failed, or answered out of turn, is ended here so
      // that its reader returns.
      if (protocol_error || abandoned_ || !pending.empty()) {
        lock.unlock();
        context.TryCancel();
      }
    }
    reader.join();
    grpc::Status status = stream->Finish();
    std::unique_lock<std::mutex> lock(mu_);
    active_.erase(std::find(active_.begin(), active_.end(), &active));
    if (protocol_error) {
      status = grpc::Status(grpc::StatusCode::INTERNAL,
                            "the server answered a record out of turn");
    } else if (active.stalled) {
      status = grpc::Status(
          grpc::StatusCode::DEADLINE_EXCEEDED,
          absl::StrCat("no answer within ", cl_.deadline_ms, " ms"));
    }
    if (!pending.empty()) Requeue(&pending, status);
    // Every record answered: how this stream ended no longer matters.
    if (AllDelivered()) return;
    if (status.ok() && answered > 0) {
      failures = 0;
      continue;  // Done, or records came back from another stream.
    }
    // A failure, or a stream the server ended at once without answering.
    if (!status.ok()) ++stream_failures_;
    if (status.ok()) {
      status = grpc::Status(grpc::StatusCode::UNAVAILABLE,
                            "the server ended the stream without answering");
    }
    if (answered > 0) {
      failures = 0;
      backoff = std::chrono::milliseconds(50);
    } else if (++failures >= kMaxStreamFailures) {
      if (--live_workers_ == 0 && !AllDelivered()) Abandon(status);
      cv_.notify_all();
      return;
    }
    cv_.wait_for(lock, backoff, [&] { return AllDelivered() || abandoned_; });
    backoff = std::min(backoff * 2, std::chrono::milliseconds(2000));
  }
}

// Ends the streams whose oldest unanswered record has waited longer than
// --deadline_ms since it was sent or since the answer before it (a server
// that hangs, or a connection that died silently): their records go to
// the other streams.
void Batch::Watch() {
  const auto timeout = std::chrono::milliseconds(cl_.deadline_ms);
  std::unique_lock<std::mutex> lock(mu_);
  while (!output_done_) {
    cv_.wait_for(lock, std::chrono::milliseconds(100),
                 [&] { return output_done_; });
    const Clock::time_point now = Clock::now();
    for (ActiveStream* stream : active_) {
      if (stream->stalled || stream->pending->empty()) continue;
      const Clock::time_point since =
          std::max(stream->pending->front()->sent_at, stream->last_answer);
      if (now - since > timeout) {
        stream->stalled = true;
        stream->context->TryCancel();
      }
    }
  }
}

void Batch::WriteOutput() {
  std::string out;
  while (true) {
    std::vector<Outcome> ready;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] {
        return finished_.count(next_out_) > 0 ||
               (input_done_ && next_out_ == read_seq_);
      });
      while (true) {
        auto it = finished_.find(next_out_);
        if (it == finished_.end()) break;
        ready.push_back(std::move(it->second));
        finished_.erase(it);
        ++next_out_;
      }
      if (ready.empty()) {
        output_done_ = true;
        cv_.notify_all();
        break;
      }
      cv_.notify_all();  // The input reader may go on.
    }
    for (Outcome& outcome : ready) {
      ++summary_.records;
      if (outcome.ok) {
        const bool illegal = outcome.result.has_illegal_move();
        ++(illegal ? summary_.illegal : summary_.legal);
        if (outcome.result.result_mismatch()) ++summary_.mismatches;
        if (cl_.text_out) {
          absl::StrAppend(&out, outcome.result.record_text());
          if (!out.empty() && out.back() != '\n') out.push_back('\n');
        } else {
          absl::StrAppend(&out, "{\"id\":", JsonQuote(outcome.id),
                          ",\"result\":", CompactJson(outcome.result), "}\n");
        }
      } else {
        const auto code = static_cast<absl::StatusCode>(outcome.code);
        ++(code == absl::StatusCode::kInvalidArgument ? summary_.malformed
                                                      : summary_.failed);
        const std::string code_name = absl::StatusCodeToString(code);
        if (cl_.text_out) {
          WriteOut(out);
          out.clear();
          std::fflush(stdout);
          std::lock_guard<std::mutex> term(term_mu_);
          ClearProgress();
          std::fprintf(stderr, "halmactl: record %s: %s: %s\n",
                       outcome.id.c_str(), code_name.c_str(),
                       outcome.message.c_str());
        } else {
          absl::StrAppend(&out, "{\"id\":", JsonQuote(outcome.id),
                          ",\"error\":{\"code\":", JsonQuote(code_name),
                          ",\"message\":", JsonQuote(outcome.message), "}}\n");
        }
      }
      if (out.size() >= (1 << 16)) {
        WriteOut(out);
        out.clear();
      }
    }
    WriteOut(out);
    out.clear();
    std::fflush(stdout);
  }
}

void Batch::ClearProgress() {
  if (!progress_shown_) return;
  std::fprintf(stderr, "\r\x1b[K");
  std::fflush(stderr);
  progress_shown_ = false;
}

void Batch::WriteOut(const std::string& text) {
  if (text.empty()) return;
  if (progress_ && stdout_is_terminal_) {
    std::lock_guard<std::mutex> term(term_mu_);
    ClearProgress();
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
    return;
  }
  std::fwrite(text.data(), 1, text.size(), stdout);
}

std::string Seconds(double s) { return absl::StrFormat("%.2f s", s); }

void Batch::ShowProgress() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!output_done_) {
    cv_.wait_for(lock, std::chrono::milliseconds(200),
                 [&] { return output_done_; });
    if (output_done_) break;
    const uint64_t done = next_out_;
    const double elapsed =
        std::chrono::duration<double>(Clock::now() - start_).count();
    const double rate = elapsed > 0 ? done / elapsed : 0;
    std::string line = absl::StrCat(done);
    if (total_) absl::StrAppend(&line, "/", *total_);
    absl::StrAppend(&line, " records, ", absl::StrFormat("%.0f", rate),
                    " records/s");
    if (total_ && rate > 0 && static_cast<int64_t>(done) <= *total_) {
      absl::StrAppend(&line, ", ",
                      absl::StrFormat("%.0f", (*total_ - done) / rate),
                      " s left");
    }
    if (resent_ > 0) absl::StrAppend(&line, ", ", resent_, " sent again");
    lock.unlock();
    {
      std::lock_guard<std::mutex> term(term_mu_);
      std::fprintf(stderr, "\r%s\x1b[K", line.c_str());
      std::fflush(stderr);
      progress_shown_ = true;
    }
    lock.lock();
  }
  lock.unlock();
  std::lock_guard<std::mutex> term(term_mu_);
  ClearProgress();
}

int Batch::Run() {
  // Connect first, then give round_robin a moment to connect to the other
  // addresses: it sends only to READY ones.
  const auto connect_timeout = std::chrono::milliseconds(
      cl_.deadline_ms > 0 ? cl_.deadline_ms : kDefaultDeadlineMs);
  if (!client_.WaitForConnected(connect_timeout)) {
    std::cerr << "halmactl: UNAVAILABLE: cannot connect to '" << cl_.target
              << "' within " << connect_timeout.count() << " ms\n";
    return kExitRpcError;
  }
  // Waiting on the channel (not sleeping) lets gRPC's I/O go on, so that
  // the other connections complete in the meantime.
  const auto settled = std::chrono::system_clock::now() + kSettleTime;
  while (std::chrono::system_clock::now() < settled) {
    client_.channel()->WaitForStateChange(client_.channel()->GetState(true),
                                          settled);
  }
  start_ = Clock::now();

  std::thread reader([this] { ReadInput(); });
  std::vector<std::thread> workers;
  workers_running_ = streams_;
  for (int i = 0; i < streams_; ++i) {
    workers.emplace_back([this, i] { Work(i); });
  }
  std::thread watchdog;
  if (cl_.deadline_ms > 0) watchdog = std::thread([this] { Watch(); });
  std::thread progress;
  progress_ = isatty(STDERR_FILENO);
  stdout_is_terminal_ = isatty(STDOUT_FILENO);
  if (progress_) progress = std::thread([this] { ShowProgress(); });
  WriteOutput();
  {
    // Every record is written out. Streams close with OK once their server
    // sees the half-close; one that does not within the deadline (a server
    // that hangs) is cancelled.
    std::unique_lock<std::mutex> lock(mu_);
    if (!cv_.wait_for(lock, connect_timeout,
                      [&] { return workers_running_ == 0; })) {
      cancel_streams_ = true;
      for (ActiveStream* stream : active_) stream->context->TryCancel();
    }
  }
  reader.join();
  for (std::thread& worker : workers) worker.join();
  if (progress.joinable()) progress.join();
  if (watchdog.joinable()) watchdog.join();

  const double elapsed =
      std::chrono::duration<double>(Clock::now() - start_).count();
  std::string line = absl::StrCat(
      "halmactl: ", summary_.records, " records in ", Seconds(elapsed), " (",
      absl::StrFormat("%.0f", elapsed > 0 ? summary_.records / elapsed : 0),
      " records/s): ", summary_.legal, " legal, ", summary_.illegal,
      " illegal, ", summary_.malformed, " malformed, ", summary_.failed,
      " failed");
  if (summary_.mismatches > 0) {
    absl::StrAppend(&line, "; ", summary_.mismatches,
                    " with a claimed result that differs");
  }
  if (stream_failures_ > 0 || resent_ > 0) {
    absl::StrAppend(&line, "; ", stream_failures_, " stream",
                    stream_failures_ == 1 ? "" : "s", " failed, ", resent_,
                    " record", resent_ == 1 ? "" : "s", " sent again");
  }
  std::cerr << line << "\n";
  if (!input_.status().ok()) {
    std::cerr << "halmactl: " << input_.status().message() << "\n";
    return kExitUsage;
  }
  if (summary_.failed > 0) return kExitRpcError;
  if (summary_.illegal > 0 || summary_.malformed > 0) return kExitNegative;
  return kExitOk;
}

}  // namespace

int CmdAdjudicateBatch(const CommandLine& cl, client::HalmaClient& client) {
  if (cl.variant || cl.position || cl.file || cl.record || !cl.args.empty()) {
    return UsageFailure(cl.command,
                        "--batch takes every record from its input: no "
                        "--variant, --position, --file, --record or moves");
  }
  if (cl.json) {
    return UsageFailure(cl.command,
                        "--batch always writes JSON lines (or the text "
                        "format with --text-out); no --json");
  }
  int fd = STDIN_FILENO;
  if (*cl.batch != "-") {
    fd = open(cl.batch->c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
      return UsageFailure(cl.command,
                          absl::StrCat("cannot read '", *cl.batch, "'"));
    }
  }
  const std::optional<int64_t> total = CountBatchRecords(fd);
  Batch batch(cl, client, fd, total);
  const int code = batch.Run();
  if (fd != STDIN_FILENO) close(fd);
  return code;
}

}  // namespace halma::halmactl
