#!/usr/bin/python3
"""End-to-end test of halma_server through server reflection, grpcurl-style.

Usage: /usr/bin/python3 reflection_test.py PATH/TO/halma_server [unittest args]

Starts the server binary on 127.0.0.1 with --port=0 (reading the chosen port
from its stderr), discovers halma.v1.HalmaRules and grpc.health.v1.Health
through grpc.reflection.v1alpha with no access to the project's .proto files
(see reflection_client.py), calls every RPC with JSON requests built against
the discovered descriptors, and checks the JSON answers. A second server runs
with --reflection=false: discovery must fail cleanly while the server still
serves.

Needs Debian's /usr/bin/python3 with python3-grpcio and python3-protobuf.
"""

import json
import os
import re
import signal
import subprocess
import sys
import threading
import unittest

import grpc

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reflection_client  # noqa: E402

SERVER_BINARY = None  # Set from argv[1] in __main__.
HALMA = "halma.v1.HalmaRules"
HEALTH = "grpc.health.v1.Health"
BRAINKING_START = "4bbbb/5bbb/6bb/7b/w7/ww6/www5/wwww4 w 0,0"
# A brainking-8x8 game that b wins by filling its target at ply 68 (the
# first record of the public vectors).
RECORD_68 = (
    "b1-d3 h7-f5 a2-c4 h8-f6-f4 a1-g5 g8-e6-g4-e4 c4-d5 e8-g8-e6-c4-a2 a3-g3 "
    "h6-h4-f2 b2-d2-d4-d6 g7-e7-c5-e5-e3-c3-a3-a1 c1-g7 f4-d4-d2-b2 "
    "d6-d4-f4-f6-h8 f8-d2 c2-e2-c4-e6-g8 g6-c2 g5-h6 d2-c1 g7-f8 c2-b1 h6-h7 "
    "e4-c2 g3-h4 h5-h3 d5-d6 f2-e1 d6-e7 f7-d7 d1-e2 e1-e3-c3-a3 b3-d1-f3 "
    "f5-e4 d3-f5 d7-e6 f3-f7 e6-d5 f5-g6 d5-f3-d1 e7-g7 h3-g2 a4-b5 e4-d3 "
    "b5-c6 g2-f1 e2-f3 f1-e1 f3-g3 d3-c3 c6-d7 c3-b3 d7-e8 e1-d2 f8-h6 b3-a4 "
    "h4-h5 a4-b3 g3-h4 d2-e1 e8-f8 e1-d2 f7-e8 b3-a4 g6-f7 c2-b3 h5-g6 d2-c2"
).split()
LISTEN_LINE = re.compile(r"halma_server listening on (\S+):(\d+)")


class ServerProcess:
    """halma_server as a child process on 127.0.0.1 and a free port."""

    def __init__(self, *extra_flags):
        self.stderr_lines = []
        self.process = subprocess.Popen(
            [SERVER_BINARY, "--host=127.0.0.1", "--port=0"] + list(extra_flags),
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE, text=True)
        self.port = None
        found = threading.Event()

        def read_stderr():
            for line in self.process.stderr:
                self.stderr_lines.append(line)
                match = LISTEN_LINE.search(line)
                if match and self.port is None:
                    self.port = int(match.group(2))
                    found.set()
            found.set()  # The server exited.

        self._reader = threading.Thread(target=read_stderr, daemon=True)
        self._reader.start()
        if not found.wait(30) or self.port is None:
            self.stop()
            raise RuntimeError("halma_server did not report its port; "
                               "stderr:\n" + "".join(self.stderr_lines))
        self.target = "127.0.0.1:%d" % self.port

    def stop(self):
        """SIGTERM, then SIGKILL if it does not exit; returns the exit code."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._reader.join(timeout=5)
        self.process.stderr.close()
        return self.process.returncode


class ReflectionEndToEnd(unittest.TestCase):
    """Discovery and calls against a server with reflection on (default)."""

    @classmethod
    def setUpClass(cls):
        cls.server = ServerProcess()
        cls.channel = grpc.insecure_channel(cls.server.target)
        grpc.channel_ready_future(cls.channel).result(timeout=20)
        cls.listed, cls.schema = reflection_client.discover(
            cls.channel, [HALMA, HEALTH])
        cls.stub = reflection_client.DynamicStub(cls.channel, cls.schema)

    @classmethod
    def tearDownClass(cls):
        cls.channel.close()
        exit_code = cls.server.stop()
        if exit_code != 0:
            raise AssertionError("halma_server exited with %s" % exit_code)

    def call(self, method, request="{}"):
        return self.stub.call(method, request)

    def test_lists_services(self):
        for name in (HALMA, HEALTH, reflection_client.REFLECTION_SERVICE):
            self.assertIn(name, self.listed)

    def test_describes_halma_rules(self):
        service = self.schema.service(HALMA)
        methods = {m.name: (m.input_type.full_name, m.output_type.full_name)
                   for m in service.methods}
        self.assertEqual(methods, {
            "ValidateMove": ("halma.v1.ValidateMoveRequest",
                             "halma.v1.ValidateMoveResponse"),
            "LegalMoves": ("halma.v1.LegalMovesRequest",
                           "halma.v1.LegalMovesResponse"),
            "Adjudicate": ("halma.v1.AdjudicateRequest",
                           "halma.v1.AdjudicateResponse"),
            "ListVariants": ("halma.v1.ListVariantsRequest",
                             "halma.v1.ListVariantsResponse"),
        })
        self.assertTrue(all(not m.client_streaming and not m.server_streaming
                            for m in service.methods))
        seat = self.schema.pool.FindEnumTypeByName("halma.v1.Seat")
        self.assertEqual([v.name for v in seat.values],
                         ["SEAT_UNSPECIFIED", "SEAT_W", "SEAT_R", "SEAT_B",
                          "SEAT_G"])

    def test_describes_health(self):
        methods = [m.name for m in self.schema.service(HEALTH).methods]
        self.assertIn("Check", methods)

    def test_list_variants(self):
        answer = self.call(HALMA + "/ListVariants")
        variants = {v["name"]: v for v in answer["variants"]}
        self.assertEqual(list(variants), [
            "brainking-8x8", "brainking-10x10", "iggamecenter-10x10",
            "classic-16x16", "classic-16x16-4p"])
        bk = variants["brainking-8x8"]
        self.assertEqual(bk["spec"]["boardSize"], 8)
        self.assertEqual(bk["spec"]["seatCount"], 2)
        self.assertEqual(bk["spec"]["campRows"], [4, 3, 2, 1])
        self.assertEqual(bk["spec"]["homeExitLimit"], 30)
        self.assertEqual(bk["seats"], ["SEAT_W", "SEAT_B"])
        self.assertEqual(bk["piecesPerSeat"], 10)
        self.assertEqual(bk["startPosition"], BRAINKING_START)
        four = variants["classic-16x16-4p"]
        self.assertEqual(four["seats"], ["SEAT_W", "SEAT_R", "SEAT_B",
                                         "SEAT_G"])
        self.assertEqual(four["piecesPerSeat"], 13)
        self.assertTrue(four["spec"]["targetLock"])
        self.assertTrue(variants["iggamecenter-10x10"]["spec"]
                        ["roundCompletion"])

    def test_legal_moves_at_start(self):
        answer = self.call(HALMA + "/LegalMoves",
                           '{"variant": {"preset": "brainking-8x8"}}')
        self.assertEqual(answer["count"], 24)
        self.assertEqual(len(answer["moves"]), 24)
        self.assertEqual(answer["position"], BRAINKING_START)
        self.assertEqual(answer["status"]["state"], "STATE_IN_PROGRESS")
        self.assertEqual(answer["status"]["toMove"], "SEAT_W")
        jump = {"origin": "b1", "destination": "d3", "path": "b1-d3",
                "hops": 1}
        self.assertIn(jump, answer["moves"])
        step = {"origin": "d1", "destination": "e2", "path": "d1-e2"}
        self.assertIn(step, answer["moves"])  # hops 0 is not printed.

    def test_legal_moves_of_one_piece_in_custom_variant(self):
        answer = self.call(HALMA + "/LegalMoves", """{
            "variant": {"custom": {"boardSize": 8, "seatCount": 2,
                                   "campRows": [4, 3, 2, 1]}},
            "origin": "d1"}""")
        self.assertGreater(answer["count"], 0)
        self.assertTrue(all(m["origin"] == "d1" for m in answer["moves"]))

    def test_validate_legal_move(self):
        answer = self.call(HALMA + "/ValidateMove", """{
            "variant": {"preset": "brainking-8x8"}, "move": "b1-d3"}""")
        self.assertTrue(answer["legal"])
        self.assertEqual(answer["path"], "b1-d3")
        self.assertEqual(answer["hops"], 1)
        self.assertEqual(answer["mover"], "SEAT_W")
        self.assertEqual(answer["positionAfter"],
                         "4bbbb/5bbb/6bb/7b/w7/ww1w4/www5/w1ww4 b 1,0")
        self.assertEqual(answer["status"]["state"], "STATE_IN_PROGRESS")
        self.assertEqual(answer["status"]["toMove"], "SEAT_B")

    def test_validate_illegal_move(self):
        answer = self.call(HALMA + "/ValidateMove", """{
            "variant": {"preset": "brainking-8x8"},
            "position": "%s", "move": "a1-b2"}""" % BRAINKING_START)
        self.assertNotIn("legal", answer)  # false is not printed.
        self.assertEqual(answer["reason"],
                         "ILLEGAL_REASON_DESTINATION_OCCUPIED")
        self.assertIn("b2", answer["message"])
        self.assertEqual(answer["mover"], "SEAT_W")

    def test_malformed_move_is_invalid_argument(self):
        with self.assertRaises(grpc.RpcError) as caught:
            self.call(HALMA + "/ValidateMove", """{
                "variant": {"preset": "brainking-8x8"}, "move": "z9-a1"}""")
        self.assertEqual(caught.exception.code(),
                         grpc.StatusCode.INVALID_ARGUMENT)

    def test_adjudicate_record(self):
        request = {"variant": {"preset": "brainking-8x8"},
                   "moves": RECORD_68}
        answer = self.call(HALMA + "/Adjudicate", json.dumps(request))
        self.assertEqual(answer["movesPlayed"], 68)
        self.assertNotIn("illegalMove", answer)
        status = answer["status"]
        self.assertEqual(status["state"], "STATE_WIN")
        self.assertEqual(status["winners"], ["SEAT_B"])
        self.assertEqual(status["rule"], "DECIDING_RULE_TARGET_FILLED")
        self.assertEqual(status["ply"], 68)
        self.assertEqual(answer["moveCounts"], [
            {"seat": "SEAT_W", "moves": "34"}, {"seat": "SEAT_B", "moves": "34"}])

    def test_adjudicate_illegal_record(self):
        answer = self.call(HALMA + "/Adjudicate", """{
            "variant": {"preset": "brainking-8x8"},
            "moves": ["b1-d3", "h7-f5", "a1-b2"]}""")
        self.assertEqual(answer["movesPlayed"], 2)
        self.assertEqual(answer["illegalMove"]["ply"], 3)
        self.assertEqual(answer["illegalMove"]["move"], "a1-b2")
        self.assertEqual(answer["illegalMove"]["reason"],
                         "ILLEGAL_REASON_DESTINATION_OCCUPIED")

    def test_health_check(self):
        self.assertEqual(self.call(HEALTH + "/Check"), {"status": "SERVING"})
        self.assertEqual(self.call(HEALTH + "/Check", '{"service": "%s"}'
                                   % HALMA), {"status": "SERVING"})


class ReflectionDisabled(unittest.TestCase):
    """With --reflection=false discovery fails cleanly; serving goes on."""

    def test_discovery_fails_cleanly(self):
        server = ServerProcess("--reflection=false")
        try:
            with grpc.insecure_channel(server.target) as channel:
                grpc.channel_ready_future(channel).result(timeout=20)
                with self.assertRaises(reflection_client.DiscoveryError) as c:
                    reflection_client.discover(channel, [HALMA])
                self.assertEqual(c.exception.code,
                                 grpc.StatusCode.UNIMPLEMENTED)
                # The server still answers (health, raw bytes: field 1 = 1,
                # SERVING).
                check = channel.unary_unary(
                    "/grpc.health.v1.Health/Check",
                    request_serializer=lambda _: b"",
                    response_deserializer=lambda data: data)
                self.assertEqual(check(None, timeout=10), b"\x08\x01")
        finally:
            self.assertEqual(server.stop(), 0)


if __name__ == "__main__":
    if len(sys.argv) < 2 or not os.access(sys.argv[1], os.X_OK):
        sys.exit("usage: reflection_test.py PATH/TO/halma_server "
                 "[unittest args]")
    SERVER_BINARY = sys.argv.pop(1)
    unittest.main(verbosity=2)
