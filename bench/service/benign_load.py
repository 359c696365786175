#!/usr/bin/python3
"""Ordinary clients against the production settings: are they refused?

halma_server runs with the `server` container's HALMA_* settings of
deploy/k8s/base/deployment.yaml (one replay slot, nghttpx in front, 64 KiB
messages; listen address 127.0.0.1 and free ports), pinned to one CPU with
taskset, the clients on the others. At each concurrency C, C client threads,
each with a channel of its own, send Adjudicate of the longest record of
testdata/vectors/records.jsonl (160 moves of classic-16x16; the answer is the
illegal move at ply 159) until `--calls` calls have been made, each with a
`--deadline` second deadline, and the outcomes are counted: OK (with the
right answer), RESOURCE_EXHAUSTED, and any other code.

    /usr/bin/python3 bench/service/benign_load.py --server build/service/halma_server
    ... --concurrency 2,8 --calls 2000 --fresh --json out.json

Exit status 0 when every run's answers were right (refusals are figures,
not failures), 1 otherwise. Needs Debian's python3-grpcio, python3-protobuf
and protoc (the protobuf modules are generated into a temporary directory),
and nghttpx for the front proxy.
"""

import argparse
import collections
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tests", "attack"))
import harness  # noqa: E402  (the attack suite's manifest and proto helpers)

import grpc  # noqa: E402

RECORDS = os.path.join(REPO, "testdata", "vectors", "records.jsonl")
LISTEN_LINE = re.compile(r"halma_server listening on (\S+):(\d+) ")
METHOD = "/halma.v1.HalmaRules/Adjudicate"


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--server", default=os.path.join(
        REPO, "build", "service", "halma_server"))
    p.add_argument("--concurrency", default="1,2,4,8,32,64")
    p.add_argument("--calls", type=int, default=2000)
    p.add_argument("--deadline", type=float, default=5.0)
    p.add_argument("--fresh", action="store_true",
                   help="a fresh server for each concurrency")
    p.add_argument("--no-pin", action="store_true")
    p.add_argument("--json", help="write the results to this file")
    return p.parse_args(argv)


def longest_record(halma):
    """The longest record of the public vectors, as an AdjudicateRequest."""
    best = None
    with open(RECORDS) as f:
        for line in f:
            if line.strip():
                record = json.loads(line)
                if best is None or len(record["moves"]) > len(best["moves"]):
                    best = record
    request = halma.AdjudicateRequest(moves=best["moves"])
    if isinstance(best["variant"], str):
        request.variant.preset = best["variant"]
    else:
        raise SystemExit("the longest record has a custom variant")
    if "from" in best:
        request.start_position = best["from"]
    return request, best


class Server:
    """halma_server with the manifest's settings, on its own CPU."""

    def __init__(self, binary, cpu):
        env = harness.server_environment(harness.read_manifest_env())
        command = [binary]
        if cpu is not None:
            command = ["taskset", "-c", str(cpu)] + command
        self.proc = subprocess.Popen(command, env=env, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE, text=True)
        self.target = None
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            line = self.proc.stderr.readline()
            if not line:
                break
            m = LISTEN_LINE.search(line)
            if m:
                self.target = "%s:%s" % (m.group(1), m.group(2))
                break
        if self.target is None:
            self.stop()
            raise SystemExit("halma_server did not start")
        # Keep reading stderr so that the server never blocks on it.
        threading.Thread(target=self.proc.stderr.read, daemon=True).start()

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        return self.proc.returncode


def run_level(target, request_bytes, expected_ply, concurrency, calls,
              deadline):
    """C threads, one channel each, `calls` calls in all."""
    lock = threading.Lock()
    state = {"next": 0}
    codes = collections.Counter()
    wrong = [0]
    latencies = []
    messages = {}

    def worker():
        channel = grpc.insecure_channel(target)
        call = channel.unary_unary(METHOD)
        mine = []
        while True:
            with lock:
                if state["next"] >= calls:
                    break
                state["next"] += 1
            t0 = time.monotonic()
            try:
                answer = call(request_bytes, timeout=deadline)
                code = "OK"
                if parse_ply(answer) != expected_ply:
                    with lock:
                        wrong[0] += 1
            except grpc.RpcError as error:
                code = error.code().name
                with lock:
                    messages.setdefault(code, error.details())
            mine.append(time.monotonic() - t0)
            with lock:
                codes[code] += 1
        channel.close()
        with lock:
            latencies.extend(mine)

    threads = [threading.Thread(target=worker) for _ in range(concurrency)]
    started = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.monotonic() - started
    latencies.sort()

    def pct(q):
        return round(1000 * latencies[min(len(latencies) - 1,
                                          int(q * len(latencies)))], 3)

    other = {c: n for c, n in codes.items()
             if c not in ("OK", "RESOURCE_EXHAUSTED")}
    return {
        "concurrency": concurrency, "calls": sum(codes.values()),
        "ok": codes.get("OK", 0),
        "resource_exhausted": codes.get("RESOURCE_EXHAUSTED", 0),
        "other": other, "wrong_answers": wrong[0],
        "calls_per_s": round(sum(codes.values()) / wall, 1),
        "p50_ms": pct(0.50), "p99_ms": pct(0.99),
        "messages": messages,
    }


PARSE = {}


def parse_ply(answer_bytes):
    return PARSE["halma"].AdjudicateResponse.FromString(
        answer_bytes).illegal_move.ply


def main(argv):
    args = parse_args(argv)
    cpus = sorted(os.sched_getaffinity(0))
    server_cpu = None
    if not args.no_pin and len(cpus) >= 2:
        server_cpu = cpus[-1]
        os.sched_setaffinity(0, set(cpus[:-1]))
    with tempfile.TemporaryDirectory() as scratch:
        protos = harness.generate_protos(scratch)
        PARSE["halma"] = protos.halma
        request, record = longest_record(protos.halma)
        expected_ply = record["expect"].get("ply", 0)
        request_bytes = request.SerializeToString()
        levels = [int(c) for c in args.concurrency.split(",")]
        print("record: %s, %d moves, %d bytes; the answer: illegal move at "
              "ply %d" % (record["variant"], len(record["moves"]),
                          len(request_bytes), expected_ply))
        print("server: %s with deploy/k8s/base/deployment.yaml's settings%s; "
              "%d calls per level, deadline %.1f s, one channel per thread%s"
              % (args.server,
                 "" if server_cpu is None else ", on CPU %d" % server_cpu,
                 args.calls, args.deadline,
                 ", a fresh server per level" if args.fresh else ""))
        print("| C | calls | OK | RESOURCE_EXHAUSTED | other | wrong | "
              "calls/s | p50 ms | p99 ms |")
        print("|---:|---:|---:|---:|---|---:|---:|---:|---:|")
        rows = []
        server = None
        failed = False
        for level in levels:
            if server is None or args.fresh:
                if server is not None and server.stop() != 0:
                    failed = True
                server = Server(args.server, server_cpu)
            row = run_level(server.target, request_bytes, expected_ply, level,
                            args.calls, args.deadline)
            rows.append(row)
            failed |= row["wrong_answers"] > 0
            print("| %d | %d | %d | %d | %s | %d | %.0f | %.2f | %.2f |" % (
                level, row["calls"], row["ok"], row["resource_exhausted"],
                json.dumps(row["other"]) if row["other"] else "0",
                row["wrong_answers"], row["calls_per_s"], row["p50_ms"],
                row["p99_ms"]), flush=True)
        if server is not None and server.stop() != 0:
            failed = True
        for row in rows:
            for code, message in row["messages"].items():
                print("C=%d %s: %s" % (row["concurrency"], code, message))
        if args.json:
            with open(args.json, "w") as out:
                json.dump({"record_moves": len(record["moves"]),
                           "rows": rows}, out, indent=1)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
