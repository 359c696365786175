// halmactl adjudicate: one record, as moves (arguments or --file) or as a
// record in the record text format (--record). --batch is in batch.cc.

#include <iostream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "common.h"
#include "halma/record_text.h"
#include "text_output.h"

namespace halma::halmactl {
namespace {

// The report shared by the moves and the record forms. `given` is the
// number of moves of the record when known.
int PrintAdjudication(const CommandLine& cl,
                      const v1::AdjudicateResponse& response,
                      std::optional<int> given) {
  const bool illegal = response.has_illegal_move();
  if (cl.json) {
    PrintJson(response);
    return illegal ? kExitNegative : kExitOk;
  }
  if (cl.text_out) {
    std::cout << response.record_text();
    if (!response.record_text().empty() &&
        response.record_text().back() != '\n')
      std::cout << "\n";
    return illegal ? kExitNegative : kExitOk;
  }
  std::cout << "Moves played: " << response.moves_played();
  if (given) std::cout << " of " << *given;
  std::cout << "\n";
  if (illegal) {
    const v1::IllegalMove& bad = response.illegal_move();
    std::cout << "Illegal move at ply " << bad.ply() << ": " << bad.move()
              << ": " << ReasonWords(bad.reason());
    if (!bad.message().empty()) std::cout << ": " << bad.message();
    std::cout << "\n";
  }
  std::cout << (illegal ? "Status before it: " : "Result: ")
            << StatusLine(response.status()) << "\n";
  if (cl.record) {
    std::cout << "Result token: " << response.result() << "\n";
    if (!response.claimed_result().empty()) {
      std::cout << "Claimed result: " << response.claimed_result()
                << (response.result_mismatch() ? " (differs from the result)"
                                               : " (agrees)")
                << "\n";
    }
  }
  std::cout << "\n";
  PrintPosition("Final position", response.final_position());
  return illegal ? kExitNegative : kExitOk;
}

// adjudicate --record=F: the record text goes to the server as it is (its
// tags name the variant and the start).
int AdjudicateRecordText(const CommandLine& cl, client::HalmaClient& client) {
  if (cl.variant || cl.position || cl.file || !cl.args.empty()) {
    return UsageFailure(cl.command,
                        "--record takes the variant, start and moves from the "
                        "record: no --variant, --position, --file or moves");
  }
  absl::StatusOr<std::string> text = ReadInput(*cl.record);
  if (!text.ok()) return UsageFailure(cl.command, text.status().message());
  std::optional<int> given;
  // The local parse only counts the moves; the server's parse decides.
  if (absl::StatusOr<TextRecord> parsed = ParseTextRecord(*text); parsed.ok()) {
    given = static_cast<int>(parsed->moves.size());
  }
  v1::AdjudicateRequest request;
  request.set_record_text(*std::move(text));
  request.set_want_record_text(cl.text_out);
  absl::StatusOr<v1::AdjudicateResponse> response = client.Adjudicate(request);
  if (!response.ok()) return RpcError(response.status());
  return PrintAdjudication(cl, *response, given);
}

}  // namespace

int CmdAdjudicate(const CommandLine& cl, client::HalmaClient& client) {
  if (cl.batch) return CmdAdjudicateBatch(cl, client);
  if (cl.record) return AdjudicateRecordText(cl, client);
  if (!cl.variant) {
    return UsageFailure(
        cl.command,
        "adjudicate needs --variant (a preset such as brainking-8x8, see "
        "'halmactl variants', or custom:N=...,camp=...), or --record or "
        "--batch");
  }
  v1::AdjudicateRequest request;
  absl::StatusOr<v1::Variant> variant = ParseVariant(*cl.variant);
  if (!variant.ok())
    return UsageFailure(cl.command, variant.status().message());
  *request.mutable_variant() = *variant;
  if (cl.position) request.set_start_position(*cl.position);
  std::vector<std::string> moves = cl.args;
  if (cl.file) {
    if (!moves.empty()) {
      return UsageFailure(cl.command,
                          "give the moves as arguments or with --file, not "
                          "both");
    }
    absl::StatusOr<std::vector<std::string>> read = ReadMovesFile(*cl.file);
    if (!read.ok()) return UsageFailure(cl.command, read.status().message());
    moves = *std::move(read);
  }
  for (std::string& move : moves) request.add_moves(std::move(move));
  request.set_want_record_text(cl.text_out);
  absl::StatusOr<v1::AdjudicateResponse> response = client.Adjudicate(request);
  if (!response.ok()) return RpcError(response.status());
  return PrintAdjudication(cl, *response, request.moves_size());
}

}  // namespace halma::halmactl
