#include "batch_input.h"

#include <errno.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"
#include "halma/record_text.h"

namespace halma::halmactl {
namespace {

namespace v1 = ::halma::v1;

// Input quoted in error messages is cut to this many bytes.
constexpr size_t kQuoteBytes = 120;

std::string Quote(absl::string_view text) {
  if (text.size() <= kQuoteBytes) return absl::StrCat("'", text, "'");
  return absl::StrCat("'", text.substr(0, kQuoteBytes), "' (cut; ", text.size(),
                      " bytes)");
}

// The first line of a protobuf JSON parser message (it may go on with the
// input and a caret).
std::string FirstLine(absl::string_view message) {
  return std::string(message.substr(0, message.find('\n')));
}

bool IsBlank(absl::string_view line) {
  return absl::StripAsciiWhitespace(line).empty();
}

// A UTF-8 byte order mark at the very start of the input is skipped.
void StripByteOrderMark(std::string* line) {
  if (absl::StartsWith(*line, "\xEF\xBB\xBF")) line->erase(0, 3);
}

// "line L, column C: ..." (an error of the record text parser, relative to
// the record's text) with L made a line of the whole input.
std::string ShiftLineNumber(absl::string_view message, int64_t first_line) {
  if (absl::ConsumePrefix(&message, "line ")) {
    const size_t comma = message.find(',');
    int64_t line = 0;
    if (comma != absl::string_view::npos &&
        absl::SimpleAtoi(message.substr(0, comma), &line)) {
      return absl::StrCat("line ", line + first_line - 1,
                          message.substr(comma));
    }
  }
  return absl::StrCat("record starting at line ", first_line, ": ", message);
}

}  // namespace

bool TextSplitter::StartsRecord(absl::string_view line) {
  bool starts = false;
  if (!in_brace_) {
    absl::string_view rest = absl::StripLeadingAsciiWhitespace(line);
    if (absl::ConsumePrefix(&rest, "[")) {
      rest = absl::StripLeadingAsciiWhitespace(rest);
      starts = absl::StartsWith(rest, "Variant") &&
               (rest.size() == 7 || !absl::ascii_isalnum(rest[7]));
    }
  }
  Scan(line);
  return starts;
}

void TextSplitter::Scan(absl::string_view line) {
  bool in_quote = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (in_brace_) {
      if (c == '}') in_brace_ = false;
    } else if (in_quote) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_quote = false;
      }
    } else if (c == '"') {
      in_quote = true;
    } else if (c == '{') {
      in_brace_ = true;
    } else if (c == ';') {
      return;
    }
  }
}

bool LineReader::Fill() {
  if (eof_) return false;
  if (begin_ > 0) {
    std::memmove(buffer_, buffer_ + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  while (end_ < sizeof(buffer_)) {
    const ssize_t n = read(fd_, buffer_ + end_, sizeof(buffer_) - end_);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      status_ = absl::UnavailableError(
          absl::StrCat("cannot read the input: ", std::strerror(errno)));
      eof_ = true;
      return end_ > 0;
    }
    if (n == 0) {
      eof_ = true;
      break;
    }
    end_ += static_cast<size_t>(n);
    break;
  }
  return end_ > begin_;
}

bool LineReader::Next(std::string* line, bool* too_long, size_t max_bytes) {
  line->clear();
  *too_long = false;
  bool any = false;
  while (true) {
    if (begin_ == end_ && !Fill()) break;
    any = true;
    const char* start = buffer_ + begin_;
    const void* nl = std::memchr(start, '\n', end_ - begin_);
    const size_t take =
        nl ? static_cast<const char*>(nl) - start : end_ - begin_;
    if (!*too_long) {
      const size_t room = max_bytes - std::min(max_bytes, line->size());
      if (take > room) {
        line->append(start, room);
        *too_long = true;
      } else {
        line->append(start, take);
      }
    }
    begin_ += take;
    if (nl) {
      ++begin_;  // The '\n'.
      break;
    }
  }
  if (!any) return false;
  if (!line->empty() && line->back() == '\r') line->pop_back();
  ++line_number_;
  return true;
}

std::optional<v1::AdjudicateStreamRequest> ParseJsonRecordLine(
    const std::string& line, int64_t line_number, absl::Status* error) {
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = false;
  google::protobuf::Struct object;
  auto status = google::protobuf::util::JsonStringToMessage(line, &object);
  if (!status.ok()) {
    *error = absl::InvalidArgumentError(absl::StrCat(
        "line ", line_number, ": not a JSON object (",
        FirstLine(std::string(status.message())), "): ", Quote(line)));
    return std::nullopt;
  }
  v1::AdjudicateStreamRequest request;
  const bool is_stream_request =
      object.fields().contains("id") || object.fields().contains("record");
  if (is_stream_request) {
    status =
        google::protobuf::util::JsonStringToMessage(line, &request, options);
  } else {
    status = google::protobuf::util::JsonStringToMessage(
        line, request.mutable_record(), options);
  }
  if (!status.ok()) {
    *error = absl::InvalidArgumentError(absl::StrCat(
        "line ", line_number, ": not ",
        is_stream_request ? "an AdjudicateStreamRequest"
                          : "an AdjudicateRequest",
        " (", FirstLine(std::string(status.message())), "): ", Quote(line)));
    return std::nullopt;
  }
  return request;
}

bool BatchInput::NextLine(std::string* line, bool* too_long) {
  if (held_) {
    *line = *std::move(held_);
    held_.reset();
    *too_long = held_too_long_;
    return true;
  }
  return reader_.Next(line, too_long, kMaxRecordBytes);
}

std::optional<BatchRecord> BatchInput::Next() {
  if (!detected_) {
    // The format: JSON lines when the first character that is not white
    // space is '{', else the record text format.
    detected_ = true;
    std::string line;
    bool too_long = false;
    while (reader_.Next(&line, &too_long, kMaxRecordBytes)) {
      if (reader_.line_number() == 1) StripByteOrderMark(&line);
      if (IsBlank(line)) continue;
      format_ = absl::StartsWith(absl::StripLeadingAsciiWhitespace(line), "{")
                    ? BatchFormat::kJsonLines
                    : BatchFormat::kText;
      held_ = std::move(line);
      held_too_long_ = too_long;
      held_line_ = reader_.line_number();
      break;
    }
  }
  return format_ == BatchFormat::kJsonLines ? NextJson() : NextText();
}

std::optional<BatchRecord> BatchInput::NextJson() {
  std::string line;
  bool too_long = false;
  while (true) {
    const bool from_held = held_.has_value();
    if (!NextLine(&line, &too_long)) return std::nullopt;
    const int64_t number = from_held ? held_line_ : reader_.line_number();
    if (IsBlank(line)) continue;
    BatchRecord record;
    record.line = number;
    record.id = absl::StrCat(number);
    if (too_long) {
      record.error = absl::InvalidArgumentError(
          absl::StrCat("line ", number, ": longer than ", kMaxRecordBytes,
                       " bytes: ", Quote(line)));
      return record;
    }
    absl::Status error;
    std::optional<v1::AdjudicateStreamRequest> request =
        ParseJsonRecordLine(line, number, &error);
    if (!request) {
      record.error = std::move(error);
      return record;
    }
    if (request->id().empty()) {
      request->set_id(record.id);
    } else {
      record.id = request->id();
    }
    if (want_record_text_)
      request->mutable_record()->set_want_record_text(true);
    record.request = *std::move(request);
    return record;
  }
}

std::optional<BatchRecord> BatchInput::NextText() {
  if (!queued_.empty()) {
    BatchRecord record = std::move(queued_.front());
    queued_.pop_front();
    return record;
  }
  std::string text, line;
  bool too_long = false, record_too_long = false;
  int64_t first_line = 0;
  while (true) {
    const bool from_held = held_.has_value();
    if (!NextLine(&line, &too_long)) break;
    const int64_t number = from_held ? held_line_ : reader_.line_number();
    // The held line was scanned when it was read.
    const bool starts = from_held ? held_starts_ : splitter_.StartsRecord(line);
    if (first_line != 0 && starts) {
      held_ = std::move(line);
      held_too_long_ = too_long;
      held_line_ = number;
      held_starts_ = true;
      break;
    }
    if (first_line == 0 && IsBlank(line)) continue;
    if (first_line == 0) first_line = number;
    if (too_long || text.size() + line.size() + 1 > kMaxRecordBytes) {
      record_too_long = true;
    }
    if (!record_too_long) absl::StrAppend(&text, line, "\n");
  }
  if (first_line == 0) return std::nullopt;
  auto make = [&](std::string record_text) {
    BatchRecord record;
    record.line = first_line;
    record.id = absl::StrCat(++text_records_);
    v1::AdjudicateStreamRequest request;
    request.set_id(record.id);
    request.mutable_record()->set_record_text(std::move(record_text));
    if (want_record_text_) {
      request.mutable_record()->set_want_record_text(true);
    }
    record.request = std::move(request);
    return record;
  };
  if (record_too_long) {
    BatchRecord record = make("");
    record.request.reset();
    record.error = absl::InvalidArgumentError(
        absl::StrCat("record starting at line ", first_line, ": longer than ",
                     kMaxRecordBytes, " bytes"));
    return record;
  }
  // Parsed here for an error message with the input's line numbers, and to
  // find records that share a line (after a result token); the server
  // parses each text again and decides.
  absl::StatusOr<std::vector<TextRecord>> parsed = ParseTextRecords(text);
  if (!parsed.ok()) {
    BatchRecord record = make("");
    record.request.reset();
    record.error = absl::InvalidArgumentError(
        ShiftLineNumber(parsed.status().message(), first_line));
    return record;
  }
  if (parsed->size() <= 1) return make(std::move(text));
  // Several records in one chunk: each in canonical form.
  BatchRecord first = make(FormatTextRecord((*parsed)[0]));
  for (size_t i = 1; i < parsed->size(); ++i) {
    queued_.push_back(make(FormatTextRecord((*parsed)[i])));
  }
  return first;
}

std::optional<int64_t> CountBatchRecords(int fd) {
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  const off_t start = lseek(fd, 0, SEEK_CUR);
  if (start < 0) return std::nullopt;
  LineReader reader(fd);
  TextSplitter splitter;
  std::string line;
  bool too_long = false;
  int64_t count = 0;
  std::optional<bool> json;
  bool in_record = false;
  while (reader.Next(&line, &too_long, kMaxRecordBytes)) {
    if (reader.line_number() == 1) StripByteOrderMark(&line);
    if (!json && IsBlank(line)) continue;
    if (!json) {
      json = absl::StartsWith(absl::StripLeadingAsciiWhitespace(line), "{");
    }
    if (*json) {
      if (!IsBlank(line)) ++count;
      continue;
    }
    const bool starts = splitter.StartsRecord(line);
    if (!in_record || starts) {
      ++count;
      in_record = true;
    }
  }
  if (lseek(fd, start, SEEK_SET) != start || !reader.status().ok()) {
    return std::nullopt;
  }
  return count;
}

}  // namespace halma::halmactl
