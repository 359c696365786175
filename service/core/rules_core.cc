#include "service/core/rules_core.h"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "halma/chain_continuations.h"
#include "halma/game.h"
#include "halma/move_check.h"
#include "halma/movegen.h"
#include "halma/notation.h"
#include "halma/perft.h"
#include "halma/record_text.h"
#include "halma/status.h"
#include "service/admission/limit_status.h"
#include "service/core/convert.h"
#include "service/core/legal_moves_encoding.h"

namespace halma::service {
namespace {

// Per-thread scratch space for move generation. MovePaths is about 350 KB,
// far too large for the stack of a transport's thread, so each thread
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

// The squares where a legal chain could hop on to (docs/rules.md, sections
// 3 and 4): from the chain as written, or, for two squares (the shorthand,
// or one hop, which is its own path), from the path the check found.
std::vector<Square> Continuations(const Variant& variant,
                                  const Position& position,
                                  const MoveText& written,
                                  const MoveCheck& check) {
  if (check.hops == 0) return {};
  const MoveText& chain = written.squares.size() == 2 ? check.path : written;
  return ChainContinuations(variant, position, chain.squares.data(),
                            static_cast<int>(chain.squares.size()));
}

// Perft plays `depth` plies, each counted in its seat's move count: the
// counts must leave room for them (docs/rules.md, section 4).
absl::Status CheckPerftHeadroom(const Variant& variant,
                                const Position& position, int depth) {
  for (int i = 0; i < variant.seat_count; ++i) {
    const Seat seat = variant.seats[i];
    if (position.move_count[SeatIndex(seat)] > kMaxMoveCount - depth) {
      return absl::InvalidArgumentError(absl::StrCat(
          "position: the move count of '", std::string(1, SeatLetter(seat)),
          "' leaves no room for ", depth, " more moves (a count holds at most ",
          kMaxMoveCount, ")"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status NoCheckpoint() { return absl::OkStatus(); }

struct RulesCore::TextAnswer {
  // The record; its moves are those replayed, its result is filled in.
  TextRecord record;
  // Whether the answer carries the record's text.
  bool want_text = false;
};

RulesCore::RulesCore(RulesOptions options)
    : options_(options),
      workspaces_(std::make_unique<SearchWorkspaces>(
          options.suggest_workspaces, options.suggest_table_bits)) {
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

absl::Status RulesCore::ValidateMove(const v1::ValidateMoveRequest& request,
                                     v1::ValidateMoveResponse* response) const {
  RequestBoard board;
  if (absl::Status status = ResolveBoard(request.variant(), request.position(),
                                         "position", &board);
      !status.ok()) {
    return status;
  }
  const Variant& variant = *board.variant;
  const Position& position = board.position;
  absl::StatusOr<MoveText> move =
      MoveFromProto(request.move(), variant, "move");
  if (!move.ok()) return move.status();

  const GameStatus status = EvaluateStatus(variant, position);
  // A finished game refuses every move without counting one.
  if (absl::Status room = CheckRoomForMove(position);
      !status.over && !room.ok()) {
    return WithField("position", room);
  }
  const MoveCheck check = CheckMove(variant, position, status, *move);
  response->set_mover(SeatToProto(position.to_move));
  if (check.verdict != MoveVerdict::kLegal) {
    response->set_legal(false);
    response->set_reason(IllegalReasonToProto(check.verdict));
    response->set_message(check.message);
    StatusToProto(variant, status, 0, response->mutable_status());
    return absl::OkStatus();
  }
  response->set_legal(true);
  response->set_path(FormatMove(check.path));
  response->set_hops(check.hops);
  for (const Square square : Continuations(variant, position, *move, check)) {
    response->add_continuations(std::string(SquareName(square)));
  }
  response->set_position_after(FormatPosition(check.after, variant));
  StatusToProto(variant, EvaluateStatus(variant, check.after), 0,
                response->mutable_status());
  return absl::OkStatus();
}

absl::Status RulesCore::LegalMoves(const v1::LegalMovesRequest& request,
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

absl::Status RulesCore::EncodeLegalMoves(
    const v1::LegalMovesRequest& request,
    absl::FunctionRef<char*(std::size_t)> allocate) const {
  RequestBoard board;
  if (absl::Status status = ResolveBoard(request.variant(), request.position(),
                                         "position", &board);
      !status.ok()) {
    return status;
  }
  const Variant& variant = *board.variant;
  const Position& position = board.position;
  MoveFilter filter;
  if (!request.origin().empty()) {
    absl::StatusOr<Square> origin =
        SquareFromProto(request.origin(), variant, "origin");
    if (!origin.ok()) return origin.status();
    filter.only_origin = true;
    filter.origin = *origin;
  }

  const GameStatus status = EvaluateStatus(variant, position);
  v1::GameStatus status_proto;
  StatusToProto(variant, status, 0, &status_proto);
  const std::string position_text = FormatPosition(position, variant);
  LegalMovesAnswer answer;
  answer.status = &status_proto;
  answer.position = position_text;
  if (!status.over && !status.must_pass) {
    Scratch& scratch = ThreadScratch();
    GenerateLegalMovesWithPaths(variant, position, position.to_move,
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

absl::Status RulesCore::ListVariants(const v1::ListVariantsRequest& /*request*/,
                                     v1::ListVariantsResponse* response) const {
  *response = variants_;
  return absl::OkStatus();
}

absl::Status RulesCore::Adjudicate(
    const v1::AdjudicateRequest& request, v1::AdjudicateResponse* response,
    absl::FunctionRef<absl::Status()> checkpoint) const {
  if (!request.record_text().empty()) {
    return AdjudicateText(request, response, checkpoint);
  }
  const auto& moves = request.moves();
  auto replay = [&moves, checkpoint](const Variant& variant,
                                     const Position& start) {
    return AdjudicateRecord(
        variant, start, moves.size(),
        [&moves](int i) { return absl::string_view(moves.Get(i)); },
        checkpoint);
  };
  if (!request.want_record_text()) {
    return AdjudicateMoves(request.variant(), request.start_position(),
                           moves.size(), replay, response);
  }
  TextAnswer text;
  text.want_text = true;
  text.record.moves.assign(moves.begin(), moves.end());
  return AdjudicateMoves(request.variant(), request.start_position(),
                         moves.size(), replay, response, &text);
}

std::optional<absl::Status> RulesCore::AdjudicateView(
    const v1::Variant& variant, const AdjudicateRequestView& record,
    v1::AdjudicateResponse* response,
    absl::FunctionRef<absl::Status()> checkpoint) const {
  // A move field takes two bytes at least: only a record of more bytes
  // than that can hold more moves than the limit, and only then are they
  // counted before the replay.
  int move_count = 0;
  if (record.move_fields.size() / 2 >
      static_cast<std::size_t>(options_.max_record_moves)) {
    move_count = CountMoves(record);
    if (move_count < 0) return std::nullopt;
  }
  absl::Status status = AdjudicateMoves(
      variant, record.start_position, move_count,
      [&](const Variant& board,
          const Position& start) -> absl::StatusOr<GameRecordResult> {
        ViewMoveReader reader(record);
        absl::StatusOr<GameRecordResult> result =
            ReplayRecord(board, start, reader, checkpoint);
        if (reader.left_to_parser()) {
          return absl::AbortedError("not read in place");
        }
        return result;
      },
      response);
  // An answer from a replay that read every field after the first move,
  // each a move of ASCII, is the view's; any other (an error before the
  // replay read them all, or the abort above) only when they all are.
  if (!status.ok() && !MovesReadInPlace(record)) return std::nullopt;
  return status;
}

absl::Status RulesCore::AdjudicateText(
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
  return AdjudicateMoves(
      variant, text.record.start_position, static_cast<int>(moves.size()),
      [&moves, checkpoint](const Variant& board, const Position& start) {
        return AdjudicateRecord(
            board, start, static_cast<int>(moves.size()),
            [&moves](int i) { return absl::string_view(moves[i]); },
            checkpoint);
      },
      response, &text);
}

absl::Status RulesCore::AdjudicateMoves(const v1::Variant& variant_proto,
                                        absl::string_view start_position,
                                        int move_count, Replay replay,
                                        v1::AdjudicateResponse* response,
                                        TextAnswer* text) const {
  if (move_count > options_.max_record_moves) {
    return WithLimit(absl::InvalidArgumentError(absl::StrCat(
                         "moves: the record has ", move_count,
                         " moves, more than this server's limit of ",
                         options_.max_record_moves, " (max_record_moves)")),
                     "max_record_moves");
  }
  RequestBoard board;
  if (absl::Status status =
          ResolveBoard(variant_proto, start_position, "start_position", &board);
      !status.ok()) {
    return status;
  }
  const Variant& variant = *board.variant;
  const Position& start = board.position;

  absl::StatusOr<GameRecordResult> result = replay(variant, start);
  if (!result.ok()) {
    if (!absl::IsInvalidArgument(result.status())) return result.status();
    return RecordErrorToProto(result.status());
  }

  StatusToProto(variant, result->status, result->deciding_ply,
                response->mutable_status());
  response->set_final_position(FormatPosition(result->final_position, variant));
  response->set_moves_played(result->legal_moves_played);
  for (int i = 0; i < variant.seat_count; ++i) {
    const Seat seat = variant.seats[i];
    v1::SeatMoves* counts = response->add_move_counts();
    counts->set_seat(SeatToProto(seat));
    counts->set_moves(result->final_position.move_count[SeatIndex(seat)]);
  }
  if (result->illegal_ply > 0) {
    v1::IllegalMove* illegal = response->mutable_illegal_move();
    illegal->set_ply(result->illegal_ply);
    illegal->set_move(result->illegal_move_text);
    illegal->set_reason(IllegalReasonToProto(result->illegal_verdict));
    illegal->set_message(result->illegal_message);
  }
  if (text != nullptr) {
    const std::string token = ResultToken(variant, *result);
    response->set_result(token);
    if (!text->record.result.empty()) {
      response->set_claimed_result(text->record.result);
      response->set_result_mismatch(text->record.result != token);
    }
    if (text->want_text) {
      text->record.variant = variant.spec;
      text->record.start_position = start == StartPosition(variant)
                                        ? std::string()
                                        : FormatPosition(start, variant);
      text->record.result = token;
      response->set_record_text(FormatTextRecord(text->record));
    }
  }
  return absl::OkStatus();
}

absl::Status RulesCore::Perft(
    const v1::PerftRequest& request, v1::PerftResponse* response,
    absl::FunctionRef<absl::Status()> checkpoint) const {
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
  if (absl::Status room = CheckPerftHeadroom(variant, board.position, depth);
      !room.ok()) {
    return room;
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

}  // namespace halma::service
