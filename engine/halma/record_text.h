// The record text format of docs/record-format.md (tag pairs, numbered
// moves, comments, result token): parsing, formatting and ResultToken.
#ifndef HALMA_RECORD_TEXT_H_
#define HALMA_RECORD_TEXT_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "halma/record_replay.h"
#include "halma/variant.h"

namespace halma {

// A game record in the record text format (docs/record-format.md): tag
// pairs, numbered move text, comments and a result token. Several records
// may follow one another in one text.
struct TextRecord {
  // The variant: `spec.name` set for a preset, else the custom fields. The
  // parser stores the full specification (Variant::spec: a preset's fields
  // too); the formatter writes only the name of a preset.
  VariantSpec variant;
  // The start position when it is not the variant's start; empty otherwise.
  // The parser stores it in canonical form (FormatPosition) and leaves it
  // empty when the Position tag gives the variant's start.
  std::string start_position;
  // Tags other than those the format defines a field for, in order
  // (name, value), e.g. ("Event", "Club final").
  std::vector<std::pair<std::string, std::string>> extra_tags;
  // Player names in turn order of the variant's seats; empty when absent.
  // The parser gives either no names or one per seat in play ("" for a
  // seat without a player tag).
  std::vector<std::string> players;
  std::string date;  // As written in the Date tag; empty when absent.
  // The moves as written in notation (docs/rules.md section 4), ply by ply.
  std::vector<std::string> moves;
  // Comments: (ply after which it stands, 0 = before the first move, text).
  // The parser stores the text without its delimiters and surrounding
  // whitespace, line breaks as "\n".
  std::vector<std::pair<int, std::string>> comments;
  // The result token as written (after the moves, or in the Result tag),
  // empty when absent. The parser stores it in canonical form, so that it
  // can be compared with ResultToken(...) as a string.
  std::string result;

  // Field by field (VariantSpec has no operator== of its own, so this
  // cannot be defaulted).
  friend bool operator==(const TextRecord& a, const TextRecord& b);
};

// Where a parse error was found: 1-based line and column of `text`.
// Parse errors are INVALID_ARGUMENT with a message "line L, column C: ..."
// naming what was found (quoted, cut) and what was expected.

// Parses every record of `text` (at least one).
absl::StatusOr<std::vector<TextRecord>> ParseTextRecords(
    absl::string_view text);
// Parses a text that must hold exactly one record.
absl::StatusOr<TextRecord> ParseTextRecord(absl::string_view text);

// The canonical text of a record (ends with a newline). Records formatted
// one after another make a valid multi-record text. For a record as the
// parser gives it, parsing the text gives the record back; the start
// position is written in canonical form (and left out when it is the
// variant's start) whatever form the record holds it in.
std::string FormatTextRecord(const TextRecord& record);

// The result token that states how `result` (the adjudication of a record
// of `variant`) stands: who won or drew and by which rule, or that the game
// is unfinished, or (for a record with an illegal move) that it is:
// "win:<seat>:<rule>", "draw:<seats in turn order>:<rule>" (rules as
// DecidingRuleName spells them), "*", or "illegal:<ply>:<reason>" (reasons
// as MoveVerdictName spells them), e.g. "win:b:target-filled",
// "draw:wb:move-cap", "illegal:12:destination-occupied". A record's
// `result` as parsed compares with it as a string.
std::string ResultToken(const Variant& variant, const GameRecordResult& result);

}  // namespace halma

#endif  // HALMA_RECORD_TEXT_H_
