// The record text format (docs/record-format.md) on arbitrary text, and on
// records played out from the bytes.
//
// Input: either text, parsed as it is by ParseTextRecords; or '!', a
// variant selector byte (fuzz_input.h) and playout bytes: from the start
// position each byte picks the next legal move (its value modulo their
// number; "pass" when the seat must pass), bit 7 set also puts a comment
// after it; once the game is over one more move is played (illegal), and
// the record ends.
// Properties: a parse error is INVALID_ARGUMENT "line L, column C: ...",
// bounded and printable, naming a line and column inside the text; when
// the text parses, formatting each record and parsing that gives the same
// record, the formatted text is a fixed point, and the records formatted
// one after another parse to the same records; the record's result
// replaced by ResultToken of its adjudication still round-trips (every
// token ResultToken gives is one the parser reads, for every record it
// reads). A played-out record round-trips the same way.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "fuzz/fuzz_input.h"
#include "halma/record_replay.h"
#include "halma/movegen.h"
#include "halma/notation.h"
#include "halma/record_text.h"
#include "halma/game_status.h"

namespace {

using namespace halma;

constexpr size_t kMaxPlayoutPlies = 160;

std::string Context(absl::string_view text) { return QuoteForError(text); }

// Format, parse, format again: the same record and the same text.
void CheckRoundTrip(const TextRecord& record, absl::string_view context) {
  const std::string text = FormatTextRecord(record);
  FUZZ_CHECK(!text.empty() && text.back() == '\n', Context(text));
  const absl::StatusOr<TextRecord> again = ParseTextRecord(text);
  FUZZ_CHECK(again.ok(),
             absl::StrCat(Context(context), " formats as ", Context(text),
                          ", which fails: ", again.status().ToString()));
  FUZZ_CHECK(*again == record,
             absl::StrCat(Context(context), " formats as ", Context(text),
                          ", which parses differently"));
  const std::string twice = FormatTextRecord(*again);
  FUZZ_CHECK(twice == text,
             absl::StrCat(Context(text), " formats again as ", Context(twice)));
}

// The record with the result of its adjudication.
void CheckAdjudicatedToken(TextRecord record, absl::string_view context) {
  // A preset from the fuzz variants (made once), else made here.
  absl::StatusOr<Variant> variant = absl::InvalidArgumentError("not a preset");
  for (const fuzz::FuzzVariant& fv : fuzz::FuzzVariants()) {
    if (!record.variant.name.empty() &&
        fv.variant.spec.name == record.variant.name) {
      variant = fv.variant;
    }
  }
  if (!variant.ok()) variant = MakeVariant(record.variant);
  FUZZ_CHECK(variant.ok(), Context(context));
  Position start = StartPosition(*variant);
  if (!record.start_position.empty()) {
    absl::StatusOr<Position> parsed =
        ParsePosition(record.start_position, *variant);
    FUZZ_CHECK(parsed.ok(), Context(context));
    start = *parsed;
  }
  const absl::StatusOr<GameRecordResult> result =
      AdjudicateRecord(*variant, start, record.moves);
  if (!result.ok()) {
    // Only a start at the end of the count range (its moves are well
    // formed, the parser read them).
    FUZZ_CHECK(absl::StrContains(result.status().message(),
                                 "the most a count can hold"),
               Context(context) + ": " + result.status().ToString());
    return;
  }
  record.result = ResultToken(*variant, *result);
  CheckRoundTrip(record, context);
}

void CheckText(absl::string_view text) {
  const absl::StatusOr<std::vector<TextRecord>> records =
      ParseTextRecords(text);
  if (!records.ok()) {
    fuzz::CheckRequestError(records.status(), {"line "}, Context(text));
    // "line L, column C: " with L and C inside the text (or just past it).
    const std::vector<absl::string_view> parts =
        absl::StrSplit(records.status().message(), absl::MaxSplits(':', 1));
    const std::vector<absl::string_view> where =
        absl::StrSplit(parts[0], ", column ");
    uint64_t line = 0, column = 0;
    FUZZ_CHECK(
        where.size() == 2 && absl::SimpleAtoi(where[0].substr(5), &line) &&
            absl::SimpleAtoi(where[1], &column) && line >= 1 && column >= 1,
        records.status().ToString());
    uint64_t lines = 1;  // Lines end at LF, CRLF or CR.
    for (size_t i = 0; i < text.size(); ++i) {
      if (text[i] == '\n' ||
          (text[i] == '\r' && (i + 1 == text.size() || text[i + 1] != '\n'))) {
        ++lines;
      }
    }
    FUZZ_CHECK(line <= lines && column <= text.size() + 1,
               records.status().ToString());
    // A text that fails as several records fails as one too.
    FUZZ_CHECK(!ParseTextRecord(text).ok(), Context(text));
    return;
  }
  FUZZ_CHECK(!records->empty(), Context(text));
  std::string all;
  for (const TextRecord& record : *records) {
    CheckRoundTrip(record, text);
    CheckAdjudicatedToken(record, text);
    all += FormatTextRecord(record);
  }
  const absl::StatusOr<std::vector<TextRecord>> again = ParseTextRecords(all);
  FUZZ_CHECK(again.ok() && *again == *records,
             Context(text) + " formats as " + Context(all));
  FUZZ_CHECK(ParseTextRecord(text).ok() == (records->size() == 1),
             Context(text));
}

void CheckPlayout(const uint8_t* data, size_t size) {
  if (size < 2) return;
  const fuzz::FuzzVariant& fv = fuzz::PickVariant(data[1]);
  const Variant& variant = fv.variant;
  TextRecord record;
  record.variant = variant.spec;
  Position position = StartPosition(variant);
  auto list = std::make_unique<MoveList>();
  auto paths = std::make_unique<MovePaths>();
  for (size_t i = 2; i < size && record.moves.size() < kMaxPlayoutPlies; ++i) {
    const GameStatus status = EvaluateStatus(variant, position);
    GenerateLegalMovesWithPaths(variant, position, position.to_move, list.get(),
                                paths.get());
    MoveText move;
    if (list->size == 0) {
      move.is_pass = true;
    } else {
      const int pick = data[i] % list->size;
      move.squares.assign(paths->Path(pick),
                          paths->Path(pick) + paths->Length(pick));
    }
    record.moves.push_back(FormatMove(move));
    if (data[i] & 0x80) {
      record.comments.emplace_back(static_cast<int>(record.moves.size()),
                                   absl::StrCat("ply ", record.moves.size()));
    }
    if (status.over) break;  // That move was illegal: game over.
    const MoveCheck check =
        CheckMove(variant, position, status, move, MoveDetail::kPositionOnly);
    FUZZ_CHECK(check.verdict == MoveVerdict::kLegal,
               fv.label + ": " + FormatMove(move) + ": " + check.message);
    position = check.after;
  }
  CheckRoundTrip(record, fv.label);
  CheckAdjudicatedToken(record, fv.label);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 0 && data[0] == '!') {
    CheckPlayout(data, size);
  } else {
    CheckText(absl::string_view(reinterpret_cast<const char*>(data), size));
  }
  return 0;
}
