// The rules core: each RPC of halma.v1.HalmaRules answered from its request
// message, with the engine. No transport: the gRPC edge (service/grpc/) and
// the HTTP/JSON edge (service/connect/) convert their requests into these
// messages, call the core, and convert the answer and the absl::Status
// back. No metrics or logging either: what a call observer counts (the
// variant, illegal moves, the limit that refused a call) it reads from the
// messages and from the status (admission/limit_status.h).
//
// Malformed input is INVALID_ARGUMENT naming the request field; an illegal
// move is an answer (OK). Expensive methods (IsGated in rules_methods.h)
// take a checkpoint, which the engine calls now and then and whose error
// ends the work; the edges run them with a slot of the admission gate.
#ifndef HALMA_SERVICE_CORE_RULES_CORE_H_
#define HALMA_SERVICE_CORE_RULES_CORE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "absl/functional/function_ref.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "halma/position.h"
#include "halma/record_replay.h"
#include "halma/v1/halma.pb.h"
#include "halma/variant.h"
#include "service/config/settings.h"
#include "service/core/record_view.h"
#include "service/core/search_workspaces.h"

namespace halma::service {

struct RulesOptions {
  // Longest game record Adjudicate accepts, in moves.
  int max_record_moves = setting_default::max_record_moves;
  // Deepest Perft accepted (its cost grows about tenfold a ply).
  int max_perft_depth = setting_default::max_perft_depth;
  // SuggestMove: the largest node budget (a level's included) and time
  // budget a request may ask for.
  std::int64_t max_suggest_nodes = setting_default::max_suggest_nodes;
  int max_suggest_time_ms = setting_default::max_suggest_time_ms;
  // SuggestMove's workspaces: one per search that may run at once (the
  // admission gate's slots), each with a table of 2^suggest_table_bits
  // entries, allocated when the core is made.
  int suggest_workspaces = 1;
  int suggest_table_bits = setting_default::suggest_table_bits;
};

// A checkpoint that never stops the work.
absl::Status NoCheckpoint();

class RulesCore {
 public:
  explicit RulesCore(RulesOptions options = RulesOptions());
  RulesCore(const RulesCore&) = delete;
  RulesCore& operator=(const RulesCore&) = delete;

  // --- Cheap methods ---
  absl::Status ValidateMove(const v1::ValidateMoveRequest& request,
                            v1::ValidateMoveResponse* response) const;
  absl::Status LegalMoves(const v1::LegalMovesRequest& request,
                          v1::LegalMovesResponse* response) const;
  // LegalMoves' answer serialized (what both edges send for protobuf):
  // asks `allocate` for a buffer of the answer's exact size and writes it
  // there (legal_moves_encoding.h).
  absl::Status EncodeLegalMoves(
      const v1::LegalMovesRequest& request,
      absl::FunctionRef<char*(std::size_t)> allocate) const;
  absl::Status ListVariants(const v1::ListVariantsRequest& request,
                            v1::ListVariantsResponse* response) const;
  // ListVariants' answer serialized: it never changes.
  absl::string_view ListVariantsBytes() const { return variants_bytes_; }

  // --- Expensive methods (through the admission gate) ---
  absl::Status Adjudicate(
      const v1::AdjudicateRequest& request, v1::AdjudicateResponse* response,
      absl::FunctionRef<absl::Status()> checkpoint = NoCheckpoint) const;
  // Adjudicate of a request read in place (record_view.h) whose variant's
  // bytes parsed as `variant`: the same answer, without the moves copied.
  // Empty when a move is not ASCII or a field after the first move is not
  // a move: the request is then protobuf's to judge (it may not be valid
  // UTF-8, or hold fields in another order), and the caller parses it.
  std::optional<absl::Status> AdjudicateView(
      const v1::Variant& variant, const AdjudicateRequestView& record,
      v1::AdjudicateResponse* response,
      absl::FunctionRef<absl::Status()> checkpoint = NoCheckpoint) const;
  absl::Status Perft(
      const v1::PerftRequest& request, v1::PerftResponse* response,
      absl::FunctionRef<absl::Status()> checkpoint = NoCheckpoint) const;
  // The search stops when `checkpoint` fails: the call ends with its status,
  // or, with `best_so_far`, answers with the best move found until then
  // (suggest_move.cc).
  absl::Status SuggestMove(
      const v1::SuggestMoveRequest& request, v1::SuggestMoveResponse* response,
      absl::FunctionRef<absl::Status()> checkpoint = NoCheckpoint) const;

  const RulesOptions& options() const { return options_; }
  // Bytes SuggestMove's workspaces hold (allocated once).
  std::size_t SuggestMemoryBytes() const { return workspaces_->MemoryBytes(); }

 private:
  struct TextAnswer;
  // Replays a record's moves from `start` (AdjudicateRecord or
  // ReplayRecord, record_replay.h).
  using Replay = absl::FunctionRef<absl::StatusOr<GameRecordResult>(
      const Variant& variant, const Position& start)>;
  // Adjudicate over the request's parts: `replay` replays the moves, of
  // which there are `move_count` (for the limit on a record's moves: 0
  // when the record cannot hold more than the limit).
  // `text`, when not null, is the record as a TextRecord (from record_text,
  // or made for want_record_text): the answer then gets `result`, and
  // `claimed_result` or `record_text` as asked.
  absl::Status AdjudicateMoves(const v1::Variant& variant,
                               absl::string_view start_position, int move_count,
                               Replay replay, v1::AdjudicateResponse* response,
                               TextAnswer* text = nullptr) const;
  // Adjudicate of a request holding record_text.
  absl::Status AdjudicateText(
      const v1::AdjudicateRequest& request, v1::AdjudicateResponse* response,
      absl::FunctionRef<absl::Status()> checkpoint) const;

  const RulesOptions options_;
  // Built once: presets never change. Also kept serialized, for the answer.
  v1::ListVariantsResponse variants_;
  std::string variants_bytes_;
  // Lent to one SuggestMove at a time.
  std::unique_ptr<SearchWorkspaces> workspaces_;
};

}  // namespace halma::service

#endif  // HALMA_SERVICE_CORE_RULES_CORE_H_
