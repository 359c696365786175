#!/usr/bin/python3
"""The well-behaved client of the attack suite, run as its own process.

Protocol on stdin/stdout (driven by harness.GoodClient): the client opens
its channel, makes a few warm-up calls and prints READY; on START it runs
its loop; on STOP (or stdin closed, or --max-seconds) it prints its figures
as one JSON line and exits.

--mode load: every --interval seconds a Health/Check and a LegalMoves
(classic-16x16, start position), each with a --deadline; latencies and
errors are recorded.

--mode observe (the SIGTERM cases): before READY a Health/Watch stream is
opened and its first answer (SERVING) received; the loop then calls
Health/Check every --interval seconds (alternately for "" and
"halma.v1.HalmaRules"), and a thread probes the listener (a TCP connect to
--port every 50 ms, closed at once) until a connect is refused. Every
answer is recorded with its time.monotonic() (a clock shared with the
parent process on Linux).
"""

import argparse
import json
import socket
import sys
import threading
import time

import grpc

from harness import latency_summary as summary  # noqa: E402
from harness import load_protos  # noqa: E402

HALMA_SERVICE = "halma.v1.HalmaRules"
MAX_ERROR_SAMPLES = 20
MAX_EVENTS = 20000


class Control:
    """START / STOP from stdin."""

    def __init__(self):
        self.start = threading.Event()
        self.stop = threading.Event()
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self):
        for count, line in enumerate(sys.stdin):
            if count > 1000:
                break
            word = line.strip()
            if word == "START":
                self.start.set()
            elif word == "STOP":
                self.stop.set()
                self.start.set()
        self.stop.set()
        self.start.set()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--target", required=True)
    ap.add_argument("--pb-dir", required=True)
    ap.add_argument("--mode", choices=("load", "observe"), default="load")
    ap.add_argument("--interval", type=float, default=0.02)
    ap.add_argument("--deadline", type=float, default=2.0)
    ap.add_argument("--max-seconds", type=float, default=300.0)
    ap.add_argument("--port", type=int, default=None)
    args = ap.parse_args()
    if not args.target.startswith("127.0.0.1:"):
        sys.exit("good_client: only 127.0.0.1 targets")

    protos = load_protos(args.pb_dir)
    halma, health = protos.halma, protos.health
    serving = health.HealthCheckResponse.SERVING
    status_name = health.HealthCheckResponse.ServingStatus.Name

    control = Control()
    channel = grpc.insecure_channel(args.target)
    grpc.channel_ready_future(channel).result(timeout=20)
    check = channel.unary_unary(
        "/grpc.health.v1.Health/Check",
        request_serializer=health.HealthCheckRequest.SerializeToString,
        response_deserializer=health.HealthCheckResponse.FromString)
    watch = channel.unary_stream(
        "/grpc.health.v1.Health/Watch",
        request_serializer=health.HealthCheckRequest.SerializeToString,
        response_deserializer=health.HealthCheckResponse.FromString)
    legal = channel.unary_unary(
        "/halma.v1.HalmaRules/LegalMoves",
        request_serializer=halma.LegalMovesRequest.SerializeToString,
        response_deserializer=halma.LegalMovesResponse.FromString)
    legal_request = halma.LegalMovesRequest(
        variant=halma.Variant(preset="classic-16x16"), position="")
    check_request = health.HealthCheckRequest(service="")

    # Warm-up, and the reference answer for LegalMoves.
    expected_count = None
    for _ in range(5):
        answer = check(check_request, timeout=10)
        if answer.status != serving:
            sys.exit("good_client: warm-up Check: " + status_name(
                answer.status))
        moves = legal(legal_request, timeout=10)
        if moves.count <= 0 or moves.count != len(moves.moves):
            sys.exit("good_client: warm-up LegalMoves: bad answer")
        expected_count = moves.count

    t_limit = time.monotonic() + args.max_seconds
    if args.mode == "load":
        print("READY", flush=True)
        control.start.wait(args.max_seconds)
        result = run_load(args, control, t_limit, check, check_request,
                          legal, legal_request, expected_count, serving,
                          status_name)
    else:
        result = run_observe(args, control, t_limit, check, watch, health,
                             status_name)
    print(json.dumps(result), flush=True)
    channel.close()


def run_load(args, control, t_limit, check, check_request, legal,
             legal_request, expected_count, serving, status_name):
    latencies = {"check": [], "legal_moves": []}
    errors = []
    by_code = {}
    t0 = time.monotonic()

    def error(name, code, details):
        key = name + ":" + code
        by_code[key] = by_code.get(key, 0) + 1
        if len(errors) < MAX_ERROR_SAMPLES:
            errors.append({"t": round(time.monotonic() - t0, 3),
                           "call": name, "code": code,
                           "details": (details or "")[:200]})

    def one(name, fn, request, verify):
        t = time.monotonic()
        try:
            answer = fn(request, timeout=args.deadline)
        except grpc.RpcError as e:
            latencies[name].append(time.monotonic() - t)
            error(name, e.code().name, e.details())
            return
        latencies[name].append(time.monotonic() - t)
        problem = verify(answer)
        if problem:
            error(name, "BAD_ANSWER", problem)

    def verify_check(answer):
        if answer.status != serving:
            return "status " + status_name(answer.status)
        return None

    def verify_legal(answer):
        if answer.count != expected_count or len(answer.moves) != \
                expected_count:
            return "count %d (%d moves), expected %d" % (
                answer.count, len(answer.moves), expected_count)
        return None

    next_tick = time.monotonic()
    max_iterations = int(args.max_seconds / max(args.interval, 0.001)) + 10
    for _ in range(max_iterations):
        if control.stop.is_set() or time.monotonic() >= t_limit:
            break
        one("check", check, check_request, verify_check)
        one("legal_moves", legal, legal_request, verify_legal)
        next_tick += args.interval
        now = time.monotonic()
        if next_tick > now:
            control.stop.wait(next_tick - now)
        elif now - next_tick > args.interval:
            next_tick = now  # Fell behind: no burst of catch-up calls.
    return {"duration_s": round(time.monotonic() - t0, 3),
            "check": summary(latencies["check"]),
            "legal_moves": summary(latencies["legal_moves"]),
            "errors": sum(by_code.values()), "errors_by_code": by_code,
            "error_samples": errors}


def run_observe(args, control, t_limit, check, watch, health, status_name):
    watch_events = []
    watch_end = {}
    first = threading.Event()
    cancelled_by_us = threading.Event()
    call = watch(health.HealthCheckRequest(service=""))

    def read_watch():
        try:
            for answer in call:
                if len(watch_events) < MAX_EVENTS:
                    watch_events.append((time.monotonic(),
                                         status_name(answer.status)))
                first.set()
            watch_end.update(t=time.monotonic(), code="OK")
        except grpc.RpcError as e:
            code = e.code().name
            if cancelled_by_us.is_set():
                code = "CANCELLED_BY_CLIENT"
            watch_end.update(t=time.monotonic(), code=code,
                             details=(e.details() or "")[:200])
        first.set()

    watcher = threading.Thread(target=read_watch, daemon=True)
    watcher.start()
    first.wait(10)
    if not watch_events or watch_events[0][1] != "SERVING":
        print("NOT-READY watch: %r %r" % (watch_events, watch_end),
              flush=True)
        cancelled_by_us.set()
        call.cancel()
        sys.exit(1)

    probes = {"last_open": None, "first_refused": None, "count": 0,
              "other_errors": 0}

    def probe():
        for _ in range(int(args.max_seconds / 0.05) + 10):
            if control.stop.is_set() or time.monotonic() >= t_limit:
                return
            t = time.monotonic()
            try:
                s = socket.create_connection(("127.0.0.1", args.port),
                                             timeout=0.5)
                s.close()
                probes["last_open"] = t
            except ConnectionRefusedError:
                probes["first_refused"] = t
                return
            except OSError:
                probes["other_errors"] += 1
            probes["count"] += 1
            control.stop.wait(0.05)

    print("READY", flush=True)
    control.start.wait(args.max_seconds)
    prober = None
    if args.port:
        prober = threading.Thread(target=probe, daemon=True)
        prober.start()
    checks = []
    services = ["", HALMA_SERVICE]
    next_tick = time.monotonic()
    max_iterations = int(args.max_seconds / max(args.interval, 0.001)) + 10
    for i in range(max_iterations):
        if control.stop.is_set() or time.monotonic() >= t_limit:
            break
        service = services[i % 2]
        t = time.monotonic()
        try:
            answer = check(health.HealthCheckRequest(service=service),
                           timeout=args.deadline)
            result = status_name(answer.status)
        except grpc.RpcError as e:
            result = e.code().name
        if len(checks) < MAX_EVENTS:
            checks.append((t, time.monotonic(), service, result))
        next_tick += args.interval
        now = time.monotonic()
        if next_tick > now:
            control.stop.wait(next_tick - now)
        elif now - next_tick > args.interval:
            next_tick = now
    cancelled_by_us.set()
    call.cancel()
    watcher.join(timeout=5)
    if prober is not None:
        prober.join(timeout=2)
    return {"checks": checks, "watch": watch_events, "watch_end": watch_end,
            "probes": probes}


if __name__ == "__main__":
    main()
