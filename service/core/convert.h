// Conversion between the halma.v1 messages and the engine's types, and from
// engine errors to request errors that name the offending field.
//
// Everything here is mechanical: the rules live in the engine. Errors are
// absl::Status naming the request field; each edge turns them into its
// protocol's error.
#ifndef HALMA_SERVICE_CORE_CONVERT_H_
#define HALMA_SERVICE_CORE_CONVERT_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "halma/game.h"
#include "halma/move_check.h"
#include "halma/position.h"
#include "halma/seat.h"
#include "halma/status.h"
#include "halma/v1/halma.pb.h"
#include "halma/variant.h"
#include "service/core/presets.h"

namespace halma::service {

// The variant a request is about. A preset resolves to the shared table
// entry; a custom variant is built into `*custom` and the result points
// there. Errors name `variant`, `variant.preset` or `variant.custom.<field>`.
absl::StatusOr<const Variant*> ResolveVariant(const v1::Variant& proto,
                                              Variant* custom);

// Parses the position field `field` ("position", "start_position"); empty
// text is the variant's start position.
absl::StatusOr<Position> PositionFromProto(absl::string_view text,
                                           const Variant& variant,
                                           absl::string_view field);

// The variant and the position a request is about, resolved together as every
// handler needs them. `variant` points into the preset table or at `custom`.
struct RequestBoard {
  Variant custom;
  const Variant* variant = nullptr;
  Position position;
};
absl::Status ResolveBoard(const v1::Variant& variant_proto,
                          absl::string_view position_text,
                          absl::string_view position_field,
                          RequestBoard* board);

// Parses a square or move field; errors are prefixed with `field`.
absl::StatusOr<Square> SquareFromProto(absl::string_view text,
                                       const Variant& variant,
                                       absl::string_view field);
absl::StatusOr<MoveText> MoveFromProto(absl::string_view text,
                                       const Variant& variant,
                                       absl::string_view field);

// Engine -> proto enums.
v1::Seat SeatToProto(Seat seat);
v1::DecidingRule DecidingRuleToProto(DecidingRule rule);
v1::IllegalReason IllegalReasonToProto(MoveVerdict verdict);

// Fills `out` from an engine status. `ply` is the deciding ply of a record
// (0 when there is none). Seat lists follow the variant's turn order.
void StatusToProto(const Variant& variant, const GameStatus& status, int ply,
                   v1::GameStatus* out);
void SpecToProto(const VariantSpec& spec, v1::VariantSpec* out);

// Rewrites an error of AdjudicateRecord ("ply N: ...") as an error of the
// request field `moves[N-1]`.
absl::Status RecordErrorToProto(const absl::Status& status);

// Prefixes an error message with the request field it concerns:
// "<field>: <message>". The code is kept.
absl::Status WithField(absl::string_view field, const absl::Status& status);

}  // namespace halma::service

#endif  // HALMA_SERVICE_CORE_CONVERT_H_
