// The project's own test data (testdata/, documented in its README): where
// it lives and how a test reads it. Nothing outside the checkout is read.
#ifndef HALMA_TESTS_TESTDATA_H_
#define HALMA_TESTS_TESTDATA_H_

#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace halma::testdata {

// testdata/<relative> in the source tree (set by tests/CMakeLists.txt).
inline std::string TestDataPath(std::string_view relative) {
  return std::string(HALMA_TESTDATA_DIR) + "/" + std::string(relative);
}

// Every non-empty line of testdata/<relative>, parsed as JSON. A file that
// is missing, unreadable or empty, or a line that is not JSON, fails the
// calling test with a message naming the file (and the line), and the lines
// read so far are returned: a test never crashes on its data. Callers that
// index into the result check its size first.
inline std::vector<nlohmann::json> ReadJsonLines(std::string_view relative) {
  const std::string path = TestDataPath(relative);
  std::vector<nlohmann::json> out;
  std::ifstream in(path);
  if (!in) {
    ADD_FAILURE() << "cannot read test data file " << path;
    return out;
  }
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.empty()) continue;
    nlohmann::json value = nlohmann::json::parse(line, nullptr,
                                                 /*allow_exceptions=*/false);
    if (value.is_discarded()) {
      ADD_FAILURE() << path << ":" << number << ": not a JSON value";
      return out;
    }
    out.push_back(std::move(value));
  }
  if (in.bad()) ADD_FAILURE() << "error reading test data file " << path;
  if (out.empty()) ADD_FAILURE() << "test data file " << path << " is empty";
  return out;
}

}  // namespace halma::testdata

#endif  // HALMA_TESTS_TESTDATA_H_
