"""Shared machinery of the attack suite.

- the production configuration, read from the Kubernetes manifest;
- protobuf modules generated at run time into a temporary directory;
- halma_server as a child process (production env, 127.0.0.1, free port);
- resident memory summed over the server and all its descendants (/proc);
- the well-behaved client (good_client.py) as a separate process, so that
  the attack's Python work does not delay its calls through the GIL.
"""

import importlib.util
import json
import math
import os
import queue
import re
import shutil
import signal
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
MANIFEST = os.path.join(REPO, "deploy", "k8s", "base", "deployment.yaml")
PROTO_ROOT = os.path.join(REPO, "proto")
HALMA_PROTO = "halma/v1/halma.proto"
HEALTH_PROTO_ROOT = "/usr/share/grpc-proto"
HEALTH_PROTO = "grpc/health/v1/health.proto"
GOOD_CLIENT = os.path.join(HERE, "good_client.py")
LISTEN_LINE = re.compile(r"halma_server listening on (\S+):(\d+)")
# Server stderr lines kept per server (the rest is counted, not stored).
MAX_STDERR_LINES = 2000


# --- configuration -------------------------------------------------------

def read_manifest_env(path=MANIFEST, container="server"):
    """The HALMA_* env pairs (`- name:` then `value:`) of one container of a
    plain Deployment manifest, in file order."""
    item = re.compile(r"^(\s*)- name:\s*[\"']?([^\"'\s]+)[\"']?\s*$")
    value_re = re.compile(r"^\s*value:\s*(.*?)\s*$")
    env = {}
    containers_indent = None
    container_indent = None
    in_container = False
    pending = None
    with open(path, encoding="utf-8") as f:
        for raw in f:
            line = raw.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            indent = len(line) - len(line.lstrip())
            if containers_indent is None:
                if line.strip() == "containers:":
                    containers_indent = indent
                continue
            if indent <= containers_indent:
                break  # Left the containers list.
            m = item.match(line)
            if m and (container_indent is None
                      or len(m.group(1)) == container_indent):
                container_indent = len(m.group(1))
                in_container = m.group(2) == container
                pending = None
                continue
            if not in_container:
                continue
            if m and m.group(2).startswith("HALMA_"):
                pending = m.group(2)
                continue
            v = value_re.match(line)
            if v and pending:
                text = v.group(1)
                if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
                    text = text[1:-1]
                env[pending] = text
                pending = None
            elif m:
                pending = None
    return env


def server_environment(manifest_env):
    """os.environ without inherited HALMA_*, plus the manifest's values with
    the listen address moved to 127.0.0.1 and every *_PORT set to 0."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("HALMA_")}
    env.update(manifest_env)
    env["HALMA_HOST"] = "127.0.0.1"
    env["HALMA_PORT"] = "0"
    env["HALMA_HTTP_PORT"] = "0"  # Tests run side by side: never 8080.
    for k in list(env):
        if k.startswith("HALMA_") and k.endswith("_PORT"):
            env[k] = "0"
    return env


def env_seconds(manifest_env, name, default):
    try:
        return float(manifest_env[name])
    except (KeyError, ValueError):
        return default


# --- generated protobuf modules -------------------------------------------

def generate_protos(out_dir):
    """protoc --python_out for halma.proto and health.proto into out_dir."""
    for include, proto in ((PROTO_ROOT, HALMA_PROTO),
                           (HEALTH_PROTO_ROOT, HEALTH_PROTO)):
        subprocess.run(["protoc", "--python_out=" + out_dir, "-I", include,
                        os.path.join(include, proto)], check=True,
                       timeout=60)
    return load_protos(out_dir)


def _load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Protos:
    def __init__(self, halma, health, out_dir):
        self.halma = halma
        self.health = health
        self.dir = out_dir


def load_protos(out_dir):
    """Loads the generated modules by file path: a generated package named
    `grpc` on sys.path would clash with grpcio itself."""
    halma = _load("attack_halma_pb2",
                  os.path.join(out_dir, "halma", "v1", "halma_pb2.py"))
    health = _load("attack_health_pb2",
                   os.path.join(out_dir, "grpc", "health", "v1",
                                "health_pb2.py"))
    return Protos(halma, health, out_dir)


# --- /proc ---------------------------------------------------------------

def _children(pid):
    kids = []
    try:
        tasks = os.listdir("/proc/%d/task" % pid)
    except OSError:
        return kids
    for tid in tasks:
        try:
            with open("/proc/%d/task/%s/children" % (pid, tid)) as f:
                kids.extend(int(x) for x in f.read().split())
        except OSError:
            pass
    return kids


def process_tree(pid, limit=1000):
    """pid and all its descendants (bounded)."""
    seen = []
    stack = [pid]
    while stack and len(seen) < limit:
        p = stack.pop()
        if p in seen:
            continue
        seen.append(p)
        stack.extend(_children(p))
    return seen


def status_field(pid, name):
    """The number of field `name` in /proc/PID/status (0 when gone)."""
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith(name + ":"):
                    return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return 0


def vm_rss_kib(pid):
    return status_field(pid, "VmRSS")


def cpu_seconds(pids):
    """utime + stime of the given processes (all their threads)."""
    ticks = 0
    for p in pids:
        try:
            with open("/proc/%d/stat" % p) as f:
                fields = f.read().rsplit(")", 1)[1].split()
            ticks += int(fields[11]) + int(fields[12])
        except (OSError, IndexError, ValueError):
            pass
    return ticks / float(os.sysconf("SC_CLK_TCK"))


def own_cpu_seconds():
    t = os.times()
    return t.user + t.system


def cpu_split():
    """(cpus for the server, cpus for this harness) on a machine with two
    or more cpus available to us: the server gets one cpu (its container's
    limit is 1 cpu) and the attackers cannot steal it; None otherwise."""
    try:
        cpus = sorted(os.sched_getaffinity(0))
    except OSError:
        return None
    if len(cpus) < 2 or not shutil.which("taskset"):
        return None
    return {cpus[-1]}, set(cpus[:-1])


def tree_rss_bytes(pid):
    return sum(vm_rss_kib(p) for p in process_tree(pid)) * 1024


def mib(n_bytes):
    return None if n_bytes is None else round(n_bytes / 2 ** 20, 1)


# --- the server ----------------------------------------------------------

class ServerError(Exception):
    pass


class Server:
    """halma_server started with the production environment."""

    def __init__(self, binary, env, start_timeout=30.0, cpus=None):
        self.stderr_lines = []
        self.stderr_dropped = 0
        self.port = None
        self.listen_line = None
        self.exit_code = None
        self.leftovers = []
        self.started_at = time.monotonic()
        command = [binary]
        if cpus:
            # taskset execs the server in place: same pid.
            command = ["taskset", "-c", ",".join(map(str, sorted(cpus))),
                       binary]
        self.process = subprocess.Popen(
            command, env=env, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
            errors="replace")
        self.pid = self.process.pid
        self._known_tree = [self.pid]
        found = threading.Event()

        def read_stderr():
            for line in self.process.stderr:
                if len(self.stderr_lines) < MAX_STDERR_LINES:
                    self.stderr_lines.append(
                        (time.monotonic(), line.rstrip("\n")))
                else:
                    self.stderr_dropped += 1
                m = LISTEN_LINE.search(line)
                if m and self.port is None:
                    self.port = int(m.group(2))
                    self.listen_line = line.strip()
                    found.set()
            found.set()

        self._reader = threading.Thread(target=read_stderr, daemon=True)
        self._reader.start()
        if not found.wait(start_timeout) or self.port is None:
            self.kill()
            raise ServerError("halma_server did not report its port; "
                              "stderr: " + self.stderr_text()[-2000:])
        self.target = "127.0.0.1:%d" % self.port

    def stderr_text(self):
        return "\n".join(line for _, line in self.stderr_lines)

    def limit_from_listen_line(self, key):
        m = re.search(r"\b%s (\d+)" % re.escape(key), self.listen_line or "")
        return int(m.group(1)) if m else None

    def tree(self):
        tree = process_tree(self.pid)
        if len(tree) > 1:
            self._known_tree = tree
        return tree

    def rss(self):
        return sum(vm_rss_kib(p) for p in self.tree()) * 1024

    def alive(self):
        return self.process.poll() is None

    def sigterm(self):
        t = time.monotonic()
        if self.alive():
            self.tree()  # Remember the descendants, in case of a kill.
            self.process.send_signal(signal.SIGTERM)
        return t

    def wait(self, timeout):
        """Exit code, or None if still running after `timeout` seconds."""
        try:
            self.exit_code = self.process.wait(timeout=max(0.0, timeout))
        except subprocess.TimeoutExpired:
            return None
        return self.exit_code

    def stop(self, timeout=30.0):
        """SIGTERM; (exit code or None, seconds). Kills after `timeout`."""
        t0 = self.sigterm()
        code = self.wait(timeout)
        elapsed = time.monotonic() - t0
        if code is None:
            self.kill()
        else:
            self.reap_leftovers()
        self.close()
        return code, elapsed

    def _leftovers(self):
        """Former descendants of the server still running on their own."""
        alive = []
        for p in self._known_tree:
            if p == self.pid:
                continue
            try:
                with open("/proc/%d/stat" % p) as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                if fields[0] != "Z" and int(fields[1]) in (1, self.pid):
                    alive.append(p)
            except (OSError, IndexError, ValueError):
                pass
        return alive

    def reap_leftovers(self, timeout=2.0):
        """After the server exited: waits up to `timeout` for the processes
        it had started to end, kills those that do not (by pid) and returns
        their pids."""
        t_end = time.monotonic() + timeout
        left = self._leftovers()
        for _ in range(int(timeout / 0.05) + 1):
            if not left or time.monotonic() >= t_end:
                break
            time.sleep(0.05)
            left = self._leftovers()
        for p in left:
            try:
                os.kill(p, signal.SIGKILL)
            except OSError:
                pass
        self.leftovers = left
        return left

    def kill(self):
        """SIGKILL the server and the descendants it had (by their pid)."""
        pids = [p for p in self._known_tree if p != self.pid]
        if self.alive():
            pids = [p for p in self.tree() if p != self.pid] or pids
            self.process.kill()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        for p in pids:
            try:
                with open("/proc/%d/stat" % p) as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                state, ppid = fields[0], int(fields[1])
                # Only our server's former children, now orphaned or still
                # its own: a pid reused by someone else is left alone.
                if state != "Z" and ppid in (1, self.pid):
                    os.kill(p, signal.SIGKILL)
            except (OSError, IndexError, ValueError):
                pass
        self.close()

    def close(self):
        self._reader.join(timeout=5)
        try:
            self.process.stderr.close()
        except OSError:
            pass


class RssSampler:
    """Samples the server tree's RSS every `interval` seconds in a thread;
    sets `abort` when it exceeds `safety_bytes` (the attack then stops)."""

    def __init__(self, server, abort, safety_bytes, interval=0.05,
                 max_seconds=900.0):
        self.server = server
        self.abort = abort
        self.safety_bytes = safety_bytes
        self.interval = interval
        self.max_seconds = max_seconds
        self.samples = []
        self.safety_tripped_at = None
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
            t = time.monotonic()
            rss = self.server.rss()
            self.samples.append((t, rss))
            if rss > self.safety_bytes and self.safety_tripped_at is None:
                self.safety_tripped_at = t
                self.abort.set()
            self._stop.wait(self.interval)

    def stop(self):
        self._stop.set()
        self._thread.join(timeout=5)

    def peak(self, t_from=None, t_to=None):
        values = [r for t, r in list(self.samples)
                  if (t_from is None or t >= t_from)
                  and (t_to is None or t <= t_to)]
        return max(values) if values else None


def wait_for_recovery(server, idle_rss, ratio, timeout, poll=0.2):
    """Polls RSS until it is within `ratio` of idle; (ok, seconds, rss)."""
    t0 = time.monotonic()
    limit = idle_rss * (1.0 + ratio)
    rss = server.rss()
    for _ in range(int(timeout / poll) + 2):
        if rss <= limit:
            return True, time.monotonic() - t0, rss
        if time.monotonic() - t0 >= timeout:
            break
        time.sleep(poll)
        rss = server.rss()
    return rss <= limit, time.monotonic() - t0, rss


def idle_rss(server, samples=5, interval=0.1):
    values = []
    for _ in range(samples):
        values.append(server.rss())
        time.sleep(interval)
    values.sort()
    return values[len(values) // 2]


# --- statistics ----------------------------------------------------------

def percentile(values, p):
    """Nearest-rank percentile of a list (None when empty)."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, int(math.ceil(p / 100.0 * len(ordered))))
    return ordered[min(rank, len(ordered)) - 1]


def latency_summary(seconds):
    ms = [s * 1000.0 for s in seconds]
    r = lambda v: None if v is None else round(v, 2)  # noqa: E731
    return {"n": len(ms), "p50_ms": r(percentile(ms, 50)),
            "p99_ms": r(percentile(ms, 99)),
            "max_ms": r(max(ms) if ms else None)}


# --- the well-behaved client (a separate process) -------------------------

class GoodClient:
    """good_client.py in its own process: READY after its channel is up and
    its warm-up calls are done; START begins the measured loop; STOP ends it
    and makes it print its figures as one JSON line."""

    def __init__(self, target, protos, mode="load", max_seconds=300.0,
                 interval=0.02, deadline=2.0, port=None):
        args = [sys.executable, GOOD_CLIENT, "--target", target,
                "--pb-dir", protos.dir, "--mode", mode,
                "--max-seconds", str(max_seconds),
                "--interval", str(interval), "--deadline", str(deadline)]
        if port is not None:
            args += ["--port", str(port)]
        self.proc = subprocess.Popen(args, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
        self.max_seconds = max_seconds
        self.lines = queue.Queue()
        self.stderr = []
        threading.Thread(target=self._read_out, daemon=True).start()
        threading.Thread(target=self._read_err, daemon=True).start()

    def _read_out(self):
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def _read_err(self):
        for line in self.proc.stderr:
            if len(self.stderr) < 200:
                self.stderr.append(line.rstrip("\n"))

    def _expect(self, timeout):
        t_end = time.monotonic() + timeout
        for _ in range(10000):
            left = t_end - time.monotonic()
            if left <= 0:
                return None
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                return None
            if line is None or line.strip():
                return line
        return None

    def wait_ready(self, timeout=30.0):
        line = self._expect(timeout)
        if line != "READY":
            self.kill()
            raise RuntimeError("good client not ready: %r; stderr: %s"
                               % (line, " | ".join(self.stderr[-10:])))

    def _send(self, word):
        try:
            self.proc.stdin.write(word + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            pass

    def start(self):
        self.started_at = time.monotonic()
        self._send("START")

    def stop(self, timeout=15.0):
        self._send("STOP")
        line = self._expect(timeout)
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.kill()
        if not line:
            return {"failed": "no answer from good client; stderr: "
                              + " | ".join(self.stderr[-10:])}
        try:
            return json.loads(line)
        except ValueError:
            return {"failed": "bad answer from good client: " + line[:300]}

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                pass


def warm_up(target, protos, rounds=3, threads=16, calls_per_thread=20):
    """A few good calls of every RPC on a short-lived channel (thread-local
    scratch, first-call allocations), then a short burst of ordinary traffic
    (`threads` callers, each a few LegalMoves and a record of about 32 KiB)
    before idle RSS is measured. The idle level is then that of a server
    that has served ordinary traffic, as every pod has: its code pages
    touched, its thread pool at its ordinary size, its connections to the
    front proxy open. Without the burst, the first attack would be charged
    with the server's first touch of its own code and threads (about 3 MiB
    measured)."""
    import grpc
    h = protos.halma
    hv = protos.health
    variant = h.Variant(preset="classic-16x16")
    with grpc.insecure_channel(target) as channel:
        grpc.channel_ready_future(channel).result(timeout=20)
        calls = [
            ("/grpc.health.v1.Health/Check", hv.HealthCheckRequest(),
             hv.HealthCheckResponse),
            ("/halma.v1.HalmaRules/ListVariants", h.ListVariantsRequest(),
             h.ListVariantsResponse),
            ("/halma.v1.HalmaRules/LegalMoves",
             h.LegalMovesRequest(variant=variant), h.LegalMovesResponse),
            ("/halma.v1.HalmaRules/ValidateMove",
             h.ValidateMoveRequest(variant=variant, move="a1-b2"),
             h.ValidateMoveResponse),
            ("/halma.v1.HalmaRules/Adjudicate",
             h.AdjudicateRequest(variant=variant,
                                 moves=["e1-f2", "l16-k15"]),
             h.AdjudicateResponse),
        ]
        for _ in range(rounds):
            for method, request, response in calls:
                stub = channel.unary_unary(
                    method, request_serializer=type(request).SerializeToString,
                    response_deserializer=response.FromString)
                stub(request, timeout=10)
        legal = channel.unary_unary(
            "/halma.v1.HalmaRules/LegalMoves",
            request_serializer=h.LegalMovesRequest.SerializeToString,
            response_deserializer=h.LegalMovesResponse.FromString)
        adjudicate = channel.unary_unary(
            "/halma.v1.HalmaRules/Adjudicate",
            request_serializer=h.AdjudicateRequest.SerializeToString,
            response_deserializer=h.AdjudicateResponse.FromString)
        record = h.AdjudicateRequest(variant=variant,
                                     moves=["e1-f2", "l16-k15"] * 3000)

        def caller():
            for _ in range(calls_per_thread):
                legal(h.LegalMovesRequest(variant=variant), timeout=10)
                try:
                    adjudicate(record, timeout=10)
                except grpc.RpcError:
                    pass  # RESOURCE_EXHAUSTED beyond the replay limit.

        burst = [threading.Thread(target=caller) for _ in range(threads)]
        for t in burst:
            t.start()
        for t in burst:
            t.join(timeout=60)
