"""The SIGTERM cases: what happens to calls and health during shutdown.

Each case starts its own server, starts the observer (good_client.py in
observe mode: a Health/Watch stream opened and answered SERVING before the
signal, a Health/Check every 20 ms, and a listener probe), sets up its raw
HTTP/2 streams, sends SIGTERM and keeps serving its sockets until the
server has exited (or a cap). Times are relative to the SIGTERM.
"""

import math
import time
from collections import Counter

import h2raw
import harness

ADJUDICATE_PATH = "/halma.v1.HalmaRules/Adjudicate"
LEGAL_MOVES_PATH = "/halma.v1.HalmaRules/LegalMoves"
STREAMS = 32
CONNECTIONS = 4
# A Check that starts within this long after the SIGTERM may still have
# been answered before the server's signal thread ran.
SIGTERM_SETTLE = 0.05
# Slack on "exits within the grace period" for process exit itself.
EXIT_SLACK = 1.0
# The server is killed if it has not exited this long after the bound.
EXIT_CAP_EXTRA = 10.0
SLOW_CHUNKS = 20
SLOW_INTERVAL = 0.1
SLOW_BODY_BYTES = 2000
SLOW_SIGTERM_AFTER = 1.0
NO_BODY_WAIT = 0.5
SEND_TIMEOUT = 30.0


# An unknown length-delimited field (number 1000): a protobuf parser skips
# it, so it makes any request as large as wanted and still "legal enough".
PAD_FIELD_TAG = b"\xc2\x3e"


def _varint(n):
    out = bytearray()
    while n >= 0x80 and len(out) < 10:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def padded(message, size):
    """`message` (serialized) plus padding, `size` bytes in all."""
    room = size - len(message) - len(PAD_FIELD_TAG)
    for length_bytes in (1, 2, 3, 4):
        payload = room - length_bytes
        if payload >= 0 and len(_varint(payload)) == length_bytes:
            return message + PAD_FIELD_TAG + _varint(payload) + \
                b"\0" * payload
    return message


def _open_conns(port, n):
    conns = []
    for _ in range(n):
        c = h2raw.Conn(port, track=True)
        c.start()
        conns.append(c)
    return conns


def _pump_for(conns, seconds, uploads=True):
    t_end = time.monotonic() + seconds
    for _ in range(100000):
        if time.monotonic() >= t_end:
            return
        if uploads:
            for c in conns:
                c.service_uploads()
        h2raw.pump(conns, min(0.01, max(0.0, t_end - time.monotonic())))


def _streams(conns):
    return [st for c in conns for st in (c.streams or {}).values()]


class Case:
    """One shutdown scenario: prepare() before the SIGTERM, evaluate()
    after the server exited."""

    def __init__(self, env):
        self.env = env
        self.conns = []
        self.figures = {}
        self.failures = []
        self.summary = ""

    def exit_bound(self):
        return self.env.delay + self.env.grace + EXIT_SLACK


class InFlight(Case):
    name = "shutdown_in_flight"

    def prepare(self):
        h = self.env.pb.halma
        record = self.env.ctx.records()["largest"]
        self.record = record
        # As many Adjudicate calls as the server takes at once, replaying
        # or waiting for a slot (more would be load-shed with
        # RESOURCE_EXHAUSTED whatever the SIGTERM): with a queue, all of
        # them; the rest LegalMoves padded to the same size.
        self.adjudications = min(STREAMS, self.env.max_adjudications)
        adjudicate = h2raw.grpc_frame(record.serialized)
        legal = h2raw.grpc_frame(padded(h.LegalMovesRequest(
            variant=h.Variant(preset="classic-16x16")).SerializeToString(),
            len(record.serialized)))
        self.request_bytes = len(record.serialized)
        blocks = {
            "adjudicate": h2raw.header_block(h2raw.grpc_request_headers(
                self.env.port, ADJUDICATE_PATH)),
            "legal": h2raw.header_block(h2raw.grpc_request_headers(
                self.env.port, LEGAL_MOVES_PATH))}
        self.kinds = {}
        self.conns = _open_conns(self.env.port, CONNECTIONS)
        for i in range(STREAMS):
            c = self.conns[i % CONNECTIONS]
            kind = "adjudicate" if i < self.adjudications else "legal"
            sid = c.open_stream(blocks[kind])
            # The last byte of every body is held back, and then all 32
            # last bytes go out together just before the SIGTERM, so that
            # the calls are complete at once and still in flight.
            c.start_upload(sid, adjudicate if kind == "adjudicate" else legal,
                           chunk=16384, interval=0.0, hold=1)
            self.kinds[(id(c), sid)] = kind
        t_end = time.monotonic() + SEND_TIMEOUT
        for phase in (0, 1):
            if phase == 1:
                for c in self.conns:
                    c.release_uploads()
            for _ in range(1000000):
                if time.monotonic() >= t_end or all(
                        c.uploads_pending() == 0 or c.closed
                        for c in self.conns):
                    break
                for c in self.conns:
                    c.service_uploads()
                h2raw.pump(self.conns, 0.005 if phase == 0 else 0.0)
        self.sent = sum(1 for st in _streams(self.conns)
                        if not st.uploading)
        self.done_before = sum(1 for st in _streams(self.conns)
                               if st.outcome()[0] != "open")
        if self.sent < STREAMS:
            self.failures.append("only %d of %d requests could be sent in "
                                 "%.0f s" % (self.sent, STREAMS,
                                             SEND_TIMEOUT))

    def evaluate(self, t_sig):
        h = self.env.pb.halma
        outcomes = Counter()
        wrong = 0
        last = None
        for c in self.conns:
            for st in c.streams.values():
                kind = self.kinds.get((id(c), st.sid), "legal")
                name, t = st.outcome()
                outcomes[kind + ":" + name] += 1
                if t is not None:
                    last = t if last is None else max(last, t)
                if name != "status:OK":
                    continue
                try:
                    data = bytes(st.data[5:])
                    if kind == "adjudicate":
                        ok = h.AdjudicateResponse.FromString(
                            data).moves_played == len(self.record.moves)
                    else:
                        ok = h.LegalMovesResponse.FromString(data).count > 0
                except Exception:  # noqa: BLE001 - counted as wrong.
                    ok = False
                if not ok:
                    wrong += 1
        bad = STREAMS - outcomes.get("adjudicate:status:OK", 0) - \
            outcomes.get("legal:status:OK", 0)
        if bad:
            self.failures.append("%d of %d fully sent calls did not complete"
                                 " OK: %s" % (bad, STREAMS,
                                              dict(outcomes)))
        if wrong:
            self.failures.append("%d OK answers with a wrong moves_played"
                                 % wrong)
        self.figures.update({
            "record": self.record.figures(), "streams": STREAMS,
            "adjudicate_calls": self.adjudications,
            "legal_moves_calls": STREAMS - self.adjudications,
            "request_bytes": self.request_bytes,
            "fully_sent": self.sent, "completed_before_sigterm":
            self.done_before, "outcomes": dict(outcomes),
            "last_answer_s": None if last is None else round(last - t_sig, 3),
            "wrong_answers": wrong})
        self.summary = ("%d calls of %d B (%d Adjudicate %s, %d padded "
                        "LegalMoves) sent before SIGTERM (%d done before): "
                        "%s, last at %s s" % (
                            self.sent, self.request_bytes,
                            self.adjudications, self.record.name,
                            STREAMS - self.adjudications, self.done_before,
                            ",".join("%s=%d" % kv for kv in outcomes.items()),
                            self.figures["last_answer_s"]))


class BodiesArriving(Case):
    name = "shutdown_bodies_arriving"

    def prepare(self):
        h = self.env.pb.halma
        # LegalMoves (not limited in concurrency like Adjudicate), padded.
        request = padded(h.LegalMovesRequest(variant=h.Variant(
            preset="classic-16x16")).SerializeToString(), SLOW_BODY_BYTES)
        body = h2raw.grpc_frame(request)
        self.body_bytes = len(body)
        chunk = int(math.ceil(len(body) / float(SLOW_CHUNKS)))
        block = h2raw.header_block(h2raw.grpc_request_headers(
            self.env.port, LEGAL_MOVES_PATH))
        self.conns = _open_conns(self.env.port, CONNECTIONS)
        for i in range(STREAMS):
            c = self.conns[i % CONNECTIONS]
            sid = c.open_stream(block)
            c.start_upload(sid, body, chunk=chunk, interval=SLOW_INTERVAL)
        self.upload_started = time.monotonic()
        _pump_for(self.conns, SLOW_SIGTERM_AFTER)
        self.chunks_at_sigterm = sum(
            st.body_off for st in _streams(self.conns)) / float(
                STREAMS * len(body))

    def evaluate(self, t_sig):
        outcomes = Counter()
        upload_done = 0
        times = []
        for st in _streams(self.conns):
            name, t = st.outcome()
            if not st.uploading:
                upload_done += 1
            outcomes[name + ("" if not st.uploading else "(body cut)")] += 1
            if t is not None:
                times.append(t - t_sig)
        times.sort()
        self.figures.update({
            "streams": STREAMS, "body_bytes": self.body_bytes,
            "chunks": SLOW_CHUNKS, "chunk_interval_s": SLOW_INTERVAL,
            "uploaded_fraction_at_sigterm": round(self.chunks_at_sigterm, 2),
            "uploads_completed": upload_done, "outcomes": dict(outcomes),
            "outcome_times_s": {"first": round(times[0], 3) if times
                                else None, "last": round(times[-1], 3)
                                if times else None}})
        self.summary = ("%d slow LegalMoves uploads (%d B in %d chunks every"
                        " %.1f s, "
                        "%.0f%% sent at SIGTERM, %d finished uploading): %s"
                        ", answers %s..%s s" % (
                            STREAMS, self.body_bytes, SLOW_CHUNKS,
                            SLOW_INTERVAL, self.chunks_at_sigterm * 100,
                            upload_done, ",".join(
                                "%s=%d" % kv for kv in outcomes.items()),
                            self.figures["outcome_times_s"]["first"],
                            self.figures["outcome_times_s"]["last"]))


class NoBody(Case):
    name = "shutdown_no_body"

    def exit_bound(self):
        return self.env.grace / 2.0 + self.env.delay

    def prepare(self):
        block = h2raw.header_block(h2raw.grpc_request_headers(
            self.env.port, LEGAL_MOVES_PATH))
        self.conns = _open_conns(self.env.port, CONNECTIONS)
        for i in range(STREAMS):
            self.conns[i % CONNECTIONS].open_stream(block)
        _pump_for(self.conns, NO_BODY_WAIT, uploads=False)

    def evaluate(self, t_sig):
        bound = self.exit_bound()
        outcomes = Counter()
        late = 0
        times = []
        for st in _streams(self.conns):
            name, t = st.outcome()
            outcomes[name] += 1
            if t is None or t - t_sig > bound:
                late += 1
            if t is not None:
                times.append(t - t_sig)
        times.sort()
        if late:
            self.failures.append("%d of %d body-less streams not refused or "
                                 "reset within %.1f s of SIGTERM" % (
                                     late, STREAMS, bound))
        self.figures.update({
            "streams": STREAMS, "outcomes": dict(outcomes),
            "ended_s": {"first": round(times[0], 3) if times else None,
                        "last": round(times[-1], 3) if times else None},
            "late": late})
        self.summary = ("%d streams without body: %s, ended %s..%s s" % (
            STREAMS, ",".join("%s=%d" % kv for kv in outcomes.items()),
            self.figures["ended_s"]["first"], self.figures["ended_s"]["last"]))


CASES = {c.name: c for c in (InFlight, BodiesArriving, NoBody)}


class ShutdownEnv:
    def __init__(self, ctx, server):
        self.ctx = ctx
        self.server = server
        self.port = server.port
        self.pb = ctx.protos
        self.grace = harness.env_seconds(ctx.manifest,
                                         "HALMA_GRACE_PERIOD_SECONDS", 10.0)
        self.delay = harness.env_seconds(ctx.manifest,
                                         "HALMA_SHUTDOWN_DELAY_SECONDS", 0.0)
        # Adjudicate calls the server takes at once: those it replays (its
        # own start-up line, else the manifest, else no limit) and those
        # that may wait for a slot (its start-up line; none for a server
        # without a queue).
        limit = server.limit_from_listen_line("max_concurrent_adjudications")
        if not limit:
            try:
                limit = int(ctx.manifest["HALMA_MAX_CONCURRENT_ADJUDICATIONS"])
            except (KeyError, ValueError):
                limit = STREAMS
        queue = server.limit_from_listen_line("max_queue_length") or 0
        self.max_adjudications = max(1, limit) + queue


def _runs(checks, t_sig):
    """Consecutive equal answers merged: [answer, n, from_s, to_s]."""
    runs = []
    for t0, t1, _service, answer in checks:
        rel = round(t0 - t_sig, 3)
        if runs and runs[-1][0] == answer:
            runs[-1][1] += 1
            runs[-1][3] = rel
        else:
            runs.append([answer, 1, rel, rel])
    return runs


def judge_health(obs, t_sig, t_exit, delay):
    """Violations of: after SIGTERM, Check answers NOT_SERVING until the
    listener closes, then UNAVAILABLE; Watch reports NOT_SERVING."""
    failures = []
    checks = obs.get("checks", [])
    probes = obs.get("probes", {})
    last_open = probes.get("last_open")
    closed_at = probes.get("first_refused")
    after = [c for c in checks if c[0] >= t_sig + SIGTERM_SETTLE]
    serving = [c for c in after if c[3] == "SERVING"]
    if serving:
        failures.append("Check answered SERVING %d times after SIGTERM "
                        "(first at +%.3f s)" % (len(serving),
                                                serving[0][0] - t_sig))
    # Codes other than the three allowed ones, for any call answered after
    # the SIGTERM (one in flight at the signal included).
    answered_after = [c for c in checks if c[1] >= t_sig]
    other = Counter(c[3] for c in answered_after
                    if c[3] not in ("SERVING", "NOT_SERVING", "UNAVAILABLE"))
    if other:
        first = min(c[1] for c in answered_after
                    if c[3] in other) - t_sig
        failures.append("Check got %s after SIGTERM (first answered at "
                        "+%.3f s)" % (dict(other), first))
    early = [c for c in after if c[3] == "UNAVAILABLE" and last_open
             and c[1] < last_open]
    if early:
        failures.append("Check got UNAVAILABLE %d times while the listener "
                        "still accepted connections (first at +%.3f s)" % (
                            len(early), early[0][0] - t_sig))
    not_serving = sum(1 for c in after if c[3] == "NOT_SERVING")
    if delay > 0 and not not_serving:
        failures.append("no Check answered NOT_SERVING during the %.0f s "
                        "shutdown delay" % delay)
    watch = obs.get("watch", [])
    watch_after = [w for w in watch if w[0] >= t_sig]
    if not any(w[1] == "NOT_SERVING" for w in watch_after):
        failures.append("Watch did not report NOT_SERVING (got %s, end %s)"
                        % ([w[1] for w in watch_after],
                           obs.get("watch_end", {}).get("code")))
    if any(w[1] == "SERVING" and w[0] >= t_sig + SIGTERM_SETTLE
           for w in watch_after):
        failures.append("Watch reported SERVING after SIGTERM")
    end = obs.get("watch_end", {})
    figures = {
        "check_runs": _runs(checks, t_sig),
        "check_not_serving_after_sigterm": not_serving,
        "listener_closed_s": None if closed_at is None
        else round(closed_at - t_sig, 3),
        "listener_last_open_s": None if last_open is None
        else round(last_open - t_sig, 3),
        "watch": [[w[1], round(w[0] - t_sig, 3)] for w in watch],
        "watch_end": {"code": end.get("code"),
                      "s": round(end["t"] - t_sig, 3) if "t" in end
                      else None, "details": end.get("details")},
    }
    runs = " ".join("%s x%d [%+.2f..%+.2f]" % tuple(r)
                    for r in figures["check_runs"])
    text = "check: %s; watch: %s, end %s at %s s; listener closed at %s s" % (
        runs, " ".join("%s@%+.3f" % (w[0], w[1]) for w in figures["watch"]),
        figures["watch_end"]["code"], figures["watch_end"]["s"],
        figures["listener_closed_s"])
    return figures, failures, text


def run_case(ctx, name):
    """Runs one SIGTERM case on a fresh server; returns the result dict."""
    cls = CASES[name]
    t_start = time.monotonic()
    failures = []
    figures = {}
    server = None
    observer = None
    case = None
    line = "error"
    try:
        if name in ("shutdown_in_flight", "shutdown_bodies_arriving"):
            ctx.records()  # Built before the server under test starts.
        server = ctx.start_server()
        harness.warm_up(server.target, ctx.protos)
        env = ShutdownEnv(ctx, server)
        case = cls(env)
        observer = harness.GoodClient(server.target, ctx.protos,
                                      mode="observe", port=server.port,
                                      max_seconds=120.0)
        observer.wait_ready()
        observer.start()
        time.sleep(0.3)
        case.prepare()
        t_sig = server.sigterm()
        bound = case.exit_bound()
        cap = t_sig + bound + EXIT_CAP_EXTRA
        t_exit = None
        for _ in range(1000000):
            if not server.alive():
                t_exit = time.monotonic()
                break
            if time.monotonic() >= cap:
                break
            for c in case.conns:
                c.service_uploads()
            h2raw.pump(case.conns, 0.005)
        code = server.wait(0.0 if t_exit else 0.1)
        if t_exit is None and code is not None:
            t_exit = time.monotonic()
        if code is None:
            server.kill()
            failures.append("server still running %.0f s after SIGTERM: "
                            "killed" % (bound + EXIT_CAP_EXTRA))
        else:
            took = t_exit - t_sig
            if server.reap_leftovers():
                failures.append("processes %s of the server still ran 2 s "
                                "after it exited (killed)" % server.leftovers)
            if code != 0:
                failures.append("server exited with %s" % code)
            if took > bound:
                failures.append("server took %.2f s to exit (bound %.1f s)"
                                % (took, bound))
        _pump_for(case.conns, 0.2)
        for c in case.conns:
            c.close()
        case.evaluate(t_sig)
        time.sleep(0.3)
        obs = observer.stop()
        observer = None
        if "failed" in obs:
            failures.append("observer: " + obs["failed"])
            health, health_failures, health_text = {}, [], "observer failed"
        else:
            health, health_failures, health_text = judge_health(
                obs, t_sig, t_exit, env.delay)
        failures += case.failures + health_failures
        figures.update(case.figures)
        figures.update({
            "grace_s": env.grace, "delay_s": env.delay,
            "exit_bound_s": bound, "exit_code": code,
            "exit_s": None if t_exit is None else round(t_exit - t_sig, 3),
            "health": health})
        line = "exit %s after %s s (bound %.1f s); %s; %s" % (
            code, figures["exit_s"], bound, case.summary, health_text)
    except Exception as e:  # noqa: BLE001 - reported as the case's failure.
        failures.append("%s: %s" % (type(e).__name__, e))
        import traceback
        traceback.print_exc()
    finally:
        if observer is not None:
            observer.kill()
        if case is not None:
            for c in case.conns:
                c.close()
        if server is not None:
            if server.alive():
                server.kill()
            server.close()
    if server is not None:
        figures["server_stderr_tail"] = [
            text for _, text in server.stderr_lines[-8:]]
    return {"name": name, "passed": not failures, "failures": failures,
            "figures": figures, "line": line,
            "runtime_s": round(time.monotonic() - t_start, 1)}
