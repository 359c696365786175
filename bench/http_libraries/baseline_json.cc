// The per-request JSON work without HTTP: parse body.json into a Struct and
// serialize the answer, N times; prints CPU seconds per 100k requests.
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <sstream>
#include <string>

#include "json_work.h"

static double CpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) +
         static_cast<double>(ts.tv_nsec) * 1e-9;
}

int main(int argc, char** argv) {
  const char* path = argc > 1 ? argv[1] : "body.json";
  long n = argc > 2 ? std::atol(argv[2]) : 200000;
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string body = ss.str(), out;
  std::size_t bytes = 0;
  for (int i = 0; i < 1000; ++i) bench::HandleJson(body, &out);  // warm-up
  double t0 = CpuSeconds();
  for (long i = 0; i < n; ++i) {
    if (!bench::HandleJson(body, &out)) return 1;
    bytes += out.size();
  }
  double t = CpuSeconds() - t0;
  std::printf(
      "{\"requests\": %ld, \"cpu_s\": %.4f, \"cpu_s_per_100k\": %.4f, "
      "\"per_s_one_core\": %.0f, \"answer_bytes\": %zu}\n",
      n, t, t / static_cast<double>(n) * 1e5, static_cast<double>(n) / t,
      bytes / static_cast<std::size_t>(n));
  return 0;
}
