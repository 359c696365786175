// RulesCore::SuggestMove: the request checked field by field, the board
// resolved (after the request's moves, replayed as Adjudicate replays
// them), the search run in a workspace of the pool, the answer filled in.
// The search itself is halma::bot's (docs/bot.md).
#include <cstdint>
#include <string>

#include "absl/strings/str_cat.h"
#include "halma/bot/levels.h"
#include "halma/bot/search.h"
#include "halma/game_status.h"
#include "halma/notation.h"
#include "halma/record_replay.h"
#include "halma/record_text.h"
#include "service/admission/limit_status.h"
#include "service/core/convert.h"
#include "service/core/rules_core.h"

namespace halma::service {
namespace {

// The search's options from the request, each field checked against its
// range and the server's caps; errors name the field (and the limit).
absl::StatusOr<bot::SearchOptions> SearchOptionsFromProto(
    const v1::SuggestMoveRequest& request, const RulesOptions& limits) {
  bot::SearchOptions options;
  if (request.level() < 0 || request.level() > bot::kTopLevel) {
    return absl::InvalidArgumentError(
        absl::StrCat("level: ", request.level(), ", expected ", bot::kMinLevel,
                     " to ", bot::kTopLevel, " (0 = level ", bot::kDefaultLevel,
                     ", or an explicit budget)"));
  }
  if (request.max_nodes() < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_nodes: ", request.max_nodes(), ", expected 1 to ",
                     limits.max_suggest_nodes, " (0 = none)"));
  }
  if (request.max_nodes() > limits.max_suggest_nodes) {
    return WithLimit(absl::InvalidArgumentError(absl::StrCat(
                         "max_nodes: ", request.max_nodes(),
                         " is more than this server's limit of ",
                         limits.max_suggest_nodes, " (max_suggest_nodes)")),
                     "max_suggest_nodes");
  }
  if (request.max_time_ms() < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_time_ms: ", request.max_time_ms(), ", expected 1 to ",
                     limits.max_suggest_time_ms, " (0 = none)"));
  }
  if (request.max_time_ms() > limits.max_suggest_time_ms) {
    return WithLimit(absl::InvalidArgumentError(absl::StrCat(
                         "max_time_ms: ", request.max_time_ms(),
                         " is more than this server's limit of ",
                         limits.max_suggest_time_ms, " (max_suggest_time_ms)")),
                     "max_suggest_time_ms");
  }
  if (request.max_depth() < 0 || request.max_depth() > bot::kMaxSearchDepth) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_depth: ", request.max_depth(), ", expected 1 to ",
                     bot::kMaxSearchDepth, " (0 = no limit but the budget)"));
  }
  if (request.candidates() < 0 || request.candidates() > bot::kMaxCandidates) {
    return absl::InvalidArgumentError(
        absl::StrCat("candidates: ", request.candidates(), ", expected 1 to ",
                     bot::kMaxCandidates, " (0 = 1)"));
  }
  const bool explicit_budget =
      request.max_nodes() > 0 || request.max_time_ms() > 0;
  if (request.level() > 0 &&
      (request.max_nodes() > 0 || request.max_depth() > 0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "level: ", request.level(),
        " given together with max_nodes or max_depth; expected either a "
        "level or an explicit budget (max_time_ms may bound a level)"));
  }
  if (request.max_depth() > 0 && !explicit_budget) {
    return absl::InvalidArgumentError(
        absl::StrCat("max_depth: ", request.max_depth(),
                     " given without max_nodes or max_time_ms; expected a "
                     "budget with it (a level has its own depth)"));
  }
  if (request.level() > 0 || !explicit_budget) {
    options.level = request.level() > 0 ? request.level() : bot::kDefaultLevel;
    const std::int64_t level_nodes =
        bot::LevelSpecOf(options.level).node_budget;
    if (level_nodes > limits.max_suggest_nodes) {
      return WithLimit(
          absl::InvalidArgumentError(absl::StrCat(
              "level: level ", options.level, " searches ", level_nodes,
              " nodes, more than this server's limit of ",
              limits.max_suggest_nodes, " (max_suggest_nodes)")),
          "max_suggest_nodes");
    }
  } else {
    options.node_budget = request.max_nodes();
    options.depth_limit = request.max_depth();
  }
  options.time_budget_us = std::int64_t{request.max_time_ms()} * 1000;
  options.seed = request.seed();
  options.candidates = request.candidates() > 0 ? request.candidates() : 1;
  options.best_so_far_on_stop = request.best_so_far();
  return options;
}

std::string PassOr(const bot::BotMove& move, std::string text) {
  return move.is_pass ? std::string("pass") : std::move(text);
}

void SuggestionToProto(const bot::Suggestion& suggestion, v1::Move* out) {
  const bot::BotMove& move = suggestion.move;
  if (move.is_pass) {
    out->set_path("pass");
    return;
  }
  out->set_origin(std::string(SquareName(move.origin)));
  out->set_destination(std::string(SquareName(move.destination)));
  std::string path;
  for (int i = 0; i < suggestion.path_length; ++i) {
    if (i > 0) path += '-';
    absl::StrAppend(&path, SquareName(suggestion.path[i]));
  }
  out->set_path(std::move(path));
  out->set_hops(move.hops);
}

void ScoreToProto(const bot::Score& score, v1::MoveScore* out) {
  switch (score.kind) {
    case bot::ScoreKind::kEstimate:
      out->set_kind(v1::MoveScore::KIND_ESTIMATE);
      break;
    case bot::ScoreKind::kWin:
      out->set_kind(v1::MoveScore::KIND_WIN);
      break;
    case bot::ScoreKind::kLoss:
      out->set_kind(v1::MoveScore::KIND_LOSS);
      break;
    case bot::ScoreKind::kDraw:
      out->set_kind(v1::MoveScore::KIND_DRAW);
      break;
  }
  out->set_moves(score.moves);
  out->set_turns_ahead(score.turns_ahead);
  out->set_value(score.value);
}

v1::StopReason StopReasonToProto(bot::StopReason reason) {
  switch (reason) {
    case bot::StopReason::kCompleted:
      return v1::STOP_REASON_COMPLETED;
    case bot::StopReason::kNodeBudget:
      return v1::STOP_REASON_NODE_BUDGET;
    case bot::StopReason::kTimeBudget:
      return v1::STOP_REASON_TIME_BUDGET;
    case bot::StopReason::kCheckpoint:
      return v1::STOP_REASON_INTERRUPTED;
  }
  return v1::STOP_REASON_UNSPECIFIED;
}

}  // namespace

absl::Status RulesCore::SuggestMove(
    const v1::SuggestMoveRequest& request, v1::SuggestMoveResponse* response,
    absl::FunctionRef<absl::Status()> checkpoint) const {
  absl::StatusOr<bot::SearchOptions> options =
      SearchOptionsFromProto(request, options_);
  if (!options.ok()) return options.status();

  RequestBoard board;
  if (absl::Status status = ResolveBoard(request.variant(), request.position(),
                                         "position", &board);
      !status.ok()) {
    return status;
  }
  const Variant& variant = *board.variant;
  Position position = board.position;
  absl::string_view position_field = "position";
  if (request.moves_size() > 0) {
    // The moves as Adjudicate replays them, every one of them legal.
    if (request.moves_size() > options_.max_record_moves) {
      return WithLimit(absl::InvalidArgumentError(absl::StrCat(
                           "moves: ", request.moves_size(),
                           " moves, more than this server's limit of ",
                           options_.max_record_moves, " (max_record_moves)")),
                       "max_record_moves");
    }
    const auto& moves = request.moves();
    absl::StatusOr<GameRecordResult> replay = AdjudicateRecord(
        variant, position, moves.size(),
        [&moves](int i) { return absl::string_view(moves.Get(i)); },
        checkpoint);
    if (!replay.ok()) {
      if (!absl::IsInvalidArgument(replay.status())) return replay.status();
      return RecordErrorToProto(replay.status());
    }
    if (replay->illegal_ply > 0) {
      const int ply = replay->illegal_ply;
      return absl::InvalidArgumentError(
          absl::StrCat("moves[", ply - 1, "] (ply ", ply, "): move ",
                       QuoteForError(moves.Get(ply - 1)), " is illegal: ",
                       replay->illegal_message, "; expected legal moves only"));
    }
    position = replay->final_position;
    position_field = "moves";
  }

  // A finished game has no move to suggest (docs/rules.md, section 6).
  const GameStatus status = EvaluateStatus(variant, position);
  if (status.over) {
    GameRecordResult over;
    over.status = status;
    return absl::InvalidArgumentError(absl::StrCat(
        position_field, ": the game is over (", ResultToken(variant, over),
        request.moves_size() > 0 ? " after the last move" : "",
        "), so there is no move to suggest; expected a game in progress"));
  }
  if (absl::Status room = CheckRoomForMove(position); !room.ok()) {
    return WithField(position_field, room);
  }

  SearchWorkspaces::Lease workspace = workspaces_->Take();
  if (!workspace) {
    // The admission gate lets no more searches run than there are
    // workspaces; a core used without it can get here.
    return WithLimit(absl::ResourceExhaustedError(absl::StrCat(
                         "SuggestMove: ", workspaces_->count(),
                         " searches are running already, this server's limit "
                         "(max_concurrent_adjudications); retry later")),
                     "max_concurrent_adjudications");
  }
  absl::StatusOr<bot::SearchResult> result = bot::SuggestMove(
      variant, position, *options, workspace.get(), checkpoint);
  if (!result.ok()) {
    if (absl::IsInvalidArgument(result.status())) {
      return WithField(position_field, result.status());
    }
    return result.status();
  }

  const bot::Suggestion& chosen = result->move();
  SuggestionToProto(chosen, response->mutable_move());
  ScoreToProto(chosen.score, response->mutable_score());
  for (int i = 0; i < result->candidate_count; ++i) {
    v1::ScoredMove* candidate = response->add_candidates();
    SuggestionToProto(result->candidates[i], candidate->mutable_move());
    ScoreToProto(result->candidates[i].score, candidate->mutable_score());
  }
  for (int i = 0; i < result->pv_length; ++i) {
    const bot::BotMove& move = result->pv[i];
    v1::PlannedMove* planned = response->add_principal_variation();
    planned->set_seat(SeatToProto(result->pv_seat[i]));
    planned->set_move(PassOr(move, absl::StrCat(SquareName(move.origin), "-",
                                                SquareName(move.destination))));
  }
  response->set_depth(result->depth);
  response->set_nodes(result->nodes);
  for (int i = 0; i < variant.seat_count; ++i) {
    const Seat seat = variant.seats[i];
    if (status.eliminated.Has(seat)) continue;  // No longer in play.
    v1::SeatTurns* turns = response->add_turns_needed();
    turns->set_seat(SeatToProto(seat));
    turns->set_turns(result->turns_needed[SeatIndex(seat)]);
  }
  response->set_stop_reason(StopReasonToProto(result->stop_reason));
  if (result->stop_reason == bot::StopReason::kCheckpoint) {
    response->set_stop_message(std::string(result->stop_status.message()));
  }
  response->set_level(options->level);
  response->set_mover(SeatToProto(position.to_move));
  response->set_position(FormatPosition(position, variant));
  return absl::OkStatus();
}

}  // namespace halma::service
