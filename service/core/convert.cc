#include "service/core/convert.h"

#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "halma/notation.h"

namespace halma::service {
namespace {

// The VariantSpec fields the engine names in its messages
// ("variant <field> ...").
constexpr absl::string_view kSpecFields[] = {
    "board_size",       "seat_count",  "camp_rows", "home_exit_limit",
    "round_completion", "target_lock", "move_cap",
};

// "variant.custom.<field>" for an engine message that names a spec field,
// else "variant.custom".
std::string CustomField(absl::string_view message) {
  absl::string_view rest = message;
  if (absl::ConsumePrefix(&rest, "variant ")) {
    for (absl::string_view field : kSpecFields) {
      if (absl::StartsWith(rest, field) &&
          (rest.size() == field.size() || rest[field.size()] == ' ' ||
           rest[field.size()] == ':')) {
        return absl::StrCat("variant.custom.", field);
      }
    }
  }
  return "variant.custom";
}

}  // namespace

absl::StatusOr<const Variant*> ResolveVariant(const v1::Variant& proto,
                                              Variant* custom) {
  switch (proto.kind_case()) {
    case v1::Variant::kPreset: {
      const Variant* preset = PresetTable::Get().Find(proto.preset());
      if (preset != nullptr) return preset;
      // Not a preset: the engine says so, listing the names.
      absl::StatusOr<Variant> unknown = PresetVariant(proto.preset());
      return WithField("variant.preset",
                       unknown.ok()
                           ? absl::InvalidArgumentError("no such preset")
                           : unknown.status());
    }
    case v1::Variant::kCustom: {
      const v1::VariantSpec& in = proto.custom();
      // Refused before copying: a list longer than any board is wrong
      // whatever its entries, and may be a few megabytes long.
      if (in.camp_rows_size() > kMaxBoardSize) {
        return absl::InvalidArgumentError(
            absl::StrCat("variant.custom.camp_rows: ", in.camp_rows_size(),
                         " rows, expected at most ", kMaxBoardSize,
                         " (the largest board has ", kMaxBoardSize, " ranks)"));
      }
      VariantSpec spec;
      spec.board_size = in.board_size();
      spec.seat_count = in.seat_count();
      spec.camp_rows.assign(in.camp_rows().begin(), in.camp_rows().end());
      spec.home_exit_limit = in.home_exit_limit();
      spec.round_completion = in.round_completion();
      spec.target_lock = in.target_lock();
      spec.move_cap = in.move_cap();
      absl::StatusOr<Variant> variant = MakeVariant(spec);
      if (!variant.ok()) {
        return WithField(CustomField(variant.status().message()),
                         variant.status());
      }
      *custom = *std::move(variant);
      return custom;
    }
    case v1::Variant::KIND_NOT_SET:
      break;
  }
  return absl::InvalidArgumentError(
      "variant: expected a preset name or a custom specification");
}

absl::StatusOr<Position> PositionFromProto(absl::string_view text,
                                           const Variant& variant,
                                           absl::string_view field) {
  if (text.empty()) return StartPosition(variant);
  absl::StatusOr<Position> position = ParsePosition(text, variant);
  if (!position.ok()) return WithField(field, position.status());
  return position;
}

absl::StatusOr<Square> SquareFromProto(absl::string_view text,
                                       const Variant& variant,
                                       absl::string_view field) {
  absl::StatusOr<Square> square = ParseSquare(text, variant.size);
  if (!square.ok()) return WithField(field, square.status());
  return square;
}

absl::StatusOr<MoveText> MoveFromProto(absl::string_view text,
                                       const Variant& variant,
                                       absl::string_view field) {
  absl::StatusOr<MoveText> move = ParseMove(text, variant.size);
  if (!move.ok()) return WithField(field, move.status());
  return move;
}

v1::Seat SeatToProto(Seat seat) {
  switch (seat) {
    case Seat::kW:
      return v1::SEAT_W;
    case Seat::kR:
      return v1::SEAT_R;
    case Seat::kB:
      return v1::SEAT_B;
    case Seat::kG:
      return v1::SEAT_G;
  }
  return v1::SEAT_UNSPECIFIED;
}

v1::DecidingRule DecidingRuleToProto(DecidingRule rule) {
  switch (rule) {
    case DecidingRule::kNone:
      return v1::DECIDING_RULE_UNSPECIFIED;
    case DecidingRule::kTargetFilled:
      return v1::DECIDING_RULE_TARGET_FILLED;
    case DecidingRule::kHomeExit:
      return v1::DECIDING_RULE_HOME_EXIT;
    case DecidingRule::kMoveCap:
      return v1::DECIDING_RULE_MOVE_CAP;
    case DecidingRule::kEveryoneStuck:
      return v1::DECIDING_RULE_EVERYONE_STUCK;
  }
  return v1::DECIDING_RULE_UNSPECIFIED;
}

v1::IllegalReason IllegalReasonToProto(MoveVerdict verdict) {
  switch (verdict) {
    case MoveVerdict::kLegal:
      return v1::ILLEGAL_REASON_UNSPECIFIED;
    case MoveVerdict::kGameOver:
      return v1::ILLEGAL_REASON_GAME_OVER;
    case MoveVerdict::kPassNotAllowed:
      return v1::ILLEGAL_REASON_PASS_NOT_ALLOWED;
    case MoveVerdict::kEmptyOrigin:
      return v1::ILLEGAL_REASON_EMPTY_ORIGIN;
    case MoveVerdict::kNotYourPiece:
      return v1::ILLEGAL_REASON_NOT_YOUR_PIECE;
    case MoveVerdict::kDestinationOccupied:
      return v1::ILLEGAL_REASON_DESTINATION_OCCUPIED;
    case MoveVerdict::kNothingToJump:
      return v1::ILLEGAL_REASON_NOTHING_TO_JUMP;
    case MoveVerdict::kNotAHop:
      return v1::ILLEGAL_REASON_NOT_A_HOP;
    case MoveVerdict::kSquareVisitedTwice:
      return v1::ILLEGAL_REASON_SQUARE_VISITED_TWICE;
    case MoveVerdict::kLeavesTarget:
      return v1::ILLEGAL_REASON_LEAVES_TARGET;
    case MoveVerdict::kUnreachable:
      return v1::ILLEGAL_REASON_UNREACHABLE;
  }
  return v1::ILLEGAL_REASON_UNSPECIFIED;
}

void StatusToProto(const Variant& variant, const GameStatus& status, int ply,
                   v1::GameStatus* out) {
  out->Clear();
  if (!status.over) {
    out->set_state(v1::GameStatus::STATE_IN_PROGRESS);
  } else if (status.winners.Count() == 1) {
    out->set_state(v1::GameStatus::STATE_WIN);
  } else {
    out->set_state(v1::GameStatus::STATE_DRAW);
  }
  out->set_to_move(SeatToProto(status.to_move));
  out->set_round_completion_turn(status.round_completion_turn);
  out->set_must_pass(status.must_pass);
  for (int i = 0; i < variant.seat_count; ++i) {
    const Seat seat = variant.seats[i];
    if (status.winners.Has(seat)) out->add_winners(SeatToProto(seat));
    if (status.finished.Has(seat)) out->add_finished(SeatToProto(seat));
    if (status.eliminated.Has(seat)) out->add_eliminated(SeatToProto(seat));
  }
  if (status.over) {
    out->set_rule(DecidingRuleToProto(status.rule));
    out->set_ply(ply);
  }
}

void SpecToProto(const VariantSpec& spec, v1::VariantSpec* out) {
  out->set_board_size(spec.board_size);
  out->set_seat_count(spec.seat_count);
  out->mutable_camp_rows()->Assign(spec.camp_rows.begin(),
                                   spec.camp_rows.end());
  out->set_home_exit_limit(spec.home_exit_limit);
  out->set_round_completion(spec.round_completion);
  out->set_target_lock(spec.target_lock);
  out->set_move_cap(spec.move_cap);
}

absl::Status RecordErrorToProto(const absl::Status& status) {
  // AdjudicateRecord reports a malformed move as "ply N: <ParseMove error>".
  const absl::string_view message = status.message();
  const size_t colon = message.find(": ");
  constexpr absl::string_view kPly = "ply ";
  int ply = 0;
  if (absl::StartsWith(message, kPly) && colon != absl::string_view::npos &&
      absl::SimpleAtoi(message.substr(kPly.size(), colon - kPly.size()),
                       &ply) &&
      ply >= 1) {
    return absl::Status(status.code(),
                        absl::StrCat("moves[", ply - 1, "] (ply ", ply,
                                     "): ", message.substr(colon + 2)));
  }
  return WithField("moves", status);
}

absl::Status WithField(absl::string_view field, const absl::Status& status) {
  return absl::Status(status.code(),
                      absl::StrCat(field, ": ", status.message()));
}

absl::Status ResolveBoard(const v1::Variant& variant_proto,
                          absl::string_view position_text,
                          absl::string_view position_field,
                          RequestBoard* board) {
  absl::StatusOr<const Variant*> variant =
      ResolveVariant(variant_proto, &board->custom);
  if (!variant.ok()) return variant.status();
  board->variant = *variant;
  absl::StatusOr<Position> position =
      PositionFromProto(position_text, **variant, position_field);
  if (!position.ok()) return position.status();
  board->position = *position;
  return absl::OkStatus();
}

}  // namespace halma::service
