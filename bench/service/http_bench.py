#!/usr/bin/python3
"""The Connect (HTTP/1.1, JSON and protobuf) endpoint of halma_server beside
its gRPC endpoint, in one run on one server.

    /usr/bin/python3 bench/service/http_bench.py --payloads DIR \
        [--server build/service/halma_server] [--calls 20000] \
        [--concurrency 16,64] [--scenarios 'legal_dense/classic-16x16,...'] \
        [--endpoints grpc,json-h1,json-wrk,proto-h1] [--smoke] [--json FILE]

DIR is the output of halma_service_payloads (bench/service/make_payloads.cc).
The gRPC requests there are converted to the protobuf JSON mapping (the
python3-protobuf modules protoc generates, as tests/attack/harness.py does).
One server (service_bench.Server: gRPC and the Connect listener, on
127.0.0.1 and free ports, pinned to one CPU, the load generators on the
other). Before any load every distinct request is checked: through gRPC
(the expected bytes), and over HTTP/1.1 as JSON (200, application/json, the
JSON equal to the expected gRPC answer converted to JSON) and as
application/proto (200, the expected bytes). Then, per concurrency and per
scenario: gRPC (h2load, as service_bench runs it), JSON with `h2load --h1`,
JSON with wrk, protobuf with `h2load --h1`, gRPC again; the HTTP rows are
compared with the mean of the two gRPC runs around them. Every run is
bounded by its calls (and a timeout) and checked: h2load all calls 2xx and
the answer bytes expected, wrk (a Lua script counting status codes and
answers that are not one of the expected bodies) no non-2xx and no wrong
body. Any failure: exit status 1. bench/service/README.md has the method.
"""

import argparse
import fnmatch
import http.client
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import service_bench as sb  # noqa: E402  (also puts tests/attack on the path)
import harness  # noqa: E402

HTTP_LINE = re.compile(r"; http 127\.0\.0\.1:(\d+) \(Connect protocol\)")
DEFAULT_SCENARIOS = "health,legal_dense/classic-16x16,validate_short," \
    "validate_long"
ENDPOINTS = ("grpc", "json-h1", "json-wrk", "proto-h1")
SMOKE_CALLS = 320
# Protobuf message types of each method's request and answer.
TYPES = {
    "/grpc.health.v1.Health/Check": ("health", "HealthCheckRequest",
                                     "HealthCheckResponse"),
    "/halma.v1.HalmaRules/ValidateMove": ("halma", "ValidateMoveRequest",
                                          "ValidateMoveResponse"),
    "/halma.v1.HalmaRules/LegalMoves": ("halma", "LegalMovesRequest",
                                        "LegalMovesResponse"),
    "/halma.v1.HalmaRules/Adjudicate": ("halma", "AdjudicateRequest",
                                        "AdjudicateResponse"),
    "/halma.v1.HalmaRules/ListVariants": ("halma", "ListVariantsRequest",
                                          "ListVariantsResponse"),
}
# The HTTP side of the floor: the Connect listener serves no
# grpc.health.v1.Health, its probe is GET /healthz ("ok\n").
HEALTHZ = "/healthz"
HEALTHZ_BODY = b"ok\n"
WRK_CAP_SECONDS = 120


def log(text):
    sys.stderr.write("[http_bench %s] %s\n" % (time.strftime("%H:%M:%S"),
                                               text))
    sys.stderr.flush()


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--server", default=sb.DEFAULT_SERVER)
    ap.add_argument("--payloads", required=True, metavar="DIR")
    ap.add_argument("--calls", type=int, default=None,
                    help="calls per run (default 20000; %d with --smoke)"
                    % SMOKE_CALLS)
    ap.add_argument("--concurrency", default="16,64")
    ap.add_argument("--scenarios", default=DEFAULT_SCENARIOS,
                    help="comma-separated globs over the payloads' scenario "
                         "names (default %(default)s)")
    ap.add_argument("--endpoints", default=",".join(ENDPOINTS),
                    help="comma-separated, of %s; grpc always runs"
                    % ",".join(ENDPOINTS))
    ap.add_argument("--wrk_threads", type=int, default=1)
    ap.add_argument("--smoke", action="store_true",
                    help="%d calls per run: checks every answer, times "
                         "nothing worth keeping" % SMOKE_CALLS)
    ap.add_argument("--no-pin", action="store_true")
    ap.add_argument("--timeout", type=float, default=300.0,
                    help="seconds one load-generator process may take")
    ap.add_argument("--json", metavar="FILE")
    args = ap.parse_args(argv)
    if args.calls is None:
        args.calls = SMOKE_CALLS if args.smoke else 20000
    args.concurrency = [int(c) for c in args.concurrency.split(",")]
    if min(args.concurrency) < 1:
        ap.error("--concurrency: every value must be at least 1")
    args.globs = [g.strip() for g in args.scenarios.split(",") if g.strip()]
    args.endpoints = [e.strip() for e in args.endpoints.split(",")
                      if e.strip()]
    for e in args.endpoints:
        if e not in ENDPOINTS:
            ap.error("--endpoints: unknown %r" % e)
    if "grpc" not in args.endpoints:
        args.endpoints.insert(0, "grpc")
    return args


# --- the server ------------------------------------------------------------

class Server(sb.Server):
    """service_bench's Server, also for a server whose stderr lines are JSON
    objects (since 0b05fe4): the start-up line is then the "message" of
    the first line that has one matching service_bench.LISTEN_LINE."""

    def _read_stderr(self, found):
        for line in self.process.stderr:
            line = line.rstrip("\n")
            self.stderr_tail = (self.stderr_tail + [line])[-sb.STDERR_KEPT:]
            text = line
            if line.startswith("{"):
                try:
                    text = str(json.loads(line).get("message", ""))
                except ValueError:
                    pass
            m = sb.LISTEN_LINE.match(text)
            if m and self.port is None:
                self.port = int(m.group(1))
                self.listen_line = text
                found.set()
        found.set()


# --- the requests over HTTP ------------------------------------------------

def compact_json(value):
    return json.dumps(value, separators=(",", ":"), sort_keys=False)


def http_scenarios(scenarios, protos, workdir):
    """Per scenario, its requests as JSON and as protobuf bodies in files,
    with the answers they must get (the gRPC answers, converted)."""
    from google.protobuf import json_format
    out = {}
    for s in scenarios:
        if s["name"] == sb.FLOOR:
            out[s["name"]] = {"json": None, "proto": None,
                              "expected_json": [HEALTHZ_BODY],
                              "expected_proto": [HEALTHZ_BODY]}
            continue
        module, request_type, answer_type = TYPES[s["method"]]
        module = getattr(protos, module)
        request_class = getattr(module, request_type)
        answer_class = getattr(module, answer_type)
        d = os.path.join(workdir, s["name"].replace("/", "_"))
        os.makedirs(d)
        json_requests, proto_requests = [], []
        for i, r in enumerate(s["requests"]):
            message = request_class.FromString(r["body"])
            json_body = compact_json(json_format.MessageToDict(message))
            answer = json_format.MessageToDict(
                answer_class.FromString(r["expected"]))
            json_file = os.path.join(d, "req_%02d.json" % i)
            proto_file = os.path.join(d, "req_%02d.bin" % i)
            with open(json_file, "w") as f:
                f.write(json_body)
            with open(proto_file, "wb") as f:
                f.write(r["body"])
            json_requests.append({"file": json_file,
                                  "body": json_body.encode(),
                                  "expected_dict": answer})
            proto_requests.append({"file": proto_file, "body": r["body"],
                                   "expected": r["expected"],
                                   "response_bytes": len(r["expected"])})
        out[s["name"]] = {"json": json_requests, "proto": proto_requests}
    return out


def post(port, path, body, content_type):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        if body is None:
            connection.request("GET", path)
        else:
            connection.request("POST", path, body=body,
                               headers={"Content-Type": content_type})
        response = connection.getresponse()
        return (response.status, response.getheader("Content-Type", ""),
                response.read())
    finally:
        connection.close()


def check_http_answers(port, scenarios, converted):
    """Each distinct request once as JSON and as protobuf: 200 and the
    answer gRPC gives. Fills in each JSON request's answer size (what the
    h2load byte count is checked against) and the expected bodies."""
    failures, checked = [], 0
    for s in scenarios:
        c = converted[s["name"]]
        if c["json"] is None:  # The floor: GET /healthz.
            status, _, body = post(port, HEALTHZ, None, None)
            checked += 1
            if status != 200 or body != HEALTHZ_BODY:
                failures.append("GET %s: %d %r" % (HEALTHZ, status, body))
            continue
        c["expected_json"], c["expected_proto"] = [], []
        for i, r in enumerate(c["json"]):
            where = "%s request %d as JSON" % (s["name"], i)
            status, ctype, body = post(port, s["method"], r["body"],
                                       "application/json")
            checked += 1
            if status != 200 or not ctype.startswith("application/json"):
                failures.append("%s: %d %s %r" % (where, status, ctype,
                                                  body[:200]))
                continue
            if json.loads(body) != r["expected_dict"]:
                failures.append("%s: the JSON differs from the gRPC answer "
                                "converted to JSON: %r" % (where, body[:200]))
                continue
            again = post(port, s["method"], r["body"], "application/json")
            if again[2] != body:
                failures.append("%s: two calls gave different bytes" % where)
            r["response_bytes"] = len(body)
            c["expected_json"].append(body)
        for i, r in enumerate(c["proto"]):
            where = "%s request %d as application/proto" % (s["name"], i)
            status, ctype, body = post(port, s["method"], r["body"],
                                       "application/proto")
            checked += 1
            if status != 200 or not ctype.startswith("application/proto"):
                failures.append("%s: %d %s %r" % (where, status, ctype,
                                                  body[:200]))
            elif body != r["expected"]:
                failures.append("%s: %d bytes, not the expected %d" % (
                    where, len(body), len(r["expected"])))
            c["expected_proto"].append(body)
    if failures:
        raise sb.BenchError("wrong answers over HTTP/1.1:\n  " +
                            sb.listing(failures))
    return checked


# --- h2load --h1 ----------------------------------------------------------

class H1load(sb.H2load):
    """h2load --h1 against the Connect listener: the same processes, runs
    and checks as service_bench's H2load (its judge: every call 2xx, the
    answer bytes what the expected answers add up to), another command."""

    def __init__(self, target, timeout, content_type):
        sb.H2load.__init__(self, target, timeout)
        self.content_type = content_type

    def run(self, method, request, conns, calls, log_file):
        command = ["h2load", "--h1", "-n", str(calls), "-c", str(conns),
                   "-m", "1", "--log-file=" + log_file]
        if request.get("file"):
            command += ["-d", request["file"],
                        "-H", "content-type: " + self.content_type]
        command.append(self.base + method)
        what = "h2load --h1 -n %d -c %d %s %s" % (
            calls, conns, method,
            os.path.basename(request.get("file") or "(GET)"))
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
            return ["%s did not finish within %.0f s" % (what, self.timeout)]
        finally:
            with self.lock:
                self.running.discard(process)
        return self.judge(out, process.returncode, calls,
                          calls * request["response_bytes"], what)


def h1_scenario(scenario, requests):
    """The scenario as run_scenario takes it, over HTTP."""
    if requests is None:
        return {"name": scenario["name"], "method": HEALTHZ,
                "requests": [{"file": None,
                              "response_bytes": len(HEALTHZ_BODY)}]}
    return {"name": scenario["name"], "method": scenario["method"],
            "requests": requests}


# --- wrk ------------------------------------------------------------------

WRK_SCRIPT = r"""
-- Generated by http_bench.py: cycles through the scenario's requests,
-- counts status codes and answers that are none of the expected bodies,
-- stops each thread after its share of the calls.
local function slurp(path)
  local f = assert(io.open(path, "rb"))
  local s = f:read("*a")
  f:close()
  return s
end
local limit = %(limit)d
local requests, expected = {}, {}
local i, n, bad = 0, 0, 0
statuses = {}
local threads = {}
function setup(thread)
  threads[#threads + 1] = thread
  thread:set("id", #threads - 1)
end
function init(args)
  -- After wrk.init has set the Host header; each thread starts at
  -- another request.
  for _, path in ipairs({%(bodies)s}) do
    requests[#requests + 1] = wrk.format(%(verb)s, %(path)s,
        %(headers)s, path ~= "" and slurp(path) or nil)
  end
  for _, path in ipairs({%(answers)s}) do expected[slurp(path)] = true end
  i = (id or 0) * 5
end
function request()
  i = i + 1
  return requests[(i - 1) %% #requests + 1]
end
function response(status, headers, body)
  n = n + 1
  statuses[tostring(status)] = (statuses[tostring(status)] or 0) + 1
  if not expected[body] then bad = bad + 1 end
  calls, wrong = n, bad
  if n == limit then
    -- wrk's main thread sleeps for -d: the driver, told here, ends the
    -- sleep with SIGINT, after which wrk reports as usual.
    io.write("WRK_THREAD_DONE\n")
    io.stdout:flush()
    wrk.thread:stop()
  end
end
function done(summary, latency, _)
  local total, wrong_total, codes = 0, 0, {}
  for _, t in ipairs(threads) do
    total = total + (t:get("calls") or 0)
    wrong_total = wrong_total + (t:get("wrong") or 0)
    for code, count in pairs(t:get("statuses") or {}) do
      codes[code] = (codes[code] or 0) + count
    end
  end
  local parts = {}
  for code, count in pairs(codes) do
    parts[#parts + 1] = string.format('"%%s":%%d', code, count)
  end
  local e = summary.errors
  io.write(string.format(
    'WRK_RESULT {"calls":%%d,"wrong_bodies":%%d,"statuses":{%%s},' ..
    '"requests":%%d,"duration_us":%%d,"errors":{"connect":%%d,"read":%%d,' ..
    '"write":%%d,"status":%%d,"timeout":%%d},"p50_us":%%d,"p90_us":%%d,' ..
    '"p99_us":%%d,"max_us":%%d}\n',
    total, wrong_total, table.concat(parts, ","), summary.requests,
    summary.duration, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99),
    latency.max))
end
"""


def lua_string(text):
    return '"%s"' % "".join(c if c.isalnum() or c in "/._-" else
                            "\\%03d" % ord(c) for c in text)


def write_wrk_script(path, scenario, c, calls_per_thread, workdir):
    """The Lua script of one wrk run; the expected bodies in files."""
    if c["json"] is None:
        bodies, verb, headers = [""], '"GET"', "nil"
        target = HEALTHZ
    else:
        bodies = [r["file"] for r in c["json"]]
        verb, target = '"POST"', scenario["method"]
        headers = '{["Content-Type"] = "application/json"}'
    answers = []
    for i, body in enumerate(c["expected_json"]):
        answer_file = os.path.join(workdir, "%s.answer_%02d" % (
            os.path.basename(path), i))
        with open(answer_file, "wb") as f:
            f.write(body)
        answers.append(answer_file)
    with open(path, "w") as f:
        f.write(WRK_SCRIPT % {
            "limit": calls_per_thread, "verb": verb,
            "path": lua_string(target), "headers": headers,
            "bodies": ", ".join(lua_string(b) for b in bodies),
            "answers": ", ".join(lua_string(a) for a in answers)})


class Wrk:
    def __init__(self, target, timeout, threads):
        self.base = "http://%s" % target
        self.timeout = timeout
        self.threads = threads
        self.process = None

    def run_scenario(self, server, scenario, c, concurrency, calls,
                     workdir):
        threads = min(self.threads, concurrency)
        per_thread = sb.shares(calls, threads)
        if len(set(per_thread)) != 1:
            raise sb.BenchError("--calls %d is not a multiple of "
                                "--wrk_threads %d" % (calls, threads))
        script = os.path.join(workdir, "wrk_%s_%d.lua" % (
            scenario["name"].replace("/", "_"), concurrency))
        write_wrk_script(script, scenario, c, per_thread[0], workdir)
        command = ["wrk", "-t", str(threads), "-c", str(concurrency),
                   "-d", "%ds" % WRK_CAP_SECONDS, "--timeout", "10s",
                   "-s", script, self.base + "/"]
        what = "wrk -t %d -c %d %s" % (threads, concurrency,
                                       scenario["name"])
        cpu0 = server.cpu_seconds()
        clients0 = sb.children_cpu_seconds()
        t0 = time.monotonic()
        self.process = subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, text=True, errors="replace")
        lines, all_done = [], threading.Event()

        def read(stream):
            stopped = 0
            for line in stream:
                lines.append(line)
                if line.startswith("WRK_THREAD_DONE"):
                    stopped += 1
                    if stopped == threads:
                        all_done.set()
            all_done.set()

        reader = threading.Thread(target=read, args=(self.process.stdout,),
                                  daemon=True)
        reader.start()
        all_done.wait(min(self.timeout, WRK_CAP_SECONDS + 30))
        # wrk's handler only sets a flag: a SIGINT before its main thread
        # is in sleep() is lost, so repeat it until wrk is gone.
        deadline = time.monotonic() + 30
        while self.process.poll() is None:
            if time.monotonic() > deadline:
                self.kill()
                raise sb.BenchError("%s did not finish" % what)
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(0.2)
            except subprocess.TimeoutExpired:
                pass
        reader.join(10)
        out = "".join(lines)
        seconds = time.monotonic() - t0
        cpu1 = server.cpu_seconds()
        clients1 = sb.children_cpu_seconds()
        server.check_alive()
        found = re.search(r"^WRK_RESULT (\{.*\})$", out, re.M)
        if self.process.returncode != 0 or not found:
            raise sb.BenchError("%s: exit status %s, output: %s" % (
                what, self.process.returncode, out[-800:]))
        result = json.loads(found.group(1))
        e = result["errors"]
        non_2xx = sum(n for code, n in result["statuses"].items()
                      if not code.startswith("2"))
        failures = []
        if result["calls"] < calls:
            failures.append("%d of %d calls done within %d s" % (
                result["calls"], calls, WRK_CAP_SECONDS))
        if non_2xx or result["wrong_bodies"] or any(e.values()):
            failures.append("statuses %s, %d answers not one of the "
                            "expected bodies, socket errors %s" % (
                                result["statuses"], result["wrong_bodies"],
                                e))
        if failures:
            raise sb.BenchError("%s at concurrency %d: %s" % (
                what, concurrency, "; ".join(failures)))
        done = result["calls"]
        return {
            "scenario": scenario["name"], "concurrency": concurrency,
            "calls": done, "seconds": round(seconds, 4),
            # Wall time from starting wrk to its exit, as for h2load's runs
            # (wrk's own duration is kept too).
            "calls_per_s": done / seconds,
            "wrk_duration_s": result["duration_us"] / 1e6,
            "p50_ms": result["p50_us"] / 1000.0,
            "p90_ms": result["p90_us"] / 1000.0,
            "p99_ms": result["p99_us"] / 1000.0,
            "max_ms": result["max_us"] / 1000.0,
            # In-flight calls when the threads stop (at most C) are served
            # but not counted: C / calls more CPU per call at most.
            "cpu_us_per_call": (cpu1 - cpu0) * 1e6 / done,
            "server_cpus_busy": (cpu1 - cpu0) / seconds,
            "h2load_cpus_busy": (clients1 - clients0) / seconds,
            "rss_mib": server.rss_mib(),
            "wrk_statuses": result["statuses"],
            "wrk_requests": result["requests"],
        }

    def kill(self):
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()


# --- the sequence --------------------------------------------------------

def bench(args, server, http_target, scenarios, converted, workdir):
    grpc = sb.H2load(server.target, args.timeout)
    json_h1 = H1load(http_target, args.timeout, "application/json")
    proto_h1 = H1load(http_target, args.timeout, "application/proto")
    wrk = Wrk(http_target, args.timeout, args.wrk_threads)
    runs, rows = [], []

    def record(r, endpoint):
        r["endpoint"] = endpoint
        runs.append(r)
        log("C=%d %-28s %-8s %8.0f calls/s  p99 %6.2f ms  cpu %6.1f us/call"
            % (r["concurrency"], r["scenario"], endpoint, r["calls_per_s"],
               r["p99_ms"], r["cpu_us_per_call"]))
        return r

    try:
        for concurrency in args.concurrency:
            if not args.smoke:  # Unreported warm-up of both listeners.
                for gen, s in ((grpc, scenarios[0]),
                               (json_h1, h1_scenario(
                                   scenarios[0],
                                   converted[scenarios[0]["name"]]["json"]))):
                    sb.run_scenario(gen, server, s, concurrency,
                                    min(args.calls, 5000), args.distinct,
                                    workdir)
            for s in scenarios:
                c = converted[s["name"]]
                group = [record(sb.run_scenario(
                    grpc, server, s, concurrency, args.calls, args.distinct,
                    workdir), "grpc")]
                if "json-h1" in args.endpoints:
                    group.append(record(sb.run_scenario(
                        json_h1, server, h1_scenario(s, c["json"]),
                        concurrency, args.calls, args.distinct, workdir),
                        "json-h1"))
                if "json-wrk" in args.endpoints:
                    group.append(record(wrk.run_scenario(
                        server, s, c, concurrency, args.calls, workdir),
                        "json-wrk"))
                if "proto-h1" in args.endpoints and c["proto"] is not None:
                    # (The floor, GET /healthz, has no protobuf form.)
                    group.append(record(sb.run_scenario(
                        proto_h1, server,
                        h1_scenario(s, c["proto"]), concurrency,
                        args.calls, args.distinct, workdir), "proto-h1"))
                group.append(record(sb.run_scenario(
                    grpc, server, s, concurrency, args.calls, args.distinct,
                    workdir), "grpc"))
                rows += group_rows(group)
    finally:
        grpc.kill_all()
        json_h1.kill_all()
        proto_h1.kill_all()
        wrk.kill()
    return rows, runs


def group_rows(group):
    """The mean of the two gRPC runs, then each HTTP run against it."""
    grpc_runs = [r for r in group if r["endpoint"] == "grpc"]
    base = {"scenario": grpc_runs[0]["scenario"],
            "concurrency": grpc_runs[0]["concurrency"], "endpoint": "grpc",
            "grpc_calls_per_s_range": [r["calls_per_s"] for r in grpc_runs]}
    for key in ("calls_per_s", "p50_ms", "p90_ms", "p99_ms",
                "cpu_us_per_call", "server_cpus_busy", "h2load_cpus_busy",
                "rss_mib"):
        base[key] = sum(r[key] for r in grpc_runs) / len(grpc_runs)
    base["x_grpc"] = base["cpu_x_grpc"] = base["p99_x_grpc"] = 1.0
    rows = [base]
    for r in group:
        if r["endpoint"] == "grpc":
            continue
        row = dict(r)
        row["x_grpc"] = r["calls_per_s"] / base["calls_per_s"]
        row["cpu_x_grpc"] = r["cpu_us_per_call"] / base["cpu_us_per_call"]
        row["p99_x_grpc"] = r["p99_ms"] / base["p99_ms"]
        rows.append(row)
    return rows


# --- the report ----------------------------------------------------------

LABELS = {"grpc": "gRPC, h2load (mean of 2)",
          "json-h1": "JSON, h2load --h1", "json-wrk": "JSON, wrk",
          "proto-h1": "proto, h2load --h1"}


def print_report(report):
    m, s = report["machine"], report["settings"]
    print("# halma_server: Connect over HTTP/1.1 beside gRPC")
    print("machine: %s, %d CPUs, hypervisor %s, kernel %s; load average "
          "%.2f %.2f %.2f at the start" % (
              m["cpu_model"], m["cpus"], m["hypervisor"], m["kernel"],
              *m["load_average"]))
    print("tools: %s; %s; python3-protobuf %s" % (
        report["versions"]["h2load"], report["versions"]["wrk"],
        report["versions"]["protobuf"]))
    print("settings: %d calls per run, concurrency %s, one call in flight "
          "per connection; %s; server %s; wrk -t %d" % (
              s["calls"], ",".join(map(str, s["concurrency"])),
              "smoke (no warm-up)" if s["smoke"] else
              "unreported warm-up runs per concurrency",
              "pinned to CPU %s, load generators on CPU %s" % (
                  s["server_cpus"], s["driver_cpus"])
              if s["server_cpus"] else "not pinned", s["wrk_threads"]))
    print("answers: %d distinct requests checked through gRPC, %d over "
          "HTTP/1.1 (JSON equal to the gRPC answer as JSON, protobuf "
          "bytes equal); every run: all calls 2xx, answers as expected"
          % (s["grpc_checked"], s["http_checked"]))
    print("(health: gRPC grpc.health.v1.Health/Check against HTTP GET "
          "/healthz, the cheapest call of each listener)")
    print()
    print("| scenario | C | endpoint | calls/s | x gRPC | p50 ms | p99 ms | "
          "p99 x gRPC | CPU us/call | CPU x gRPC | server busy | "
          "client busy |")
    print("|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in report["rows"]:
        print("| %s | %d | %s | %.0f | %.2f | %.3f | %.3f | %.2f | %.1f | "
              "%.2f | %.0f%% | %.0f%% |" % (
                  r["scenario"], r["concurrency"], LABELS[r["endpoint"]],
                  r["calls_per_s"], r["x_grpc"], r["p50_ms"], r["p99_ms"],
                  r["p99_x_grpc"], r["cpu_us_per_call"], r["cpu_x_grpc"],
                  100 * r["server_cpus_busy"], 100 * r["h2load_cpus_busy"]))
    print()
    for r in report["rows"]:
        if r["endpoint"] == "grpc":
            print("gRPC runs of %s at C=%d: %s calls/s" % (
                r["scenario"], r["concurrency"], " and ".join(
                    "%.0f" % x for x in r["grpc_calls_per_s_range"])))
    print("server RSS %.1f MiB before, %.1f MiB after; %.0f s in all; load "
          "average %.2f %.2f %.2f at the end" % (
              report["rss_before_mib"], report["rss_after_mib"],
              report["seconds"], *report["load_average_end"]))


def run(args):
    for tool in ("h2load", "protoc", "taskset") + (
            ("wrk",) if "json-wrk" in args.endpoints else ()):
        if not shutil.which(tool):
            raise sb.BenchError("missing: %s" % tool)
    if not os.access(args.server, os.X_OK):
        raise sb.BenchError("no server binary at %s" % args.server)
    floor, chosen = sb.select(sb.load_scenarios(args.payloads), args.globs)
    scenarios = ([floor] if any(fnmatch.fnmatchcase(sb.FLOOR, g)
                                for g in args.globs) else []) + chosen
    args.distinct = max(len(s["requests"]) for s in scenarios)
    split = sb.server_cpus(args.no_pin)
    if split:
        os.sched_setaffinity(0, split[1])
    t0 = time.monotonic()
    report = {"machine": sb.machine()}
    with tempfile.TemporaryDirectory(prefix="http_bench.") as work:
        os.makedirs(os.path.join(work, "protos"))
        protos = harness.generate_protos(os.path.join(work, "protos"))
        converted = http_scenarios(scenarios, protos, work)
        server = Server(args.server, None, max(args.concurrency),
                           split[0] if split else None)
        try:
            log(server.listen_line)
            found = HTTP_LINE.search(server.listen_line or "")
            if not found:
                raise sb.BenchError("the start-up line has no Connect "
                                    "listener: %s" % server.listen_line)
            http_target = "127.0.0.1:%s" % found.group(1)
            sb.check_answers(server.target, scenarios)
            http_checked = check_http_answers(int(found.group(1)), scenarios,
                                              converted)
            log("answers as expected: %d through gRPC, %d over HTTP/1.1" % (
                sum(len(s["requests"]) for s in scenarios), http_checked))
            import google.protobuf
            report["versions"] = {
                "h2load": sb.command_output(["h2load", "--version"]).strip(),
                "wrk": (sb.command_output(["wrk", "--version"]).splitlines()
                        or ["wrk ?"])[0].split(" [")[0].strip(),
                "protobuf": google.protobuf.__version__}
            report["listen_line"] = server.listen_line
            report["settings"] = {
                "calls": args.calls, "concurrency": args.concurrency,
                "smoke": args.smoke, "endpoints": args.endpoints,
                "wrk_threads": args.wrk_threads,
                "server_cpus": sorted(split[0]) if split else None,
                "driver_cpus": sorted(split[1]) if split else None,
                "grpc_checked": sum(len(s["requests"]) for s in scenarios),
                "http_checked": http_checked}
            report["rss_before_mib"] = server.rss_mib()
            rows, runs = bench(args, server, http_target, scenarios,
                               converted, work)
            report["rss_after_mib"] = server.rss_mib()
        finally:
            code = server.stop()
    report.update(rows=rows, runs=runs, server_exit=code,
                  seconds=time.monotonic() - t0,
                  load_average_end=os.getloadavg())
    return report


def main(argv):
    args = parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        report = run(args)
    except sb.BenchError as e:
        log("FAILED: %s" % e)
        return 1
    except KeyboardInterrupt:
        log("interrupted")
        return 130
    if report["server_exit"] != 0:
        log("FAILED: the server exited with status %s after SIGTERM"
            % report["server_exit"])
        return 1
    print_report(report)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
