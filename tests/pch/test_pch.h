// The third-party and standard headers most tests include, compiled once
// per build and reused by every test (tests/CMakeLists.txt says why). Only
// headers that do not change with the project's code belong here.
#ifndef HALMA_TESTS_PCH_TEST_PCH_H_
#define HALMA_TESTS_PCH_TEST_PCH_H_

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

#endif  // HALMA_TESTS_PCH_TEST_PCH_H_
