// The input reader of `halmactl adjudicate --batch` (client/halmactl/
// batch_input.h): lines, JSON lines, text records, the record count.

#include "halmactl/batch_input.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace halma::halmactl {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

// A file holding `content`, open for reading; closed and removed at the end.
class InputFile {
 public:
  explicit InputFile(const std::string& content) {
    char name[] = "/tmp/batch_input_test_XXXXXX";
    fd_ = mkstemp(name);
    path_ = name;
    EXPECT_EQ(write(fd_, content.data(), content.size()),
              static_cast<ssize_t>(content.size()));
    lseek(fd_, 0, SEEK_SET);
  }
  ~InputFile() {
    close(fd_);
    std::remove(path_.c_str());
  }
  int fd() const { return fd_; }

 private:
  int fd_;
  std::string path_;
};

std::vector<BatchRecord> ReadAll(const std::string& content,
                                 bool want_record_text = false) {
  InputFile file(content);
  BatchInput input(file.fd(), want_record_text);
  std::vector<BatchRecord> records;
  for (int i = 0; i < 100000; ++i) {  // Bounded.
    std::optional<BatchRecord> record = input.Next();
    if (!record) break;
    records.push_back(*std::move(record));
  }
  EXPECT_TRUE(input.status().ok()) << input.status();
  return records;
}

TEST(LineReaderTest, LinesAcrossTheBufferEndsAndCarriageReturns) {
  std::string content;
  std::vector<std::string> lines;
  for (int i = 0; i < 3000; ++i) {
    lines.push_back(std::string(i % 97, 'a' + i % 26));
    absl::StrAppend(&content, lines.back(), i % 3 == 0 ? "\r\n" : "\n");
  }
  content += "last line without a newline";
  lines.push_back("last line without a newline");
  InputFile file(content);
  LineReader reader(file.fd());
  std::string line;
  bool too_long = true;
  for (size_t i = 0; i < lines.size(); ++i) {
    ASSERT_TRUE(reader.Next(&line, &too_long, 1000)) << i;
    EXPECT_EQ(line, lines[i]);
    EXPECT_FALSE(too_long);
    EXPECT_EQ(reader.line_number(), static_cast<int64_t>(i) + 1);
  }
  EXPECT_FALSE(reader.Next(&line, &too_long, 1000));
}

TEST(LineReaderTest, LongLinesAreCutAndTheRestSkipped) {
  const std::string content =
      absl::StrCat(std::string(300000, 'x'), "\nshort\n");
  InputFile file(content);
  LineReader reader(file.fd());
  std::string line;
  bool too_long = false;
  ASSERT_TRUE(reader.Next(&line, &too_long, 1000));
  EXPECT_TRUE(too_long);
  EXPECT_EQ(line, std::string(1000, 'x'));
  ASSERT_TRUE(reader.Next(&line, &too_long, 1000));
  EXPECT_FALSE(too_long);
  EXPECT_EQ(line, "short");
  EXPECT_EQ(reader.line_number(), 2);
}

TEST(BatchInputTest, JsonLinesOfBothKindsWithIdsAndLineNumbers) {
  const std::vector<BatchRecord> records = ReadAll(
      "\n"
      R"({"variant": {"preset": "brainking-8x8"}, "moves": ["b1-d3"]})"
      "\n\n"
      R"({"id": "g7", "record": {"recordText": "[Variant \"brainking-8x8\"]"}})"
      "\n"
      R"({"id": "", "record": {"moves": ["pass"]}})"
      "\n"
      R"({"moves": ["b1-d3"], "colour": "red"})"
      "\n",
      /*want_record_text=*/true);
  ASSERT_EQ(records.size(), 4u);
  EXPECT_EQ(records[0].id, "2");
  ASSERT_TRUE(records[0].request);
  EXPECT_EQ(records[0].request->id(), "2");
  EXPECT_EQ(records[0].request->record().variant().preset(), "brainking-8x8");
  EXPECT_TRUE(records[0].request->record().want_record_text());
  EXPECT_EQ(records[1].id, "g7");
  ASSERT_TRUE(records[1].request);
  EXPECT_EQ(records[1].request->record().record_text(),
            "[Variant \"brainking-8x8\"]");
  EXPECT_EQ(records[2].id, "5");  // An empty id is the line number.
  ASSERT_TRUE(records[2].request);
  EXPECT_EQ(records[2].request->id(), "5");
  EXPECT_FALSE(records[3].request);
  EXPECT_EQ(records[3].id, "6");
  EXPECT_THAT(std::string(records[3].error.message()),
              StartsWith("line 6: not an AdjudicateRequest ("));
  EXPECT_THAT(std::string(records[3].error.message()), HasSubstr("colour"));
}

constexpr char kTwoRecords[] =
    "[Variant \"brainking-8x8\"]\n"
    "[Event \"A [Variant \\\"x\\\"] in a value\"]\n"
    "\n"
    "1. b1-d3 {a comment\n"
    "[Variant \"not a tag: inside the comment\"]\n"
    "} h7-f5 *\n"
    "\n"
    "  [ Variant \"brainking-8x8\"]\n"
    "1. b1-d3 ; [Variant \"a line comment\"]\n"
    "h8-h7 illegal:2:destination-occupied\n";

TEST(BatchInputTest, TextRecordsSplitWhereVariantTagsBegin) {
  const std::vector<BatchRecord> records = ReadAll(kTwoRecords);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].id, "1");
  EXPECT_EQ(records[0].line, 1);
  ASSERT_TRUE(records[0].request) << records[0].error;
  EXPECT_THAT(records[0].request->record().record_text(),
              HasSubstr("} h7-f5 *\n"));
  EXPECT_EQ(records[1].id, "2");
  EXPECT_EQ(records[1].line, 8);
  ASSERT_TRUE(records[1].request) << records[1].error;
  EXPECT_THAT(records[1].request->record().record_text(),
              StartsWith("  [ Variant"));
}

TEST(BatchInputTest, TextErrorsNameTheLineOfTheWholeInput) {
  const std::vector<BatchRecord> records = ReadAll(
      "[Variant \"brainking-8x8\"]\n\n1. b1-d3 *\n"
      "\n[Variant \"brainking-8x8\"]\n\n1. b1-d3 3. h7-f5 *\n"
      "[Variant \"brainking-8x8\"]\n1. b1-d3\n");
  ASSERT_EQ(records.size(), 3u);
  EXPECT_TRUE(records[0].request);
  ASSERT_FALSE(records[1].request);
  EXPECT_THAT(std::string(records[1].error.message()),
              StartsWith("line 7, column "));
  EXPECT_TRUE(records[2].request);
}

TEST(BatchInputTest, RecordsThatShareALineAreSplitByTheParser) {
  const std::vector<BatchRecord> records = ReadAll(
      "[Variant \"brainking-8x8\"] 1. b1-d3 * [Variant \"brainking-8x8\"] "
      "1. a2-c4 *\n[Variant \"brainking-8x8\"]\n1. c2-d3 *\n");
  ASSERT_EQ(records.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(records[i].request) << records[i].error;
    EXPECT_EQ(records[i].id, absl::StrCat(i + 1));
  }
  EXPECT_THAT(records[1].request->record().record_text(), HasSubstr("a2-c4"));
}

TEST(BatchInputTest, CountMatchesTheRecordsRead) {
  const std::vector<std::string> inputs = {
      "", "\n\n", "{\"moves\": []}\n\n{\"moves\": []}\nnot json\n", kTwoRecords,
      "\xEF\xBB\xBF[Variant \"brainking-8x8\"]\n1. b1-d3 *\n"};
  for (const std::string& content : inputs) {
    InputFile file(content);
    std::optional<int64_t> count = CountBatchRecords(file.fd());
    ASSERT_TRUE(count.has_value());
    BatchInput input(file.fd(), false);  // Reads from where the count began.
    int64_t read = 0;
    while (input.Next() && read < 1000) ++read;
    EXPECT_EQ(*count, read) << content;
  }
  // A pipe has no count.
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  EXPECT_FALSE(CountBatchRecords(fds[0]).has_value());
  close(fds[0]);
  close(fds[1]);
}

}  // namespace
}  // namespace halma::halmactl
