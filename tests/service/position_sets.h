// The committed position sets of bench/data, for the service tests.
#ifndef HALMA_TESTS_SERVICE_POSITION_SETS_H_
#define HALMA_TESTS_SERVICE_POSITION_SETS_H_

#include <fstream>
#include <string>
#include <vector>

namespace halma::service {

// The positions of a set file: each line's "<board> <side> <counts>",
// without the set's own columns; comments and blank lines skipped.
inline std::vector<std::string> PositionSet(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    int spaces = 0;
    size_t end = 0;
    while (end < line.size() && !(line[end] == ' ' && ++spaces == 3)) ++end;
    out.push_back(line.substr(0, end));
  }
  return out;
}

}  // namespace halma::service

#endif  // HALMA_TESTS_SERVICE_POSITION_SETS_H_
