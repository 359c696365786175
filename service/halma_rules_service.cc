#include "service/halma_rules_service.h"

#include <algorithm>
#include <memory>
#include <numeric>
#include <vector>

#include "absl/strings/str_cat.h"
#include "grpcpp/impl/codegen/proto_utils.h"
#include "grpcpp/support/proto_buffer_reader.h"
#include "grpcpp/support/proto_buffer_writer.h"
#include "halma/game.h"
#include "halma/move_check.h"
#include "halma/movegen.h"
#include "halma/notation.h"
#include "halma/status.h"
#include "service/convert.h"

namespace halma::service {
namespace {

// Per-thread scratch space for move generation. MovePaths is about 350 KB,
// far too large for the stack of a gRPC worker thread, so each thread
// allocates it once on the heap and reuses it for every call.
struct Scratch {
  MoveList list;
  MovePaths paths;
  std::vector<int> order;  // Indices of `list` in answer order.
};

Scratch& ThreadScratch() {
  thread_local const std::unique_ptr<Scratch> scratch = [] {
    auto s = std::make_unique<Scratch>();
    s->order.reserve(kMaxLegalMoves);
    return s;
  }();
  return *scratch;
}

// Finishes the call's default reactor with `status`.
grpc::ServerUnaryReactor* Finish(grpc::CallbackServerContext* context,
                                 const absl::Status& status) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  reactor->Finish(ToGrpcStatus(status));
  return reactor;
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
  SetMessageAllocatorFor_ValidateMove(&validate_allocator_);
  SetMessageAllocatorFor_LegalMoves(&legal_moves_allocator_);
}

grpc::ServerUnaryReactor* HalmaRulesService::ValidateMove(
    grpc::CallbackServerContext* context,
    const v1::ValidateMoveRequest* request,
    v1::ValidateMoveResponse* response) {
  ConcurrencyLimit::Slot call = calls_.TryAcquire();
  return Finish(context, AnswerValidateMove(*request, response));
}

grpc::ServerUnaryReactor* HalmaRulesService::LegalMoves(
    grpc::CallbackServerContext* context, const v1::LegalMovesRequest* request,
    v1::LegalMovesResponse* response) {
  ConcurrencyLimit::Slot call = calls_.TryAcquire();
  return Finish(context, AnswerLegalMoves(*request, response));
}

grpc::ServerUnaryReactor* HalmaRulesService::Adjudicate(
    grpc::CallbackServerContext* context, const grpc::ByteBuffer* request_bytes,
    grpc::ByteBuffer* response_bytes) {
  ConcurrencyLimit::Slot call = calls_.TryAcquire();
  // Replays are the one kind of call whose cost grows with the request, so
  // only so many run at once; the rest are refused at once, before their
  // request is even parsed, rather than queued: health checks and the cheap
  // calls keep their share of CPU.
  ConcurrencyLimit::Slot slot = adjudications_.TryAcquire();
  if (!slot) {
    return Finish(context,
                  absl::ResourceExhaustedError(absl::StrCat(
                      "Adjudicate: ", adjudications_.limit(),
                      " records are being replayed already, this server's "
                      "limit (max_concurrent_adjudications); retry later")));
  }
  google::protobuf::Arena arena(CallArenaOptions());
  auto* request =
      google::protobuf::Arena::CreateMessage<v1::AdjudicateRequest>(&arena);
  auto* response =
      google::protobuf::Arena::CreateMessage<v1::AdjudicateResponse>(&arena);
  {
    grpc::ByteBuffer bytes(*request_bytes);  // Shares the slices: no copy.
    grpc::ProtoBufferReader reader(&bytes);
    if (!request->ParseFromZeroCopyStream(&reader)) {
      return Finish(context,
                    absl::InvalidArgumentError(
                        "request: not a valid halma.v1.AdjudicateRequest "
                        "(malformed or truncated protobuf, or a string field "
                        "that is not UTF-8)"));
    }
  }
  const absl::Time deadline =
      std::min(absl::FromChrono(context->deadline()),
               absl::Now() + options_.max_call_duration);
  absl::Status status =
      AnswerAdjudicate(*request, response, [&]() -> absl::Status {
        if (context->IsCancelled()) {
          return absl::CancelledError("Adjudicate: call cancelled");
        }
        if (absl::Now() > deadline) {
          return absl::DeadlineExceededError(
              absl::StrCat("Adjudicate: deadline exceeded while replaying the "
                           "record (the client's deadline, or this server's "
                           "limit of ",
                           absl::FormatDuration(options_.max_call_duration),
                           ": max_call_seconds)"));
        }
        return absl::OkStatus();
      });
  if (status.ok()) {
    bool own_buffer = false;
    grpc::Status serialized =
        grpc::GenericSerialize<grpc::ProtoBufferWriter, v1::AdjudicateResponse>(
            *response, response_bytes, &own_buffer);
    if (!serialized.ok()) {
      status = absl::InternalError("Adjudicate: cannot serialize the answer");
    }
  }
  return Finish(context, status);
}

grpc::ServerUnaryReactor* HalmaRulesService::ListVariants(
    grpc::CallbackServerContext* context,
    const v1::ListVariantsRequest* request,
    v1::ListVariantsResponse* response) {
  ConcurrencyLimit::Slot call = calls_.TryAcquire();
  return Finish(context, AnswerListVariants(*request, response));
}

absl::Status HalmaRulesService::AnswerValidateMove(
    const v1::ValidateMoveRequest& request,
    v1::ValidateMoveResponse* response) const {
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
  const MoveCheck check = CheckMove(*variant, *position, status, *move);
  response->set_mover(SeatToProto(position->to_move));
  if (check.verdict != MoveVerdict::kLegal) {
    response->set_legal(false);
    response->set_reason(IllegalReasonToProto(check.verdict));
    response->set_message(check.message);
    StatusToProto(*variant, status, 0, response->mutable_status());
    return absl::OkStatus();
  }
  response->set_legal(true);
  response->set_path(FormatMove(check.path));
  response->set_hops(check.hops);
  response->set_position_after(FormatPosition(check.after, *variant));
  StatusToProto(*variant, EvaluateStatus(*variant, check.after), 0,
                response->mutable_status());
  return absl::OkStatus();
}

absl::Status HalmaRulesService::AnswerLegalMoves(
    const v1::LegalMovesRequest& request,
    v1::LegalMovesResponse* response) const {
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
  StatusToProto(*variant, status, 0, response->mutable_status());
  response->set_position(FormatPosition(*position, *variant));
  if (!status.over && !status.must_pass) {
    Scratch& scratch = ThreadScratch();
    GenerateLegalMovesWithPaths(*variant, *position, position->to_move,
                                &scratch.list, &scratch.paths, filter);
    const MoveList& list = scratch.list;
    std::vector<int>& order = scratch.order;
    order.resize(list.size);
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&list](int a, int b) {
      return MoveOrder(list.moves[a], list.moves[b]);
    });
    auto* moves = response->mutable_moves();
    moves->Reserve(list.size);
    for (int i : order) {
      const LegalMove& legal = list.moves[i];
      v1::Move* move = moves->Add();
      move->set_origin(FormatSquare(legal.origin));
      move->set_destination(FormatSquare(legal.destination));
      move->set_path(
          FormatPath(scratch.paths.Path(i), scratch.paths.Length(i)));
      move->set_hops(legal.hops);
    }
  }
  response->set_count(response->moves_size());
  return absl::OkStatus();
}

absl::Status HalmaRulesService::AnswerAdjudicate(
    const v1::AdjudicateRequest& request,
    v1::AdjudicateResponse* response) const {
  return AnswerAdjudicate(request, response, [] { return absl::OkStatus(); });
}

absl::Status HalmaRulesService::AnswerAdjudicate(
    const v1::AdjudicateRequest& request, v1::AdjudicateResponse* response,
    absl::FunctionRef<absl::Status()> checkpoint) const {
  RequestBoard board;
  if (absl::Status status =
          ResolveBoard(request.variant(), request.start_position(),
                       "start_position", &board);
      !status.ok()) {
    return status;
  }
  const Variant* variant = board.variant;
  const Position* start = &board.position;
  if (request.moves_size() > options_.max_record_moves) {
    return absl::InvalidArgumentError(
        absl::StrCat("moves: the record has ", request.moves_size(),
                     " moves, more than this server's limit of ",
                     options_.max_record_moves, " (max_record_moves)"));
  }

  const auto& moves = request.moves();
  absl::StatusOr<GameRecordResult> result = AdjudicateRecord(
      *variant, *start, moves.size(),
      [&moves](int i) { return absl::string_view(moves.Get(i)); }, checkpoint);
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
    illegal->set_move(moves.Get(result->illegal_ply - 1));
    illegal->set_reason(IllegalReasonToProto(result->illegal_verdict));
    illegal->set_message(result->illegal_message);
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
