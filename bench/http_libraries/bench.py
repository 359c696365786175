#!/usr/bin/python3
"""Throughput and latency of the four servers with wrk, and the no-HTTP baseline.

Each measurement starts a fresh server pinned to CPU 0 (2 worker threads),
warms it up for 2 s, then runs wrk pinned to CPU 1 for 10 s; the server's CPU
time comes from /proc/PID/stat around the measured run. Every (library,
connections) pair is measured ROUNDS times, the rounds interleaved so that
the machine's noise spreads over all libraries. Loopback only.
"""
import json
import os
import re
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
LIBS = ["civetweb", "httplib", "microhttpd", "beast"]
PORT = {"civetweb": 18201, "httplib": 18202, "microhttpd": 18203, "beast": 18204}
CONNS = [16, 64]
ROUNDS = int(os.environ.get("ROUNDS", "2"))
DURATION = int(os.environ.get("DURATION", "10"))
TICK = os.sysconf("SC_CLK_TCK")
PATH = "/halma.v1.HalmaRules/LegalMoves"


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK  # utime + stime


def status_kib(pid, key):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


def start_server(lib, port, timeout_s=5, max_conns=1024):
    p = subprocess.Popen(
        ["taskset", "-c", "0", f"{HERE}/out/server_{lib}", str(port),
         str(timeout_s), str(max_conns), "2"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = p.stdout.readline()
    if not line.startswith("listening"):
        p.kill()
        raise RuntimeError(f"{lib} did not start: {line!r}")
    return p


def stop_server(p):
    p.terminate()
    try:
        p.wait(timeout=10)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()


def to_ms(text):
    m = re.match(r"([\d.]+)(us|ms|s)", text)
    v, unit = float(m.group(1)), m.group(2)
    return v / 1000 if unit == "us" else v * 1000 if unit == "s" else v


def wrk(port, conns, seconds):
    out = subprocess.run(
        ["taskset", "-c", "1", "wrk", "-t1", f"-c{conns}", f"-d{seconds}s",
         "--latency", "--timeout", "5s", "-s", "post.lua",
         f"http://127.0.0.1:{port}{PATH}"],
        cwd=HERE, capture_output=True, text=True, timeout=seconds + 30).stdout
    r = {"raw": out}
    r["requests"] = int(re.search(r"(\d+) requests in", out).group(1))
    r["rps"] = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    m = re.search(r"Latency\s+\S+\s+\S+\s+(\S+)", out)
    r["max_ms"] = to_ms(m.group(1)) if m else None
    for pct in ("50", "99"):
        m = re.search(rf"^\s+{pct}%\s+(\S+)", out, re.M)
        r[f"p{pct}_ms"] = to_ms(m.group(1)) if m else None
    m = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    r["non2xx"] = int(m.group(1)) if m else 0
    m = re.search(r"Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)", out)
    r["socket_errors"] = [int(x) for x in m.groups()] if m else [0, 0, 0, 0]
    return r


def measure(lib, conns):
    port = PORT[lib]
    p = start_server(lib, port)
    try:
        wrk(port, conns, 2)  # warm-up
        c0 = cpu_seconds(p.pid)
        r = wrk(port, conns, DURATION)
        c1 = cpu_seconds(p.pid)
        r["cpu_s"] = c1 - c0
        r["cpu_s_per_100k"] = (c1 - c0) / max(r["requests"], 1) * 1e5
        r["rss_kib"] = status_kib(p.pid, "VmRSS")
        r["hwm_kib"] = status_kib(p.pid, "VmHWM")
        r["threads"] = len(os.listdir(f"/proc/{p.pid}/task"))
    finally:
        stop_server(p)
    return r


def baseline():
    out = subprocess.run(
        ["taskset", "-c", "0", f"{HERE}/out/baseline_json", "body.json", "200000"],
        cwd=HERE, capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def main():
    # SIGTERM unwinds like Ctrl-C, so that the running server is stopped.
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    results = {"machine": subprocess.run(["lscpu"], capture_output=True, text=True).stdout,
               "baseline": [], "runs": []}
    for rnd in range(1, ROUNDS + 1):
        b = baseline()
        b["round"] = rnd
        results["baseline"].append(b)
        print(f"baseline round {rnd}: {b['cpu_s_per_100k']:.3f} CPU s/100k "
              f"({b['per_s_one_core']:.0f}/s on one core)", flush=True)
        for lib in LIBS:
            for conns in CONNS:
                r = measure(lib, conns)
                r.update(lib=lib, conns=conns, round=rnd)
                results["runs"].append(r)
                print(f"{lib:10s} c={conns:2d} round {rnd}: {r['rps']:8.0f} req/s  "
                      f"p50 {r['p50_ms']:.2f} ms  p99 {r['p99_ms']:.2f} ms  max {r['max_ms']:.0f} ms  "
                      f"{r['cpu_s_per_100k']:.2f} CPU s/100k  RSS {r['rss_kib'] / 1024:.1f} MiB "
                      f"(peak {r['hwm_kib'] / 1024:.1f})  non2xx {r['non2xx']}  "
                      f"sockerr {r['socket_errors']}  threads {r['threads']}", flush=True)
    os.makedirs(f"{HERE}/results", exist_ok=True)
    path = f"{HERE}/results/bench-{time.strftime('%Y%m%dT%H%M%SZ', time.gmtime())}.json"
    with open(path, "w") as f:
        json.dump(results, f, indent=1)
    print("wrote", path)


if __name__ == "__main__":
    sys.exit(main())
