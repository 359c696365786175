"""The server's resources from /proc, sampled in a thread while the soak
runs, and the flatness criteria applied to the samples.

The server is halma_server plus, behind the front proxy, the nghttpx
master and worker it forks: every figure is summed over the process tree
(harness.process_tree). A graceful reload of nghttpx (connection ageing,
HALMA_MAX_CONNECTION_AGE_SECONDS) briefly adds an old worker that drains
its connections; samples whose tree has another number of processes than
the steady one are such transitions: they are counted and reported, and
left out of the flatness criteria, and the tree must be back to its steady
shape at the end.
"""

import os
import threading
import time

from harness import process_tree, status_field, vm_rss_kib  # tests/attack


def thread_count(pid):
    return status_field(pid, "Threads")


def fd_count(pid):
    try:
        return len(os.listdir("/proc/%d/fd" % pid))
    except OSError:
        return 0


class Sample:
    __slots__ = ("t", "done", "rss", "fds", "threads", "pids")

    def __init__(self, t, done, rss, fds, threads, pids):
        self.t, self.done = t, done
        self.rss, self.fds, self.threads = rss, fds, threads
        self.pids = pids

    @property
    def processes(self):
        return len(self.pids)

    def as_dict(self, t0):
        return {"t": round(self.t - t0, 2), "done": self.done,
                "rss_kib": self.rss // 1024, "fds": self.fds,
                "threads": self.threads, "pids": list(self.pids)}


def sample_tree(pid, done=0):
    tree = process_tree(pid)
    return Sample(time.monotonic(), done,
                  sum(vm_rss_kib(p) for p in tree) * 1024,
                  sum(fd_count(p) for p in tree),
                  sum(thread_count(p) for p in tree), tuple(sorted(tree)))


class Monitor:
    """Samples the tree every `interval` seconds; `progress()` gives the
    number of requests answered so far (read without a lock: an int)."""

    def __init__(self, pid, progress, interval=1.0, max_seconds=7200.0):
        self.pid = pid
        self.progress = progress
        self.interval = interval
        self.max_seconds = max_seconds
        self.samples = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self):
        self._thread.start()
        return self

    def _run(self):
        t_end = time.monotonic() + self.max_seconds
        for _ in range(int(self.max_seconds / self.interval) + 10):
            if self._stop.is_set() or time.monotonic() >= t_end:
                break
            self.samples.append(sample_tree(self.pid, self.progress()))
            self._stop.wait(self.interval)

    def stop(self):
        """Stops sampling and takes one last sample (the end of the run)."""
        self._stop.set()
        self._thread.join(timeout=10)
        self.samples.append(sample_tree(self.pid, self.progress()))

    def latest(self):
        return self.samples[-1] if self.samples else None


def evaluate(samples, warmup_requests, steady_processes, rss_ratio,
             fd_slack, thread_slack):
    """The criteria on the samples of one run (README.md, "Criteria"):

    - warm-up end: the first steady sample taken once `warmup_requests`
      requests were answered; the warm-up level of RSS, fds and threads is
      the highest steady sample from the second half of the warm-up
      (requests >= warmup_requests / 2) up to that one, so that one sample
      taken in a trough of the allocator's purging is not the baseline;
    - RSS: every steady sample after the warm-up end <= the warm-up level *
      (1 + rss_ratio);
    - fds and threads: every steady sample after it <= the warm-up level
      plus the slack;
    - the last sample (after the load) has the steady number of processes.

    Returns (figures, failures)."""
    steady = [s for s in samples if s.processes == steady_processes]
    failures = []
    figures = {"samples": len(samples),
               "transitional_samples": len(samples) - len(steady),
               # A reload of nghttpx gives its worker a new pid.
               "tree_changes": sum(1 for a, b in zip(samples, samples[1:])
                                   if a.pids != b.pids),
               "steady_processes": steady_processes,
               "warmup_requests": warmup_requests}
    end_of_warmup = next((s for s in steady if s.done >= warmup_requests),
                         None)
    if end_of_warmup is None:
        failures.append("no steady sample after the warm-up (%d requests)"
                        % warmup_requests)
        return figures, failures
    window = [s for s in steady if s.done >= warmup_requests // 2 and
              s.t <= end_of_warmup.t]
    after = [s for s in steady if s.t > end_of_warmup.t] or [end_of_warmup]
    warm = {k: max(getattr(s, k) for s in window)
            for k in ("rss", "fds", "threads")}
    top = {k: max(getattr(s, k) for s in after)
           for k in ("rss", "fds", "threads")}
    end = samples[-1]
    figures.update({
        "warmup_at_request": end_of_warmup.done,
        "warmup_window_samples": len(window),
        "rss_warmup_mib": mib(warm["rss"]), "rss_max_mib": mib(top["rss"]),
        "rss_end_mib": mib(end.rss),
        "rss_growth_pct": round(100.0 * (top["rss"] - warm["rss"]) /
                                warm["rss"], 2),
        "rss_max_all_samples_mib": mib(max(s.rss for s in samples)),
        "rss_bound_pct": round(100.0 * rss_ratio, 2),
        "fds_warmup": warm["fds"], "fds_max": top["fds"], "fds_end": end.fds,
        "threads_warmup": warm["threads"], "threads_max": top["threads"],
        "threads_end": end.threads, "processes_end": end.processes,
        "fd_slack": fd_slack, "thread_slack": thread_slack,
    })
    if top["rss"] > warm["rss"] * (1.0 + rss_ratio):
        failures.append("RSS grew %.2f%% after the warm-up (%.2f -> %.2f "
                        "MiB), more than %.0f%%" % (
                            figures["rss_growth_pct"], mib(warm["rss"]),
                            mib(top["rss"]), 100.0 * rss_ratio))
    if top["fds"] > warm["fds"] + fd_slack:
        failures.append("open fds grew from %d to %d after the warm-up" % (
            warm["fds"], top["fds"]))
    if top["threads"] > warm["threads"] + thread_slack:
        failures.append("threads grew from %d to %d after the warm-up" % (
            warm["threads"], top["threads"]))
    if end.processes != steady_processes:
        failures.append("%d processes at the end, expected %d" % (
            end.processes, steady_processes))
    return figures, failures


def mib(n_bytes):
    return round(n_bytes / 2.0 ** 20, 2)
