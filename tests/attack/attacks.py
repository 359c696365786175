"""The attacks that run against a serving halma_server (all but SIGTERM).

Each attack is a function of an AttackEnv (the fresh server's port, the
duration, an abort event set by the RSS safety valve, ...) that returns
(figures, failures, summary): a dict for the JSON report, a list of bound
violations specific to the attack (the memory and good-client bounds are
checked by the runner), and a short text for the attack's report line.
Every loop below is bounded both by a count and by a deadline.
"""

import select
import socket
import threading
import time
from collections import Counter

import grpc

import h2raw
import harness

LEGAL_MOVES_PATH = "/halma.v1.HalmaRules/LegalMoves"
ADJUDICATE_PATH = "/halma.v1.HalmaRules/Adjudicate"

# streams_no_body
NO_BODY_STREAMS = 20000
NO_BODY_STREAMS_FULL = 50000
NO_BODY_CONNECTIONS_MANY = 64
# rapid_reset
RAPID_RESET_MAX_STREAMS = 2000000
RAPID_RESET_MAX_STREAMS_FULL = 10000000
# Streams queued per connection per loop round, and the queue level (bytes
# not yet taken by the kernel) under which more are queued.
FLOOD_BATCH = 256
LOW_WATER = 64 * 1024
MAX_RECONNECTS = 20000
# Send buffer of flood sockets: small, so that a stream counts as sent only
# when the server (its receive buffer) has taken it, not when the local
# kernel has queued megabytes that the server will never read.
FLOOD_SNDBUF = 64 * 1024
# How long a new flood connection waits for the server's SETTINGS.
SETTINGS_WAIT = 1.0
# large_requests / bursts / expensive_loop
LARGE_CLIENTS = 64
CALL_TIMEOUT = 10.0
MAX_CALLS_PER_CLIENT = 100000
BURST_ROUNDS = 3
BURST_ROUNDS_FULL = 4
BURST_SECONDS = 2.0
BURST_SECONDS_FULL = 5.0
# A failed recovery makes later rounds wait only this long (the bound has
# already failed; the rounds still show whether memory keeps growing).
BURST_WAIT_AFTER_FAILURE = 3.0
# idle_connections
IDLE_TCP_CONNECTIONS = 64
IDLE_H2_CONNECTIONS = 64
IDLE_CAP = 40.0
IDLE_CAP_FULL = 150.0
IDLE_DEFAULT_BOUND = 30.0
IDLE_MARGIN = 5.0


class AttackEnv:
    """What an attack gets: the server under attack and the run's context."""

    def __init__(self, ctx, server, abort, sampler, idle):
        self.ctx = ctx
        self.server = server
        self.port = server.port
        self.target = server.target
        self.abort = abort
        self.sampler = sampler
        self.idle = idle
        self.full = ctx.full
        self.duration = ctx.duration
        self.pb = ctx.protos
        self.started = time.monotonic()

    def deadline(self, seconds=None):
        return time.monotonic() + (self.duration if seconds is None
                                   else seconds)

    def log(self, text):
        self.ctx.log(text)


def fmt_counter(counter, limit=4):
    if not counter:
        return "none"
    items = sorted(counter.items(), key=lambda kv: -kv[1])[:limit]
    return ",".join("%s=%d" % kv for kv in items)


# --- raw HTTP/2 floods ---------------------------------------------------

def _new_conn(env, stats, ack_settings=True):
    try:
        c = h2raw.Conn(env.port, ack_settings=ack_settings)
        c.sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, FLOOD_SNDBUF)
    except OSError as e:
        stats["connect_errors"][type(e).__name__] += 1
        return None
    c.start()
    return c


def _flood(env, n_conns, per_conn, with_data=False, rst=False,
           hold=True, ack_settings=True):
    """n_conns connections, each opening up to `per_conn` streams (HEADERS,
    optional DATA with a whole request, optional RST_STREAM) as fast as the
    sockets take them, reconnecting when the server closes one. With
    `hold`, keeps reading until the deadline once all streams are open.

    A connection floods only once the server's SETTINGS have arrived (or
    SETTINGS_WAIT has passed), so that with `ack_settings` our SETTINGS ACK
    goes out before the first stream and the server's limits are in force
    (a server may rely on its settings only once they are acknowledged);
    without it the client never acknowledges them."""
    deadline = env.deadline()
    block = h2raw.header_block(h2raw.grpc_request_headers(
        env.port, LEGAL_MOVES_PATH))
    data = None
    if with_data:
        h = env.pb.halma
        data = h2raw.grpc_frame(h.LegalMovesRequest(
            variant=h.Variant(preset="classic-16x16")).SerializeToString())
    stats = {"connect_errors": Counter()}
    agg = h2raw.ConnStats()
    conns = [_new_conn(env, stats, ack_settings) for _ in range(n_conns)]
    opened = [0] * n_conns
    reconnects = 0
    window_waits = 0
    all_open_at = None
    t0 = time.monotonic()
    max_rounds = 10000000
    for _ in range(max_rounds):
        now = time.monotonic()
        if now >= deadline or env.abort.is_set():
            break
        busy = False
        for i, c in enumerate(conns):
            if c is not None and c.goaways and not c.closed:
                # Told to go away: an attacker reconnects at once.
                c.close("GOAWAY received")
            if c is None or c.closed:
                if c is not None:
                    agg.absorb(c)
                    conns[i] = None
                if opened[i] < per_conn and reconnects < MAX_RECONNECTS:
                    reconnects += 1
                    conns[i] = _new_conn(env, stats, ack_settings)
                continue
            if opened[i] >= per_conn or len(c.out) >= LOW_WATER:
                continue
            if not c.frames_in.get("SETTINGS") and \
                    now - c.opened_at < SETTINGS_WAIT:
                continue
            k = min(FLOOD_BATCH, per_conn - opened[i])
            if data is not None:
                k = min(k, max(0, c.send_window) // len(data))
                if k == 0:
                    window_waits += 1
                    continue
            k = c.flood(k, block, data=data, rst=rst)
            opened[i] += k
            busy = busy or k > 0
        if all_open_at is None and all(o >= per_conn for o in opened):
            all_open_at = time.monotonic() - t0
            if not hold:
                break
        live = [c for c in conns if c is not None]
        if not live and reconnects >= MAX_RECONNECTS:
            break
        h2raw.pump(live, 0.0 if busy else 0.01)
    # Last answers, then close everything.
    live = [c for c in conns if c is not None]
    t_end = time.monotonic() + 0.2
    for _ in range(20):
        if time.monotonic() >= t_end:
            break
        h2raw.pump(live, 0.01)
    for c in live:
        agg.absorb(c)
        c.close()
    elapsed = time.monotonic() - t0
    figures = agg.figures()
    figures.update({
        "connections_wanted": n_conns,
        "streams_wanted": n_conns * per_conn,
        "reconnects": reconnects,
        "connect_errors": dict(stats["connect_errors"]),
        "seconds": round(elapsed, 2),
        "streams_per_s": round(figures["streams_opened"] / max(
            all_open_at or elapsed, 1e-9)),
        "all_streams_open_after_s": None if all_open_at is None
        else round(all_open_at, 2),
        "window_waits": window_waits,
        "aborted_by_safety_valve": env.abort.is_set(),
    })
    return figures


def _flood_summary(f):
    return ("streams %d (%d/s) on %d conns (%d reconnects), rst recv %s, "
            "goaway %s, closed by server %d, grpc-status %s, server "
            "MAX_CONCURRENT_STREAMS %s" % (
                f["streams_opened"], f["streams_per_s"], f["connections"],
                f["reconnects"], fmt_counter(f["rst_received"]),
                fmt_counter(f["goaway_received"]), f["closed_by_server"],
                fmt_counter(f["grpc_status_received"]),
                f["server_settings"].get("MAX_CONCURRENT_STREAMS", "unset")))


def streams_no_body(env):
    n = NO_BODY_STREAMS_FULL if env.full else NO_BODY_STREAMS
    f = _flood(env, 1, n)
    return f, [], _flood_summary(f)


def streams_no_body_noack(env):
    n = NO_BODY_STREAMS_FULL if env.full else NO_BODY_STREAMS
    f = _flood(env, 1, n, ack_settings=False)
    return f, [], _flood_summary(f)


def streams_no_body_64conn(env):
    n = NO_BODY_STREAMS_FULL if env.full else NO_BODY_STREAMS
    f = _flood(env, NO_BODY_CONNECTIONS_MANY, n // NO_BODY_CONNECTIONS_MANY)
    return f, [], _flood_summary(f)


def streams_no_body_held(env):
    """64 connections that stay within the server's advertised
    MAX_CONCURRENT_STREAMS: each opens as many body-less streams as allowed
    (at most N/64) and holds them to the end, opening a new one whenever the
    server ends one (and reconnecting when it closes a connection), as a
    slow-body client that follows the protocol would."""
    deadline = env.deadline()
    n_conns = NO_BODY_CONNECTIONS_MANY
    n = NO_BODY_STREAMS_FULL if env.full else NO_BODY_STREAMS
    per_conn = n // n_conns
    max_opened = 10 * n
    block = h2raw.header_block(h2raw.grpc_request_headers(
        env.port, LEGAL_MOVES_PATH))
    stats = {"connect_errors": Counter()}
    agg = h2raw.ConnStats()

    def connect():
        try:
            c = h2raw.Conn(env.port, track=True)
        except OSError as e:
            stats["connect_errors"][type(e).__name__] += 1
            return None
        c.start()
        return c

    conns = [connect() for _ in range(n_conns)]
    t_settings = time.monotonic() + 2.0
    for _ in range(1000):
        live = [c for c in conns if c is not None]
        if time.monotonic() >= t_settings or all(
                c.frames_in.get("SETTINGS") for c in live):
            break
        h2raw.pump(live, 0.01)
    opened_total = 0
    reconnects = 0
    first_end = None
    held_samples = []
    t0 = time.monotonic()
    for _ in range(10000000):
        now = time.monotonic()
        if now >= deadline or env.abort.is_set():
            break
        for i, c in enumerate(conns):
            if c is not None and c.goaways and not c.closed:
                c.close("GOAWAY received")
            if c is None or c.closed:
                if c is not None:
                    agg.absorb(c)
                    if first_end is None:
                        first_end = now - t0
                if reconnects < MAX_RECONNECTS and opened_total < max_opened:
                    reconnects += 1
                    conns[i] = connect()
                else:
                    conns[i] = None
                continue
            allowed = min(per_conn, c.peer_settings.get(
                "MAX_CONCURRENT_STREAMS", per_conn))
            open_now = sum(1 for st in c.streams.values()
                           if st.outcome()[0] == "open")
            if open_now < len(c.streams) and first_end is None:
                first_end = now - t0
            while open_now < allowed and opened_total < max_opened:
                c.open_stream(block)
                open_now += 1
                opened_total += 1
        live = [c for c in conns if c is not None]
        h2raw.pump(live, 0.05)
        if len(held_samples) < 1000:
            held_samples.append(sum(
                1 for c in live for st in c.streams.values()
                if st.outcome()[0] == "open"))
    live = [c for c in conns if c is not None]
    held_end = sum(1 for c in live for st in c.streams.values()
                   if st.outcome()[0] == "open")
    for c in live:
        agg.absorb(c)
        c.close()
    f = agg.figures()
    f.update({"connections_wanted": n_conns, "streams_per_conn_max":
              per_conn, "streams_opened_total": opened_total,
              "reconnects": reconnects, "streams_held_at_end": held_end,
              "streams_held_max": max(held_samples or [0]),
              "first_stream_or_conn_end_s": None if first_end is None
              else round(first_end, 2),
              "connect_errors": dict(stats["connect_errors"]),
              "aborted_by_safety_valve": env.abort.is_set()})
    summary = ("held up to %d body-less streams on %d conns (limit %s per "
               "conn), %d opened, %d reconnects, rst recv %s, grpc-status %s,"
               " first end at %s s" % (
                   f["streams_held_max"], n_conns,
                   f["server_settings"].get("MAX_CONCURRENT_STREAMS",
                                            "unset"), opened_total,
                   reconnects, fmt_counter(f["rst_received"]),
                   fmt_counter(f["grpc_status_received"]),
                   f["first_stream_or_conn_end_s"]))
    return f, [], summary


def _rapid_reset_count(env):
    return RAPID_RESET_MAX_STREAMS_FULL if env.full else \
        RAPID_RESET_MAX_STREAMS


def rapid_reset(env):
    f = _flood(env, 1, _rapid_reset_count(env), rst=True, hold=False)
    f["resets_sent"] = f["streams_opened"]
    return f, [], _flood_summary(f)


def rapid_reset_data(env):
    f = _flood(env, 1, _rapid_reset_count(env), with_data=True, rst=True,
               hold=False)
    f["resets_sent"] = f["streams_opened"]
    return f, [], _flood_summary(f) + ", window waits %d" % f["window_waits"]


# --- grpcio floods -------------------------------------------------------

def attacker_channel(target):
    # A local subchannel pool: each attacker channel has its own TCP
    # connection (grpcio would otherwise share one among equal channels).
    return grpc.insecure_channel(target, options=[
        ("grpc.use_local_subchannel_pool", 1),
        ("grpc.max_send_message_length", -1),
        ("grpc.max_receive_message_length", 1 << 24),
        ("grpc.enable_retries", 0)])


def grpc_flood(env, clients, method, request, seconds, verify=None):
    """`clients` threads, each with its own channel, calling `method` with
    the serialized `request` in a loop for `seconds`. Codes, latencies and
    message samples are counted."""
    deadline = time.monotonic() + seconds
    lock = threading.Lock()
    codes = Counter()
    details = {}
    empty_details = Counter()
    wrong = [0]
    latencies = []
    started = threading.Barrier(clients + 1, timeout=30)

    def client():
        channel = attacker_channel(env.target)
        call = channel.unary_unary(method)
        local_lat = []
        local_codes = Counter()
        try:
            started.wait()
        except threading.BrokenBarrierError:
            pass
        for _ in range(MAX_CALLS_PER_CLIENT):
            now = time.monotonic()
            if now >= deadline or env.abort.is_set():
                break
            timeout = min(CALL_TIMEOUT, deadline - now + 5.0)
            try:
                answer = call(request, timeout=timeout)
                code = "OK"
                if verify is not None and not verify(answer):
                    with lock:
                        wrong[0] += 1
            except grpc.RpcError as e:
                code = e.code().name
                text = e.details() or ""
                with lock:
                    if not text:
                        empty_details[code] += 1
                    if code not in details:
                        details[code] = text[:200]
            local_codes[code] += 1
            local_lat.append(time.monotonic() - now)
        channel.close()
        with lock:
            codes.update(local_codes)
            latencies.extend(local_lat)

    threads = [threading.Thread(target=client, daemon=True)
               for _ in range(clients)]
    for t in threads:
        t.start()
    try:
        started.wait()
    except threading.BrokenBarrierError:
        pass
    t0 = time.monotonic()
    for t in threads:
        t.join(timeout=max(0.0, deadline - time.monotonic()) +
               CALL_TIMEOUT + 5.0)
    elapsed = time.monotonic() - t0
    calls = sum(codes.values())
    return {
        "clients": clients,
        "request_bytes": len(request),
        "calls": calls,
        "calls_per_s": round(calls / max(elapsed, 1e-9), 1),
        "mib_sent": round(calls * len(request) / 2 ** 20, 1),
        "codes": dict(codes),
        "code_details": details,
        "empty_details": dict(empty_details),
        "wrong_answers": wrong[0],
        "latency": harness.latency_summary(latencies),
        "seconds": round(elapsed, 2),
        "threads_still_running": sum(1 for t in threads if t.is_alive()),
        "aborted_by_safety_valve": env.abort.is_set(),
    }


def large_request(env):
    """An Adjudicate request just under the message limit: many short
    moves (not legal, the request just needs to be large)."""
    h = env.pb.halma
    limit = env.ctx.limits["max_message_bytes"]
    base = h.AdjudicateRequest(variant=h.Variant(preset="classic-16x16"))
    size = base.ByteSize()
    moves = []
    per_move = 7  # tag, length, "a1-b2"
    count = (limit - 16 - size) // per_move
    for i in range(count):
        moves.append("a1-b2" if i % 2 == 0 else "b2-a1")
    data = h.AdjudicateRequest(variant=h.Variant(preset="classic-16x16"),
                               moves=moves).SerializeToString()
    assert len(data) < limit, (len(data), limit)
    return data


def _grpc_summary(f):
    return ("%d clients, %d calls (%.0f/s, %d B each, %.0f MiB), codes %s, "
            "attacker p50/p99 %s/%s ms" % (
                f["clients"], f["calls"], f["calls_per_s"],
                f["request_bytes"], f["mib_sent"],
                fmt_counter(Counter(f["codes"])), f["latency"]["p50_ms"],
                f["latency"]["p99_ms"]))


def large_requests(env):
    request = large_request(env)
    f = grpc_flood(env, LARGE_CLIENTS, ADJUDICATE_PATH, request,
                   env.duration)
    return f, [], _grpc_summary(f)


def bursts(env):
    request = large_request(env)
    rounds = BURST_ROUNDS_FULL if env.full else BURST_ROUNDS
    seconds = BURST_SECONDS_FULL if env.full else BURST_SECONDS
    ratio = env.ctx.bounds["recovery_ratio"]
    wait = env.ctx.bounds["recovery_seconds"]
    per_round = []
    failures = []
    failed_once = False
    for r in range(rounds):
        if env.abort.is_set():
            break
        t_round = time.monotonic()
        f = grpc_flood(env, LARGE_CLIENTS, ADJUDICATE_PATH, request, seconds)
        last = r == rounds - 1
        ok, took, rss = harness.wait_for_recovery(
            env.server, env.idle, ratio,
            BURST_WAIT_AFTER_FAILURE if failed_once and not last else wait)
        peak = env.sampler.peak(t_round)
        per_round.append({"round": r + 1, "peak_mib": harness.mib(peak),
                          "after_mib": harness.mib(rss),
                          "recovered": ok, "recovery_s": round(took, 2),
                          "calls": f["calls"], "codes": f["codes"]})
        if not ok:
            failed_once = True
            failures.append("round %d: RSS %.1f MiB not within %d%% of idle "
                            "%.1f MiB after %.1f s" % (
                                r + 1, rss / 2 ** 20, ratio * 100,
                                env.idle / 2 ** 20, took))
    figures = {"rounds": per_round, "round_seconds": seconds,
               "clients": LARGE_CLIENTS, "request_bytes": len(request)}
    if per_round and per_round[-1]["round"] == rounds:
        # The last round waited the full recovery time after the last
        # burst: the runner takes that as the attack's recovery.
        failures = failures[:-1] if not per_round[-1]["recovered"] \
            else failures
        figures["final_recovery"] = (per_round[-1]["recovered"],
                                     per_round[-1]["recovery_s"], rss)
    summary = "rounds (peak/after MiB, recovery s): " + " ".join(
        "%s/%s/%s%s" % (p["peak_mib"], p["after_mib"], p["recovery_s"],
                        "" if p["recovered"] else "!") for p in per_round)
    return figures, failures, summary


def expensive_loop(clients):
    def attack(env):
        record = env.ctx.records()["expensive"]
        h = env.pb.halma
        expected = len(record.moves)

        def verify(data):
            try:
                return h.AdjudicateResponse.FromString(data).moves_played \
                    == expected
            except Exception:  # noqa: BLE001 - a bad answer is counted.
                return False

        f = grpc_flood(env, clients, ADJUDICATE_PATH, record.serialized,
                       env.duration, verify=verify)
        f["record"] = record.figures()
        failures = []
        for code, n in f["codes"].items():
            if code not in ("OK", "RESOURCE_EXHAUSTED"):
                failures.append("%d attacker calls got %s (%s)" % (
                    n, code, f["code_details"].get(code, "")))
        if f["empty_details"].get("RESOURCE_EXHAUSTED"):
            failures.append("%d RESOURCE_EXHAUSTED without a message naming "
                            "the limit" % f["empty_details"][
                                "RESOURCE_EXHAUSTED"])
        if f["wrong_answers"]:
            failures.append("%d OK answers with a wrong moves_played"
                            % f["wrong_answers"])
        summary = _grpc_summary(f) + ", record %s (%d moves, %d hops)" % (
            record.name, expected, record.hops)
        if "RESOURCE_EXHAUSTED" in f["code_details"]:
            summary += ", RESOURCE_EXHAUSTED says %r" % f["code_details"][
                "RESOURCE_EXHAUSTED"][:80]
        return f, failures, summary
    return attack


SUGGEST_PATH = "/halma.v1.HalmaRules/SuggestMove"
# The largest board, the most hints.
SUGGEST_VARIANT = "classic-16x16"
SUGGEST_CANDIDATES = 16


def suggest_loop(clients):
    """`clients` clients looping the most expensive SuggestMove the server
    allows: the largest board, a node budget at the server's cap
    (max_suggest_nodes, from its start-up line) and every candidate. The
    searches take the admission gate's slots; the rest wait in its queue or
    are refused; memory stays the preallocated workspaces'."""
    def attack(env):
        h = env.pb.halma
        cap = env.server.limit_from_listen_line("max_suggest_nodes")
        if not cap:
            return {}, ["no max_suggest_nodes in the start-up line"], ""
        request = h.SuggestMoveRequest(max_nodes=cap,
                                       candidates=SUGGEST_CANDIDATES)
        request.variant.preset = SUGGEST_VARIANT

        def verify(data):
            try:
                answer = h.SuggestMoveResponse.FromString(data)
            except Exception:  # noqa: BLE001 - a bad answer is counted.
                return False
            return bool(answer.move.path) and 0 < answer.nodes

        f = grpc_flood(env, clients, SUGGEST_PATH,
                       request.SerializeToString(), env.duration,
                       verify=verify)
        f["max_nodes"] = cap
        failures = []
        for code, n in f["codes"].items():
            if code not in ("OK", "RESOURCE_EXHAUSTED"):
                failures.append("%d attacker calls got %s (%s)" % (
                    n, code, f["code_details"].get(code, "")))
        if f["empty_details"].get("RESOURCE_EXHAUSTED"):
            failures.append("%d RESOURCE_EXHAUSTED without a message naming "
                            "the limit" % f["empty_details"][
                                "RESOURCE_EXHAUSTED"])
        if f["wrong_answers"]:
            failures.append("%d OK answers without a move" % f["wrong_answers"])
        if not f["codes"].get("OK"):
            failures.append("no search was answered")
        summary = _grpc_summary(f) + ", %s, max_nodes %d, %d candidates" % (
            SUGGEST_VARIANT, cap, SUGGEST_CANDIDATES)
        if "RESOURCE_EXHAUSTED" in f["code_details"]:
            summary += ", RESOURCE_EXHAUSTED says %r" % f["code_details"][
                "RESOURCE_EXHAUSTED"][:80]
        return f, failures, summary
    return attack


# --- idle connections ----------------------------------------------------

class TcpOnly:
    """A TCP connection that sends nothing at all."""

    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=5)
        self.sock.setblocking(False)
        self.fd = self.sock.fileno()
        self.opened_at = time.monotonic()
        self.closed_at = None
        self.close_reason = None
        self.bytes_in = 0

    @property
    def closed(self):
        return self.closed_at is not None

    def read(self):
        for _ in range(8):
            try:
                data = self.sock.recv(65536)
            except (BlockingIOError, InterruptedError):
                return
            except OSError as e:
                self._close("recv: " + (e.strerror or str(e)))
                return
            if not data:
                self._close("EOF")
                return
            self.bytes_in += len(data)

    def _close(self, reason):
        if self.closed_at is None:
            self.closed_at = time.monotonic()
            self.close_reason = reason
            self.sock.close()

    def close(self):
        self._close("closed by client")


def _wait_closed(groups, until, abort):
    """Reads every connection until all are closed or `until`."""
    for _ in range(100000):
        live = [c for g in groups for c in g if not c.closed]
        if not live or time.monotonic() >= until or abort.is_set():
            return
        poller = select.poll()
        by_fd = {}
        for c in live:
            if isinstance(c, h2raw.Conn):
                c.flush()
                if c.closed:
                    continue
            poller.register(c.fd, select.POLLIN)
            by_fd[c.fd] = c
        for fd, _ in poller.poll(100):
            by_fd[fd].read()


def _close_times(conns, t_ref):
    times = sorted(c.closed_at - t_ref for c in conns
                   if c.closed_at is not None
                   and c.close_reason != "closed by client")
    return times


def idle_connections(env):
    m = env.ctx.manifest
    bounds = {
        "tcp_silent": harness.env_seconds(
            m, "HALMA_HANDSHAKE_TIMEOUT_SECONDS", IDLE_DEFAULT_BOUND),
        "h2_silent": harness.env_seconds(
            m, "HALMA_IDLE_TIMEOUT_SECONDS", IDLE_DEFAULT_BOUND),
        "stream_no_body": harness.env_seconds(
            m, "HALMA_STREAM_READ_TIMEOUT_SECONDS", IDLE_DEFAULT_BOUND),
    }
    cap = IDLE_CAP_FULL if env.full else IDLE_CAP
    t0 = time.monotonic()
    tcp = []
    for _ in range(IDLE_TCP_CONNECTIONS):
        try:
            tcp.append(TcpOnly(env.port))
        except OSError:
            pass
    h2s = []
    for _ in range(IDLE_H2_CONNECTIONS):
        try:
            c = h2raw.Conn(env.port, track=True)
        except OSError:
            continue
        c.start(big_window=False)
        h2s.append(c)
    stream_conn = h2raw.Conn(env.port, track=True)
    stream_conn.start(big_window=False)
    sid = stream_conn.open_stream(h2raw.header_block(
        h2raw.grpc_request_headers(env.port, LEGAL_MOVES_PATH)))
    # Everything is sent; from now on these clients only answer SETTINGS
    # and PING (as a live but silent client would) and read.
    opened = {"tcp_silent": tcp, "h2_silent": h2s,
              "stream_no_body": [stream_conn]}
    needed = max(bounds.values()) + IDLE_MARGIN + 1.0
    _wait_closed(opened.values(), t0 + min(cap, needed), env.abort)
    waited = time.monotonic() - t0
    st = stream_conn.streams[sid]
    outcome, t_stream = st.outcome()
    figures = {"cap_s": cap, "waited_s": round(waited, 1),
               "bounds_s": bounds, "groups": {}}
    failures = []
    notes = []
    parts = []
    for name, conns in opened.items():
        times = _close_times(conns, t0)
        bound = bounds[name]
        if name == "stream_no_body":
            # The stream must be ended by the server in time; the
            # connection's close is reported.
            ok = t_stream is not None and t_stream - t0 <= bound + IDLE_MARGIN
            judged = ok or t_stream is not None or waited >= bound + IDLE_MARGIN
            if not judged:
                notes.append("no-body stream: bound %.0f s (+%.0f s) is past "
                             "the %.0f s wait, not judged" % (
                                 bound, IDLE_MARGIN, waited))
                ok = True
            group = {"connections": 1, "stream_outcome": outcome,
                     "judged": judged,
                     "stream_ended_s": None if t_stream is None
                     else round(t_stream - t0, 2),
                     "closed": len(times),
                     "closed_s": [round(t, 2) for t in times]}
            if not ok:
                failures.append(
                    "stream without body not ended by the server within "
                    "%.0f s (+%.0f s): %s" % (bound, IDLE_MARGIN,
                                              "after %.1f s" % (t_stream - t0)
                                              if t_stream else "never, in "
                                              "%.0f s" % waited))
            parts.append("no-body stream: %s at %s s, conn closed %s" % (
                outcome, group["stream_ended_s"],
                ("at %.1f s" % times[0]) if times else "no"))
        else:
            late = len(conns) - sum(1 for t in times
                                    if t <= bound + IDLE_MARGIN)
            judged = waited >= bound + IDLE_MARGIN or len(times) == \
                len(conns) or any(t > bound + IDLE_MARGIN for t in times)
            if late and not judged:
                # The bound ends after this mode's cap: what was measured is
                # reported, but a connection still open is no failure.
                notes.append("%s: bound %.0f s (+%.0f s) is past the %.0f s "
                             "wait, not judged" % (name, bound, IDLE_MARGIN,
                                                   waited))
                late = 0
            group = {"connections": len(conns), "closed": len(times),
                     "judged": judged,
                     "closed_within_bound": len(conns) - late,
                     "first_s": round(times[0], 2) if times else None,
                     "median_s": round(times[len(times) // 2], 2)
                     if times else None,
                     "last_s": round(times[-1], 2) if times else None,
                     "goaway_first": sum(1 for c in conns
                                         if getattr(c, "goaways", None))}
            if late:
                failures.append(
                    "%s: %d of %d connections not closed within %.0f s "
                    "(+%.0f s)" % (name, late, len(conns), bound,
                                   IDLE_MARGIN))
            parts.append("%s: %d/%d closed (first/median/last %s/%s/%s s)"
                         % (name, len(times), len(conns), group["first_s"],
                            group["median_s"], group["last_s"]))
        group["bound_s"] = bound
        figures["groups"][name] = group
    for conns in opened.values():
        for c in conns:
            c.close()
    summary = "; ".join(parts + notes) + "; waited %.0f s (cap %.0f s)" % (
        waited, cap)
    figures["notes"] = notes
    return figures, failures, summary
