// halmactl suggest.

#include <cstdint>
#include <iostream>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common.h"
#include "text_output.h"

namespace halma::halmactl {
namespace {

// "estimate, +1.48 turns ahead", "win in 3 moves", ...
std::string ScoreText(const v1::MoveScore& score) {
  const auto in_moves = [&](absl::string_view what) {
    return absl::StrCat(what, " in ", score.moves(),
                        score.moves() == 1 ? " move" : " moves");
  };
  switch (score.kind()) {
    case v1::MoveScore::KIND_WIN:
      return in_moves("win");
    case v1::MoveScore::KIND_LOSS:
      return in_moves("loss");
    case v1::MoveScore::KIND_DRAW:
      return in_moves("draw");
    default:
      return absl::StrFormat("%+.2f turns ahead", score.turns_ahead());
  }
}

std::string StopText(const v1::SuggestMoveResponse& answer) {
  switch (answer.stop_reason()) {
    case v1::STOP_REASON_COMPLETED:
      return "completed";
    case v1::STOP_REASON_NODE_BUDGET:
      return "node budget spent";
    case v1::STOP_REASON_TIME_BUDGET:
      return "time budget spent (not reproducible)";
    case v1::STOP_REASON_INTERRUPTED:
      return absl::StrCat("interrupted (not reproducible): ",
                          answer.stop_message());
    default:
      return "unknown";
  }
}

}  // namespace

int CmdSuggest(const CommandLine& cl, client::HalmaClient& client) {
  v1::SuggestMoveRequest request;
  absl::StatusOr<v1::Variant> variant = ParseVariant(*cl.variant);
  if (!variant.ok())
    return UsageFailure(cl.command, variant.status().message());
  *request.mutable_variant() = *variant;
  if (cl.position) request.set_position(*cl.position);
  for (const std::string& move : cl.args) request.add_moves(move);
  if (cl.level) request.set_level(*cl.level);
  if (cl.nodes) request.set_max_nodes(*cl.nodes);
  if (cl.time_ms) request.set_max_time_ms(*cl.time_ms);
  if (cl.depth) request.set_max_depth(*cl.depth);
  if (cl.seed) request.set_seed(*cl.seed);
  if (cl.candidates) request.set_candidates(*cl.candidates);
  request.set_best_so_far(cl.best_so_far);
  absl::StatusOr<v1::SuggestMoveResponse> response =
      client.SuggestMove(request);
  if (!response.ok()) return RpcError(response.status());
  if (cl.json) {
    PrintJson(*response);
    return kExitOk;
  }
  const v1::SuggestMoveResponse& answer = *response;
  std::cout << "Position: " << answer.position() << "\n";
  std::cout << "Suggested move for " << SeatLetter(answer.mover()) << ": "
            << answer.move().path() << "\n";
  std::cout << "Score: " << ScoreText(answer.score()) << "\n";
  if (answer.candidates_size() > 1) {
    std::cout << "Candidates:\n";
    size_t width = 0;
    for (const v1::ScoredMove& candidate : answer.candidates()) {
      width = std::max(width, candidate.move().path().size());
    }
    for (int i = 0; i < answer.candidates_size(); ++i) {
      const v1::ScoredMove& candidate = answer.candidates(i);
      std::cout << "  " << i + 1 << ". " << candidate.move().path()
                << std::string(width - candidate.move().path().size() + 2, ' ')
                << ScoreText(candidate.score()) << "\n";
    }
  }
  std::cout << "Line:";
  for (const v1::PlannedMove& planned : answer.principal_variation()) {
    std::cout << (&planned == &answer.principal_variation(0) ? " " : ", ")
              << SeatLetter(planned.seat()) << " " << planned.move();
  }
  std::cout << "\nTurns needed:";
  for (const v1::SeatTurns& turns : answer.turns_needed()) {
    std::cout << absl::StrFormat(" %c %.1f", SeatLetter(turns.seat()),
                                 turns.turns());
  }
  std::cout << "\nSearch: "
            << (answer.level() > 0 ? absl::StrCat("level ", answer.level())
                                   : std::string("explicit budget"))
            << ", depth " << answer.depth() << ", " << answer.nodes()
            << " nodes, " << StopText(answer) << "\n";
  return kExitOk;
}

}  // namespace halma::halmactl
