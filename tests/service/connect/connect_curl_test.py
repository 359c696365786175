#!/usr/bin/python3
"""The Connect protocol listener of halma_server, end to end with curl.

Usage: /usr/bin/python3 connect_curl_test.py SERVER PAGE.md... [unittest args]

Starts the real binary on 127.0.0.1 (gRPC and HTTP ports 0) and calls it
with curl: every RPC with POST (JSON and binary protobuf) and with the GET
form (JSON, and base64 protobuf), every class of error with its Connect
code and HTTP status, /healthz and /readyz (also during a shutdown), the
Connect-Timeout-Ms deadline, and the listener's bounds against hostile
clients: slow headers, slow bodies, idle and too many connections, bodies
over the limit. Then runs every curl example of the markdown pages given
(README.md, docs/http.md: see tests/CMakeLists.txt) and compares what it
prints with what the page shows; a page with no curl example fails the
test. Every loop is bounded in count and time.
"""

import base64
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "attack"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "docs"))
import harness  # noqa: E402
import markdown_examples  # noqa: E402

SERVER = None  # From argv.
PAGES = []  # The markdown pages whose curl examples are run, from argv.
# The examples the pages have today (README.md 1, docs/http.md 10): fewer
# means one was dropped or moved to a page this test is not given.
MIN_EXAMPLES = 11
HTTP_LINE = re.compile(r"; http (\S+):(\d+) \(Connect protocol\)")
SERVICE = "/halma.v1.HalmaRules/"
BRAINKING_START = "4bbbb/5bbb/6bb/7b/w7/ww6/www5/wwww4 w 0,0"
PROTOS = None  # Generated at start.


class HttpServer:
    """halma_server with its HTTP listener on a free port."""

    def __init__(self, **settings):
        env = harness.server_environment({})
        env.update({"HALMA_HTTP": "true", "HALMA_HTTP_PORT": "0"})
        env.update(settings)
        self.server = harness.Server(SERVER, env)
        match = HTTP_LINE.search(self.server.listen_line or "")
        if match is None:
            self.server.kill()
            raise AssertionError("no HTTP port in: %s" % self.server.listen_line)
        self.port = int(match.group(2))
        self.base = "http://127.0.0.1:%d" % self.port

    def stop(self):
        code, _ = self.server.stop()
        return code


def curl(url, *args, data=None, data_file=None):
    """(HTTP status, headers as a dict of lower-case names, body bytes)."""
    with tempfile.NamedTemporaryFile() as headers:
        # No "Expect: 100-continue": one header block per answer.
        command = ["curl", "-sS", "--max-time", "30", "-o", "-",
                   "-D", headers.name, "-H", "Expect:"] + list(args)
        if data is not None:
            command += ["--data-binary", "@-"]
        if data_file is not None:
            command += ["--data-binary", "@" + data_file]
        command.append(url)
        done = subprocess.run(command, input=data, capture_output=True,
                              timeout=60)
        if done.returncode != 0:
            raise AssertionError("curl failed: %s" % done.stderr.decode())
        with open(headers.name, encoding="latin-1", newline="") as f:
            lines = f.read().split("\r\n")
    status = int(lines[0].split()[1])
    fields = {}
    for line in lines[1:]:
        if ":" in line:
            name, value = line.split(":", 1)
            fields[name.strip().lower()] = value.strip()
    return status, fields, done.stdout


def post_json(base, method, request, *args):
    return curl(base + SERVICE + method, "-H",
                "Content-Type: application/json", *args,
                data=json.dumps(request).encode())


def get_json(base, method, request):
    query = urllib.parse.urlencode(
        {"connect": "v1", "encoding": "json", "message": json.dumps(request)})
    return curl(base + SERVICE + method + "?" + query)


def answers():
    """(method, request, check) for every RPC."""
    def validate(test, answer):
        test.assertTrue(answer["legal"])
        test.assertEqual(answer["positionAfter"],
                         "4bbbb/5bbb/6bb/7b/w7/ww1w4/www5/w1ww4 b 1,0")
        test.assertEqual(answer["status"]["toMove"], "SEAT_B")

    def legal(test, answer):
        test.assertEqual([m["destination"] for m in answer["moves"]],
                         ["a5", "b4", "c3"])
        test.assertEqual(answer["count"], 3)
        test.assertEqual(answer["position"], BRAINKING_START)

    def record(test, answer):
        test.assertEqual(answer["movesPlayed"], 2)
        test.assertEqual(answer["illegalMove"]["ply"], 3)
        test.assertEqual(answer["illegalMove"]["reason"],
                         "ILLEGAL_REASON_DESTINATION_OCCUPIED")
        test.assertEqual(answer["illegalMove"]["message"], "b2 is occupied")
        test.assertEqual(answer["moveCounts"][0],
                         {"seat": "SEAT_W", "moves": "1"})

    def variants(test, answer):
        test.assertEqual(len(answer["variants"]), 5)
        test.assertEqual(answer["variants"][0]["startPosition"],
                         BRAINKING_START)

    def suggestion(test, answer):
        move = answer["move"]
        test.assertEqual(move["path"].split("-")[0], move["origin"])
        test.assertEqual(move["path"].split("-")[-1], move["destination"])
        test.assertIn(move, [c["move"] for c in answer["candidates"]])
        test.assertEqual(len(answer["candidates"]), 2)
        test.assertEqual(answer["level"], 2)
        test.assertEqual(answer["mover"], "SEAT_W")
        test.assertEqual(answer["position"], BRAINKING_START)
        test.assertGreater(int(answer["nodes"]), 0)

    preset = {"preset": "brainking-8x8"}
    return [
        ("ValidateMove", {"variant": preset, "move": "b1-d3"}, validate),
        ("LegalMoves", {"variant": preset, "origin": "a3"}, legal),
        ("Adjudicate", {"variant": preset,
                        "moves": ["b1-d3", "h7-f5", "a1-b2"]}, record),
        ("ListVariants", {}, variants),
        ("SuggestMove", {"variant": preset, "level": 2, "candidates": 2},
         suggestion),
    ]


class ConnectProtocolTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.http = HttpServer()

    @classmethod
    def tearDownClass(cls):
        assert cls.http.stop() == 0

    def test_every_rpc_with_post_json(self):
        for method, request, check in answers():
            with self.subTest(method=method):
                status, headers, body = post_json(self.http.base, method,
                                                  request)
                self.assertEqual(status, 200, body)
                self.assertEqual(headers["content-type"], "application/json")
                check(self, json.loads(body))

    def test_proto_field_names_are_accepted(self):
        status, _, body = post_json(
            self.http.base, "LegalMoves",
            {"variant": {"custom": {"board_size": 8, "seat_count": 2,
                                    "camp_rows": [4, 3, 2, 1]}},
             "origin": "a3"})
        self.assertEqual(status, 200, body)
        self.assertEqual(json.loads(body)["count"], 3)

    def test_every_rpc_with_get_json_is_cacheable(self):
        for method, request, check in answers():
            with self.subTest(method=method):
                status, headers, body = get_json(self.http.base, method,
                                                 request)
                self.assertEqual(status, 200, body)
                self.assertEqual(headers["cache-control"],
                                 "public, max-age=86400")
                check(self, json.loads(body))

    def test_binary_protobuf_with_post_and_get(self):
        halma = PROTOS.halma
        request = halma.LegalMovesRequest(origin="a3")
        request.variant.preset = "brainking-8x8"
        raw = request.SerializeToString()
        status, headers, body = curl(
            self.http.base + SERVICE + "LegalMoves", "-H",
            "Content-Type: application/proto", "-H",
            "Connect-Protocol-Version: 1", data=raw)
        self.assertEqual(status, 200)
        self.assertEqual(headers["content-type"], "application/proto")
        answer = halma.LegalMovesResponse.FromString(body)
        self.assertEqual([m.destination for m in answer.moves],
                         ["a5", "b4", "c3"])
        query = urllib.parse.urlencode({
            "encoding": "proto", "base64": "1",
            "message": base64.urlsafe_b64encode(raw).decode().rstrip("=")})
        status, headers, body = curl(
            self.http.base + SERVICE + "LegalMoves?" + query)
        self.assertEqual(status, 200)
        self.assertEqual(halma.LegalMovesResponse.FromString(body), answer)

    def expect_error(self, result, http_status, code, message_part):
        status, headers, body = result
        self.assertEqual(status, http_status, body)
        self.assertEqual(headers["content-type"], "application/json")
        error = json.loads(body)
        self.assertEqual(error["code"], code)
        self.assertIn(message_part, error["message"])
        self.assertLess(len(error["message"]), 600)

    def test_errors_name_the_field_with_the_protocol_codes(self):
        base = self.http.base
        self.expect_error(
            post_json(base, "LegalMoves",
                      {"variant": {"preset": "brainking-9x9"}}),
            400, "invalid_argument", 'variant.preset: variant "brainking-9x9"')
        self.expect_error(
            curl(base + SERVICE + "LegalMoves", "-H",
                 "Content-Type: application/json", data=b'{"variant": '),
            400, "invalid_argument", "halma.v1.LegalMovesRequest")
        self.expect_error(
            post_json(base, "LegalMoves", {"varient": {}}), 400,
            "invalid_argument", "varient")
        self.expect_error(
            post_json(base, "ValidateMove", {"move": 17}), 400,
            "invalid_argument", "move")
        self.expect_error(
            post_json(base, "LegalMoves", {"variant": {"preset": "x" * 5000}}),
            400, "invalid_argument", "(cut: 5000 bytes in all)")
        self.expect_error(
            post_json(base, "LegalMoves", {}, "-H",
                      "Connect-Protocol-Version: 2"),
            400, "invalid_argument", "connect-protocol-version")
        self.expect_error(
            get_json(base, "LegalMoves", {})[:0] + curl(
                base + SERVICE + "LegalMoves?encoding=xml&message=%7B%7D"),
            400, "invalid_argument", "encoding")
        self.expect_error(
            post_json(base, "NoSuchMethod", {}), 501, "unimplemented",
            "NoSuchMethod")
        self.expect_error(
            curl(base + SERVICE + "LegalMoves", "-H",
                 "Content-Type: application/json",
                 data=b'{"moves": ["' + b"a" * 70000 + b'"]}'),
            429, "resource_exhausted", "max_message_bytes")
        # Not errors of the protocol: plain HTTP.
        status, headers, _ = curl(base + SERVICE + "LegalMoves", "-H",
                                  "Content-Type: text/xml", data=b"<x/>")
        self.assertEqual(status, 415)
        self.assertIn("application/json", headers["accept-post"])
        status, headers, _ = curl(base + SERVICE + "LegalMoves", "-X", "PUT",
                                  data=b"{}")
        self.assertEqual(status, 405)
        self.assertEqual(headers["allow"], "GET, POST")
        status, _, _ = curl(base + "/nothing-here")
        self.assertEqual(status, 404)

    def test_suggest_move_is_legal_and_the_same_by_post_and_get(self):
        base = self.http.base
        request = {"variant": {"preset": "brainking-10x10"},
                   "moves": ["b1-d3", "j9-h7"], "seed": "5",
                   "maxNodes": "20000", "candidates": 3}
        _, _, by_post = post_json(base, "SuggestMove", request)
        status, headers, by_get = get_json(base, "SuggestMove", request)
        self.assertEqual(status, 200, by_get)
        self.assertEqual(headers["cache-control"], "public, max-age=86400")
        self.assertEqual(by_post, by_get)
        answer = json.loads(by_post)
        status, _, body = post_json(
            base, "LegalMoves",
            {"variant": request["variant"], "position": answer["position"]})
        self.assertEqual(status, 200, body)
        legal = json.loads(body)["moves"]
        self.assertEqual(len(answer["candidates"]), 3)
        for candidate in answer["candidates"]:
            self.assertIn(candidate["move"], legal)
        self.assertIn(answer["move"], legal)
        self.assertNotIn("level", answer)  # 0: an explicit budget.
        self.assertEqual(answer["stopReason"], "STOP_REASON_NODE_BUDGET")

    def test_suggest_move_errors_name_the_field(self):
        base = self.http.base
        preset = {"preset": "brainking-8x8"}
        self.expect_error(
            post_json(base, "SuggestMove", {"variant": preset, "level": 9}),
            400, "invalid_argument", "level: 9, expected 1 to 8")
        self.expect_error(
            get_json(base, "SuggestMove",
                     {"variant": preset, "maxNodes": "999999999"}),
            400, "invalid_argument",
            "max_nodes: 999999999 is more than this server's limit of "
            "4000000 (max_suggest_nodes)")
        self.expect_error(
            post_json(base, "SuggestMove",
                      {"variant": preset, "moves": ["b1-d3", "b2-c3"]}),
            400, "invalid_argument", "moves[1] (ply 2): move \"b2-c3\"")

    def test_health_and_readiness(self):
        self.assertEqual(curl(self.http.base + "/healthz")[::2], (200, b"ok\n"))
        self.assertEqual(curl(self.http.base + "/readyz")[::2],
                         (200, b"ready\n"))


class DeadlineTest(unittest.TestCase):
    def test_connect_timeout_ms_stops_a_replay(self):
        http = HttpServer(HALMA_MAX_RECORD_MOVES="2000000",
                          HALMA_MAX_MESSAGE_BYTES="67108864",
                          HALMA_MAX_CALL_SECONDS="60")
        try:
            cycle = ["a1-e5", "j10-f6", "e5-a1", "f6-j10"]
            request = {
                "variant": {"preset": "iggamecenter-10x10"},
                "startPosition": "bbbbbbbbbb/6bbbb/10/6b3/10/10/3w6/10/"
                                 "wwwww5/w1wwwwwwww w 0,0",
                "moves": [cycle[i % 4] for i in range(400000)]}
            with tempfile.NamedTemporaryFile(suffix=".json") as f:
                f.write(json.dumps(request).encode())
                f.flush()
                # 1 ms: over before the record is even parsed, so the
                # replay's first checkpoint stops it.
                self.expect_deadline(curl(
                    http.base + SERVICE + "Adjudicate", "-H",
                    "Content-Type: application/json", "-H",
                    "Connect-Timeout-Ms: 1", data_file=f.name))
                # Without the header the same record replays to its end.
                status, _, body = curl(http.base + SERVICE + "Adjudicate",
                                       "-H", "Content-Type: application/json",
                                       data_file=f.name)
            self.assertEqual(status, 200, body[:300])
            self.assertEqual(json.loads(body)["movesPlayed"], 400000)
        finally:
            self.assertEqual(http.stop(), 0)

    def test_connect_timeout_ms_stops_a_search(self):
        http = HttpServer()
        try:
            # The top level on the largest board: about 2 million nodes,
            # far more than a millisecond's work.
            request = {"variant": {"preset": "classic-16x16"}, "level": 8}
            self.expect_deadline(post_json(
                http.base, "SuggestMove", request,
                "-H", "Connect-Timeout-Ms: 1"))
            request["bestSoFar"] = True
            status, _, body = post_json(http.base, "SuggestMove", request,
                                        "-H", "Connect-Timeout-Ms: 1")
            self.assertEqual(status, 200, body[:300])
            answer = json.loads(body)
            self.assertEqual(answer["stopReason"], "STOP_REASON_INTERRUPTED")
            self.assertIn("deadline", answer["stopMessage"])
            self.assertIn(answer["move"]["path"].count("-"), (1, 2, 3, 4, 5))
        finally:
            self.assertEqual(http.stop(), 0)

    def expect_deadline(self, result):
        status, _, body = result
        self.assertEqual(status, 504, body[:300])
        self.assertEqual(json.loads(body)["code"], "deadline_exceeded")


class ShutdownTest(unittest.TestCase):
    def test_readyz_says_not_ready_during_the_shutdown_delay(self):
        http = HttpServer(HALMA_SHUTDOWN_DELAY_SECONDS="2")
        http.server.sigterm()
        deadline = time.monotonic() + 1.5
        seen = None
        while time.monotonic() < deadline:
            seen = curl(http.base + "/readyz")[::2]
            if seen[0] == 503:
                break
            time.sleep(0.05)
        self.assertEqual(seen, (503, b"not ready: shutting down\n"))
        # Still alive and answering during the delay.
        self.assertEqual(curl(http.base + "/healthz")[0], 200)
        status, _, _ = post_json(http.base, "ListVariants", {})
        self.assertEqual(status, 200)
        self.assertEqual(http.server.wait(20), 0)


class DocExamplesTest(unittest.TestCase):
    def test_every_curl_example_prints_what_the_page_shows(self):
        examples = markdown_examples.examples_in(PAGES, "curl")
        self.assertGreaterEqual(len(examples), MIN_EXAMPLES)
        http = HttpServer()
        try:
            for example in examples:
                with self.subTest(page=example.path, command=example.command):
                    self.assertIn("localhost:8080", example.command)
                    done = subprocess.run(
                        ["bash", "-c", example.command.replace(
                            "localhost:8080", "127.0.0.1:%d" % http.port)],
                        capture_output=True, text=True, timeout=60)
                    self.assertEqual((done.stdout + done.stderr).rstrip("\n"),
                                     example.expected())
        finally:
            self.assertEqual(http.stop(), 0)


class HostileClientsTest(unittest.TestCase):
    """The listener's bounds, with short timeouts so the test is quick."""

    @classmethod
    def setUpClass(cls):
        cls.http = HttpServer(HALMA_STREAM_READ_TIMEOUT_SECONDS="1",
                              HALMA_IDLE_TIMEOUT_SECONDS="2",
                              HALMA_MAX_CONNECTIONS="40")

    @classmethod
    def tearDownClass(cls):
        assert cls.http.stop() == 0

    def closed_within(self, sock, seconds, trickle=None):
        """Seconds until the server closed `sock`, or None; sends `trickle`
        every 0.3 s meanwhile (a slowloris)."""
        started = time.monotonic()
        sock.settimeout(0.3)
        while time.monotonic() - started < seconds:
            try:
                if sock.recv(4096) == b"":
                    return time.monotonic() - started
            except socket.timeout:
                pass
            except (ConnectionResetError, BrokenPipeError):
                return time.monotonic() - started
            if trickle is not None:
                try:
                    sock.sendall(trickle)
                except (ConnectionResetError, BrokenPipeError):
                    return time.monotonic() - started
        return None

    def connect(self):
        return socket.create_connection(("127.0.0.1", self.http.port),
                                        timeout=5)

    def test_slow_headers_are_cut_off(self):
        with self.connect() as sock:
            sock.sendall(b"GET /healthz HTTP/1.1\r\n")
            took = self.closed_within(sock, 6, trickle=b"X")
        self.assertIsNotNone(took, "a slowloris kept its connection")
        self.assertLess(took, 3)

    def test_slow_bodies_are_cut_off(self):
        with self.connect() as sock:
            sock.sendall(b"POST " + SERVICE.encode() + b"ListVariants "
                         b"HTTP/1.1\r\nHost: x\r\nContent-Type: "
                         b"application/json\r\nContent-Length: 1000\r\n\r\n")
            took = self.closed_within(sock, 6, trickle=b" ")
        self.assertIsNotNone(took, "a slow body kept its connection")
        self.assertLess(took, 3)

    def test_idle_connections_are_closed_and_others_served(self):
        idle = [self.connect() for _ in range(30)]
        try:
            # Meanwhile a well-behaved client is served.
            self.assertEqual(post_json(self.http.base, "ListVariants", {})[0],
                             200)
            for sock in idle:
                self.assertIsNotNone(self.closed_within(sock, 5))
        finally:
            for sock in idle:
                sock.close()

    def test_connections_beyond_the_limit_are_refused(self):
        held = []
        try:
            for _ in range(60):
                held.append(self.connect())
            time.sleep(0.3)
            refused = 0
            for sock in held:
                sock.settimeout(0.05)
                try:
                    if sock.recv(1) == b"":
                        refused += 1
                except socket.timeout:
                    pass
                except ConnectionResetError:
                    refused += 1
            # libmicrohttpd shares the limit among its threads, so a few
            # more may be refused than 60 - 40.
            self.assertGreaterEqual(refused, 60 - 40)
            self.assertLess(refused, 60)
        finally:
            for sock in held:
                sock.close()
        # Once they are gone, the listener serves again.
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            try:
                if post_json(self.http.base, "ListVariants", {})[0] == 200:
                    break
            except AssertionError:
                time.sleep(0.1)
        self.assertEqual(post_json(self.http.base, "ListVariants", {})[0], 200)

    def test_a_body_over_the_limit_is_not_read(self):
        with self.connect() as sock:
            sock.sendall(b"POST " + SERVICE.encode() + b"LegalMoves "
                         b"HTTP/1.1\r\nHost: x\r\nContent-Type: "
                         b"application/json\r\nContent-Length: 100000000"
                         b"\r\n\r\n")
            sock.settimeout(5)
            answer = sock.recv(4096)
        self.assertTrue(answer.startswith(b"HTTP/1.1 429"), answer[:100])
        self.assertIn(b"resource_exhausted", answer)


if __name__ == "__main__":
    if len(sys.argv) < 3 or not sys.argv[2].endswith(".md"):
        sys.exit(__doc__)
    SERVER = sys.argv[1]
    rest = sys.argv[2:]
    while rest and rest[0].endswith(".md"):
        PAGES.append(rest.pop(0))
    with tempfile.TemporaryDirectory() as protos:
        PROTOS = harness.generate_protos(protos)
        unittest.main(argv=[sys.argv[0]] + rest)
