"""The soak's load: grpc.aio calls with a fixed number in flight.

`channels` channels, each with its own connection (a local subchannel
pool: otherwise gRPC would share one connection between channels with the
same target and arguments), and `per_channel` workers on each. A worker
takes the next request of the mix, awaits its answer, judges it and goes
on, so that channels * per_channel calls are in flight until the count is
reached or the time is up. Everything goes through generic calls with
bytes (no serializer): the requests were serialized once, when the mix was
built, and the undecodable ones could not be sent any other way.
"""

import array
import asyncio
import time

import grpc

CHANNEL_OPTIONS = [("grpc.use_local_subchannel_pool", 1)]
MAX_FAILURE_SAMPLES = 20


class Stats:
    """What the load saw. `done` is read by the monitor thread."""

    def __init__(self):
        self.done = 0
        self.issued = 0
        self.unexpected = 0
        self.by_kind = {}  # kind -> [calls, unexpected]
        self.by_variant = {}  # variant label -> calls
        self.by_code = {}  # code name -> calls
        self.by_method = {}  # method -> calls
        self.failures = []  # The first few, with the request kind.
        self.failures_by_kind = {}
        self.latencies = array.array("d")
        self.t_start = None
        self.t_end = None
        self.timed_out = False
        self.stopped_by = None

    def record(self, request, code, seconds, problem):
        self.done += 1
        self.latencies.append(seconds)
        entry = self.by_kind.get(request.kind)
        if entry is None:
            entry = self.by_kind[request.kind] = [0, 0]
        entry[0] += 1
        self.by_variant[request.variant] = \
            self.by_variant.get(request.variant, 0) + 1
        self.by_code[code.name] = self.by_code.get(code.name, 0) + 1
        self.by_method[request.method] = \
            self.by_method.get(request.method, 0) + 1
        if problem is not None:
            entry[1] += 1
            self.unexpected += 1
            self.failures_by_kind[request.kind] = \
                self.failures_by_kind.get(request.kind, 0) + 1
            if len(self.failures) < MAX_FAILURE_SAMPLES:
                self.failures.append({
                    "request": self.done, "kind": request.kind,
                    "variant": request.variant, "method": request.method,
                    "code": code.name, "problem": problem[:400]})


def judge(request, code, details, answer):
    """None when the answer is the one expected, else what is wrong."""
    if code != request.code:
        return "code %s, expected %s: %s" % (code.name, request.code.name,
                                             (details or "")[:300])
    if code != grpc.StatusCode.OK:
        if not details:
            return "%s with an empty message" % code.name
        if request.field and not details.startswith(request.field + ":"):
            return "message %r does not start with %r" % (details[:200],
                                                          request.field)
        return None
    if request.check is not None:
        try:
            problem = request.check(answer)
        except Exception as e:  # noqa: BLE001 (an unparsable answer)
            problem = "answer cannot be read: %r" % e
        if problem:
            return problem
    digest = hash(answer)
    if request.digest is None:
        request.digest = digest
    elif request.digest != digest:
        return "answer differs from an earlier answer to the same request"
    return None


async def one_call(stub, request, deadline):
    t0 = time.perf_counter()
    try:
        answer = await stub(request.payload, timeout=deadline)
        code, details = grpc.StatusCode.OK, None
    except grpc.aio.AioRpcError as e:
        answer, code, details = None, e.code(), e.details()
    return answer, code, details, time.perf_counter() - t0


async def worker(stubs, mix, rng, stats, total, t_limit, deadline, stop):
    for _ in range(total):
        if stats.issued >= total or stop.is_set():
            return
        if time.monotonic() >= t_limit:
            stats.timed_out = True
            return
        stats.issued += 1
        request = mix.pick(rng)
        answer, code, details, seconds = await one_call(
            stubs[request.method], request, deadline)
        stats.record(request, code, seconds,
                     judge(request, code, details, answer))


async def watch(server, stats, stop, t_limit, log, every=10.0, tick=0.5):
    """Stops the load if the server dies; logs progress now and then."""
    next_log = time.monotonic() + every
    for _ in range(int((t_limit - time.monotonic() + 120) / tick)):
        if stop.is_set():
            return
        await asyncio.sleep(tick)
        if not server.alive():
            stats.stopped_by = "the server exited (code %s)" % \
                server.process.poll()
            stop.set()
        now = time.monotonic()
        if now >= next_log:
            next_log = now + every
            elapsed = now - stats.t_start
            log("%d requests answered in %.0f s (%.0f/s), %d unexpected" % (
                stats.done, elapsed, stats.done / max(elapsed, 1e-9),
                stats.unexpected))
        if now >= t_limit + 60:
            break
    stop.set()


async def run_load(server, mix, rng, total, max_seconds, channels,
                   per_channel, deadline, log, stats=None):
    """Runs the load to `total` answers or `max_seconds`; returns Stats
    (`stats`, when given, so that a monitor can read it meanwhile)."""
    stats = stats if stats is not None else Stats()
    stop = asyncio.Event()
    methods = sorted({r.method for rs in mix.by_kind.values() for r in rs})
    opened = [grpc.aio.insecure_channel(server.target,
                                        options=CHANNEL_OPTIONS)
              for _ in range(channels)]
    try:
        for channel in opened:
            await asyncio.wait_for(channel.channel_ready(), timeout=20)
        stats.t_start = time.monotonic()
        t_limit = stats.t_start + max_seconds
        workers = []
        for channel in opened:
            stubs = {m: channel.unary_unary(m) for m in methods}
            for _ in range(per_channel):
                workers.append(asyncio.ensure_future(worker(
                    stubs, mix, rng, stats, total, t_limit, deadline, stop)))
        watcher = asyncio.ensure_future(watch(server, stats, stop, t_limit,
                                              log))
        # Workers stop by themselves at the count or the time limit; a
        # call still in flight then has at most its deadline left.
        done, pending = await asyncio.wait(
            workers, timeout=max_seconds + deadline + 10)
        for task in pending:
            task.cancel()
        if pending:
            stats.timed_out = True
        stop.set()
        await watcher
        for task in done:
            if task.exception() is not None:
                raise task.exception()
        stats.t_end = time.monotonic()
    finally:
        for channel in opened:
            await channel.close()
    return stats
