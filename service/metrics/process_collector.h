// Process metrics read from /proc at scrape time, under the standard names
// of Prometheus' client libraries (process_cpu_seconds_total, ...), so that
// dashboards made for them work unchanged.
#ifndef HALMA_SERVICE_METRICS_PROCESS_COLLECTOR_H_
#define HALMA_SERVICE_METRICS_PROCESS_COLLECTOR_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "prometheus/collectable.h"
#include "prometheus/metric_family.h"

namespace halma::service::metrics {

// The fields of /proc/<pid>/stat that the metrics need, in the kernel's
// units (clock ticks, pages).
struct ProcStat {
  std::uint64_t utime_ticks = 0;
  std::uint64_t stime_ticks = 0;
  std::int64_t threads = 0;
  std::uint64_t start_ticks = 0;  // After boot.
  std::uint64_t virtual_bytes = 0;
  std::int64_t resident_pages = 0;
};

// Parses the text of /proc/<pid>/stat. The command name (field 2) is in
// parentheses and may itself hold spaces and parentheses, so the fields are
// counted from the last ')'.
absl::StatusOr<ProcStat> ParseProcStat(absl::string_view text);

// The boot time in seconds since the epoch: the "btime" line of /proc/stat.
absl::StatusOr<std::int64_t> ParseBootTime(absl::string_view text);

struct ProcessStats {
  double cpu_seconds = 0;
  double resident_memory_bytes = 0;
  double virtual_memory_bytes = 0;
  double threads = 0;
  double open_fds = 0;
  double max_fds = 0;
  double start_time_seconds = 0;
};

class ProcessCollector final : public prometheus::Collectable {
 public:
  // `proc` is the procfs mount ("/proc"; tests may point elsewhere). The
  // start time is read once, here: it never changes.
  explicit ProcessCollector(std::string proc = "/proc");

  // This process's figures now. An error names the file that could not be
  // read or parsed.
  absl::StatusOr<ProcessStats> Read() const;

  // The process_* families; none when /proc cannot be read (a scrape of
  // the service's own metrics must not fail because of these).
  std::vector<prometheus::MetricFamily> Collect() const override;

 private:
  std::string proc_;
  absl::StatusOr<double> start_time_seconds_;
};

}  // namespace halma::service::metrics

#endif  // HALMA_SERVICE_METRICS_PROCESS_COLLECTOR_H_
