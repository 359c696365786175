#ifndef HALMA_CLIENT_HALMACTL_BATCH_INPUT_H_
#define HALMA_CLIENT_HALMACTL_BATCH_INPUT_H_

// The input of `halmactl adjudicate --batch`: records read one at a time
// from a file descriptor, as JSON lines or in the record text format, each
// turned into an AdjudicateStreamRequest or into the error that says why it
// cannot be one. Memory is bounded by the longest record accepted.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "halma/v1/halma.pb.h"

namespace halma::halmactl {

// Longest JSON line or text record accepted; longer ones are an error for
// that record (the rest of it is skipped unread into memory).
inline constexpr size_t kMaxRecordBytes = 1 << 20;

// Reads lines from a file descriptor through a fixed buffer.
class LineReader {
 public:
  explicit LineReader(int fd) : fd_(fd) {}

  // The next line without its '\n' (a '\r' before it is dropped too) in
  // *line; false at the end of the input or on a read error (see status()).
  // A line longer than `max_bytes` is cut there, *too_long set, and the
  // rest of it skipped.
  bool Next(std::string* line, bool* too_long, size_t max_bytes);
  // The number of the line Next returned last (from 1).
  int64_t line_number() const { return line_number_; }
  const absl::Status& status() const { return status_; }

 private:
  bool Fill();

  int fd_;
  char buffer_[1 << 16];
  size_t begin_ = 0, end_ = 0;
  bool eof_ = false;
  int64_t line_number_ = 0;
  absl::Status status_;
};

enum class BatchFormat { kJsonLines, kText };

// Finds where records of the record text format begin, line by line: a
// line whose first token is a Variant tag ("[Variant" or "[ Variant") outside
// a {...} comment starts one (docs/record-format.md: every record begins
// with its Variant tag and a Variant tag always begins a new record).
class TextSplitter {
 public:
  // Whether `line` (the next line) begins a record; then scans it.
  bool StartsRecord(absl::string_view line);

 private:
  void Scan(absl::string_view line);
  bool in_brace_ = false;
};

// One record of the input: the request to send, or why there is none.
struct BatchRecord {
  std::string id;
  // Where it starts in the input (line number, from 1).
  int64_t line = 0;
  std::optional<halma::v1::AdjudicateStreamRequest> request;
  absl::Status error;  // Set when `request` is not.
};

class BatchInput {
 public:
  // Reads from `fd` (not closed); `want_record_text` is set on every record.
  BatchInput(int fd, bool want_record_text)
      : reader_(fd), want_record_text_(want_record_text) {}

  // The next record, or nullopt at the end of the input. A read error ends
  // the input (see status()).
  std::optional<BatchRecord> Next();
  const absl::Status& status() const { return reader_.status(); }
  // Known once the first record has been asked for.
  BatchFormat format() const { return format_; }

 private:
  bool NextLine(std::string* line, bool* too_long);
  std::optional<BatchRecord> NextJson();
  std::optional<BatchRecord> NextText();

  LineReader reader_;
  bool want_record_text_;
  bool detected_ = false;
  BatchFormat format_ = BatchFormat::kJsonLines;
  // A line read ahead (format detection; a text record's first tag line).
  std::optional<std::string> held_;
  bool held_too_long_ = false;
  int64_t held_line_ = 0;
  bool held_starts_ = false;  // The held line begins a text record.
  TextSplitter splitter_;
  // Text records found in the same lines as the one returned last.
  std::deque<BatchRecord> queued_;
  int64_t text_records_ = 0;
};

// Counts the records of a regular file without keeping them (the progress
// line's total): JSON lines or text records as BatchInput would read them.
// Reads `fd` from its current offset and seeks back; nullopt when `fd` is
// not a regular file or cannot be read twice.
std::optional<int64_t> CountBatchRecords(int fd);

// Parses one JSON line: an AdjudicateStreamRequest (an object with "id" or
// "record") or an AdjudicateRequest (anything else). On failure sets *error
// to an INVALID_ARGUMENT naming the line and quoting it.
std::optional<halma::v1::AdjudicateStreamRequest> ParseJsonRecordLine(
    const std::string& line, int64_t line_number, absl::Status* error);

}  // namespace halma::halmactl

#endif  // HALMA_CLIENT_HALMACTL_BATCH_INPUT_H_
