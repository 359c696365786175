#!/usr/bin/python3
"""End-to-end test of server reflection with a third-party client, buf curl.

Usage: /usr/bin/python3 buf_curl_test.py SERVER BUF PAGE.md... [unittest args]

Starts halma_server on 127.0.0.1 with --port=0, then, through each
reflection protocol (grpc.reflection.v1 and v1alpha) and with no .proto
file: lists the services and methods, describes them (the file descriptors
fetched through the reflection service itself, with buf curl, checked for
json_name and the .proto's comments), and calls every RPC, checking the
JSON answers and their camelCase names. Then runs every grpcurl and buf
curl example of the markdown pages given (README.md, docs/grpc.md: see
tests/CMakeLists.txt) through buf curl and compares what it prints with what
the page shows; a page with no such example fails the test. A second server
runs with --reflection=false.

BUF is the buf binary of the npm package @bufbuild/buf (tools/).
Needs Debian's /usr/bin/python3 with python3-protobuf.
"""

import base64
import json
import os
import re
import shlex
import subprocess
import sys
import unittest

from google.protobuf import descriptor_pb2

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "attack"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "docs"))
import harness  # noqa: E402
import markdown_examples  # noqa: E402

SERVER = BUF = None  # From argv.
PAGES = []  # The markdown pages whose examples are run, from argv.
# The examples the pages have today (README.md 1, docs/grpc.md 12): fewer
# means one was dropped or moved to a page this test is not given.
MIN_EXAMPLES = 13
PROTOCOLS = ("grpc-v1", "grpc-v1alpha")
SERVICES = ["grpc.health.v1.Health", "grpc.reflection.v1.ServerReflection",
            "grpc.reflection.v1alpha.ServerReflection", "halma.v1.HalmaRules"]
HALMA_METHODS = ["Adjudicate", "LegalMoves", "ListVariants", "ValidateMove"]
BRAINKING_START = "4bbbb/5bbb/6bb/7b/w7/ww6/www5/wwww4 w 0,0"
# grpcurl writes a failed call's code in Go's CamelCase; buf curl in the
# Connect protocol's snake_case.
GRPCURL_CODES = {
    "canceled": "Canceled", "unknown": "Unknown",
    "invalid_argument": "InvalidArgument",
    "deadline_exceeded": "DeadlineExceeded", "not_found": "NotFound",
    "already_exists": "AlreadyExists",
    "permission_denied": "PermissionDenied",
    "resource_exhausted": "ResourceExhausted",
    "failed_precondition": "FailedPrecondition", "aborted": "Aborted",
    "out_of_range": "OutOfRange", "unimplemented": "Unimplemented",
    "internal": "Internal", "unavailable": "Unavailable",
    "data_loss": "DataLoss", "unauthenticated": "Unauthenticated",
}
TIMEOUT_SECONDS = 60


def start_server(**settings):
    """halma_server on 127.0.0.1 and a free port, with HALMA_* settings."""
    env = harness.server_environment({})
    env.update(settings)
    return harness.Server(SERVER, env)


def buf_curl(target, *args, data=None, reflect=None):
    """Runs buf curl; returns (exit code, stdout, stderr)."""
    command = [BUF, "curl", "--protocol", "grpc", "--http2-prior-knowledge"]
    if reflect:
        command += ["--reflect-protocol", reflect]
    if data is not None:
        command += ["-d", data]
    command += [target] + list(args)
    done = subprocess.run(command, capture_output=True, text=True,
                          timeout=TIMEOUT_SECONDS)
    return done.returncode, done.stdout, done.stderr


class ReflectedApiTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = start_server()
        cls.url = "http://" + cls.server.target

    @classmethod
    def tearDownClass(cls):
        code, _ = cls.server.stop()
        assert code == 0, "halma_server exited with %r" % code

    def call(self, method, request, reflect):
        code, out, err = buf_curl(self.url + "/" + method,
                                  data=json.dumps(request), reflect=reflect)
        self.assertEqual(code, 0, err)
        return json.loads(out)

    def test_lists_services_and_methods(self):
        for reflect in PROTOCOLS:
            with self.subTest(reflect=reflect):
                code, out, err = buf_curl(self.url, "--list-services",
                                          reflect=reflect)
                self.assertEqual(code, 0, err)
                self.assertEqual(out.split(), SERVICES)
                code, out, err = buf_curl(self.url, "--list-methods",
                                          reflect=reflect)
                self.assertEqual(code, 0, err)
                methods = out.split()
                for name in HALMA_METHODS:
                    self.assertIn("halma.v1.HalmaRules/" + name, methods)
                self.assertIn("grpc.health.v1.Health/Check", methods)

    def test_describes_the_api_with_json_names_and_comments(self):
        # buf curl has no describe; what a describe shows comes from the
        # reflection service, called here with buf curl itself.
        for service in ("v1", "v1alpha"):
            with self.subTest(reflection=service):
                method = ("grpc.reflection.%s.ServerReflection/"
                          "ServerReflectionInfo" % service)
                answer = self.call(
                    method, {"fileContainingSymbol": "halma.v1.HalmaRules"},
                    "grpc-" + service)
                protos = answer["fileDescriptorResponse"][
                    "fileDescriptorProto"]
                self.assertEqual(len(protos), 1)
                file = descriptor_pb2.FileDescriptorProto.FromString(
                    base64.b64decode(protos[0]))
                self.assertEqual(file.name, "halma/v1/halma.proto")
                # Every field has its camelCase JSON name.
                for message in file.message_type:
                    for field in message.field:
                        expected = re.sub(r"_([a-z0-9])",
                                          lambda m: m.group(1).upper(),
                                          field.name)
                        self.assertEqual(field.json_name, expected,
                                         message.name + "." + field.name)
                comments = {tuple(loc.path): loc.leading_comments
                            for loc in file.source_code_info.location}
                # Path 6, 0: the service; 6, 0, 2, i: its methods; 4, i:
                # the messages.
                self.assertIn("Adjudicates Halma positions", comments[(6, 0)])
                for i, method in enumerate(file.service[0].method):
                    self.assertTrue(comments.get((6, 0, 2, i), "").strip(),
                                    method.name)
                for i, message in enumerate(file.message_type):
                    self.assertTrue(comments.get((4, i), "").strip(),
                                    message.name)

    def test_calls_every_rpc_with_camel_case_answers(self):
        for reflect in PROTOCOLS:
            with self.subTest(reflect=reflect):
                health = self.call("grpc.health.v1.Health/Check",
                                   {"service": "halma.v1.HalmaRules"},
                                   reflect)
                self.assertEqual(health, {"status": "SERVING"})

                variants = self.call("halma.v1.HalmaRules/ListVariants", {},
                                     reflect)["variants"]
                self.assertEqual(
                    [v["name"] for v in variants],
                    ["brainking-8x8", "brainking-10x10",
                     "iggamecenter-10x10", "classic-16x16",
                     "classic-16x16-4p"])
                self.assertEqual(variants[0]["startPosition"],
                                 BRAINKING_START)
                self.assertEqual(variants[0]["piecesPerSeat"], 10)
                self.assertEqual(variants[0]["spec"]["boardSize"], 8)
                self.assertEqual(variants[0]["spec"]["campRows"],
                                 [4, 3, 2, 1])

                moves = self.call(
                    "halma.v1.HalmaRules/LegalMoves",
                    {"variant": {"preset": "brainking-8x8"}, "origin": "a3"},
                    reflect)
                self.assertEqual([m["destination"] for m in moves["moves"]],
                                 ["a5", "b4", "c3"])
                self.assertEqual(moves["status"]["toMove"], "SEAT_W")
                self.assertEqual(moves["count"], 3)

                # The proto names are accepted on input too.
                legal = self.call(
                    "halma.v1.HalmaRules/ValidateMove",
                    {"variant": {"preset": "brainking-8x8"},
                     "move": "b1-d3"}, reflect)
                self.assertTrue(legal["legal"])
                self.assertEqual(legal["positionAfter"],
                                 "4bbbb/5bbb/6bb/7b/w7/ww1w4/www5/w1ww4 b 1,0")
                illegal = self.call(
                    "halma.v1.HalmaRules/ValidateMove",
                    {"variant": {"custom": {"board_size": 8, "seat_count": 2,
                                            "camp_rows": [4, 3, 2, 1]}},
                     "move": "a1-b2"}, reflect)
                self.assertNotIn("legal", illegal)
                self.assertEqual(illegal["reason"],
                                 "ILLEGAL_REASON_DESTINATION_OCCUPIED")
                self.assertEqual(illegal["message"], "b2 is occupied")

                record = self.call(
                    "halma.v1.HalmaRules/Adjudicate",
                    {"variant": {"preset": "brainking-8x8"},
                     "moves": ["b1-d3", "h7-f5", "a1-b2"]}, reflect)
                self.assertEqual(record["movesPlayed"], 2)
                self.assertEqual(record["illegalMove"]["ply"], 3)
                self.assertEqual(record["moveCounts"],
                                 [{"seat": "SEAT_W", "moves": "1"},
                                  {"seat": "SEAT_B", "moves": "1"}])
                self.assertIn("finalPosition", record)

    def test_invalid_argument_names_the_field(self):
        code, out, err = buf_curl(
            self.url + "/halma.v1.HalmaRules/LegalMoves",
            data='{"variant": {"preset": "brainking-9x9"}}')
        self.assertNotEqual(code, 0)
        self.assertEqual(out, "")
        error = json.loads(err)
        self.assertEqual(error["code"], "invalid_argument")
        self.assertTrue(error["message"].startswith(
            'variant.preset: variant "brainking-9x9": no such preset'))


class ReflectionOffTest(unittest.TestCase):
    def test_discovery_fails_and_the_server_still_serves(self):
        server = start_server(HALMA_REFLECTION="false")
        try:
            url = "http://" + server.target
            for reflect in PROTOCOLS:
                code, out, err = buf_curl(url, "--list-services",
                                          reflect=reflect)
                self.assertNotEqual(code, 0)
                self.assertIn("unimplemented", err)
            # With the schema from the project's own .proto, it serves.
            done = subprocess.run(
                [BUF, "curl", "--protocol", "grpc",
                 "--http2-prior-knowledge", "--schema",
                 os.path.join(HERE, "..", "..", "..", "proto"), "-d", "{}",
                 url + "/halma.v1.HalmaRules/ListVariants"],
                capture_output=True, text=True, timeout=TIMEOUT_SECONDS)
            self.assertEqual(done.returncode, 0, done.stderr)
            self.assertEqual(len(json.loads(done.stdout)["variants"]), 5)
        finally:
            code, _ = server.stop()
            self.assertEqual(code, 0)


def run_example(command, target):
    """What `command` prints, run with buf curl against `target`. A grpcurl
    command is translated: same request, method and reflection; errors in
    grpcurl's form."""
    pipe = None
    if " | " in command:
        command, pipe = command.split(" | ", 1)
    words = shlex.split(command)
    if words[0] == "grpcurl":
        data, rest = None, []
        it = iter(words[1:])
        for word in it:
            if word == "-plaintext":
                continue
            if word == "-d":
                data = next(it)
                continue
            rest.append(word)
        assert rest[0] == "localhost:50051", command
        url = "http://" + target
        if rest[1:] == ["list"]:
            args = [url, "--list-services"]
        else:
            assert len(rest) == 2, command
            args = [url + "/" + rest[1]]
        code, out, err = buf_curl(*args, data=data)
        if code != 0:
            error = json.loads(err)
            out = "ERROR:\n  Code: %s\n  Message: %s\n" % (
                GRPCURL_CODES[error["code"]], error["message"])
    else:
        assert words[:2] == ["buf", "curl"], command
        words = [BUF] + [w.replace("localhost:50051", target)
                         for w in words[1:]]
        done = subprocess.run(words, capture_output=True, text=True,
                              timeout=TIMEOUT_SECONDS)
        out = done.stdout + done.stderr
    if pipe is not None:
        head = shlex.split(pipe)
        assert head[:2] == ["head", "-n"], pipe
        out = "".join(out.splitlines(True)[:int(head[2])])
    return out.rstrip("\n")


class DocExamplesTest(unittest.TestCase):
    def test_every_example_prints_what_the_page_shows(self):
        examples = markdown_examples.examples_in(PAGES, "grpc")
        self.assertGreaterEqual(len(examples), MIN_EXAMPLES)
        server = start_server()
        try:
            for example in examples:
                with self.subTest(page=example.path, command=example.command):
                    self.assertEqual(
                        run_example(example.command, server.target),
                        example.expected())
        finally:
            code, _ = server.stop()
            self.assertEqual(code, 0)


if __name__ == "__main__":
    if len(sys.argv) < 4 or not sys.argv[3].endswith(".md"):
        sys.exit(__doc__)
    SERVER, BUF = sys.argv[1:3]
    rest = sys.argv[3:]
    while rest and rest[0].endswith(".md"):
        PAGES.append(rest.pop(0))
    for path in (SERVER, BUF):
        if not os.access(path, os.X_OK):
            sys.exit("%s: not an executable (for buf: npm ci --prefix tools)"
                     % path)
    unittest.main(argv=[sys.argv[0]] + rest)
