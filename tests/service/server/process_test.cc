// Process-level tests: the built halma_server binary as a child process on
// 127.0.0.1 with --port=0, driven through the client library
// (halma_client).
//
// - Real calls, checked field by field, including every public record
//   vector.
// - Graceful shutdown: SIGTERM while many slow Adjudicate calls are in
//   flight; every call completes OK, health goes NOT_SERVING (or new calls
//   are refused) and the process exits 0 within the grace period. With a
//   short grace period the process still exits 0.
// (halmactl's end-to-end tests: tests/client/halmactl_test.cc.)

#include "tests/service/server/server_process.h"

namespace halma::process_testing {
namespace {

// ---------------------------------------------------------------------------
// Long records for slow calls.

// A four-move cycle in classic-16x16 (no home-exit limit, no move cap): w
// steps a piece out and back, and so does b, so the position repeats and
// the game never ends. Built from LegalMoves answers and checked with
// ValidateMove.
std::vector<std::string> FindRepeatingCycle(HalmaClient& client) {
  v1::LegalMovesRequest legal;
  *legal.mutable_variant() = Preset("classic-16x16");
  absl::StatusOr<v1::LegalMovesResponse> w_moves = client.LegalMoves(legal);
  EXPECT_TRUE(w_moves.ok()) << w_moves.status();
  if (!w_moves.ok()) return {};
  const v1::Move* w_step = nullptr;
  for (const v1::Move& m : w_moves->moves()) {
    if (m.hops() == 0) {
      w_step = &m;
      break;
    }
  }
  EXPECT_NE(w_step, nullptr) << "w has no step at the start";
  if (w_step == nullptr) return {};

  v1::ValidateMoveRequest validate;
  *validate.mutable_variant() = Preset("classic-16x16");
  validate.set_move(w_step->path());
  absl::StatusOr<v1::ValidateMoveResponse> after_w =
      client.ValidateMove(validate);
  EXPECT_TRUE(after_w.ok() && after_w->legal());
  if (!after_w.ok()) return {};

  legal.set_position(after_w->position_after());
  absl::StatusOr<v1::LegalMovesResponse> b_moves = client.LegalMoves(legal);
  EXPECT_TRUE(b_moves.ok()) << b_moves.status();
  if (!b_moves.ok()) return {};
  EXPECT_EQ(b_moves->status().to_move(), v1::SEAT_B);
  const v1::Move* b_step = nullptr;
  for (const v1::Move& m : b_moves->moves()) {
    if (m.hops() == 0) {
      b_step = &m;
      break;
    }
  }
  EXPECT_NE(b_step, nullptr) << "b has no step";
  if (b_step == nullptr) return {};

  std::vector<std::string> cycle = {
      w_step->path(), b_step->path(),
      absl::StrCat(w_step->destination(), "-", w_step->origin()),
      absl::StrCat(b_step->destination(), "-", b_step->origin())};
  // The cycle is legal and returns to the start board.
  v1::AdjudicateRequest check;
  *check.mutable_variant() = Preset("classic-16x16");
  for (int i = 0; i < 3; ++i) {
    for (const std::string& m : cycle) check.add_moves(m);
  }
  absl::StatusOr<v1::AdjudicateResponse> checked = client.Adjudicate(check);
  EXPECT_TRUE(checked.ok()) << checked.status();
  if (!checked.ok()) return {};
  EXPECT_FALSE(checked->has_illegal_move());
  EXPECT_EQ(checked->moves_played(), 12);
  const std::string start_board =
      w_moves->position().substr(0, w_moves->position().find(' '));
  EXPECT_EQ(checked->final_position(), absl::StrCat(start_board, " w 6,6"));
  return cycle;
}

v1::AdjudicateRequest LongRecord(const std::vector<std::string>& cycle,
                                 int moves) {
  v1::AdjudicateRequest request;
  *request.mutable_variant() = Preset("classic-16x16");
  request.mutable_moves()->Reserve(moves);
  for (int i = 0; i < moves; ++i) request.add_moves(cycle[i % cycle.size()]);
  return request;
}

// Limits that let the server take long records.
const std::vector<std::string>& LongRecordFlags() {
  static const auto* flags = new std::vector<std::string>{
      "--max_record_moves=8000000", "--max_message_bytes=268435456"};
  return *flags;
}
// Replays of these records run at about 6 million plies a second (since the
// per-ply cuts of #9), so 3 million, the old cap, made a slow call only
// half a second long: under a loaded ctest -j2 the calls had not all
// arrived at the signal. 8 million (about 64 MB a request) reaches the
// 2 s the shutdown test asks for.
constexpr int kMaxLongRecordMoves = 8000000;

// A record length for which one Adjudicate takes about `target` on this
// machine (measured with calibration calls), within [100000, max], and how
// long a call of that length should take.
struct SlowRecord {
  int length = 0;
  milliseconds expected{0};
};

SlowRecord CalibrateSlowRecord(HalmaClient& client,
                               const std::vector<std::string>& cycle,
                               milliseconds target) {
  constexpr int kProbe = 300000;
  const v1::AdjudicateRequest probe = LongRecord(cycle, kProbe);
  double best = 1e9;
  for (int i = 0; i < 3; ++i) {
    const auto start = Clock::now();
    absl::StatusOr<v1::AdjudicateResponse> answer = client.Adjudicate(probe);
    EXPECT_TRUE(answer.ok()) << answer.status();
    if (!answer.ok()) break;
    EXPECT_EQ(answer->moves_played(), kProbe);
    best = std::min(
        best, std::chrono::duration<double>(Clock::now() - start).count());
  }
  const double per_move = best / kProbe;
  const double wanted =
      std::chrono::duration<double>(target).count() / per_move;
  SlowRecord record;
  record.length = static_cast<int>(
      std::clamp(wanted, 100000.0, double{kMaxLongRecordMoves}));
  record.expected =
      milliseconds(static_cast<std::int64_t>(record.length * per_move * 1000));
  return record;
}

struct CallOutcome {
  absl::Status status;
  int moves_played = 0;
  v1::GameStatus::State state = v1::GameStatus::STATE_UNSPECIFIED;
  Clock::time_point finished;
};

// Starts `count` Adjudicate calls of `request` on threads.
std::vector<std::thread> StartCalls(HalmaClient& client,
                                    const v1::AdjudicateRequest& request,
                                    int count,
                                    std::vector<CallOutcome>* outcomes) {
  outcomes->assign(count, CallOutcome{});
  std::vector<std::thread> threads;
  for (int i = 0; i < count; ++i) {
    threads.emplace_back([&client, &request, outcome = &(*outcomes)[i]] {
      absl::StatusOr<v1::AdjudicateResponse> answer =
          client.Adjudicate(request);
      outcome->finished = Clock::now();
      outcome->status = answer.status();
      if (answer.ok()) {
        outcome->moves_played = answer->moves_played();
        outcome->state = answer->status().state();
      }
    });
  }
  return threads;
}

// A thread of quick, realistic calls (the 68-ply record) in a loop, until
// a call fails or `stop` is set.
struct LoadOutcome {
  std::vector<Clock::time_point> ok_at;  // When each OK answer came.
  int wrong_answers = 0;
  absl::Status failure;  // The failure that ended the loop, if any.
  Clock::time_point failed_at;
};

std::vector<std::thread> StartLoad(HalmaClient& client,
                                   const v1::AdjudicateRequest& request,
                                   int count, const std::atomic<bool>& stop,
                                   std::vector<LoadOutcome>* outcomes) {
  outcomes->assign(count, LoadOutcome{});
  std::vector<std::thread> threads;
  for (int i = 0; i < count; ++i) {
    threads.emplace_back([&client, &request, &stop, outcome = &(*outcomes)[i]] {
      while (!stop.load()) {
        absl::StatusOr<v1::AdjudicateResponse> answer =
            client.Adjudicate(request);
        if (!answer.ok()) {
          outcome->failure = answer.status();
          outcome->failed_at = Clock::now();
          return;
        }
        outcome->ok_at.push_back(Clock::now());
        if (answer->status().ply() != request.moves_size() ||
            answer->status().state() != v1::GameStatus::STATE_WIN) {
          ++outcome->wrong_answers;
        }
      }
    });
  }
  return threads;
}

bool IsRefusal(const absl::Status& status) {
  return status.code() == absl::StatusCode::kUnavailable ||
         status.code() == absl::StatusCode::kCancelled;
}

// ---------------------------------------------------------------------------
// Real calls through the client library.

TEST_F(ProcessTest, HealthReportsServingForServerAndRules) {
  absl::StatusOr<HealthStatus> server = client_->CheckHealth("");
  ASSERT_TRUE(server.ok()) << server.status();
  EXPECT_EQ(*server, HealthStatus::kServing);
  absl::StatusOr<HealthStatus> rules =
      client_->CheckHealth("halma.v1.HalmaRules");
  ASSERT_TRUE(rules.ok()) << rules.status();
  EXPECT_EQ(*rules, HealthStatus::kServing);
  absl::StatusOr<HealthStatus> unknown = client_->CheckHealth("no.such.Svc");
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kNotFound);
}

TEST_F(ProcessTest, ListVariants) {
  absl::StatusOr<v1::ListVariantsResponse> answer = client_->ListVariants();
  ASSERT_TRUE(answer.ok()) << answer.status();
  std::vector<std::string> names;
  for (const v1::VariantInfo& v : answer->variants()) names.push_back(v.name());
  EXPECT_THAT(names, ElementsAre("brainking-8x8", "brainking-10x10",
                                 "iggamecenter-10x10", "classic-16x16",
                                 "classic-16x16-4p"));
  const v1::VariantInfo& bk = answer->variants(0);
  EXPECT_EQ(bk.spec().board_size(), 8);
  EXPECT_EQ(bk.spec().seat_count(), 2);
  EXPECT_THAT(bk.spec().camp_rows(), ElementsAre(4, 3, 2, 1));
  EXPECT_EQ(bk.spec().home_exit_limit(), 30);
  EXPECT_FALSE(bk.spec().round_completion());
  EXPECT_FALSE(bk.spec().target_lock());
  EXPECT_EQ(bk.spec().move_cap(), 0);
  EXPECT_THAT(bk.seats(), ElementsAre(v1::SEAT_W, v1::SEAT_B));
  EXPECT_EQ(bk.pieces_per_seat(), 10);
  EXPECT_EQ(bk.start_position(), kBrainkingStart);
  EXPECT_EQ(bk.source(), "BrainKing Halma 8x8");

  const v1::VariantInfo& ig = answer->variants(2);
  EXPECT_EQ(ig.spec().home_exit_limit(), 0);
  EXPECT_TRUE(ig.spec().round_completion());
  EXPECT_EQ(ig.pieces_per_seat(), 15);
  const v1::VariantInfo& four = answer->variants(4);
  EXPECT_EQ(four.spec().board_size(), 16);
  EXPECT_EQ(four.spec().seat_count(), 4);
  EXPECT_THAT(four.spec().camp_rows(), ElementsAre(4, 4, 3, 2));
  EXPECT_TRUE(four.spec().target_lock());
  EXPECT_THAT(four.seats(),
              ElementsAre(v1::SEAT_W, v1::SEAT_R, v1::SEAT_B, v1::SEAT_G));
  EXPECT_EQ(four.pieces_per_seat(), 13);
}

TEST_F(ProcessTest, LegalMovesAtBrainkingStart) {
  v1::LegalMovesRequest request;
  *request.mutable_variant() = Preset("brainking-8x8");
  absl::StatusOr<v1::LegalMovesResponse> answer = client_->LegalMoves(request);
  ASSERT_TRUE(answer.ok()) << answer.status();
  EXPECT_EQ(answer->count(), 24);
  EXPECT_EQ(answer->moves_size(), 24);
  EXPECT_EQ(answer->position(), kBrainkingStart);
  EXPECT_EQ(answer->status().state(), v1::GameStatus::STATE_IN_PROGRESS);
  EXPECT_EQ(answer->status().to_move(), v1::SEAT_W);
  EXPECT_FALSE(answer->status().must_pass());
  // Ordered by origin, then destination; file first, then rank.
  auto key = [](const std::string& sq) {
    return std::make_pair(sq[0], std::stoi(sq.substr(1)));
  };
  bool found_jump = false;
  for (int i = 0; i < answer->moves_size(); ++i) {
    const v1::Move& m = answer->moves(i);
    if (i > 0) {
      const v1::Move& p = answer->moves(i - 1);
      EXPECT_LT(std::make_pair(key(p.origin()), key(p.destination())),
                std::make_pair(key(m.origin()), key(m.destination())));
    }
    EXPECT_TRUE(absl::StartsWith(m.path(), m.origin() + "-")) << m.path();
    EXPECT_TRUE(absl::EndsWith(m.path(), "-" + m.destination())) << m.path();
    if (m.origin() == "b1" && m.destination() == "d3") {
      found_jump = true;
      EXPECT_EQ(m.path(), "b1-d3");
      EXPECT_EQ(m.hops(), 1);
    }
  }
  EXPECT_TRUE(found_jump);

  request.set_origin("d1");
  answer = client_->LegalMoves(request);
  ASSERT_TRUE(answer.ok()) << answer.status();
  ASSERT_GT(answer->count(), 0);
  for (const v1::Move& m : answer->moves()) EXPECT_EQ(m.origin(), "d1");
}

TEST_F(ProcessTest, ValidateMoveLegalIllegalAndMalformed) {
  v1::ValidateMoveRequest request;
  *request.mutable_variant() = Preset("brainking-8x8");
  request.set_move("b1-d3");
  absl::StatusOr<v1::ValidateMoveResponse> answer =
      client_->ValidateMove(request);
  ASSERT_TRUE(answer.ok()) << answer.status();
  EXPECT_TRUE(answer->legal());
  EXPECT_EQ(answer->reason(), v1::ILLEGAL_REASON_UNSPECIFIED);
  EXPECT_EQ(answer->path(), "b1-d3");
  EXPECT_EQ(answer->hops(), 1);
  EXPECT_EQ(answer->mover(), v1::SEAT_W);
  EXPECT_EQ(answer->position_after(),
            "4bbbb/5bbb/6bb/7b/w7/ww1w4/www5/w1ww4 b 1,0");
  EXPECT_EQ(answer->status().state(), v1::GameStatus::STATE_IN_PROGRESS);
  EXPECT_EQ(answer->status().to_move(), v1::SEAT_B);

  request.set_position(kBrainkingStart);
  request.set_move("a1-b2");
  answer = client_->ValidateMove(request);
  ASSERT_TRUE(answer.ok()) << answer.status();
  EXPECT_FALSE(answer->legal());
  EXPECT_EQ(answer->reason(), v1::ILLEGAL_REASON_DESTINATION_OCCUPIED);
  EXPECT_THAT(answer->message(), HasSubstr("b2"));
  EXPECT_EQ(answer->mover(), v1::SEAT_W);
  EXPECT_EQ(answer->status().state(), v1::GameStatus::STATE_IN_PROGRESS);

  request.set_move("z9-a1");
  answer = client_->ValidateMove(request);
  EXPECT_EQ(answer.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(answer.status().message(), HasSubstr("z9"));
}

TEST_F(ProcessTest, AdjudicatesEveryPublicRecordVector) {
  const std::vector<RecordVector> vectors = LoadRecordVectors();
  ASSERT_FALSE(vectors.empty());
  for (size_t i = 0; i < vectors.size(); ++i) {
    const RecordVector& v = vectors[i];
    const std::string where = absl::StrCat("record vector ", i + 1);
    absl::StatusOr<v1::AdjudicateResponse> answer =
        client_->Adjudicate(v.request);
    ASSERT_TRUE(answer.ok()) << where << ": " << answer.status();
    const nlohmann::json& expect = v.json["expect"];
    if (expect["status"] == "illegal") {
      ASSERT_TRUE(answer->has_illegal_move()) << where;
      const int ply = expect["ply"].get<int>();
      EXPECT_EQ(answer->illegal_move().ply(), ply) << where;
      EXPECT_EQ(answer->illegal_move().move(), v.request.moves(ply - 1))
          << where;
      EXPECT_EQ(answer->illegal_move().reason(),
                ReasonFromLabel(expect["reason"].get<std::string>()))
          << where;
      EXPECT_EQ(answer->moves_played(), ply - 1) << where;
      if (expect.contains("result")) {
        ExpectStatusMatches(expect["result"], answer->status(), where);
      }
    } else {
      EXPECT_FALSE(answer->has_illegal_move()) << where;
      EXPECT_EQ(answer->moves_played(), v.request.moves_size()) << where;
      ExpectStatusMatches(expect, answer->status(), where);
    }
  }
}

TEST_F(ProcessTest, AdjudicateReportsMoveCounts) {
  v1::AdjudicateRequest request;
  *request.mutable_variant() = Preset("brainking-8x8");
  for (const std::string& m : Record68()) request.add_moves(m);
  absl::StatusOr<v1::AdjudicateResponse> answer = client_->Adjudicate(request);
  ASSERT_TRUE(answer.ok()) << answer.status();
  EXPECT_EQ(answer->moves_played(), 68);
  ASSERT_EQ(answer->move_counts_size(), 2);
  EXPECT_EQ(answer->move_counts(0).seat(), v1::SEAT_W);
  EXPECT_EQ(answer->move_counts(0).moves(), 34);
  EXPECT_EQ(answer->move_counts(1).seat(), v1::SEAT_B);
  EXPECT_EQ(answer->move_counts(1).moves(), 34);
  EXPECT_THAT(answer->final_position(), testing::EndsWith(" 34,34"));
  EXPECT_EQ(answer->status().state(), v1::GameStatus::STATE_WIN);
  EXPECT_THAT(answer->status().winners(), ElementsAre(v1::SEAT_B));
  EXPECT_EQ(answer->status().rule(), v1::DECIDING_RULE_TARGET_FILLED);
  EXPECT_EQ(answer->status().ply(), 68);
  EXPECT_THAT(answer->status().finished(), ElementsAre(v1::SEAT_B));
}

TEST_F(ProcessTest, UnreachableServerIsUnavailable) {
  // A port nobody listens on: take a free one and close it again.
  auto other = ServerProcess::Start();
  ASSERT_NE(other, nullptr);
  const std::string target = other->target();
  other->Signal(SIGTERM);
  ASSERT_EQ(other->WaitForExit(seconds(20)), 0);
  auto client = MakeClient(target, seconds(5));
  absl::StatusOr<v1::ListVariantsResponse> answer = client->ListVariants();
  EXPECT_EQ(answer.status().code(), absl::StatusCode::kUnavailable);
}

// ---------------------------------------------------------------------------
// Graceful shutdown.

// Adjudicate's request bytes the server has counted: a call's are counted
// when its handler starts, once the request has arrived whole.
constexpr char kAdjudicateRequestBytes[] =
    "halma_rpc_request_bytes_total{method=\"halma.v1.HalmaRules/Adjudicate\","
    "protocol=\"grpc\"}";

// Waits (at most a minute) until the server has counted `bytes` more
// Adjudicate request bytes than `before`.
bool WaitUntilArrived(const ServerProcess& server, double before,
                      std::size_t bytes) {
  const auto give_up = Clock::now() + seconds(60);
  while (Clock::now() < give_up) {
    if (server.Metric(kAdjudicateRequestBytes) - std::max(0.0, before) >=
        static_cast<double>(bytes)) {
      return true;
    }
    std::this_thread::sleep_for(milliseconds(5));
  }
  return false;
}

TEST(ProcessShutdownTest, SigtermLetsInFlightCallsFinish) {
  constexpr int kGraceSeconds = 30;
  std::vector<std::string> flags = LongRecordFlags();
  flags.push_back(absl::StrCat("--grace_period_seconds=", kGraceSeconds));
  auto server = ServerProcess::Start(flags);
  ASSERT_NE(server, nullptr);
  auto client = MakeClient(server->target(), seconds(120));
  ASSERT_TRUE(WaitUntilServing(*client, seconds(20)));

  const std::vector<std::string> cycle = FindRepeatingCycle(*client);
  ASSERT_EQ(cycle.size(), 4u);
  // Quick, realistic calls from several threads on their own channel,
  // from before the slow calls until the signal and beyond: each ends with
  // a refusal once the server has stopped taking calls.
  auto load_client = MakeClient(server->target(), seconds(60));
  v1::AdjudicateRequest quick_request;
  *quick_request.mutable_variant() = Preset("brainking-8x8");
  for (const std::string& m : Record68()) quick_request.add_moves(m);
  constexpr int kLoadThreads = 4;
  std::atomic<bool> stop_load{false};
  std::vector<LoadOutcome> load;
  std::vector<std::thread> load_threads =
      StartLoad(*load_client, quick_request, kLoadThreads, stop_load, &load);
  std::this_thread::sleep_for(milliseconds(200));

  // Slow calls: each takes about two seconds of server time on this
  // machine (sized by calibration calls). gRPC hands a call to the service
  // only once its request has arrived, and at shutdown refuses the calls
  // still arriving; so the signal comes once the server has counted the
  // slow request's bytes (tens of MB: the quick calls' few hundred bytes
  // each cannot add up to it meanwhile), that is once its handler runs.
  const SlowRecord slow_record =
      CalibrateSlowRecord(*client, cycle, milliseconds(2000));
  const v1::AdjudicateRequest slow_request =
      LongRecord(cycle, slow_record.length);
  constexpr int kSlowCalls = 1;
  std::vector<CallOutcome> slow;
  const double bytes_before = server->Metric(kAdjudicateRequestBytes);
  const auto slow_started = Clock::now();
  std::vector<std::thread> slow_threads =
      StartCalls(*client, slow_request, kSlowCalls, &slow);
  ASSERT_TRUE(WaitUntilArrived(*server, bytes_before,
                               kSlowCalls * slow_request.ByteSizeLong()));

  const auto signalled = Clock::now();
  server->Signal(SIGTERM);

  // Health turns NOT_SERVING, or new calls are refused, soon after.
  auto probe = MakeClient(server->target(), seconds(2));
  bool stopped_serving = false;
  std::string seen;
  while (Clock::now() - signalled < seconds(10)) {
    absl::StatusOr<HealthStatus> health = probe->CheckHealth("");
    if (!health.ok()) {
      seen = health.status().ToString();
      stopped_serving = true;
      break;
    }
    if (*health == HealthStatus::kNotServing) {
      seen = "NOT_SERVING";
      stopped_serving = true;
      break;
    }
    std::this_thread::sleep_for(milliseconds(10));
  }
  EXPECT_TRUE(stopped_serving) << "health still SERVING 10 s after SIGTERM";
  if (stopped_serving) {
    // Once it has stopped serving, new rules calls are refused too (at
    // once, or after the moment between the health change and the gRPC
    // shutdown).
    bool refused = false;
    while (!refused && Clock::now() - signalled < seconds(10)) {
      refused = !probe->ListVariants().ok();
      if (!refused) std::this_thread::sleep_for(milliseconds(10));
    }
    EXPECT_TRUE(refused) << "calls still served after health said " << seen;
  }

  // Every slow call in flight at the signal completes correctly. A call is
  // known not to have been in flight when it was refused at once (a call
  // the server had taken could only be cancelled at the end of the grace
  // period, 30 s later); at least one must have been in flight.
  for (std::thread& t : slow_threads) t.join();
  int in_flight = 0;
  for (int i = 0; i < kSlowCalls; ++i) {
    const CallOutcome& o = slow[i];
    std::printf(
        "slow call %d: %s after %.2f s (signal after %.2f s)\n", i,
        o.status.ToString().c_str(),
        std::chrono::duration<double>(o.finished - slow_started).count(),
        std::chrono::duration<double>(signalled - slow_started).count());
    if (IsRefusal(o.status) && o.finished - signalled < seconds(5)) continue;
    ++in_flight;
    EXPECT_TRUE(o.status.ok()) << "slow call " << i << ": " << o.status;
    EXPECT_EQ(o.moves_played, slow_record.length) << "slow call " << i;
    EXPECT_EQ(o.state, v1::GameStatus::STATE_IN_PROGRESS) << "slow call " << i;
    EXPECT_GT(o.finished, signalled) << "slow call " << i;
  }
  EXPECT_GE(in_flight, 1) << "no slow call was in flight at the signal";

  // Quick calls: correct answers up to the signal; the loop ends with a
  // refusal after the signal (never an error before it).
  stop_load.store(true);
  for (std::thread& t : load_threads) t.join();
  for (int i = 0; i < kLoadThreads; ++i) {
    const LoadOutcome& o = load[i];
    EXPECT_EQ(o.wrong_answers, 0) << "load thread " << i;
    EXPECT_TRUE(!o.ok_at.empty() && o.ok_at.front() < signalled)
        << "load thread " << i << " had no answer before the signal";
    if (!o.failure.ok()) {
      EXPECT_TRUE(IsRefusal(o.failure))
          << "load thread " << i << ": " << o.failure;
      EXPECT_GE(o.failed_at, signalled)
          << "load thread " << i << " failed before the signal: " << o.failure;
    }
  }

  const std::optional<int> exit_status =
      server->WaitForExit(seconds(kGraceSeconds + 10));
  const double took =
      std::chrono::duration<double>(Clock::now() - signalled).count();
  EXPECT_EQ(exit_status, 0) << server->StderrText();
  EXPECT_LT(took, kGraceSeconds);
  EXPECT_THAT(server->StderrText(), HasSubstr("shutting down"));
  RecordProperty("record_moves", slow_record.length);
  RecordProperty("exit_seconds_after_sigterm", absl::StrCat(took));
}

TEST(ProcessShutdownTest, ShortGracePeriodStillExitsZero) {
  std::vector<std::string> flags = LongRecordFlags();
  flags.push_back("--grace_period_seconds=1");
  auto server = ServerProcess::Start(flags);
  ASSERT_NE(server, nullptr);
  auto client = MakeClient(server->target(), seconds(120));
  ASSERT_TRUE(WaitUntilServing(*client, seconds(20)));
  const std::vector<std::string> cycle = FindRepeatingCycle(*client);
  ASSERT_EQ(cycle.size(), 4u);
  // Calls that need longer than the grace period.
  const SlowRecord slow_record =
      CalibrateSlowRecord(*client, cycle, milliseconds(2500));
  const v1::AdjudicateRequest request = LongRecord(cycle, slow_record.length);
  constexpr int kCalls = 2;
  std::vector<CallOutcome> outcomes;
  const double bytes_before = server->Metric(kAdjudicateRequestBytes);
  std::vector<std::thread> threads =
      StartCalls(*client, request, kCalls, &outcomes);
  ASSERT_TRUE(
      WaitUntilArrived(*server, bytes_before, kCalls * request.ByteSizeLong()));

  const auto signalled = Clock::now();
  server->Signal(SIGTERM);
  const std::optional<int> exit_status = server->WaitForExit(seconds(60));
  const double took =
      std::chrono::duration<double>(Clock::now() - signalled).count();
  EXPECT_EQ(exit_status, 0) << server->StderrText();
  // Every call ends one way or the other: finished, or cancelled when the
  // grace period ran out.
  for (std::thread& t : threads) t.join();
  for (int i = 0; i < kCalls; ++i) {
    const absl::Status& s = outcomes[i].status;
    EXPECT_TRUE(s.ok() || IsRefusal(s) ||
                s.code() == absl::StatusCode::kDeadlineExceeded)
        << "call " << i << ": " << s;
  }
  RecordProperty("exit_seconds_after_sigterm", absl::StrCat(took));
  std::printf("short grace: exit %.2f s after SIGTERM; calls: %s, %s\n", took,
              outcomes[0].status.ToString().c_str(),
              outcomes[1].status.ToString().c_str());
}

TEST(ProcessShutdownTest, IdleServerExitsZeroAtOnce) {
  auto server = ServerProcess::Start({"--grace_period_seconds=30"});
  ASSERT_NE(server, nullptr);
  auto client = MakeClient(server->target());
  ASSERT_TRUE(WaitUntilServing(*client, seconds(20)));
  const auto signalled = Clock::now();
  server->Signal(SIGTERM);
  EXPECT_EQ(server->WaitForExit(seconds(10)), 0) << server->StderrText();
  // Nothing in flight: no need to wait out the grace period.
  EXPECT_LT(Clock::now() - signalled, seconds(5));
}

// ---------------------------------------------------------------------------
// TLS: a self-signed certificate made with the openssl tool (halmactl over
// TLS: tests/client/halmactl_test.cc).

TEST(ProcessTlsTest, ClientOverTls) {
  if (!HaveOpenssl()) {
    GTEST_SKIP() << "no " << kOpenssl << " to make a test certificate";
  }
  const TestCertificate tls;
  CommandResult made = MakeTestCertificate(tls);
  ASSERT_EQ(made.exit_code, 0) << made.err;
  const std::string& cert = tls.cert;
  const std::string& key = tls.key;

  auto server =
      ServerProcess::Start({"--tls_cert=" + cert, "--tls_key=" + key});
  ASSERT_NE(server, nullptr);
  ClientOptions options;
  options.target = server->target();
  options.tls = true;
  options.root_cert_file = cert;
  options.tls_server_name = "localhost";
  options.deadline = seconds(20);
  absl::StatusOr<std::unique_ptr<HalmaClient>> client =
      HalmaClient::Create(options);
  ASSERT_TRUE(client.ok()) << client.status();
  ASSERT_TRUE(WaitUntilServing(**client, seconds(20)));
  v1::LegalMovesRequest request;
  *request.mutable_variant() = Preset("brainking-8x8");
  absl::StatusOr<v1::LegalMovesResponse> answer =
      (*client)->LegalMoves(request);
  ASSERT_TRUE(answer.ok()) << answer.status();
  EXPECT_EQ(answer->count(), 24);

  // Plaintext against a TLS server fails.
  auto plain = MakeClient(server->target(), seconds(5));
  EXPECT_FALSE(plain->ListVariants().ok());
  // An unreadable root certificate file is an error before any call.
  options.root_cert_file = "/nonexistent/ca.pem";
  EXPECT_EQ(HalmaClient::Create(options).status().code(),
            absl::StatusCode::kNotFound);

  server->Signal(SIGTERM);
  EXPECT_EQ(server->WaitForExit(seconds(20)), 0) << server->StderrText();
  std::remove(cert.c_str());
  std::remove(key.c_str());
}

}  // namespace
}  // namespace halma::process_testing
