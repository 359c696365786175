// AdjudicateStream over a real channel on loopback: answers in order with
// the ids, each the same as Adjudicate's for its record; errors per record;
// flow control; half-close, cancellation and shutdown.
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/message_differencer.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "halma/game.h"
#include "halma/v1/halma.grpc.pb.h"
#include "halma/variant.h"
#include "tests/metrics/metrics_test_util.h"
#include "tests/service/fixture/checkpoint_latch.h"
#include "tests/service/fixture/loopback_server.h"
#include "tests/service/fixture/played_records.h"

namespace halma::service {
namespace {

using ::testing::HasSubstr;

ServerConfig StreamConfig() {
  ServerConfig config = LoopbackConfig();
  config.max_message_bytes = 16 << 20;
  config.max_record_moves = 20000;
  config.grace_period_seconds = 10;
  return config;
}

// A mix of records: legal games of every preset, records with an illegal
// move, malformed ones (bad variant, bad move text, a bad start position).
std::vector<v1::AdjudicateRequest> MixedRecords(int count) {
  const std::vector<std::string>& presets = PresetNames();
  std::vector<v1::AdjudicateRequest> records;
  for (int i = 0; i < count; ++i) {
    v1::AdjudicateRequest record =
        PlayedRecord(presets[i % presets.size()], 20 + i % 50,
                     static_cast<std::uint32_t>(i));
    switch (i % 7) {
      case 3:  // An illegal move at the end: a piece onto itself.
        record.add_moves("a1-a1");
        break;
      case 4:
        record.mutable_variant()->set_preset("no-such-variant");
        break;
      case 5:
        record.add_moves("zz99-q");
        break;
      case 6:
        record.set_start_position("not a position");
        break;
      default:
        break;
    }
    records.push_back(std::move(record));
  }
  return records;
}

struct UnaryAnswer {
  grpc::Status status;
  v1::AdjudicateResponse response;
};

UnaryAnswer CallAdjudicate(v1::HalmaRules::Stub& stub,
                           const v1::AdjudicateRequest& request) {
  UnaryAnswer answer;
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::seconds(30));
  answer.status = stub.Adjudicate(&context, request, &answer.response);
  return answer;
}

// The stream's answer for a record equals Adjudicate's: the same response,
// or the same error code and message.
void ExpectSameAsUnary(const v1::AdjudicateStreamResponse& streamed,
                       const UnaryAnswer& unary) {
  if (unary.status.ok()) {
    ASSERT_TRUE(streamed.has_result()) << streamed.DebugString();
    EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(
        streamed.result(), unary.response))
        << streamed.result().DebugString() << " vs "
        << unary.response.DebugString();
  } else {
    ASSERT_TRUE(streamed.has_error()) << streamed.DebugString();
    EXPECT_EQ(streamed.error().code(),
              static_cast<int>(unary.status.error_code()));
    EXPECT_EQ(streamed.error().message(), unary.status.error_message());
  }
}

TEST(AdjudicateStreamTest, AnswersEveryRecordInOrderAsAdjudicateWould) {
  std::unique_ptr<LoopbackServer> server =
      LoopbackServer::Start(StreamConfig());
  ASSERT_NE(server, nullptr);
  auto channel = server->channel();
  auto stub = v1::HalmaRules::NewStub(channel);
  const std::vector<v1::AdjudicateRequest> records = MixedRecords(140);

  auto context = ContextWithDeadline(absl::Seconds(60));
  auto stream = stub->AdjudicateStream(context.get());
  // The writer runs beside the reader: the server answers as it reads.
  std::thread writer([&] {
    for (std::size_t i = 0; i < records.size(); ++i) {
      v1::AdjudicateStreamRequest request;
      request.set_id(absl::StrCat("record-", i));
      *request.mutable_record() = records[i];
      if (!stream->Write(request)) break;
    }
    stream->WritesDone();
  });
  std::vector<v1::AdjudicateStreamResponse> answers;
  v1::AdjudicateStreamResponse answer;
  while (stream->Read(&answer)) answers.push_back(answer);
  writer.join();
  const grpc::Status status = stream->Finish();
  EXPECT_TRUE(status.ok()) << status.error_message();

  ASSERT_EQ(answers.size(), records.size());
  int errors = 0, illegal = 0;
  for (std::size_t i = 0; i < records.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(answers[i].id(), absl::StrCat("record-", i));
    ExpectSameAsUnary(answers[i], CallAdjudicate(*stub, records[i]));
    if (answers[i].has_error()) ++errors;
    if (answers[i].has_result() && answers[i].result().has_illegal_move()) {
      ++illegal;
    }
  }
  // Three kinds of malformed record in every seven, one illegal.
  EXPECT_EQ(errors, 60);
  EXPECT_EQ(illegal, 20);
}

// A message that does not parse is an error for that record (no id can be
// read from it); the stream goes on with the next one.
TEST(AdjudicateStreamTest, UndecodableRecordIsAnErrorAndTheStreamGoesOn) {
  std::unique_ptr<LoopbackServer> server =
      LoopbackServer::Start(StreamConfig());
  ASSERT_NE(server, nullptr);
  grpc::GenericStub stub(server->channel());
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::seconds(30));
  grpc::CompletionQueue cq;
  std::unique_ptr<grpc::GenericClientAsyncReaderWriter> call =
      stub.PrepareCall(&context, "/halma.v1.HalmaRules/AdjudicateStream", &cq);
  void* tag = nullptr;
  bool ok = false;
  auto step = [&](void* want) {
    EXPECT_TRUE(cq.Next(&tag, &ok));
    EXPECT_EQ(tag, want);
    return ok;
  };
  call->StartCall(reinterpret_cast<void*>(1));
  ASSERT_TRUE(step(reinterpret_cast<void*>(1)));

  v1::AdjudicateStreamRequest good;
  good.set_id("good");
  *good.mutable_record() = PlayedRecord("brainking-8x8", 10, 1);
  const std::string long_id(kMaxRecordIdBytes + 1, 'x');
  v1::AdjudicateStreamRequest long_named = good;
  long_named.set_id(long_id);
  const std::vector<std::string> messages = {
      std::string("\x0a\x05go", 4),  // Field 1 cut short.
      good.SerializeAsString(), long_named.SerializeAsString(),
      std::string("\x12\x03\x1a\x01\xff", 5),  // A move that is not UTF-8.
      good.SerializeAsString()};
  std::vector<v1::AdjudicateStreamResponse> answers;
  for (const std::string& bytes : messages) {
    grpc::Slice slice(bytes);
    grpc::ByteBuffer buffer(&slice, 1);
    call->Write(buffer, reinterpret_cast<void*>(2));
    ASSERT_TRUE(step(reinterpret_cast<void*>(2)));
    grpc::ByteBuffer in;
    call->Read(&in, reinterpret_cast<void*>(3));
    ASSERT_TRUE(step(reinterpret_cast<void*>(3)));
    std::vector<grpc::Slice> slices;
    ASSERT_TRUE(in.Dump(&slices).ok());
    std::string flat;
    for (const grpc::Slice& s : slices) {
      flat.append(reinterpret_cast<const char*>(s.begin()), s.size());
    }
    v1::AdjudicateStreamResponse answer;
    ASSERT_TRUE(answer.ParseFromString(flat));
    answers.push_back(answer);
  }
  call->WritesDone(reinterpret_cast<void*>(4));
  ASSERT_TRUE(step(reinterpret_cast<void*>(4)));
  grpc::Status status;
  call->Finish(&status, reinterpret_cast<void*>(5));
  step(reinterpret_cast<void*>(5));
  EXPECT_TRUE(status.ok()) << status.error_message();
  cq.Shutdown();
  while (cq.Next(&tag, &ok)) {
  }

  ASSERT_EQ(answers.size(), 5u);
  EXPECT_EQ(answers[0].error().code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(answers[0].error().message(), HasSubstr("request"));
  EXPECT_TRUE(answers[1].has_result());
  EXPECT_EQ(answers[1].id(), "good");
  EXPECT_EQ(answers[2].error().code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(answers[2].error().message(),
              HasSubstr(absl::StrCat("id: ", kMaxRecordIdBytes + 1, " bytes")));
  EXPECT_EQ(answers[2].id(), long_id.substr(0, kMaxRecordIdBytes));
  EXPECT_EQ(answers[3].error().code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(answers[3].error().message(), HasSubstr("record.moves"));
  EXPECT_TRUE(answers[4].has_result());
}

// Sends `records` on one stream, half-closes and reads every answer.
std::vector<v1::AdjudicateStreamResponse> StreamAll(
    v1::HalmaRules::Stub& stub,
    const std::vector<v1::AdjudicateRequest>& records) {
  auto context = ContextWithDeadline(absl::Seconds(120));
  auto stream = stub.AdjudicateStream(context.get());
  for (std::size_t i = 0; i < records.size(); ++i) {
    v1::AdjudicateStreamRequest request;
    request.set_id(absl::StrCat(i));
    *request.mutable_record() = records[i];
    EXPECT_TRUE(stream->Write(request));
  }
  stream->WritesDone();
  std::vector<v1::AdjudicateStreamResponse> answers;
  v1::AdjudicateStreamResponse answer;
  while (stream->Read(&answer)) answers.push_back(answer);
  EXPECT_TRUE(stream->Finish().ok());
  return answers;
}

// The limits of Adjudicate apply to each record: the record length (a
// record over it is an error; the stream goes on).
TEST(AdjudicateStreamTest, RecordLengthLimitApplies) {
  ServerConfig config = StreamConfig();
  config.max_record_moves = 1000;
  std::unique_ptr<LoopbackServer> server = LoopbackServer::Start(config);
  ASSERT_NE(server, nullptr);
  auto stub = v1::HalmaRules::NewStub(server->channel());
  v1::AdjudicateRequest too_long;
  too_long.mutable_variant()->set_preset("brainking-8x8");
  for (int i = 0; i < 1001; ++i) too_long.add_moves("pass");
  const std::vector<v1::AdjudicateStreamResponse> answers =
      StreamAll(*stub, {too_long, PlayedRecord("brainking-8x8", 30, 7)});
  ASSERT_EQ(answers.size(), 2u);
  EXPECT_EQ(answers[0].error().code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(answers[0].error().message(),
            "moves: the record has 1001 moves, more than this server's limit "
            "of 1000 (max_record_moves)");
  EXPECT_TRUE(answers[1].has_result());
  EXPECT_EQ(answers[1].id(), "1");
}

// ... and the maximum call time, per record: a record cut off by it is an
// error, and the next record gets its own time. The first record is held
// at its first checkpoint until its time is up.
TEST(AdjudicateStreamTest, MaximumCallTimeAppliesToEachRecord) {
  CheckpointLatch latch(CheckpointLatch::Hold::kUntilDeadline);
  ServerConfig config = StreamConfig();
  config.max_call_seconds = 1;
  config.checkpoint_hook = latch.Hook();
  std::unique_ptr<LoopbackServer> server = LoopbackServer::Start(config);
  ASSERT_NE(server, nullptr);
  auto stub = v1::HalmaRules::NewStub(server->channel());
  // Two checkpoints' worth of plies: it would go on after the first.
  const v1::AdjudicateRequest slow =
      PlayedRecord("classic-16x16", 2 * kCheckpointInterval, 11);
  ASSERT_EQ(slow.moves_size(), 2 * kCheckpointInterval);
  // Shorter than a checkpoint interval: never held.
  const v1::AdjudicateRequest quick = PlayedRecord("brainking-8x8", 30, 7);
  const std::vector<v1::AdjudicateStreamResponse> answers =
      StreamAll(*stub, {slow, quick});
  ASSERT_EQ(answers.size(), 2u);
  EXPECT_EQ(answers[0].error().code(), grpc::StatusCode::DEADLINE_EXCEEDED);
  EXPECT_THAT(answers[0].error().message(),
              HasSubstr("AdjudicateStream: deadline exceeded while replaying "
                        "the record"));
  EXPECT_THAT(answers[0].error().message(), HasSubstr("max_call_seconds"));
  EXPECT_TRUE(answers[1].has_result());
  EXPECT_EQ(latch.reached(), 1);
}

// A record that finds every slot busy waits for one like any Adjudicate;
// one the gate refuses (no queue here) is that record's error, named, and
// the stream goes on.
TEST(AdjudicateStreamTest, RecordsWaitForASlotAndARefusalIsTheirError) {
  CheckpointLatch latch;
  ServerConfig config = StreamConfig();
  config.max_concurrent_adjudications = 1;
  config.max_queue_length = 0;
  config.checkpoint_hook = latch.Hook();
  std::unique_ptr<LoopbackServer> server = LoopbackServer::Start(config);
  ASSERT_NE(server, nullptr);
  // An Adjudicate holds the one slot at its first checkpoint.
  BackgroundCall<v1::AdjudicateRequest, v1::AdjudicateResponse> holder(
      server->channel(), &Stub::Adjudicate,
      PlayedRecord("classic-16x16", kCheckpointInterval + 1, 5));
  ASSERT_TRUE(latch.WaitUntilHeld(1));
  auto stub = v1::HalmaRules::NewStub(server->channel());
  std::vector<v1::AdjudicateStreamResponse> answers =
      StreamAll(*stub, {PlayedRecord("brainking-8x8", 30, 1)});
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_EQ(answers[0].error().code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_THAT(answers[0].error().message(),
              HasSubstr("AdjudicateStream: 1 calls are running already"));
  EXPECT_THAT(answers[0].error().message(),
              HasSubstr("(max_concurrent_adjudications)"));
  latch.Release();
  ASSERT_TRUE(holder.Wait().ok());
  // The slot free again, a record is answered.
  answers = StreamAll(*stub, {PlayedRecord("brainking-8x8", 30, 1)});
  ASSERT_EQ(answers.size(), 1u);
  EXPECT_TRUE(answers[0].has_result());
}

using StreamOfRecords = grpc::ClientReaderWriter<v1::AdjudicateStreamRequest,
                                                 v1::AdjudicateStreamResponse>;

// Reads the answers to the records numbered `first` to `first + count - 1`
// (their ids), each an adjudication.
void ReadResults(StreamOfRecords* stream, int first, int count) {
  v1::AdjudicateStreamResponse answer;
  for (int i = first; i < first + count; ++i) {
    ASSERT_TRUE(stream->Read(&answer)) << "answer " << i;
    EXPECT_EQ(answer.id(), absl::StrCat(i));
    EXPECT_TRUE(answer.has_result());
  }
}

// Half-closes: no answer follows, and the stream ends with OK.
void ExpectCleanEnd(StreamOfRecords* stream) {
  stream->WritesDone();
  v1::AdjudicateStreamResponse extra;
  EXPECT_FALSE(stream->Read(&extra));
  EXPECT_TRUE(stream->Finish().ok());
}

// Records read ahead while the one before them waits for a slot are
// answered in order once it has one: the first answer (written at once,
// with the response's headers) and the others (written as a run behind
// it, the last one flushing the run).
TEST(AdjudicateStreamTest, RecordsReadAheadOfOneWaitingForASlotAreAnswered) {
  CheckpointLatch latch;
  ServerConfig config = StreamConfig();
  config.max_concurrent_adjudications = 1;
  config.max_queue_length = 4;
  config.max_queue_wait_ms = 60000;
  config.checkpoint_hook = latch.Hook();
  std::unique_ptr<LoopbackServer> server = LoopbackServer::Start(config);
  ASSERT_NE(server, nullptr);
  // An Adjudicate holds the one slot at its first checkpoint.
  BackgroundCall<v1::AdjudicateRequest, v1::AdjudicateResponse> holder(
      server->channel(), &Stub::Adjudicate,
      PlayedRecord("classic-16x16", kCheckpointInterval + 1, 5));
  ASSERT_TRUE(latch.WaitUntilHeld(1));

  // A client without gRPC's BDP pings, like h2load: a ping's answer would
  // send bytes held back along with it.
  grpc::ChannelArguments arguments;
  arguments.SetInt(GRPC_ARG_HTTP2_BDP_PROBE, 0);
  auto stub = v1::HalmaRules::NewStub(grpc::CreateCustomChannel(
      server->address(), grpc::InsecureChannelCredentials(), arguments));
  std::vector<v1::AdjudicateStreamRequest> requests(5);
  double request_bytes = 0;
  for (int i = 0; i < 5; ++i) {
    requests[i].set_id(absl::StrCat(i));
    // Shorter than a checkpoint interval: never held.
    *requests[i].mutable_record() =
        PlayedRecord("brainking-8x8", 30, static_cast<uint32_t>(i));
    request_bytes += static_cast<double>(requests[i].ByteSizeLong());
  }
  // Shorter than the server's keepalive (60 s), which would send answers
  // held back at last.
  auto context = ContextWithDeadline(absl::Seconds(30));
  auto stream = stub->AdjudicateStream(context.get());
  for (const v1::AdjudicateStreamRequest& request : requests) {
    ASSERT_TRUE(stream->Write(request));
  }
  // The four are read ahead while the first waits for the slot.
  metrics::Metrics& metrics = (*server)->metrics();
  ASSERT_TRUE(WaitUntil([&] {
    return metrics::Value(metrics.Collect(), "halma_rpc_request_bytes_total",
                          {{"method", "halma.v1.HalmaRules/AdjudicateStream"},
                           {"protocol", "grpc"}}) >= request_bytes;
  }));
  latch.Release();
  ASSERT_TRUE(holder.Wait().ok());
  ReadResults(stream.get(), 0, 5);
  ExpectCleanEnd(stream.get());
}

// A client that sends a few records and waits for their answers before
// sending more gets each window's answers in full: the last answer of a
// window, which has no record behind it, is not held back for one.
TEST(AdjudicateStreamTest, AClientThatSendsInWindowsGetsEveryWindowAnswered) {
  std::unique_ptr<LoopbackServer> server =
      LoopbackServer::Start(StreamConfig());
  ASSERT_NE(server, nullptr);
  auto stub = v1::HalmaRules::NewStub(server->channel());
  for (int window : {1, 3, 16}) {
    SCOPED_TRACE(window);
    auto context = ContextWithDeadline(absl::Seconds(30));
    auto stream = stub->AdjudicateStream(context.get());
    int sent = 0;
    for (int round = 0; round < 8; ++round) {
      for (int i = 0; i < window; ++i, ++sent) {
        v1::AdjudicateStreamRequest request;
        request.set_id(absl::StrCat(sent));
        *request.mutable_record() = PlayedRecord(
            "brainking-8x8", 20 + sent % 40, static_cast<uint32_t>(sent));
        ASSERT_TRUE(stream->Write(request));
      }
      ReadResults(stream.get(), sent - window, window);
    }
    ExpectCleanEnd(stream.get());
  }
}

// A client that writes and never reads stops the server reading: its
// writes stall once the transport's windows are full, far short of the
// records it has, and go on when it reads.
TEST(AdjudicateStreamTest, ASlowReaderSlowsTheWriter) {
  std::unique_ptr<LoopbackServer> server =
      LoopbackServer::Start(StreamConfig());
  ASSERT_NE(server, nullptr);
  auto stub = v1::HalmaRules::NewStub(server->channel());
  // Records of 6,000 moves (the first illegal: "pass" while w can move, so
  // the replay is short) asking for their text back: about 30 KB a record
  // and 50 KB an answer, more than the transport's windows and socket
  // buffers hold many hundreds of.
  v1::AdjudicateStreamRequest request;
  request.mutable_record()->mutable_variant()->set_preset("brainking-8x8");
  request.mutable_record()->set_want_record_text(true);
  for (int i = 0; i < 6000; ++i) request.mutable_record()->add_moves("pass");
  constexpr int kRecords = 1500;

  auto context = ContextWithDeadline(absl::Seconds(120));
  auto stream = stub->AdjudicateStream(context.get());
  std::atomic<int> written{0};
  std::thread writer([&] {
    for (int i = 0; i < kRecords; ++i) {
      request.set_id(absl::StrCat(i));
      if (!stream->Write(request)) break;
      written.fetch_add(1);
    }
    stream->WritesDone();
  });
  absl::SleepFor(absl::Seconds(2));
  const int written_unread = written.load();
  RecordProperty("written_before_reading", written_unread);
  EXPECT_LT(written_unread, kRecords / 2);
  int read = 0;
  v1::AdjudicateStreamResponse answer;
  while (stream->Read(&answer)) {
    EXPECT_EQ(answer.id(), absl::StrCat(read));
    EXPECT_GT(answer.result().record_text().size(), 30000u);
    ++read;
  }
  writer.join();
  EXPECT_TRUE(stream->Finish().ok());
  EXPECT_EQ(read, kRecords);
  EXPECT_EQ(written.load(), kRecords);
}

// Cancelling ends the stream on the server too: nothing is left running.
TEST(AdjudicateStreamTest, CancellationEndsTheStream) {
  std::unique_ptr<LoopbackServer> server =
      LoopbackServer::Start(StreamConfig());
  ASSERT_NE(server, nullptr);
  auto stub = v1::HalmaRules::NewStub(server->channel());
  auto context = ContextWithDeadline(absl::Seconds(60));
  auto stream = stub->AdjudicateStream(context.get());
  v1::AdjudicateStreamRequest request;
  request.set_id("1");
  *request.mutable_record() = PlayedRecord("classic-16x16", 40, 3);
  ASSERT_TRUE(stream->Write(request));
  v1::AdjudicateStreamResponse answer;
  ASSERT_TRUE(stream->Read(&answer));
  EXPECT_EQ((*server)->rules_service().open_streams(), 1);
  context->TryCancel();
  EXPECT_EQ(stream->Finish().error_code(), grpc::StatusCode::CANCELLED);
  const absl::Time give_up = absl::Now() + absl::Seconds(10);
  while (((*server)->rules_service().open_streams() > 0 ||
          (*server)->calls_in_progress() > 0) &&
         absl::Now() < give_up) {
    absl::SleepFor(absl::Milliseconds(5));
  }
  EXPECT_EQ((*server)->rules_service().open_streams(), 0);
  EXPECT_EQ((*server)->calls_in_progress(), 0);
}

// At shutdown an open stream answers what it has received and ends with
// UNAVAILABLE, at once rather than at the end of the grace period; a new
// stream is refused.
TEST(AdjudicateStreamTest, ShutdownAnswersWhatArrivedThenEnds) {
  ServerConfig config = StreamConfig();
  config.grace_period_seconds = 30;
  std::unique_ptr<LoopbackServer> server = LoopbackServer::Start(config);
  ASSERT_NE(server, nullptr);
  (*server)->set_shutdown_delay(absl::ZeroDuration());
  auto stub = v1::HalmaRules::NewStub(server->channel());
  auto context = ContextWithDeadline(absl::Seconds(60));
  auto stream = stub->AdjudicateStream(context.get());
  constexpr int kSent = 5;
  for (int i = 0; i < kSent; ++i) {
    v1::AdjudicateStreamRequest request;
    request.set_id(absl::StrCat(i));
    *request.mutable_record() = PlayedRecord("brainking-8x8", 60, i);
    ASSERT_TRUE(stream->Write(request));
  }
  v1::AdjudicateStreamResponse answer;
  ASSERT_TRUE(stream->Read(&answer));  // The first is answered: all arrived?
  // Wait until every record has been read by the server: answers come in
  // order, so reading them all proves it.
  int answered = 1;
  while (answered < kSent && stream->Read(&answer)) ++answered;
  ASSERT_EQ(answered, kSent);

  const absl::Time start = absl::Now();
  std::thread shutdown([&] { (*server)->Shutdown(); });
  EXPECT_FALSE(stream->Read(&answer));
  const grpc::Status status = stream->Finish();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_THAT(status.error_message(), HasSubstr("after answering 5 records"));
  shutdown.join();
  // At once, not after the grace period (30 s).
  EXPECT_LT(absl::Now() - start, absl::Seconds(20));
}

// With one replay slot, two streams take turns for it rather than
// refusing records: every record of both is answered.
TEST(AdjudicateStreamTest, StreamsWaitForAReplaySlot) {
  ServerConfig config = StreamConfig();
  config.max_concurrent_adjudications = 1;
  std::unique_ptr<LoopbackServer> server = LoopbackServer::Start(config);
  ASSERT_NE(server, nullptr);
  auto channel = server->channel();
  constexpr int kPerStream = 150;
  auto run = [&](int salt, int* results) {
    auto stub = v1::HalmaRules::NewStub(channel);
    auto context = ContextWithDeadline(absl::Seconds(120));
    auto stream = stub->AdjudicateStream(context.get());
    std::thread writer([&] {
      for (int i = 0; i < kPerStream; ++i) {
        v1::AdjudicateStreamRequest request;
        request.set_id(absl::StrCat(salt, "-", i));
        *request.mutable_record() =
            PlayedRecord("classic-16x16", 200, salt * 1000 + i);
        if (!stream->Write(request)) break;
      }
      stream->WritesDone();
    });
    v1::AdjudicateStreamResponse answer;
    while (stream->Read(&answer)) {
      if (answer.has_result()) ++*results;
    }
    writer.join();
    EXPECT_TRUE(stream->Finish().ok());
  };
  int first = 0, second = 0;
  std::thread a([&] { run(1, &first); });
  std::thread b([&] { run(2, &second); });
  a.join();
  b.join();
  EXPECT_EQ(first, kPerStream);
  EXPECT_EQ(second, kPerStream);
}

}  // namespace
}  // namespace halma::service
