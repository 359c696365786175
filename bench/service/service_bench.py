#!/usr/bin/python3
"""Load benchmark of halma_server driven by h2load (issue #9).

    /usr/bin/python3 bench/service/service_bench.py --payloads DIR \
        [--server build/service/halma_server] [--calls 20000] \
        [--concurrency 1,16,64] [--scenarios 'legal_dense/*,validate_*'] \
        [--front_proxy [/usr/sbin/nghttpx]] [--smoke] [--json FILE]

DIR is the output of halma_service_payloads (bench/service/make_payloads.cc):
gRPC-framed requests, the answers they must get and manifest.json. The
driver starts the real server on 127.0.0.1 and a free port, checks every
distinct request once through a real gRPC client (status OK, answer bytes as
expected), then, for each concurrency, runs every scenario between two runs
of the floor (grpc.health.v1.Health/Check) with h2load: floor, A, floor, B,
floor ... Every h2load run is checked too: every call done with HTTP 2xx and
the answer bytes h2load counted equal to what the expected answers add up
to. Any failure ends the run with exit status 1 and says what was wrong.

The AdjudicateStream scenarios post a whole stream per call (K framed
records, one body) and expect its K framed answers; the report gives their
records per second and server CPU per record beside those of the unary
Adjudicate scenario of the same records, measured in the same run, and
the ratio of records per second per server core (stream over unary).
bench/service/README.md describes the method and the report.
"""

import argparse
import concurrent.futures
import ctypes
import fnmatch
import json
import math
import os
import platform
import re
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
DEFAULT_SERVER = os.path.join(REPO, "build", "service", "halma_server")
DEFAULT_NGHTTPX = "/usr/sbin/nghttpx"
# Inside the JSON start-up line's "message".
LISTEN_LINE = re.compile(r"halma_server listening on 127\.0\.0\.1:(\d+) ")
FLOOR = "health"
# The /proc readers of the attack suite (process trees, CPU, RSS), shared.
sys.path.insert(0, os.path.join(REPO, "tests", "attack"))
import harness  # noqa: E402
# h2load processes per run at most. The layout of a run depends only on
# this, the concurrency and the most distinct requests of any scenario.
MAX_PROCESSES = 16
SMOKE_CALLS = 320
FRAME_PREFIX = 5  # gRPC message prefix: 1 flag byte, 4 length bytes.
START_TIMEOUT = 30.0
STOP_TIMEOUT = 20.0
STDERR_KEPT = 50
# AdjudicateStream against unary Adjudicate, records per server core
# (issue #12 asked 2x, issue #24 2.5x).
STREAM_TARGET = 2.5


class BenchError(Exception):
    pass


def log(text):
    sys.stderr.write("[service_bench %s] %s\n" % (time.strftime("%H:%M:%S"),
                                                  text))
    sys.stderr.flush()


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--server", default=DEFAULT_SERVER)
    ap.add_argument("--payloads", required=True, metavar="DIR",
                    help="output directory of halma_service_payloads")
    ap.add_argument("--calls", type=int, default=None,
                    help="calls per run (default 20000; %d with --smoke)"
                    % SMOKE_CALLS)
    ap.add_argument("--concurrency", default="1,16,64",
                    help="comma-separated calls in flight (default "
                         "%(default)s)")
    ap.add_argument("--scenarios", default="*",
                    help="comma-separated globs over scenario names "
                         "(the floor always runs)")
    ap.add_argument("--smoke", action="store_true",
                    help="%d calls per run, no warm-up: checks every "
                         "answer, times nothing worth keeping" % SMOKE_CALLS)
    ap.add_argument("--front_proxy", nargs="?", const=DEFAULT_NGHTTPX,
                    default=None, metavar="NGHTTPX",
                    help="run the server behind its nghttpx front, as "
                         "deployed (default binary %s)" % DEFAULT_NGHTTPX)
    ap.add_argument("--no-pin", action="store_true",
                    help="do not give the server a CPU of its own")
    ap.add_argument("--timeout", type=float, default=300.0,
                    help="seconds one h2load process may take (default "
                         "%(default)s)")
    ap.add_argument("--rounds", type=int, default=1,
                    help="run each concurrency's sequence this many times "
                         "in a row; the stream tables give each round's "
                         "ratio and their median (default %(default)s)")
    ap.add_argument("--json", metavar="FILE", help="write the report here")
    args = ap.parse_args(argv)
    if args.rounds < 1:
        ap.error("--rounds: expected a number of at least 1")
    if args.calls is None:
        args.calls = SMOKE_CALLS if args.smoke else 20000
    try:
        args.concurrency = [int(c) for c in args.concurrency.split(",")]
    except ValueError:
        ap.error("--concurrency: expected numbers like 1,16,64")
    if not args.concurrency or min(args.concurrency) < 1:
        ap.error("--concurrency: every value must be at least 1")
    args.globs = [g.strip() for g in args.scenarios.split(",") if g.strip()]
    return args


# --- payloads ------------------------------------------------------------

def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def split_frames(data, what):
    """The messages of a sequence of uncompressed gRPC frames."""
    messages, at = [], 0
    while at < len(data):
        size = int.from_bytes(data[at + 1:at + FRAME_PREFIX], "big")
        if (len(data) - at < FRAME_PREFIX or data[at] != 0
                or at + FRAME_PREFIX + size > len(data)):
            raise BenchError("%s is not a sequence of gRPC frames (at byte "
                             "%d)" % (what, at))
        messages.append(data[at + FRAME_PREFIX:at + FRAME_PREFIX + size])
        at += FRAME_PREFIX + size
    return messages


def load_stream_request(directory, entry, records):
    """One request of an AdjudicateStream scenario: `records` frames each
    way, the files of the sizes the manifest gives."""
    path = os.path.join(directory, entry["request"])
    body = read_bytes(path)
    expected = read_bytes(os.path.join(directory, entry["response"]))
    for what, data, size in ((path, body, entry["request_bytes"]),
                             (entry["response"], expected,
                              entry["response_bytes"])):
        if len(data) != size:
            raise BenchError("%s: %d bytes, the manifest says %d"
                             % (what, len(data), size))
    messages = split_frames(body, path)
    answers = split_frames(expected, entry["response"])
    if len(messages) != records or len(answers) != records:
        raise BenchError("%s: %d requests and %d answers, the manifest says "
                         "%d records" % (path, len(messages), len(answers),
                                         records))
    return {"file": path, "messages": messages, "expected": expected,
            "expected_messages": answers,
            "response_bytes": entry["response_bytes"],
            # The answers' frames are in the file already.
            "data_per_call": entry["response_bytes"]}


def load_request(directory, entry):
    """One request of the manifest, its frame checked against its size."""
    path = os.path.join(directory, entry["request"])
    frame = read_bytes(path)
    size = int.from_bytes(frame[1:FRAME_PREFIX], "big")
    if (len(frame) < FRAME_PREFIX or frame[0] != 0
            or size != len(frame) - FRAME_PREFIX
            or size != entry["request_bytes"]):
        raise BenchError("%s is not a gRPC frame of %d bytes"
                         % (path, entry["request_bytes"]))
    expected = read_bytes(os.path.join(directory, entry["response"]))
    if len(expected) != entry["response_bytes"]:
        raise BenchError("%s: %d bytes, the manifest says %d" % (
            entry["response"], len(expected), entry["response_bytes"]))
    return {"file": path, "body": frame[FRAME_PREFIX:], "expected": expected,
            "response_bytes": entry["response_bytes"]}


def load_scenarios(directory, streams=False):
    """The scenarios of the manifest; the AdjudicateStream ones only with
    `streams` (http_bench.py, which has no way to post them over HTTP/1.1,
    leaves them out)."""
    with open(os.path.join(directory, "manifest.json")) as f:
        manifest = json.load(f)
    scenarios = []
    for s in manifest["scenarios"]:
        if s.get("stream") and not streams:
            continue
        if not s["requests"]:
            raise BenchError("scenario %s has no requests" % s["name"])
        stream = bool(s.get("stream"))
        records = s.get("records_per_call", 1) if stream else 1
        if stream:
            requests = [load_stream_request(directory, e, records)
                        for e in s["requests"]]
        else:
            requests = [load_request(directory, e) for e in s["requests"]]
        scenarios.append({
            "name": s["name"], "method": s["method"],
            "note": s.get("note", ""), "stream": stream,
            "records_per_call": records,
            "compare_with": s.get("compare_with"), "requests": requests})
    return scenarios


def select(scenarios, globs):
    """The floor and the scenarios matching a glob, in manifest order; a
    stream scenario brings the unary scenario it compares with along."""
    floor = [s for s in scenarios if s["name"] == FLOOR]
    if not floor:
        raise BenchError("the payloads have no %r scenario (the floor)"
                         % FLOOR)
    names = {s["name"] for s in scenarios
             if any(fnmatch.fnmatchcase(s["name"], g) for g in globs)}
    names |= {s["compare_with"] for s in scenarios
              if s["name"] in names and s.get("compare_with")}
    chosen = [s for s in scenarios if s["name"] != FLOOR
              and s["name"] in names]
    if not chosen and not any(fnmatch.fnmatchcase(FLOOR, g) for g in globs):
        raise BenchError("no scenario matches %s" % ",".join(globs))
    return floor[0], chosen


# --- /proc ---------------------------------------------------------------

def children_cpu_seconds():
    """User + system CPU of this process's reaped children (the h2loads)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


# --- the server ----------------------------------------------------------

PR_SET_PDEATHSIG = 1


def die_with_parent():
    """In the child before exec: SIGKILL when this driver dies, even by
    SIGKILL, so that no server outlives it."""
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


class Server:
    """halma_server on 127.0.0.1 and a free port."""

    def __init__(self, binary, front_proxy, max_adjudications, cpus):
        command = [binary, "--host=127.0.0.1", "--port=0", "--http_port=0",
                   "--max_concurrent_adjudications=%d" % max_adjudications,
                   "--front_proxy=%s" % (front_proxy or "")]
        if cpus:
            # taskset execs the server in place: same pid.
            command = ["taskset", "-c", ",".join(map(str, sorted(cpus)))] \
                + command
        env = {k: v for k, v in os.environ.items()
               if not k.startswith("HALMA_")}
        self.command = command
        self.stderr_tail = []
        self.listen_line = None
        self.port = None
        self.process = subprocess.Popen(
            command, env=env, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
            errors="replace", preexec_fn=die_with_parent)
        self.pid = self.process.pid
        found = threading.Event()
        threading.Thread(target=self._read_stderr, args=(found,),
                         daemon=True).start()
        if not found.wait(START_TIMEOUT) or self.port is None:
            self.stop()
            raise BenchError("%s did not report its port within %.0f s; "
                             "stderr: %s" % (binary, START_TIMEOUT,
                                             " | ".join(self.stderr_tail)))
        self.target = "127.0.0.1:%d" % self.port

    def _read_stderr(self, found):
        for line in self.process.stderr:
            line = line.rstrip("\n")
            self.stderr_tail = (self.stderr_tail + [line])[-STDERR_KEPT:]
            m = LISTEN_LINE.search(line)
            if m and self.port is None:
                self.port = int(m.group(1))
                self.listen_line = line
                found.set()
        found.set()

    def tree(self):
        return harness.process_tree(self.pid)

    def cpu_seconds(self):
        return harness.cpu_seconds(self.tree())

    def rss_mib(self):
        return harness.tree_rss_bytes(self.pid) / 2.0 ** 20

    def check_alive(self):
        if self.process.poll() is not None:
            raise BenchError("the server exited with status %s; stderr: %s"
                             % (self.process.returncode,
                                " | ".join(self.stderr_tail[-10:])))

    def stop(self):
        """SIGTERM, then SIGKILL if it is still there after STOP_TIMEOUT."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        return self.process.returncode


def server_cpus(no_pin):
    """(the server's cpus, this driver's cpus): one cpu of its own for the
    server when there are two or more and taskset is there; else None."""
    if no_pin:
        return None
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2 or not shutil.which("taskset"):
        return None
    return {cpus[-1]}, set(cpus[:-1])


# --- answers through a real gRPC client ----------------------------------

def first_difference(a, b):
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i
    return min(len(a), len(b))


def listing(failures, limit=10):
    more = len(failures) - limit
    return "\n  ".join(failures[:limit] +
                       (["... and %d more" % more] if more > 0 else []))


def check_answers(target, scenarios):
    """Each distinct request once: status OK and the expected bytes."""
    import grpc  # Debian's python3-grpcio.
    failures = []
    channel = grpc.insecure_channel(target)
    try:
        grpc.channel_ready_future(channel).result(timeout=20)
        for s in scenarios:
            if s.get("stream"):
                failures += check_stream_answers(channel, s)
                continue
            call = channel.unary_unary(s["method"], request_serializer=None,
                                       response_deserializer=None)
            for i, r in enumerate(s["requests"]):
                where = "%s request %d (%s)" % (s["name"], i, s["method"])
                try:
                    answer, info = call.with_call(r["body"], timeout=30)
                except grpc.RpcError as e:
                    failures.append("%s: %s %s" % (where, e.code().name,
                                                   e.details()))
                    continue
                if info.code() != grpc.StatusCode.OK:
                    failures.append("%s: status %s" % (where,
                                                       info.code().name))
                elif answer != r["expected"]:
                    failures.append("%s: the answer (%d bytes) differs from "
                                    "the expected one (%d bytes) at byte %d"
                                    % (where, len(answer), len(r["expected"]),
                                       first_difference(answer,
                                                        r["expected"])))
    finally:
        channel.close()
    if failures:
        raise BenchError("wrong answers through gRPC:\n  " +
                         listing(failures))


def check_stream_answers(channel, scenario):
    """Each stream of a stream scenario once, on one bidirectional call:
    status OK, as many answers as records, each the expected bytes."""
    import grpc
    call = channel.stream_stream(scenario["method"], request_serializer=None,
                                 response_deserializer=None)
    failures = []
    for i, r in enumerate(scenario["requests"]):
        where = "%s request %d (%s)" % (scenario["name"], i,
                                        scenario["method"])
        try:
            answers = list(call(iter(r["messages"]), timeout=120))
        except grpc.RpcError as e:
            failures.append("%s: %s %s" % (where, e.code().name, e.details()))
            continue
        expected = r["expected_messages"]
        if len(answers) != len(expected):
            failures.append("%s: %d answers to %d records" % (
                where, len(answers), len(expected)))
        for k, (answer, wanted) in enumerate(zip(answers, expected)):
            if answer != wanted:
                failures.append(
                    "%s: the answer to record %d (%d bytes) differs from the "
                    "expected one (%d bytes) at byte %d" % (
                        where, k, len(answer), len(wanted),
                        first_difference(answer, wanted)))
    return failures


# --- the layout of a run -------------------------------------------------

def shares(total, parts):
    """total split into `parts` integers differing by at most one."""
    return [total // parts + (1 if i < total % parts else 0)
            for i in range(parts)]


def proportional(total, weights):
    """total split in proportion to weights, in integers (largest
    remainders first, ties to the first)."""
    exact = [total * w / sum(weights) for w in weights]
    parts = [int(x) for x in exact]
    order = sorted(range(len(weights)), key=lambda i: parts[i] - exact[i])
    for i in order[:total - sum(parts)]:
        parts[i] += 1
    return parts


def plan_run(concurrency, calls, request_count, distinct):
    """The h2load processes of one run: k = min(C, 16) processes in
    parallel, the C connections split among them and the calls in
    proportion to the connections, each process running ceil(D / k)
    consecutive h2load runs (its slots) over its requests, D the most
    distinct requests of any scenario of the benchmark (16). Slot s of
    process i posts request (s * k + i) mod R of the scenario's R, so that
    a run cycles through all of them whatever the concurrency, and the
    floor gets the same layout. Returns, per process, its connections and
    a list of (request index, calls)."""
    k = min(concurrency, MAX_PROCESSES)
    slots = -(-distinct // k)
    connections = shares(concurrency, k)
    processes = []
    for i, (conns, n) in enumerate(zip(connections,
                                       proportional(calls, connections))):
        runs = [((s * k + i) % request_count, n_slot)
                for s, n_slot in enumerate(shares(n, slots))]
        if min(n_slot for _, n_slot in runs) < conns:
            raise BenchError(
                "--calls %d is too few for concurrency %d: every h2load run "
                "needs at least one call per connection (at least %d calls)"
                % (calls, concurrency, concurrency * slots))
        processes.append((conns, runs))
    return processes


# --- h2load --------------------------------------------------------------

H2LOAD_TOTALS = re.compile(
    r"^requests: (\d+) total, (\d+) started, (\d+) done, (\d+) succeeded, "
    r"(\d+) failed, (\d+) errored, (\d+) timeout", re.M)
H2LOAD_CODES = re.compile(r"^status codes: (\d+) 2xx, (\d+) 3xx, (\d+) 4xx, "
                          r"(\d+) 5xx", re.M)
H2LOAD_TRAFFIC = re.compile(r"^traffic: .*\((\d+)\) data", re.M)


class H2load:
    """Runs h2load processes, each bounded by -n and a timeout; kill_all()
    ends the ones still running (on error or interrupt)."""

    def __init__(self, target, timeout):
        self.base = "http://%s" % target
        self.timeout = timeout
        self.running = set()
        self.lock = threading.Lock()

    def run(self, method, request, conns, calls, log_file):
        command = ["h2load", "-n", str(calls), "-c", str(conns), "-m", "1",
                   "-d", request["file"],
                   "-H", "content-type: application/grpc",
                   "-H", "te: trailers", "--log-file=" + log_file,
                   self.base + method]
        process = subprocess.Popen(command, stdin=subprocess.DEVNULL,
                                   stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, text=True,
                                   errors="replace")
        with self.lock:
            self.running.add(process)
        try:
            out, _ = process.communicate(timeout=self.timeout)
        except subprocess.TimeoutExpired:
            process.kill()
            process.communicate()
            return ["h2load -n %d -c %d %s did not finish within %.0f s"
                    % (calls, conns, method, self.timeout)]
        finally:
            with self.lock:
                self.running.discard(process)
        per_call = request.get("data_per_call",
                               FRAME_PREFIX + request["response_bytes"])
        return self.judge(out, process.returncode, calls, calls * per_call,
                          "h2load -n %d -c %d %s %s" % (
                              calls, conns, method,
                              os.path.basename(request["file"])))

    @staticmethod
    def judge(out, code, calls, expected_data, what):
        """The failures of one h2load run, from its summary."""
        totals = H2LOAD_TOTALS.search(out)
        codes = H2LOAD_CODES.search(out)
        traffic = H2LOAD_TRAFFIC.search(out)
        if code != 0 or not (totals and codes and traffic):
            return ["%s: exit status %s, output: %s" % (what, code,
                                                        out[-600:])]
        failures = []
        succeeded, ok_codes = int(totals.group(4)), int(codes.group(1))
        if succeeded != calls or ok_codes != calls:
            failures.append("%s: %d of %d calls succeeded, %d with 2xx (%s)"
                            % (what, succeeded, calls, ok_codes,
                               totals.group(0)))
        data = int(traffic.group(1))
        if data != expected_data:
            failures.append(
                "%s: %d bytes of answers, expected %d: some answer is not "
                "the expected one (an error status has no message)"
                % (what, data, expected_data))
        return failures

    def kill_all(self):
        with self.lock:
            for process in self.running:
                if process.poll() is None:
                    process.kill()


def read_log(path):
    """Per-request lines of h2load --log-file: (start µs, status, µs)."""
    durations, bad = [], 0
    with open(path) as f:
        for line in f:
            fields = line.split()
            if len(fields) != 3:
                continue
            if not fields[1].startswith("2"):
                bad += 1
            durations.append(int(fields[2]))
    return durations, bad


def percentile(sorted_values, q):
    """Nearest rank."""
    if not sorted_values:
        return 0.0
    rank = max(0, math.ceil(q * len(sorted_values)) - 1)
    return sorted_values[min(rank, len(sorted_values) - 1)]


# --- one run -------------------------------------------------------------

def run_scenario(h2load, server, scenario, concurrency, calls, distinct,
                 workdir):
    """One run of `scenario`: its h2load processes, checked; the figures."""
    processes = plan_run(concurrency, calls, len(scenario["requests"]),
                         distinct)
    logs = []

    def one_process(i, conns, runs):
        failures = []
        for s, (index, n) in enumerate(runs):
            log_file = os.path.join(workdir, "h2load-%d-%d.log" % (i, s))
            logs.append((log_file, n))
            failures += h2load.run(scenario["method"],
                                   scenario["requests"][index], conns, n,
                                   log_file)
            if failures:
                break
        return failures

    cpu0 = server.cpu_seconds()
    clients0 = children_cpu_seconds()
    t0 = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(len(processes)) as pool:
        futures = [pool.submit(one_process, i, conns, runs)
                   for i, (conns, runs) in enumerate(processes)]
        try:
            failures = [f for future in futures for f in future.result()]
        except BaseException:  # Interrupted: leave no h2load behind.
            h2load.kill_all()
            raise
    seconds = time.monotonic() - t0
    cpu1 = server.cpu_seconds()
    clients1 = children_cpu_seconds()
    server.check_alive()
    if failures:
        raise BenchError("%s at concurrency %d:\n  %s" % (
            scenario["name"], concurrency, listing(failures)))
    durations = []
    for log_file, n in logs:
        d, bad = read_log(log_file)
        os.unlink(log_file)
        if len(d) != n or bad:
            raise BenchError("%s at concurrency %d: %s has %d lines (%d not "
                             "2xx), expected %d" % (
                                 scenario["name"], concurrency, log_file,
                                 len(d), bad, n))
        durations += d
    durations.sort()
    records = calls * scenario.get("records_per_call", 1)
    cpu_us_per_record = (cpu1 - cpu0) * 1e6 / records
    return {
        "scenario": scenario["name"], "concurrency": concurrency,
        "calls": calls, "seconds": round(seconds, 4),
        "calls_per_s": calls / seconds,
        "p50_ms": percentile(durations, 0.50) / 1000.0,
        "p90_ms": percentile(durations, 0.90) / 1000.0,
        "p99_ms": percentile(durations, 0.99) / 1000.0,
        "max_ms": durations[-1] / 1000.0,
        "cpu_us_per_call": (cpu1 - cpu0) * 1e6 / calls,
        # Server CPU time over wall time: 1.0 is one CPU kept busy.
        "server_cpus_busy": (cpu1 - cpu0) / seconds,
        # The same for the h2load processes (all reaped by now): near 1.0,
        # the load generator's one CPU is what limits the calls per second.
        "h2load_cpus_busy": (clients1 - clients0) / seconds,
        "rss_mib": server.rss_mib(),
        "h2load_processes": len(processes),
        "h2load_runs": sum(len(runs) for _, runs in processes),
        # Records (game records adjudicated): one per call but for the
        # AdjudicateStream scenarios, whose calls carry many.
        "records_per_call": scenario.get("records_per_call", 1),
        "records": records,
        "records_per_s": records / seconds,
        "cpu_us_per_record": cpu_us_per_record,
        # What one server core would answer if the server were CPU bound.
        "records_per_core_s": (1e6 / cpu_us_per_record
                               if cpu_us_per_record > 0 else None),
    }


# --- the sequence --------------------------------------------------------

def ratio(value, floors, key):
    base = sum(f[key] for f in floors) / len(floors)
    return value / base if base > 0 else None


def bench_concurrency(h2load, server, floor, scenarios, concurrency, args,
                      workdir, runs, round_number=1):
    """floor, A, floor, B, floor ... at one concurrency; returns the rows,
    each marked with `round_number`."""
    def run(s, role):
        calls, distinct = args.calls, args.distinct
        if s.get("stream"):
            calls, distinct = stream_layout(args.calls, s, concurrency)
        r = run_scenario(h2load, server, s, concurrency, calls, distinct,
                         workdir)
        r["role"] = role
        r["round"] = round_number
        runs.append(r)
        line = "C=%d %-32s %8.0f calls/s  p99 %6.2f ms  cpu %6.1f us/call" % (
            concurrency, s["name"], r["calls_per_s"], r["p99_ms"],
            r["cpu_us_per_call"])
        if s.get("stream") or s["name"] in compared:
            line += "  %8.0f records/s  cpu %6.1f us/record" % (
                r["records_per_s"], r["cpu_us_per_record"])
        log(line)
        return r

    compared = {s.get("compare_with") for s in scenarios}

    if not args.smoke and round_number == 1:
        run(floor, "warm-up")
    floors = [run(floor, "floor")]
    rows = []
    for s in scenarios:
        row = run(s, "scenario")
        row["compare_with"] = s.get("compare_with")
        floors.append(run(floor, "floor"))
        around = floors[-2:]
        row["calls_per_s_x_floor"] = ratio(row["calls_per_s"], around,
                                           "calls_per_s")
        row["p99_x_floor"] = ratio(row["p99_ms"], around, "p99_ms")
        row["cpu_x_floor"] = ratio(row["cpu_us_per_call"], around,
                                   "cpu_us_per_call")
        rows.append(row)
    rows.insert(0, floor_row(floors, concurrency))
    for row in rows:
        row["round"] = round_number
    return rows


def stream_layout(calls, scenario, concurrency):
    """The calls and the layout's D of a stream scenario's run: as many
    records as the unary scenarios' `calls` (ceil(calls / K) streams of K),
    and at least one stream per connection; one h2load run per process (D
    is the scenario's own number of requests, 1)."""
    streams = -(-calls // scenario["records_per_call"])
    distinct = len(scenario["requests"])
    slots = -(-distinct // min(concurrency, MAX_PROCESSES))
    return max(streams, concurrency * slots), distinct


def stream_vs_unary(rows):
    """Per stream scenario and concurrency: its records per second and CPU
    per record beside the unary scenario's of the same records, and the
    ratios, stream over unary."""
    out = []
    for r in rows:
        unary = [u for u in rows if u["scenario"] == r.get("compare_with")
                 and u["concurrency"] == r["concurrency"]
                 and u.get("round") == r.get("round")]
        if not unary:
            continue
        u = unary[0]
        core = (r["records_per_core_s"] / u["records_per_core_s"]
                if r["records_per_core_s"] and u["records_per_core_s"]
                else None)
        out.append({
            "kind": r["scenario"].split("/", 1)[-1],
            "concurrency": r["concurrency"], "round": r.get("round", 1),
            "unary": u["scenario"], "stream": r["scenario"],
            "records_per_call": r["records_per_call"],
            "unary_records_per_s": u["records_per_s"],
            "stream_records_per_s": r["records_per_s"],
            "records_per_s_ratio": r["records_per_s"] / u["records_per_s"],
            "unary_cpu_us_per_record": u["cpu_us_per_record"],
            "stream_cpu_us_per_record": r["cpu_us_per_record"],
            "unary_records_per_core_s": u["records_per_core_s"],
            "stream_records_per_core_s": r["records_per_core_s"],
            "records_per_core_ratio": core,
            "target": STREAM_TARGET,
            "target_met": core is not None and core >= STREAM_TARGET,
            "unary_server_cpus_busy": u["server_cpus_busy"],
            "stream_server_cpus_busy": r["server_cpus_busy"],
            "unary_p99_ms": u["p99_ms"], "stream_p99_ms": r["p99_ms"],
        })
    return out


def stream_rounds(comparisons):
    """Per stream scenario and concurrency over the rounds: the median of
    the rounds' ratios of records per core and its range. Each ratio pairs
    two runs of one round, seconds apart, so a slow spell of a
    shared machine moves both; the median of the rounds is the verdict."""
    out = []
    keys = dict.fromkeys((c["kind"], c["concurrency"]) for c in comparisons)
    for kind, concurrency in keys:
        ratios = [c["records_per_core_ratio"] for c in comparisons
                  if c["kind"] == kind and c["concurrency"] == concurrency
                  and c["records_per_core_ratio"] is not None]
        if not ratios:
            continue
        mid = statistics.median(ratios)
        out.append({"kind": kind, "concurrency": concurrency,
                    "rounds": len(ratios), "ratios": ratios,
                    "median": mid, "min": min(ratios), "max": max(ratios),
                    "target": STREAM_TARGET,
                    "target_met": mid >= STREAM_TARGET})
    return out


def floor_row(floors, concurrency):
    """The floor's own row: the mean of its runs at this concurrency."""
    row = {"scenario": FLOOR + " (floor, mean of %d runs)" % len(floors),
           "concurrency": concurrency, "role": "floor",
           "calls_per_s_min": min(f["calls_per_s"] for f in floors),
           "calls_per_s_max": max(f["calls_per_s"] for f in floors)}
    for key in ("calls_per_s", "p50_ms", "p90_ms", "p99_ms",
                "cpu_us_per_call", "server_cpus_busy", "h2load_cpus_busy",
                "rss_mib"):
        row[key] = sum(f[key] for f in floors) / len(floors)
    row["calls_per_s_x_floor"] = row["p99_x_floor"] = row["cpu_x_floor"] = 1.0
    row["records_per_call"] = 1
    row["records_per_s"] = row["calls_per_s"]
    row["cpu_us_per_record"] = row["cpu_us_per_call"]
    row["records_per_core_s"] = (1e6 / row["cpu_us_per_call"]
                                 if row["cpu_us_per_call"] > 0 else None)
    return row


# --- the report ----------------------------------------------------------

def command_output(command):
    try:
        return subprocess.run(command, capture_output=True, text=True,
                              timeout=20).stdout
    except (OSError, subprocess.TimeoutExpired):
        return ""


def machine():
    fields = {}
    for line in command_output(["lscpu"]).splitlines():
        key, _, value = line.partition(":")
        fields[key.strip()] = value.strip()
    return {
        "cpu_model": fields.get("Model name", platform.processor()),
        "cpus": int(fields.get("CPU(s)", os.cpu_count() or 0)),
        "cores_per_socket": fields.get("Core(s) per socket"),
        "threads_per_core": fields.get("Thread(s) per core"),
        "sockets": fields.get("Socket(s)"),
        "hypervisor": fields.get("Hypervisor vendor", "none"),
        "kernel": platform.release(),
        "load_average": os.getloadavg(),
    }


def versions(server, front_proxy):
    import grpc
    found = re.search(r"\((version [^;]*)", server.listen_line or "")
    kernel = re.search(r"flood_fill (\w+)", server.listen_line or "")
    out = {
        "server": found.group(1) if found else "?",
        "flood_fill": kernel.group(1) if kernel else "?",
        "h2load": command_output(["h2load", "--version"]).strip(),
        "python": platform.python_version(), "grpcio": grpc.__version__,
    }
    if front_proxy:
        out["nghttpx"] = command_output([front_proxy, "--version"]).strip()
    return out


def fmt(value, digits):
    return "-" if value is None else "%.*f" % (digits, value)


def print_header(report):
    m, v, s = report["machine"], report["versions"], report["settings"]
    print("# halma_server under h2load")
    print("machine: %s, %d CPUs (%s cores per socket x %s sockets, %s "
          "threads per core), hypervisor %s, kernel %s; load average %.2f "
          "%.2f %.2f at the start" % (
              m["cpu_model"], m["cpus"], m["cores_per_socket"], m["sockets"],
              m["threads_per_core"], m["hypervisor"], m["kernel"],
              *m["load_average"]))
    print("server: halma_server %s (flood_fill %s)%s; %s; grpcio %s" % (
        v["server"], v["flood_fill"],
        ", behind " + v["nghttpx"] if "nghttpx" in v else ", gRPC direct",
        v["h2load"], v["grpcio"]))
    print("settings: %d calls per run, concurrency %s%s, h2load -m 1, up "
          "to %d distinct requests per scenario, %s; server %s" % (
              s["calls"], ",".join(map(str, s["concurrency"])),
              "" if s.get("rounds", 1) == 1 else
              ", %d rounds of the sequence at each" % s["rounds"],
              s["distinct"],
              "smoke (no warm-up)" if s["smoke"] else
              "one unreported warm-up run of the floor per concurrency",
              "pinned to CPU %s, h2load on CPU %s" % (
                  s["server_cpus"], s["driver_cpus"])
              if s["server_cpus"] else "not pinned"))
    print("answers: %d distinct requests checked through gRPC (OK, bytes "
          "as expected); every h2load run: all calls 2xx, answer bytes as "
          "expected" % s["requests_checked"])
    if s.get("records_per_stream"):
        print("streams: %s; a stream scenario's run is ceil(calls / K) "
              "calls (at least one per connection), one h2load run per "
              "process" % ", ".join(
                  "%s K = %d records per call" % item
                  for item in s["records_per_stream"].items()))
    print()


def labelled(row, rounds):
    """The scenario's name, with its round when there are several."""
    if rounds == 1:
        return row["scenario"]
    return "%s, round %d" % (row["scenario"], row["round"])


def print_table(rows, rounds=1):
    print("| scenario | C | calls/s | x floor | p50 ms | p90 ms | p99 ms | "
          "p99 x floor | CPU us/call | CPU x floor | server busy | "
          "h2load busy | RSS MiB |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print("| %s | %d | %.0f | %s | %s | %s | %s | %s | %s | %s | %.0f%% "
              "| %.0f%% | %s |" % (
            labelled(r, rounds), r["concurrency"], r["calls_per_s"],
            fmt(r["calls_per_s_x_floor"], 2), fmt(r["p50_ms"], 3),
            fmt(r["p90_ms"], 3), fmt(r["p99_ms"], 3),
            fmt(r["p99_x_floor"], 2), fmt(r["cpu_us_per_call"], 1),
            fmt(r["cpu_x_floor"], 2), 100 * r["server_cpus_busy"],
            100 * r["h2load_cpus_busy"], fmt(r["rss_mib"], 1)))


def print_stream_table(comparisons, rounds=1):
    """AdjudicateStream against unary Adjudicate, records per server core."""
    if not comparisons:
        return
    print("## AdjudicateStream vs Adjudicate (the same records, %s)" % (
        "this run" if rounds == 1 else "each round"))
    print()
    print("| records | C | K | unary records/s | stream records/s | x | "
          "unary CPU us/record | stream CPU us/record | unary records/s "
          "per core | stream records/s per core | x per core | target "
          "%.1fx |" % STREAM_TARGET)
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    for c in comparisons:
        print("| %s | %d | %d | %.0f | %.0f | %.2f | %.1f | %.1f | %.0f | "
              "%.0f | %s | %s |" % (
                  c["kind"] if rounds == 1
                  else "%s, round %d" % (c["kind"], c["round"]),
                  c["concurrency"], c["records_per_call"],
                  c["unary_records_per_s"], c["stream_records_per_s"],
                  c["records_per_s_ratio"], c["unary_cpu_us_per_record"],
                  c["stream_cpu_us_per_record"],
                  c["unary_records_per_core_s"] or 0,
                  c["stream_records_per_core_s"] or 0,
                  fmt(c["records_per_core_ratio"], 2),
                  "met" if c["target_met"] else "NOT met"))
    print()


def print_stream_rounds(summary, rounds):
    """The rounds' ratios per stream scenario and concurrency, and their
    median, which says whether the target is met."""
    if rounds == 1 or not summary:
        return
    print("## AdjudicateStream vs Adjudicate over %d rounds (records per "
          "core, stream over unary)" % rounds)
    print()
    print("| records | C | each round | median | range | target %.1fx |"
          % STREAM_TARGET)
    print("|---|---:|---|---:|---|---|")
    for s in summary:
        print("| %s | %d | %s | %.2f | %.2f..%.2f | %s |" % (
            s["kind"], s["concurrency"],
            ", ".join("%.2f" % r for r in s["ratios"]), s["median"],
            s["min"], s["max"],
            "met (median)" if s["target_met"] else "NOT met (median)"))
    print()


def print_footer(report, rows):
    for c in report["settings"]["concurrency"]:
        floor = [r for r in rows if r["concurrency"] == c
                 and r["role"] == "floor"]
        if floor:
            print("floor at C=%d: %.0f to %.0f calls/s over its runs" % (
                c, min(f["calls_per_s_min"] for f in floor),
                max(f["calls_per_s_max"] for f in floor)))
    print("server RSS: %.1f MiB before the benchmark, %.1f MiB after; "
          "%d h2load runs in %.0f s; load average %.2f %.2f %.2f at the end"
          % (report["rss_before_mib"], report["rss_after_mib"],
             report["h2load_runs"], report["seconds"],
             *report["load_average_end"]))


# --- main ----------------------------------------------------------------

def run(args):
    for tool in ("h2load",) + ((args.front_proxy,) if args.front_proxy
                               else ()):
        if not shutil.which(tool):
            raise BenchError("missing: %s" % tool)
    if not os.access(args.server, os.X_OK):
        raise BenchError("no server binary at %s (build it first)"
                         % args.server)
    floor, scenarios = select(load_scenarios(args.payloads, streams=True),
                              args.globs)
    args.distinct = max(len(s["requests"]) for s in [floor] + scenarios)
    split = server_cpus(args.no_pin)
    if split:
        os.sched_setaffinity(0, split[1])
    t0 = time.monotonic()
    report = {"machine": machine()}
    server = Server(args.server, args.front_proxy, max(args.concurrency),
                    split[0] if split else None)
    h2load = H2load(server.target, args.timeout)
    try:
        log(server.listen_line)
        report["versions"] = versions(server, args.front_proxy)
        report["listen_line"] = server.listen_line
        check_answers(server.target, [floor] + scenarios)
        report["settings"] = {
            "calls": args.calls, "concurrency": args.concurrency,
            "rounds": args.rounds,
            "distinct": args.distinct,
            "smoke": args.smoke, "front_proxy": args.front_proxy,
            "server_cpus": sorted(split[0]) if split else None,
            "driver_cpus": sorted(split[1]) if split else None,
            "requests_checked": sum(len(s["requests"])
                                    for s in [floor] + scenarios),
            "scenarios": {s["name"]: s["note"] for s in [floor] + scenarios},
            "records_per_stream": {s["name"]: s["records_per_call"]
                                   for s in scenarios if s.get("stream")}}
        report["rss_before_mib"] = server.rss_mib()
        rows, runs = [], []
        with tempfile.TemporaryDirectory(prefix="service_bench.") as work:
            for c in args.concurrency:
                for k in range(1, args.rounds + 1):
                    rows += bench_concurrency(h2load, server, floor,
                                              scenarios, c, args, work, runs,
                                              k)
        report["rss_after_mib"] = server.rss_mib()
    finally:
        h2load.kill_all()
        code = server.stop()
    comparisons = stream_vs_unary(rows)
    report.update(rows=rows, runs=runs, server_exit=code,
                  stream_vs_unary=comparisons,
                  stream_rounds=stream_rounds(comparisons),
                  h2load_runs=sum(r["h2load_runs"] for r in runs),
                  seconds=time.monotonic() - t0,
                  load_average_end=os.getloadavg())
    return report


def main(argv):
    args = parse_args(argv)
    # SIGTERM (a CI timeout) unwinds like Ctrl-C: the server is stopped.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        report = run(args)
    except BenchError as e:
        log("FAILED: %s" % e)
        return 1
    except KeyboardInterrupt:
        log("interrupted")
        return 130
    if report["server_exit"] != 0:
        log("FAILED: the server exited with status %s after SIGTERM"
            % report["server_exit"])
        return 1
    print_header(report)
    rounds = report["settings"]["rounds"]
    print_table(report["rows"], rounds)
    print()
    print_stream_table(report["stream_vs_unary"], rounds)
    print_stream_rounds(report["stream_rounds"], rounds)
    print_footer(report, report["rows"])
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
