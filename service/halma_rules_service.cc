#include "service/halma_rules_service.h"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "google/protobuf/arena.h"
#include "grpc/slice.h"
#include "halma/chain_continuations.h"
#include "halma/game.h"
#include "halma/move_check.h"
#include "halma/movegen.h"
#include "halma/notation.h"
#include "halma/perft.h"
#include "halma/record_text.h"
#include "halma/status.h"
#include "service/convert.h"
#include "service/legal_moves_encoding.h"
#include "service/request_codec.h"

namespace halma::service {
namespace {

// Per-thread scratch space for move generation. MovePaths is about 350 KB,
// far too large for the stack of a gRPC worker thread, so each thread
// allocates it once on the heap and reuses it for every call.
struct Scratch {
  MoveList list;
  MovePaths paths;
  std::uint16_t order[kMaxLegalMoves];  // Indices of `list` in answer order.
};

Scratch& ThreadScratch() {
  thread_local const std::unique_ptr<Scratch> scratch =
      std::make_unique<Scratch>();
  return *scratch;
}

// Finishes the call's default reactor with `status`.
grpc::ServerUnaryReactor* Finish(grpc::CallbackServerContext* context,
                                 const absl::Status& status) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  reactor->Finish(ToGrpcStatus(status));
  return reactor;
}

// Arena options whose first block is `block` (on the caller's stack).
google::protobuf::ArenaOptions ArenaOnStack(char* block, std::size_t size) {
  google::protobuf::ArenaOptions options;
  options.initial_block = block;
  options.initial_block_size = size;
  options.start_block_size = 4096;
  options.max_block_size = 256 * 1024;
  return options;
}

// A thread keeps the buffers of ordinary records from call to call, not
// those of a long one.
void ReleaseLargeBuffers(AdjudicateRequestView* view, std::string* storage) {
  if (view->moves.capacity() > 4096) view->moves = {};
  if (storage->capacity() > 64 * 1024) *storage = std::string();
}

// Counts one gRPC call of a HalmaRules method (the metrics interceptor
// leaves these methods to the handlers: its machinery cost about 10,000
// instructions a call, measured with callgrind, where this costs a few
// hundred).
class CallMetrics {
 public:
  CallMetrics(metrics::Metrics* metrics, metrics::Method method,
              const grpc::ByteBuffer* request)
      : metrics_(metrics), method_(method) {
    if (metrics_ == nullptr) return;
    request_bytes_ = request->Length();
    started_ = absl::Now();
    metrics_->CallStarted(metrics::Protocol::kGrpc, method_);
  }
  CallMetrics(const CallMetrics&) = delete;
  CallMetrics& operator=(const CallMetrics&) = delete;

  // Records the call, then finishes it.
  grpc::ServerUnaryReactor* Finish(grpc::CallbackServerContext* context,
                                   const absl::Status& status,
                                   const grpc::ByteBuffer* response) {
    if (metrics_ != nullptr) {
      metrics_->RecordCall(metrics::Protocol::kGrpc, method_, status.code(),
                           absl::Now() - started_, request_bytes_,
                           status.ok() ? response->Length() : 0);
      metrics_->CallFinished(metrics::Protocol::kGrpc, method_);
    }
    return halma::service::Finish(context, status);
  }

 private:
  metrics::Metrics* const metrics_;
  const metrics::Method method_;
  std::size_t request_bytes_ = 0;
  absl::Time started_;
};

// One call of a raw method: parse the request onto an arena, answer,
// serialize the answer. The arena's first block is on the stack, so that an
// ordinary call allocates no arena memory at all.
template <typename Request, typename Response, typename Answer>
absl::Status ServeCall(const grpc::ByteBuffer& request_bytes,
                       grpc::ByteBuffer* response_bytes, Answer answer) {
  alignas(16) char first_block[4096];
  google::protobuf::Arena arena(ArenaOnStack(first_block, sizeof(first_block)));
  auto* request = google::protobuf::Arena::CreateMessage<Request>(&arena);
  auto* response = google::protobuf::Arena::CreateMessage<Response>(&arena);
  absl::Status status = ParseRequest(request_bytes, request);
  if (status.ok()) status = answer(*request, response);
  if (status.ok()) status = SerializeResponse(*response, response_bytes);
  return status;
}

}  // namespace

HalmaRulesService::HalmaRulesService(RulesOptions options)
    : options_(options),
      adjudications_(std::max(1, options.max_concurrent_adjudications)) {
  for (const PresetTable::Entry& entry : PresetTable::Get().entries()) {
    const Variant& variant = entry.variant;
    v1::VariantInfo* info = variants_.add_variants();
    info->set_name(variant.spec.name);
    SpecToProto(variant.spec, info->mutable_spec());
    for (int i = 0; i < variant.seat_count; ++i) {
      info->add_seats(SeatToProto(variant.seats[i]));
    }
    info->set_pieces_per_seat(variant.pieces_per_seat);
    info->set_start_position(FormatPosition(StartPosition(variant), variant));
    info->set_source(entry.source);
  }
  variants_.SerializeToString(&variants_bytes_);
}

// A function object rather than a lambda: the gRPC handler and
// ServeAdjudicate share it, and AnswerRecord takes it by FunctionRef.
class HalmaRulesService::ReplayCheckpoint {
 public:
  // `what` names the work in the error: "Adjudicate" replaying the record,
  // "Perft" counting.
  ReplayCheckpoint(absl::Time deadline, absl::Duration max_call_duration,
                   absl::FunctionRef<bool()> cancelled,
                   metrics::Metrics* metrics, bool perft = false)
      : deadline_(std::min(deadline, absl::Now() + max_call_duration)),
        server_limit_first_(absl::Now() + max_call_duration < deadline),
        max_call_duration_(max_call_duration),
        cancelled_(cancelled),
        metrics_(metrics),
        perft_(perft) {}

  absl::Status operator()() const {
    if (cancelled_()) {
      return absl::CancelledError(perft_ ? "Perft: call cancelled"
                                         : "Adjudicate: call cancelled");
    }
    if (absl::Now() > deadline_) {
      // Counted as refused by the limit only when it, not the client's
      // deadline, ended the replay.
      if (server_limit_first_ && metrics_ != nullptr) {
        metrics_->RecordRejected(metrics::Limit::kMaxCallSeconds);
      }
      return absl::DeadlineExceededError(absl::StrCat(
          perft_ ? "Perft: deadline exceeded while counting"
                 : "Adjudicate: deadline exceeded while replaying the record",
          " (the client's deadline, or this server's limit of ",
          absl::FormatDuration(max_call_duration_), ": max_call_seconds)"));
    }
    return absl::OkStatus();
  }

 private:
  const absl::Time deadline_;
  const bool server_limit_first_;
  const absl::Duration max_call_duration_;
  const absl::FunctionRef<bool()> cancelled_;
  metrics::Metrics* const metrics_;
  const bool perft_;
};

absl::Status HalmaRulesService::TooManyAdjudications() const {
  if (options_.metrics != nullptr) {
    options_.metrics->RecordRejected(
        metrics::Limit::kMaxConcurrentAdjudications);
  }
  return absl::ResourceExhaustedError(
      absl::StrCat("Adjudicate: ", adjudications_.limit(),
                   " records are being replayed already, this server's "
                   "limit (max_concurrent_adjudications); retry later"));
}

grpc::ServerUnaryReactor* HalmaRulesService::ValidateMove(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
    grpc::ByteBuffer* response) {
  ConcurrencyLimit::Slot call = calls_.TryAcquire();
  CallMetrics counted(options_.metrics, metrics::Method::kValidateMove,
                      request);
  return counted.Finish(
      context,
      ServeCall<v1::ValidateMoveRequest, v1::ValidateMoveResponse>(
          *request, response,
          [this](const auto& in, auto* out) {
            return AnswerValidateMove(in, out);
          }),
      response);
}

grpc::ServerUnaryReactor* HalmaRulesService::LegalMoves(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
    grpc::ByteBuffer* response) {
  ConcurrencyLimit::Slot call = calls_.TryAcquire();
  CallMetrics counted(options_.metrics, metrics::Method::kLegalMoves, request);
  // The answer is written straight into the slice gRPC sends.
  alignas(16) char first_block[4096];
  google::protobuf::Arena arena(ArenaOnStack(first_block, sizeof(first_block)));
  auto* parsed =
      google::protobuf::Arena::CreateMessage<v1::LegalMovesRequest>(&arena);
  absl::Status status = ParseRequest(*request, parsed);
  if (status.ok()) {
    grpc_slice slice = grpc_empty_slice();
    status = EncodeLegalMoves(*parsed, [&slice](std::size_t size) {
      slice = grpc_slice_malloc(size);
      return reinterpret_cast<char*>(GRPC_SLICE_START_PTR(slice));
    });
    grpc::Slice answer(slice, grpc::Slice::STEAL_REF);
    if (status.ok()) *response = grpc::ByteBuffer(&answer, 1);
  }
  return counted.Finish(context, status, response);
}

grpc::ServerUnaryReactor* HalmaRulesService::Adjudicate(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
    grpc::ByteBuffer* response) {
  ConcurrencyLimit::Slot call = calls_.TryAcquire();
  CallMetrics counted(options_.metrics, metrics::Method::kAdjudicate, request);
  // Replays are the one kind of call whose cost grows with the request, so
  // only so many run at once; the rest are refused at once, before their
  // request is even parsed, rather than queued: health checks and the cheap
  // calls keep their share of CPU.
  ConcurrencyLimit::Slot slot = adjudications_.TryAcquire();
  if (!slot) return counted.Finish(context, TooManyAdjudications(), response);
  auto cancelled = [context] { return context->IsCancelled(); };
  const ReplayCheckpoint checkpoint(absl::FromChrono(context->deadline()),
                                    options_.max_call_duration, cancelled,
                                    options_.metrics);
  // The common form of the request is read in place (no strings copied);
  // anything else goes through the parser, which names what is wrong.
  thread_local AdjudicateRequestView view;
  thread_local std::string storage;
  grpc::Slice slice;
  if (ReadAdjudicateRequest(FlatBytes(*request, &slice, &storage), &view)) {
    alignas(16) char first_block[4096];
    google::protobuf::Arena arena(
        ArenaOnStack(first_block, sizeof(first_block)));
    auto* variant = google::protobuf::Arena::CreateMessage<v1::Variant>(&arena);
    if (variant->ParseFromArray(view.variant.data(),
                                static_cast<int>(view.variant.size()))) {
      auto* answer =
          google::protobuf::Arena::CreateMessage<v1::AdjudicateResponse>(
              &arena);
      absl::Status status = AnswerRecord(
          *variant, view.start_position, static_cast<int>(view.moves.size()),
          [](int i) { return view.moves[i]; }, answer, checkpoint);
      if (status.ok()) status = SerializeResponse(*answer, response);
      ReleaseLargeBuffers(&view, &storage);
      return counted.Finish(context, status, response);
    }
  }
  ReleaseLargeBuffers(&view, &storage);
  return counted.Finish(
      context,
      ServeCall<v1::AdjudicateRequest, v1::AdjudicateResponse>(
          *request, response,
          [&](const auto& in, auto* out) {
            return AnswerAdjudicate(in, out, checkpoint);
          }),
      response);
}

grpc::ServerUnaryReactor* HalmaRulesService::ListVariants(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
    grpc::ByteBuffer* response) {
  ConcurrencyLimit::Slot call = calls_.TryAcquire();
  CallMetrics counted(options_.metrics, metrics::Method::kListVariants,
                      request);
  v1::ListVariantsRequest parsed;
  absl::Status status = ParseRequest(*request, &parsed);
  if (status.ok()) {
    // The answer never changes: its bytes are sent as they are, uncopied.
    grpc::Slice slice(variants_bytes_.data(), variants_bytes_.size(),
                      grpc::Slice::STATIC_SLICE);
    *response = grpc::ByteBuffer(&slice, 1);
  }
  return counted.Finish(context, status, response);
}

grpc::ServerBidiReactor<grpc::ByteBuffer, grpc::ByteBuffer>*
HalmaRulesService::AdjudicateStream(grpc::CallbackServerContext* context) {
  return NewAdjudicateStream(this, &streams_, context);
}

grpc::ServerUnaryReactor* HalmaRulesService::Perft(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
    grpc::ByteBuffer* response) {
  ConcurrencyLimit::Slot call = calls_.TryAcquire();
  CallMetrics counted(options_.metrics, metrics::Method::kPerft, request);
  ConcurrencyLimit::Slot slot = adjudications_.TryAcquire();
  if (!slot) return counted.Finish(context, TooManyAdjudications(), response);
  auto cancelled = [context] { return context->IsCancelled(); };
  const ReplayCheckpoint checkpoint(absl::FromChrono(context->deadline()),
                                    options_.max_call_duration, cancelled,
                                    options_.metrics, /*perft=*/true);
  return counted.Finish(context,
                        ServeCall<v1::PerftRequest, v1::PerftResponse>(
                            *request, response,
                            [&](const auto& in, auto* out) {
                              return AnswerPerft(in, out, checkpoint);
                            }),
                        response);
}

absl::Status HalmaRulesService::ServePerft(
    const v1::PerftRequest& request, v1::PerftResponse* response,
    absl::Time deadline, absl::FunctionRef<bool()> cancelled) {
  ConcurrencyLimit::Slot slot = adjudications_.TryAcquire();
  if (!slot) return TooManyAdjudications();
  const ReplayCheckpoint checkpoint(deadline, options_.max_call_duration,
                                    cancelled, options_.metrics,
                                    /*perft=*/true);
  return AnswerPerft(request, response, checkpoint);
}

absl::Status HalmaRulesService::AdjudicateInSlot(
    const v1::AdjudicateRequest& request, v1::AdjudicateResponse* response,
    absl::Time deadline, absl::FunctionRef<bool()> cancelled) {
  const ReplayCheckpoint checkpoint(deadline, options_.max_call_duration,
                                    cancelled, options_.metrics);
  return AnswerAdjudicate(request, response, checkpoint);
}

absl::Status HalmaRulesService::AdjudicateViewInSlot(
    const v1::Variant& variant, const AdjudicateRequestView& record,
    v1::AdjudicateResponse* response, absl::Time deadline,
    absl::FunctionRef<bool()> cancelled) {
  const ReplayCheckpoint checkpoint(deadline, options_.max_call_duration,
                                    cancelled, options_.metrics);
  return AnswerRecord(
      variant, record.start_position, static_cast<int>(record.moves.size()),
      [&record](int i) { return record.moves[i]; }, response, checkpoint);
}

absl::Status HalmaRulesService::ServeAdjudicate(
    const v1::AdjudicateRequest& request, v1::AdjudicateResponse* response,
    absl::Time deadline, absl::FunctionRef<bool()> cancelled) {
  ConcurrencyLimit::Slot slot = adjudications_.TryAcquire();
  if (!slot) return TooManyAdjudications();
  const ReplayCheckpoint checkpoint(deadline, options_.max_call_duration,
                                    cancelled, options_.metrics);
  return AnswerAdjudicate(request, response, checkpoint);
}

absl::Status HalmaRulesService::AnswerValidateMove(
    const v1::ValidateMoveRequest& request,
    v1::ValidateMoveResponse* response) const {
  if (options_.metrics != nullptr) {
    options_.metrics->RecordVariant(metrics::Method::kValidateMove,
                                    request.variant());
  }
  RequestBoard board;
  if (absl::Status status = ResolveBoard(request.variant(), request.position(),
                                         "position", &board);
      !status.ok()) {
    return status;
  }
  const Variant* variant = board.variant;
  const Position* position = &board.position;
  absl::StatusOr<MoveText> move =
      MoveFromProto(request.move(), *variant, "move");
  if (!move.ok()) return move.status();

  const GameStatus status = EvaluateStatus(*variant, *position);
  // A finished game refuses every move without counting one.
  if (absl::Status room = CheckRoomForMove(*position);
      !status.over && !room.ok()) {
    return WithField("position", room);
  }
  const MoveCheck check = CheckMove(*variant, *position, status, *move);
  response->set_mover(SeatToProto(position->to_move));
  if (check.verdict != MoveVerdict::kLegal) {
    response->set_legal(false);
    response->set_reason(IllegalReasonToProto(check.verdict));
    response->set_message(check.message);
    if (options_.metrics != nullptr) {
      options_.metrics->RecordIllegal(response->reason());
    }
    StatusToProto(*variant, status, 0, response->mutable_status());
    return absl::OkStatus();
  }
  response->set_legal(true);
  response->set_path(FormatMove(check.path));
  response->set_hops(check.hops);
  // Where the chain could go on: from the chain as written, or, for two
  // squares (the shorthand, or one hop, which is its own path), from the
  // path found.
  if (check.hops > 0) {
    const MoveText& chain = move->squares.size() == 2 ? check.path : *move;
    for (const Square square :
         ChainContinuations(*variant, *position, chain.squares.data(),
                            static_cast<int>(chain.squares.size()))) {
      response->add_continuations(std::string(SquareName(square)));
    }
  }
  response->set_position_after(FormatPosition(check.after, *variant));
  StatusToProto(*variant, EvaluateStatus(*variant, check.after), 0,
                response->mutable_status());
  return absl::OkStatus();
}

absl::Status HalmaRulesService::AnswerLegalMoves(
    const v1::LegalMovesRequest& request,
    v1::LegalMovesResponse* response) const {
  std::string bytes;
  absl::Status status = EncodeLegalMoves(request, [&bytes](std::size_t size) {
    bytes.resize(size);
    return bytes.data();
  });
  if (!status.ok()) return status;
  if (!response->ParseFromString(bytes)) {
    return absl::InternalError("LegalMoves: the answer does not parse");
  }
  return absl::OkStatus();
}

absl::Status HalmaRulesService::EncodeLegalMoves(
    const v1::LegalMovesRequest& request,
    absl::FunctionRef<char*(std::size_t)> allocate) const {
  if (options_.metrics != nullptr) {
    options_.metrics->RecordVariant(metrics::Method::kLegalMoves,
                                    request.variant());
  }
  RequestBoard board;
  if (absl::Status status = ResolveBoard(request.variant(), request.position(),
                                         "position", &board);
      !status.ok()) {
    return status;
  }
  const Variant* variant = board.variant;
  const Position* position = &board.position;
  MoveFilter filter;
  if (!request.origin().empty()) {
    absl::StatusOr<Square> origin =
        SquareFromProto(request.origin(), *variant, "origin");
    if (!origin.ok()) return origin.status();
    filter.only_origin = true;
    filter.origin = *origin;
  }

  const GameStatus status = EvaluateStatus(*variant, *position);
  v1::GameStatus status_proto;
  StatusToProto(*variant, status, 0, &status_proto);
  const std::string position_text = FormatPosition(*position, *variant);
  LegalMovesAnswer answer;
  answer.status = &status_proto;
  answer.position = position_text;
  if (!status.over && !status.must_pass) {
    Scratch& scratch = ThreadScratch();
    GenerateLegalMovesWithPaths(*variant, *position, position->to_move,
                                &scratch.list, &scratch.paths, filter);
    AnswerOrder(scratch.list, scratch.order);
    answer.list = &scratch.list;
    answer.paths = &scratch.paths;
    answer.order = scratch.order;
    answer.move_count = scratch.list.size;
  }
  EncodeLegalMovesResponse(answer, allocate);
  return absl::OkStatus();
}

absl::Status HalmaRulesService::AnswerAdjudicate(
    const v1::AdjudicateRequest& request,
    v1::AdjudicateResponse* response) const {
  return AnswerAdjudicate(request, response, [] { return absl::OkStatus(); });
}

struct HalmaRulesService::TextAnswer {
  // The record; its moves are those replayed, its result is filled in.
  TextRecord record;
  // Whether the answer carries the record's text.
  bool want_text = false;
};

absl::Status HalmaRulesService::AnswerAdjudicate(
    const v1::AdjudicateRequest& request, v1::AdjudicateResponse* response,
    absl::FunctionRef<absl::Status()> checkpoint) const {
  if (!request.record_text().empty()) {
    return AnswerTextRecord(request, response, checkpoint);
  }
  const auto& moves = request.moves();
  auto move_at = [&moves](int i) { return absl::string_view(moves.Get(i)); };
  if (!request.want_record_text()) {
    return AnswerRecord(request.variant(), request.start_position(),
                        moves.size(), move_at, response, checkpoint);
  }
  TextAnswer text;
  text.want_text = true;
  text.record.moves.assign(moves.begin(), moves.end());
  return AnswerRecord(request.variant(), request.start_position(), moves.size(),
                      move_at, response, checkpoint, &text);
}

absl::Status HalmaRulesService::AnswerTextRecord(
    const v1::AdjudicateRequest& request, v1::AdjudicateResponse* response,
    absl::FunctionRef<absl::Status()> checkpoint) const {
  if (request.has_variant() || !request.start_position().empty() ||
      request.moves_size() > 0) {
    return absl::InvalidArgumentError(
        "record_text: given together with variant, start_position or "
        "moves; expected either record_text alone (its tags give the "
        "variant and start) or those fields without it");
  }
  absl::StatusOr<TextRecord> parsed = ParseTextRecord(request.record_text());
  if (!parsed.ok()) return WithField("record_text", parsed.status());
  TextAnswer text;
  text.record = *std::move(parsed);
  text.want_text = request.want_record_text();
  v1::Variant variant;
  if (!text.record.variant.name.empty()) {
    variant.set_preset(text.record.variant.name);
  } else {
    SpecToProto(text.record.variant, variant.mutable_custom());
  }
  const std::vector<std::string>& moves = text.record.moves;
  return AnswerRecord(
      variant, text.record.start_position, static_cast<int>(moves.size()),
      [&moves](int i) { return absl::string_view(moves[i]); }, response,
      checkpoint, &text);
}

absl::Status HalmaRulesService::AnswerPerft(
    const v1::PerftRequest& request, v1::PerftResponse* response,
    absl::FunctionRef<absl::Status()> checkpoint) const {
  if (options_.metrics != nullptr) {
    options_.metrics->RecordVariant(metrics::Method::kPerft, request.variant());
  }
  const int depth = request.depth();
  if (depth < 0 || depth > options_.max_perft_depth) {
    return absl::InvalidArgumentError(absl::StrCat(
        "depth: ", depth, ", expected 0 to ", options_.max_perft_depth,
        " (this server's max_perft_depth)"));
  }
  RequestBoard board;
  if (absl::Status status = ResolveBoard(request.variant(), request.position(),
                                         "position", &board);
      !status.ok()) {
    return status;
  }
  const Variant& variant = *board.variant;
  // Every ply of every sequence is counted in the position's move counts.
  for (int i = 0; i < variant.seat_count; ++i) {
    const Seat seat = variant.seats[i];
    if (board.position.move_count[SeatIndex(seat)] > kMaxMoveCount - depth) {
      return absl::InvalidArgumentError(absl::StrCat(
          "position: the move count of '", std::string(1, SeatLetter(seat)),
          "' leaves no room for ", depth, " more moves (a count holds at most ",
          kMaxMoveCount, ")"));
    }
  }
  absl::StatusOr<PerftResult> result =
      halma::Perft(variant, board.position, depth,
                   request.split_by_first_move(), checkpoint);
  if (!result.ok()) return result.status();
  response->set_nodes(result->nodes);
  for (const PerftFirstMove& first : result->first_moves) {
    v1::PerftFirstMove* out = response->add_first_moves();
    out->set_move(first.is_pass ? std::string("pass")
                                : absl::StrCat(SquareName(first.origin), "-",
                                               SquareName(first.destination)));
    out->set_nodes(first.nodes);
  }
  return absl::OkStatus();
}

absl::Status HalmaRulesService::AnswerRecord(
    const v1::Variant& variant_proto, absl::string_view start_position,
    int move_count, absl::FunctionRef<absl::string_view(int)> move_at,
    v1::AdjudicateResponse* response,
    absl::FunctionRef<absl::Status()> checkpoint, TextAnswer* text) const {
  if (options_.metrics != nullptr) {
    options_.metrics->RecordVariant(metrics::Method::kAdjudicate,
                                    variant_proto);
  }
  if (move_count > options_.max_record_moves) {
    if (options_.metrics != nullptr) {
      options_.metrics->RecordRejected(metrics::Limit::kMaxRecordMoves);
    }
    return absl::InvalidArgumentError(
        absl::StrCat("moves: the record has ", move_count,
                     " moves, more than this server's limit of ",
                     options_.max_record_moves, " (max_record_moves)"));
  }
  RequestBoard board;
  if (absl::Status status =
          ResolveBoard(variant_proto, start_position, "start_position", &board);
      !status.ok()) {
    return status;
  }
  const Variant* variant = board.variant;
  const Position* start = &board.position;

  absl::StatusOr<GameRecordResult> result =
      AdjudicateRecord(*variant, *start, move_count, move_at, checkpoint);
  if (!result.ok()) {
    if (!absl::IsInvalidArgument(result.status())) return result.status();
    return RecordErrorToProto(result.status());
  }

  StatusToProto(*variant, result->status, result->deciding_ply,
                response->mutable_status());
  response->set_final_position(
      FormatPosition(result->final_position, *variant));
  response->set_moves_played(result->legal_moves_played);
  for (int i = 0; i < variant->seat_count; ++i) {
    const Seat seat = variant->seats[i];
    v1::SeatMoves* counts = response->add_move_counts();
    counts->set_seat(SeatToProto(seat));
    counts->set_moves(result->final_position.move_count[SeatIndex(seat)]);
  }
  if (result->illegal_ply > 0) {
    v1::IllegalMove* illegal = response->mutable_illegal_move();
    illegal->set_ply(result->illegal_ply);
    illegal->set_move(std::string(move_at(result->illegal_ply - 1)));
    illegal->set_reason(IllegalReasonToProto(result->illegal_verdict));
    illegal->set_message(result->illegal_message);
    if (options_.metrics != nullptr) {
      options_.metrics->RecordIllegal(illegal->reason());
    }
  }
  if (text != nullptr) {
    const std::string token = ResultToken(*variant, *result);
    response->set_result(token);
    if (!text->record.result.empty()) {
      response->set_claimed_result(text->record.result);
      response->set_result_mismatch(text->record.result != token);
    }
    if (text->want_text) {
      text->record.variant = variant->spec;
      text->record.start_position = *start == StartPosition(*variant)
                                        ? std::string()
                                        : FormatPosition(*start, *variant);
      text->record.result = token;
      response->set_record_text(FormatTextRecord(text->record));
    }
  }
  return absl::OkStatus();
}

absl::Status HalmaRulesService::AnswerListVariants(
    const v1::ListVariantsRequest& /*request*/,
    v1::ListVariantsResponse* response) const {
  *response = variants_;
  return absl::OkStatus();
}

}  // namespace halma::service
