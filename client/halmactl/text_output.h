#ifndef HALMA_CLIENT_HALMACTL_TEXT_OUTPUT_H_
#define HALMA_CLIENT_HALMACTL_TEXT_OUTPUT_H_

// halmactl's human-readable output: seats, statuses, reasons, boards and
// move lists.

#include <string>

#include "absl/strings/string_view.h"
#include "google/protobuf/repeated_field.h"
#include "halma/v1/halma.pb.h"

namespace halma::halmactl {

char SeatLetter(halma::v1::Seat seat);
// "w, b".
std::string SeatList(const google::protobuf::RepeatedField<int>& seats);
// "target filled", "move cap", ...
std::string RuleWords(halma::v1::DecidingRule rule);
// "ILLEGAL_REASON_DESTINATION_OCCUPIED" -> "destination occupied".
std::string ReasonWords(halma::v1::IllegalReason reason);

// One line: "w to move", "b wins (target filled) at ply 68", "draw between
// w, b (move cap) at ply 40", plus finished/eliminated seats.
std::string StatusLine(const halma::v1::GameStatus& status);

// Draws the board of a position string: ranks N..1 with their numbers, files
// below, '.' for empty squares and seat letters for pieces; then the side to
// move and the moves made by each seat. Returns "" when the string cannot be
// read (the caller prints the string itself in any case).
std::string BoardDiagram(absl::string_view position);

// "label: position", a blank line, the board and a blank line, on stdout.
void PrintPosition(absl::string_view label, absl::string_view position);

// Moves grouped by origin: steps as their destination, jumps as their path.
void PrintMoves(const halma::v1::LegalMovesResponse& response);

}  // namespace halma::halmactl

#endif  // HALMA_CLIENT_HALMACTL_TEXT_OUTPUT_H_
