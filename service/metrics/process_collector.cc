#include "service/metrics/process_collector.h"

#include <dirent.h>
#include <sys/resource.h>
#include <unistd.h>

#include <fstream>
#include <limits>
#include <sstream>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "prometheus/client_metric.h"
#include "prometheus/metric_type.h"

namespace halma::service::metrics {
namespace {

absl::StatusOr<std::string> ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot open ", path));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return absl::DataLossError(absl::StrCat("cannot read ", path));
  return text.str();
}

// Entries of `dir` other than "." and "..", less the descriptor that
// reading the directory itself holds open.
absl::StatusOr<int> CountOpenFds(const std::string& dir) {
  DIR* handle = opendir(dir.c_str());
  if (handle == nullptr) {
    return absl::NotFoundError(absl::StrCat("cannot list ", dir));
  }
  const std::string own = absl::StrCat(dirfd(handle));
  int count = 0;
  while (const dirent* entry = readdir(handle)) {
    const absl::string_view name = entry->d_name;
    if (name == "." || name == ".." || name == own) continue;
    ++count;
  }
  closedir(handle);
  return count;
}

prometheus::MetricFamily Family(std::string name, std::string help,
                                prometheus::MetricType type, double value) {
  prometheus::MetricFamily family;
  family.name = std::move(name);
  family.help = std::move(help);
  family.type = type;
  prometheus::ClientMetric metric;
  if (type == prometheus::MetricType::Counter) {
    metric.counter.value = value;
  } else {
    metric.gauge.value = value;
  }
  family.metric.push_back(std::move(metric));
  return family;
}

}  // namespace

absl::StatusOr<ProcStat> ParseProcStat(absl::string_view text) {
  const std::size_t close = text.rfind(')');
  if (close == absl::string_view::npos) {
    return absl::InvalidArgumentError("stat: no ')' after the command name");
  }
  // Field 3 (the state) onwards, split on single spaces.
  const std::vector<absl::string_view> fields =
      absl::StrSplit(absl::StripAsciiWhitespace(text.substr(close + 1)), ' ',
                     absl::SkipEmpty());
  // fields[i] is the kernel's field i + 3 (proc(5) numbers them from 1).
  auto field = [&fields](int number) -> absl::string_view {
    const int index = number - 3;
    return index < static_cast<int>(fields.size()) ? fields[index] : "";
  };
  ProcStat stat;
  if (!absl::SimpleAtoi(field(14), &stat.utime_ticks) ||
      !absl::SimpleAtoi(field(15), &stat.stime_ticks) ||
      !absl::SimpleAtoi(field(20), &stat.threads) ||
      !absl::SimpleAtoi(field(22), &stat.start_ticks) ||
      !absl::SimpleAtoi(field(23), &stat.virtual_bytes) ||
      !absl::SimpleAtoi(field(24), &stat.resident_pages)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "stat: expected at least 24 numeric fields, got ", fields.size() + 2));
  }
  return stat;
}

absl::StatusOr<std::int64_t> ParseBootTime(absl::string_view text) {
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    if (absl::ConsumePrefix(&line, "btime ")) {
      std::int64_t seconds = 0;
      if (absl::SimpleAtoi(line, &seconds)) return seconds;
      return absl::InvalidArgumentError(
          absl::StrCat("stat: bad btime line \"btime ", line, "\""));
    }
  }
  return absl::InvalidArgumentError("stat: no btime line");
}

ProcessCollector::ProcessCollector(std::string proc)
    : proc_(std::move(proc)),
      start_time_seconds_(absl::UnknownError("not read")) {
  const double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
  absl::StatusOr<std::string> stat = ReadWholeFile(proc_ + "/self/stat");
  absl::StatusOr<std::string> system = ReadWholeFile(proc_ + "/stat");
  if (!stat.ok()) {
    start_time_seconds_ = stat.status();
  } else if (!system.ok()) {
    start_time_seconds_ = system.status();
  } else {
    absl::StatusOr<ProcStat> parsed = ParseProcStat(*stat);
    absl::StatusOr<std::int64_t> boot = ParseBootTime(*system);
    if (!parsed.ok()) {
      start_time_seconds_ = parsed.status();
    } else if (!boot.ok()) {
      start_time_seconds_ = boot.status();
    } else {
      start_time_seconds_ = static_cast<double>(*boot) +
                            static_cast<double>(parsed->start_ticks) / ticks;
    }
  }
}

absl::StatusOr<ProcessStats> ProcessCollector::Read() const {
  if (!start_time_seconds_.ok()) return start_time_seconds_.status();
  absl::StatusOr<std::string> text = ReadWholeFile(proc_ + "/self/stat");
  if (!text.ok()) return text.status();
  absl::StatusOr<ProcStat> stat = ParseProcStat(*text);
  if (!stat.ok()) return stat.status();
  absl::StatusOr<int> fds = CountOpenFds(proc_ + "/self/fd");
  if (!fds.ok()) return fds.status();

  const double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
  ProcessStats stats;
  stats.cpu_seconds =
      static_cast<double>(stat->utime_ticks + stat->stime_ticks) / ticks;
  stats.resident_memory_bytes = static_cast<double>(stat->resident_pages) *
                                static_cast<double>(sysconf(_SC_PAGESIZE));
  stats.virtual_memory_bytes = static_cast<double>(stat->virtual_bytes);
  stats.threads = static_cast<double>(stat->threads);
  stats.open_fds = *fds;
  rlimit limit{};
  stats.max_fds =
      getrlimit(RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY
          ? static_cast<double>(limit.rlim_cur)
          : std::numeric_limits<double>::infinity();
  stats.start_time_seconds = *start_time_seconds_;
  return stats;
}

std::vector<prometheus::MetricFamily> ProcessCollector::Collect() const {
  std::vector<prometheus::MetricFamily> families;
  absl::StatusOr<ProcessStats> stats = Read();
  if (!stats.ok()) return families;
  using prometheus::MetricType;
  families.push_back(Family("process_cpu_seconds_total",
                            "Total user and system CPU time spent in seconds.",
                            MetricType::Counter, stats->cpu_seconds));
  families.push_back(Family("process_resident_memory_bytes",
                            "Resident memory size in bytes.", MetricType::Gauge,
                            stats->resident_memory_bytes));
  families.push_back(Family("process_virtual_memory_bytes",
                            "Virtual memory size in bytes.", MetricType::Gauge,
                            stats->virtual_memory_bytes));
  families.push_back(Family("process_threads", "Number of OS threads.",
                            MetricType::Gauge, stats->threads));
  families.push_back(Family("process_open_fds",
                            "Number of open file descriptors.",
                            MetricType::Gauge, stats->open_fds));
  families.push_back(Family("process_max_fds",
                            "Maximum number of open file descriptors.",
                            MetricType::Gauge, stats->max_fds));
  families.push_back(
      Family("process_start_time_seconds",
             "Start time of the process since unix epoch in seconds.",
             MetricType::Gauge, stats->start_time_seconds));
  return families;
}

}  // namespace halma::service::metrics
