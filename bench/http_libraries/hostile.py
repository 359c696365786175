#!/usr/bin/python3
"""Hostile-client checks against each server, bounded in time and count,
127.0.0.1 only. Each server: 2 worker threads, pinned to CPU 0, timeout 5 s.

a) 500 idle connections that never send; a good client (fresh connection,
   one POST, 2 s timeout) every 0.5 s for 12 s: are the idle ones closed, and
   is the good client served meanwhile?
b) slowloris: 4 connections send their header one byte a second, 15 s.
c) slow body: 4 connections send a full header (Content-Length: 1000) then
   the body one byte a second, 15 s.
d) a 10 MB body with Content-Length, sent as fast as the server takes it for
   at most 5 s: when does the 413 come, how much did the server take?
e) connection limit: server started with limit 100; 150 idle connections.
f) fairness: 16 keep-alive clients, each sending requests back to back for
   5 s (2 s timeout each): how many requests did each connection get answered?
"""
import errno
import json
import os
import select
import signal
import socket
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402

HOST = "127.0.0.1"
TIMEOUT_S = 5
BODY = open(os.path.join(bench.HERE, "body.json"), "rb").read()
PORTS = {"civetweb": 18211, "httplib": 18212, "microhttpd": 18213, "beast": 18214}


def request_bytes(body=BODY, path=bench.PATH):
    return (f"POST {path} HTTP/1.1\r\nHost: {HOST}\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode() + body


def good_request(port, timeout=2.0):
    """One POST on a fresh connection: (ok, seconds)."""
    t0 = time.monotonic()
    try:
        with socket.create_connection((HOST, port), timeout=timeout) as s:
            s.settimeout(max(0.01, timeout - (time.monotonic() - t0)))
            s.sendall(request_bytes())
            data = b""
            while b"\r\n\r\n" not in data:
                chunk = s.recv(65536)
                if not chunk:
                    break
                data += chunk
            ok = data.startswith(b"HTTP/1.1 200")
    except OSError:
        ok = False
    return ok, time.monotonic() - t0


class GoodClient(threading.Thread):
    def __init__(self, port, seconds, period=0.5):
        super().__init__(daemon=True)
        self.port, self.seconds, self.period = port, seconds, period
        self.results = []

    def run(self):
        end = time.monotonic() + self.seconds
        while time.monotonic() < end:
            t = time.monotonic()
            self.results.append(good_request(self.port))
            time.sleep(max(0, self.period - (time.monotonic() - t)))

    def summary(self):
        ok = [t for o, t in self.results if o]
        return {"attempts": len(self.results), "ok": len(ok),
                "max_ms": round(max(ok) * 1000, 1) if ok else None}


def open_idle(port, n, connect_timeout=1.0):
    socks, failed = [], 0
    for _ in range(n):
        s = socket.socket()
        s.setblocking(False)
        try:
            s.connect((HOST, port))
        except BlockingIOError:
            pass
        _, w, _ = select.select([], [s], [], connect_timeout)
        if w and s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == 0:
            socks.append(s)
        else:
            s.close()
            failed += 1
    return socks, failed


def closed_by_server(s):
    """True if the peer closed (EOF, reset) - non-blocking peek."""
    try:
        r, _, _ = select.select([s], [], [], 0)
        if not r:
            return False
        return s.recv(1, socket.MSG_PEEK) == b""
    except OSError:
        return True


def test_idle(lib, port):
    p = bench.start_server(lib, port, TIMEOUT_S, 1024)
    try:
        t0 = time.monotonic()
        socks, failed = open_idle(port, 500)
        good = GoodClient(port, 12)
        good.start()
        closed_at = {}
        rss_max = 0
        while time.monotonic() - t0 < 12:
            for i, s in enumerate(socks):
                if i not in closed_at and closed_by_server(s):
                    closed_at[i] = time.monotonic() - t0
            rss_max = max(rss_max, bench.status_kib(p.pid, "VmRSS"))
            time.sleep(0.25)
        good.join()
        for s in socks:
            s.close()
        times = sorted(closed_at.values())
        return {"opened": len(socks), "connect_failed": failed,
                "closed_by_6s": sum(t <= 6 for t in times),
                "closed_by_12s": len(times),
                "first_close_s": round(times[0], 1) if times else None,
                "rss_max_mib": round(rss_max / 1024, 1),
                "good": good.summary()}
    finally:
        bench.stop_server(p)


def test_trickle(lib, port, slow_body):
    """4 connections trickling one byte a second, 15 s."""
    p = bench.start_server(lib, port, TIMEOUT_S, 1024)
    try:
        head = (f"POST {bench.PATH} HTTP/1.1\r\nHost: {HOST}\r\n"
                "Content-Type: application/json\r\nContent-Length: 1000\r\n"
                "X-Padding: " + "a" * 200 + "\r\n\r\n").encode()
        socks = []
        for _ in range(4):
            s = socket.create_connection((HOST, port), timeout=2)
            if slow_body:
                s.sendall(head)
            socks.append(s)
        good = GoodClient(port, 15)
        good.start()
        t0 = time.monotonic()
        closed_at = [None] * 4
        sent = 0
        trickle = b"{" + b" " * 998 + b"}" if slow_body else head
        while time.monotonic() - t0 < 15 and None in closed_at:
            for i, s in enumerate(socks):
                if closed_at[i] is None:
                    try:
                        if closed_by_server(s):
                            raise OSError("closed")
                        s.send(trickle[sent:sent + 1])
                    except OSError:
                        closed_at[i] = round(time.monotonic() - t0, 1)
            sent += 1
            time.sleep(1)
        good.join()
        for s in socks:
            s.close()
        return {"closed_at_s": closed_at, "bytes_trickled": sent,
                "good": good.summary()}
    finally:
        bench.stop_server(p)


def test_big_body(lib, port):
    p = bench.start_server(lib, port, TIMEOUT_S, 1024)
    try:
        rss0 = bench.status_kib(p.pid, "VmRSS")
        total = 10 * 1024 * 1024
        s = socket.create_connection((HOST, port), timeout=2)
        s.sendall((f"POST {bench.PATH} HTTP/1.1\r\nHost: {HOST}\r\n"
                   f"Content-Type: application/json\r\nContent-Length: {total}\r\n\r\n").encode())
        s.setblocking(False)
        chunk = b" " * 65536
        sent, answer, answer_after, closed = 0, b"", None, False
        t0 = time.monotonic()
        rss_max = rss0
        while time.monotonic() - t0 < 5:
            r, w, _ = select.select([s], [s] if sent < total else [], [], 0.05)
            if r:
                try:
                    data = s.recv(65536)
                except OSError:
                    data = b""
                if not data:
                    closed = True
                    break
                if not answer:
                    answer_after = sent
                answer += data
            if w:
                try:
                    sent += s.send(chunk[:min(len(chunk), total - sent)])
                except BlockingIOError:
                    pass
                except OSError as e:
                    closed = e.errno in (errno.EPIPE, errno.ECONNRESET)
                    break
            rss_max = max(rss_max, bench.status_kib(p.pid, "VmRSS"))
        s.close()
        return {"status": answer.split(b"\r\n", 1)[0].decode(errors="replace") or None,
                "answer_after_bytes_sent": answer_after, "bytes_sent": sent,
                "closed": closed, "seconds": round(time.monotonic() - t0, 2),
                "rss_growth_mib": round((rss_max - rss0) / 1024, 1),
                "good_after": good_request(port)[0]}
    finally:
        bench.stop_server(p)


def test_conn_limit(lib, port):
    p = bench.start_server(lib, port, TIMEOUT_S, 100)
    try:
        socks, failed = open_idle(port, 150)
        time.sleep(1)
        closed = sum(closed_by_server(s) for s in socks)
        good = good_request(port)
        for s in socks:
            s.close()
        return {"opened": len(socks), "connect_failed": failed,
                "closed_within_1s": closed, "good_request_ok": good[0]}
    finally:
        bench.stop_server(p)


def test_fairness(lib, port, conns=16, seconds=5):
    p = bench.start_server(lib, port, TIMEOUT_S, 1024)
    counts = [0] * conns

    def client(i):
        end = time.monotonic() + seconds
        try:
            with socket.create_connection((HOST, port), timeout=2) as s:
                while time.monotonic() < end:
                    s.sendall(request_bytes())
                    data = b""
                    while True:
                        chunk = s.recv(65536)
                        if not chunk:
                            return
                        data += chunk
                        head, sep, rest = data.partition(b"\r\n\r\n")
                        if sep:
                            n = int(head.lower().split(b"content-length:")[1].split(b"\r\n")[0])
                            if len(rest) >= n:
                                break
                    counts[i] += 1
        except OSError:
            pass

    try:
        threads = [threading.Thread(target=client, args=(i,)) for i in range(conns)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        return {"connections": conns, "answered_total": sum(counts),
                "min_per_conn": min(counts), "max_per_conn": max(counts),
                "conns_with_none": sum(c == 0 for c in counts)}
    finally:
        bench.stop_server(p)


def main():
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    only = os.environ.get("ONLY")  # e.g. ONLY=f_fairness_16
    libs = sys.argv[1:] or bench.LIBS
    results = {}
    for lib in libs:
        port = PORTS[lib]
        r = {}
        for name, fn in (("a_idle_500", lambda: test_idle(lib, port)),
                         ("b_slowloris", lambda: test_trickle(lib, port, False)),
                         ("c_slow_body", lambda: test_trickle(lib, port, True)),
                         ("d_10mb_body", lambda: test_big_body(lib, port)),
                         ("e_conn_limit_100", lambda: test_conn_limit(lib, port)),
                         ("f_fairness_16", lambda: test_fairness(lib, port))):
            if only and name not in only.split(","):
                continue
            r[name] = fn()
            print(lib, name, json.dumps(r[name]), flush=True)
        results[lib] = r
    os.makedirs(f"{bench.HERE}/results", exist_ok=True)
    path = f"{bench.HERE}/results/hostile-{time.strftime('%Y%m%dT%H%M%SZ', time.gmtime())}.json"
    with open(path, "w") as f:
        json.dump(results, f, indent=1)
    print("wrote", path)


if __name__ == "__main__":
    sys.exit(main())
