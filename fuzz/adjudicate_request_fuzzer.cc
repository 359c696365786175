// Adjudicate's request handling: arbitrary bytes as the serialized request,
// through ParseRequest and RulesCore::Adjudicate (the service's record limit is
// set to 100 moves so that small inputs reach it).
//
// Properties: whenever the in-place reader (ReadAdjudicateRequest) accepts
// the bytes, every field after the first move is a move (CountMoves) and
// every move is ASCII, protobuf parses them exactly when the variant's
// bytes parse, to the same variant, start position and moves, and
// AdjudicateView over the view answers exactly as Adjudicate over the
// message; with a field there not a move or a move not ASCII,
// AdjudicateView answers nothing (the edge then parses the request);
// ParseRequest's two
// overloads agree; every error is INVALID_ARGUMENT, bounded, printable, and
// starts with a field of the request ("request", "variant", "start_position",
// "moves"); the answer is deterministic (two calls, same bytes); an OK answer
// serializes and parses back, its final position is canonical and parses, the
// move counts are the final position's, and the moves played and the first
// illegal move (its ply, its text as given, a reason and a bounded message) fit
// the record; a record given as text (record_text) or asked back as text
// (want_record_text) gets a result token, a text that parses to it, and
// result_mismatch exactly when a claimed result differs.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "fuzz/service_fuzz.h"
#include "halma/notation.h"
#include "halma/record_text.h"
#include "service/core/record_view.h"
#include "service/core/request_bytes.h"
#include "service/grpc/byte_buffers.h"

namespace {

// The in-place reader against protobuf's parse of the same bytes.
void CheckInPlaceRead(absl::string_view bytes,
                      const halma::service::AdjudicateRequestView& view) {
  using namespace halma;
  const size_t size = bytes.size();
  // The reader leaves the variant's bytes as they are; the request
  // parses exactly when they do, unless a move is not valid UTF-8.
  v1::Variant variant;
  const bool variant_parses = variant.ParseFromArray(
      view.variant.data(), static_cast<int>(view.variant.size()));
  const int move_count = service::CountMoves(view);
  const std::vector<absl::string_view> moves = service::MovesOf(view);
  // Every field after the first move a move of ASCII.
  const bool moves_read = service::MovesReadInPlace(view);
  v1::AdjudicateRequest parsed;
  const bool parses =
      parsed.ParseFromArray(bytes.data(), static_cast<int>(size));
  FUZZ_CHECK(
      parses == variant_parses || move_count < 0 || (!moves_read && !parses),
      "read in place: the request parses unlike its variant");
  if (!variant_parses) return;
  v1::AdjudicateResponse by_view;
  const std::optional<absl::Status> view_status =
      fuzz::Service().AdjudicateView(variant, view, &by_view);
  // A field after the first move not a move, or a move not ASCII: the view
  // answers nothing, whether or not protobuf parses the request.
  FUZZ_CHECK(view_status.has_value() == moves_read,
             "AdjudicateView answers a request with a field after the first "
             "move not a move or a move not ASCII, or does not answer one "
             "whose moves are all moves of ASCII");
  if (!moves_read) return;
  bool same =
      variant.SerializeAsString() == parsed.variant().SerializeAsString() &&
      parsed.start_position() == view.start_position &&
      parsed.moves_size() == move_count &&
      parsed.moves_size() == static_cast<int>(moves.size());
  for (int i = 0; same && i < parsed.moves_size(); ++i) {
    same = parsed.moves(i) == moves[i];
  }
  FUZZ_CHECK(same, "the in-place view differs from the parsed request");
  v1::AdjudicateResponse by_message;
  const absl::Status message_status =
      fuzz::Service().Adjudicate(parsed, &by_message);
  FUZZ_CHECK(*view_status == message_status &&
                 by_view.SerializeAsString() == by_message.SerializeAsString(),
             "AdjudicateView differs from Adjudicate over the message");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace halma;
  const absl::string_view bytes(reinterpret_cast<const char*>(data), size);
  service::AdjudicateRequestView view;
  const bool read_in_place = service::ReadAdjudicateRequest(bytes, &view);
  if (read_in_place) CheckInPlaceRead(bytes, view);
  v1::AdjudicateRequest request;
  if (!fuzz::ParseBoth(
           bytes,
           {"request", "variant", "start_position", "moves", "record_text"},
           &request)
           .ok()) {
    return 0;
  }
  const service::RulesCore& rules = fuzz::Service();
  v1::AdjudicateResponse response;
  const absl::Status status = rules.Adjudicate(request, &response);
  v1::AdjudicateResponse again;
  const absl::Status status_again = rules.Adjudicate(request, &again);
  const std::string context = request.ShortDebugString().substr(0, 2000);
  FUZZ_CHECK(status == status_again &&
                 response.SerializeAsString() == again.SerializeAsString(),
             context + ": not deterministic");
  if (!status.ok()) {
    fuzz::CheckServiceError(
        status, {"variant", "start_position", "moves", "record_text"}, context);
    if (request.moves_size() > fuzz::kFuzzMaxRecordMoves &&
        request.record_text().empty()) {
      FUZZ_CHECK(absl::StartsWith(status.message(), "moves:"),
                 context + ": " + status.ToString());
    }
    return 0;
  }
  fuzz::CheckSerializes(response);
  const std::string answer = context + " -> " + response.ShortDebugString();
  // A record in the text format, or asked back in it: the answer states
  // the result as a token, the text it returns parses (to that token), and
  // a claimed result is compared with it.
  if (!request.record_text().empty() || request.want_record_text()) {
    FUZZ_CHECK(!response.result().empty(), answer);
    FUZZ_CHECK(response.result_mismatch() ==
                   (!response.claimed_result().empty() &&
                    response.claimed_result() != response.result()),
               answer);
  }
  if (request.want_record_text()) {
    absl::StatusOr<TextRecord> text = ParseTextRecord(response.record_text());
    FUZZ_CHECK(text.ok() && text->result == response.result(),
               answer + ": the record text does not parse to its result");
  } else {
    FUZZ_CHECK(response.record_text().empty(), answer);
  }
  if (!request.record_text().empty())
    return 0;  // The checks below read
               // the request's fields.
  FUZZ_CHECK(request.moves_size() <= fuzz::kFuzzMaxRecordMoves, context);
  Variant variant;
  FUZZ_CHECK(fuzz::RequestVariant(request.variant(), &variant), answer);
  fuzz::CheckAnswerPosition(variant, response.final_position(), answer);
  const Position final_position =
      *ParsePosition(response.final_position(), variant);
  FUZZ_CHECK(response.move_counts_size() == variant.seat_count, answer);
  for (int i = 0; i < variant.seat_count; ++i) {
    const v1::SeatMoves& counts = response.move_counts(i);
    FUZZ_CHECK(counts.seat() == service::SeatToProto(variant.seats[i]) &&
                   counts.moves() ==
                       final_position.move_count[SeatIndex(variant.seats[i])],
               answer);
  }
  const int played = response.moves_played();
  FUZZ_CHECK(played >= 0 && played <= request.moves_size(), answer);
  FUZZ_CHECK(response.status().state() != v1::GameStatus::STATE_UNSPECIFIED,
             answer);
  FUZZ_CHECK(response.status().ply() <= played, answer);
  if (response.has_illegal_move()) {
    const v1::IllegalMove& illegal = response.illegal_move();
    FUZZ_CHECK(illegal.ply() == played + 1 &&
                   illegal.ply() <= request.moves_size() &&
                   illegal.move() == request.moves(illegal.ply() - 1) &&
                   illegal.reason() != v1::ILLEGAL_REASON_UNSPECIFIED &&
                   !illegal.message().empty() &&
                   illegal.message().size() <= fuzz::kMaxErrorMessage,
               answer);
  } else {
    FUZZ_CHECK(played == request.moves_size(), answer);
  }
  return 0;
}
