#!/usr/bin/python3
"""halmactl conformance against the real halma_server, over gRPC and over
the Connect protocol's HTTP/JSON.

    conformance_test.py HALMACTL HALMA_SERVER REPO [unittest args]

The published suite (REPO/conformance/suite) passes whole over both
protocols (every case run, the gRPC-only ones skipped over HTTP), with the
summary per RPC and area and the --json report, and over gRPC with TLS; a
copy of the suite with wrong expectations planted in it fails on exactly
those cases, naming them and the differences; --filter chooses cases; an
unreachable server exits 1 and an unreadable suite 2; docs/conformance.md's
examples are what halmactl prints. Every run is bounded by a timeout.
"""

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import unittest

HALMACTL = SERVER = REPO = SUITE = None  # From argv.
harness = None  # REPO/conformance/harness.py, imported in main.
SUMMARY = re.compile(
    r"halmactl conformance: (\d+) cases? of (\S+) against (\S+) over (\w+) "
    r"in ([\d.]+) s: (\d+) passed, (\d+) failed(?:, (\d+) skipped)?")
RUN_TIMEOUT = 120


def Server(*extra):
    """halma_server on 127.0.0.1 with free gRPC and HTTP ports and its
    default limits: the suite generator's (conformance/harness.py)."""
    return harness.Server(SERVER, *extra)


def run(*args):
    return subprocess.run([HALMACTL, "conformance", *args],
                          capture_output=True, text=True,
                          timeout=RUN_TIMEOUT)


def read_suite(folder):
    """{file name: [case]} of a suite folder."""
    out = {}
    for name in sorted(os.listdir(folder)):
        if name.endswith(".jsonl"):
            with open(os.path.join(folder, name), encoding="utf-8") as f:
                out[name] = [json.loads(line) for line in f if line.strip()]
    return out


def write_suite(folder, suite):
    os.makedirs(folder, exist_ok=True)
    for name, cases in suite.items():
        with open(os.path.join(folder, name), "w", encoding="utf-8") as f:
            for case in cases:
                f.write(json.dumps(case) + "\n")


def summary(stdout):
    match = SUMMARY.search(stdout)
    if match is None:
        raise AssertionError("no summary line in:\n" + stdout[:2000])
    return {"cases": int(match.group(1)), "protocol": match.group(4),
            "passed": int(match.group(6)), "failed": int(match.group(7)),
            "skipped": int(match.group(8) or 0)}


class ConformanceTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = Server()
        cls.suite = read_suite(SUITE)
        cls.cases = [c for cases in cls.suite.values() for c in cases]
        cls.tmp = tempfile.mkdtemp(prefix="halma-conformance-")

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def target(self, protocol):
        port = self.server.port if protocol == "grpc" else \
            self.server.http_port
        return "--target=127.0.0.1:%d" % port

    def for_protocol(self, protocol):
        return [c for c in self.cases
                if protocol in c.get("protocols", [protocol])]

    def test_the_suite_is_a_few_hundred_cases_over_every_rpc(self):
        self.assertGreaterEqual(len(self.cases), 300)
        rpcs = {c["rpc"] for c in self.cases}
        for method in ("ListVariants", "LegalMoves", "ValidateMove",
                       "Adjudicate", "Perft"):
            self.assertIn("halma.v1.HalmaRules/" + method, rpcs)
        kinds = {c["expect"]["kind"] for c in self.cases}
        self.assertEqual(kinds, {"answer", "error", "deterministic",
                                 "member"})

    def test_the_whole_suite_passes_over_both_protocols(self):
        for protocol in ("grpc", "connect"):
            with self.subTest(protocol=protocol):
                done = run(self.target(protocol), "--suite=" + SUITE,
                           "--protocol=" + protocol)
                self.assertEqual(done.returncode, 0,
                                 done.stdout[-3000:] + done.stderr)
                got = summary(done.stdout)
                want = len(self.for_protocol(protocol))
                self.assertEqual(got["protocol"], protocol)
                self.assertEqual(got["cases"], want)
                self.assertEqual(got["passed"], want)
                self.assertEqual(got["failed"], 0)
                self.assertEqual(got["skipped"], len(self.cases) - want)
                # The per-RPC and per-area tables.
                self.assertIn("by RPC", done.stdout)
                self.assertRegex(done.stdout,
                                 r"\n  halma\.v1\.HalmaRules/LegalMoves +\d+"
                                 r" +0\n")
                self.assertRegex(done.stdout, r"\n  target-lock +\d+ +0\n")
                self.assertNotIn("FAIL", done.stdout)

    def test_json_report(self):
        done = run(self.target("connect"), "--suite=" + SUITE,
                   "--protocol=connect", "--json")
        self.assertEqual(done.returncode, 0, done.stderr)
        report = json.loads(done.stdout)
        want = len(self.for_protocol("connect"))
        self.assertEqual(report["cases"], want)
        self.assertEqual(report["passed"], want)
        self.assertEqual(report["failed"], 0)
        self.assertEqual(report["failures"], [])
        self.assertEqual(report["protocol"], "connect")
        self.assertEqual(sum(r["passed"] for r in report["by_rpc"].values()),
                         want)
        areas = {a for c in self.for_protocol("connect") for a in c["areas"]}
        self.assertEqual(set(report["by_area"]), areas)

    def plant_wrong_expectations(self):
        """A copy of the suite with one expectation of each kind made wrong;
        returns the folder and {id: the difference the runner must report}.
        """
        suite = json.loads(json.dumps(self.suite))
        planted = {}

        def first(file, test):
            return next(c for c in suite[file] if test(c))

        c = first("legal_moves.jsonl", lambda c: c["expect"]["kind"] ==
                  "answer" and c["expect"]["fields"]["count"] > 0)
        count = c["expect"]["fields"]["count"]
        c["expect"]["fields"]["count"] = count + 1
        planted[c["id"]] = "count: expected %d, got %d" % (count + 1, count)

        c = first("validate_move.jsonl", lambda c: c["expect"]["kind"] ==
                  "answer" and c["expect"]["fields"]["legal"])
        seat = c["expect"]["fields"]["status"]["toMove"]
        other = "SEAT_G" if seat != "SEAT_G" else "SEAT_W"
        c["expect"]["fields"]["status"]["toMove"] = other
        planted[c["id"]] = 'status.toMove: expected "%s", got "%s"' % (
            other, seat)

        c = first("adjudicate.jsonl", lambda c: c["expect"]["kind"] ==
                  "answer" and c["expect"]["fields"]["illegalMove"] is None)
        c["expect"]["fields"]["illegalMove"] = {"ply": 1}
        planted[c["id"]] = "illegalMove: expected {\"ply\":1}, got absent"

        c = first("malformed.jsonl", lambda c: c["expect"]["kind"] == "error"
                  and "field" in c["expect"])
        c["expect"]["code"] = "NOT_FOUND"
        planted[c["id"]] = "code: expected NOT_FOUND, got INVALID_ARGUMENT"

        c = first("malformed.jsonl", lambda c: c["expect"]["kind"] == "error"
                  and c["expect"].get("field") == "position")
        c["expect"]["field"] = "origin"
        planted[c["id"]] = "message: expected it to name the field origin"

        folder = tempfile.mkdtemp(dir=self.tmp)
        write_suite(folder, suite)
        return folder, planted

    def test_wrong_expectations_fail_exactly_those_cases(self):
        folder, planted = self.plant_wrong_expectations()
        for protocol in ("grpc", "connect"):
            with self.subTest(protocol=protocol):
                done = run(self.target(protocol), "--suite=" + folder,
                           "--protocol=" + protocol)
                self.assertEqual(done.returncode, 3, done.stderr)
                got = summary(done.stdout)
                self.assertEqual(got["failed"], len(planted))
                self.assertEqual(got["passed"],
                                 len(self.for_protocol(protocol)) -
                                 len(planted))
                for case_id, difference in planted.items():
                    block = done.stdout.split("FAIL " + case_id + " ", 1)
                    self.assertEqual(len(block), 2, "no FAIL " + case_id)
                    detail = block[1].split("\nFAIL ", 1)[0]
                    self.assertIn("  request:  {", detail)
                    self.assertIn("  expected: {", detail)
                    self.assertIn("  got:      {", detail)
                    self.assertIn(difference, detail)
                report = json.loads(run(
                    self.target(protocol), "--suite=" + folder,
                    "--protocol=" + protocol, "--json").stdout)
                self.assertEqual({f["id"] for f in report["failures"]},
                                 set(planted))
                for failure in report["failures"]:
                    self.assertTrue(any(planted[failure["id"]] in d
                                        for d in failure["differences"]),
                                    failure)

    def test_filter_chooses_cases(self):
        perft = [c for c in self.cases if c["rpc"].endswith("/Perft")]
        done = run(self.target("grpc"), "--suite=" + SUITE,
                   "--filter=rpc:Perft")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(summary(done.stdout)["cases"], len(perft))
        no_limits = [c for c in self.for_protocol("grpc")
                     if "limits" not in c["areas"]]
        done = run(self.target("grpc"), "--suite=" + SUITE,
                   "--filter=-area:limits")
        self.assertEqual(summary(done.stdout)["cases"], len(no_limits))
        ids = [c["id"] for c in self.cases]
        one = next(i for i in ids
                   if sum(other.startswith(i) for other in ids) == 1)
        done = run(self.target("grpc"), "--suite=" + SUITE,
                   "--filter=id:" + one)
        self.assertEqual(summary(done.stdout)["cases"], 1)
        done = run(self.target("grpc"), "--suite=" + SUITE,
                   "--filter=colour:red")
        self.assertEqual(done.returncode, 2)
        self.assertIn("--filter", done.stderr)

    def test_unreachable_server_exits_1(self):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        # Nothing listens on the port any more.
        for protocol in ("grpc", "connect"):
            with self.subTest(protocol=protocol):
                done = run("--target=127.0.0.1:%d" % port,
                           "--suite=" + SUITE, "--protocol=" + protocol,
                           "--deadline_ms=2000")
                self.assertEqual(done.returncode, 1, done.stdout)
                self.assertIn("could not connect", done.stderr)
                self.assertEqual(done.stdout, "")

    def test_unreadable_suite_exits_2(self):
        folder = tempfile.mkdtemp(dir=self.tmp)
        with open(os.path.join(folder, "a.jsonl"), "w") as f:
            f.write(json.dumps(self.cases[0]) + "\n")
            f.write('{"id": "broken", "rpc": "halma.v1.HalmaRules/Nope", '
                    '"request": {}, "expect": {"kind": "answer", '
                    '"fields": {}}}\n')
        for suite, message in [(folder, "a.jsonl:2: \"rpc\""),
                               (os.path.join(self.tmp, "none"),
                                "cannot read the suite folder")]:
            done = run(self.target("grpc"), "--suite=" + suite)
            self.assertEqual(done.returncode, 2, done.stdout)
            self.assertIn("the suite is unreadable", done.stderr)
            self.assertIn(message, done.stderr)
        with open(os.path.join(folder, "a.jsonl"), "w") as f:
            f.write(json.dumps(self.cases[0]) + "\n")
            f.write(json.dumps(self.cases[0]) + "\n")
        done = run(self.target("grpc"), "--suite=" + folder)
        self.assertEqual(done.returncode, 2)
        self.assertIn("is also the id of a.jsonl:1", done.stderr)

    def test_docs_examples_are_what_halmactl_prints(self):
        """docs/conformance.md: its example cases are lines of the suite,
        its table counts the suite's files, and its console examples are
        what halmactl prints (the time aside), for a copy of the suite
        changed as the page says for the failing one."""
        doc_path = os.path.join(REPO, "docs", "conformance.md")
        with open(doc_path, encoding="utf-8") as f:
            doc = f.read()
        lines = {}
        for name, cases in self.suite.items():
            with open(os.path.join(SUITE, name), encoding="utf-8") as f:
                for line in f:
                    lines[json.loads(line)["id"]] = line.rstrip("\n")
        quoted = 0
        for block in re.findall(r"```json\n(.*?)```", doc, re.S):
            case = json.loads(block)
            if case["id"] in lines:
                self.assertEqual(block.rstrip("\n"), lines[case["id"]])
                quoted += 1
        self.assertGreaterEqual(quoted, 2)
        for name, count in re.findall(r"^\| `(\w+\.jsonl)` \| (\d+) \|", doc,
                                      re.M):
            self.assertEqual(len(self.suite[name]), int(count), name)
        self.assertIn("\n%d cases, in one file" % len(self.cases), doc)
        listed = doc.split("name what they cover:", 1)[1].split(
            "The runner", 1)[0]
        self.assertEqual(set(re.findall(r"`([a-z-]+)`", listed)),
                         {a for c in self.cases for a in c["areas"]})
        # The changed copy the failure example runs on.
        changed = tempfile.mkdtemp(dir=self.tmp)
        with open(os.path.join(changed, "validate_move.jsonl"), "w") as f:
            with open(os.path.join(SUITE, "validate_move.jsonl"),
                      encoding="utf-8") as src:
                for line in src:
                    case = json.loads(line)
                    if case["id"] == "validate_move/pass/forced":
                        case["expect"]["fields"]["status"]["toMove"] = \
                            "SEAT_W"
                        line = json.dumps(case) + "\n"
                    f.write(line)
        for name in self.suite:
            if name != "validate_move.jsonl":
                shutil.copy(os.path.join(SUITE, name), changed)
        grpc_target = "127.0.0.1:%d" % self.server.port
        http_target = "127.0.0.1:%d" % self.server.http_port
        replacements = [("localhost:50051", grpc_target),
                        ("localhost:8080", http_target),
                        ("conformance/suite", SUITE), ("/tmp/suite", changed)]
        seconds = re.compile(r" in [\d.]+ s: ")
        runs = 0
        for block in re.findall(r"```console\n(.*?)```", doc, re.S):
            for command in re.split(r"^\$ ", block, flags=re.M)[1:]:
                command_line, _, shown = command.partition("\n")
                args = command_line.split()
                self.assertEqual(args[:2], ["halmactl", "conformance"])
                for old, new in replacements:
                    args = [a.replace(old, new) for a in args]
                done = subprocess.run([HALMACTL] + args[1:],
                                      capture_output=True, text=True,
                                      timeout=RUN_TIMEOUT)
                out = done.stdout
                for old, new in replacements:
                    out = out.replace(new, old)
                out_lines = out.splitlines()
                for i, want in enumerate(shown.rstrip("\n").splitlines()):
                    if want == "...":
                        break
                    self.assertLess(i, len(out_lines), command_line)
                    self.assertEqual(seconds.sub(" in X s: ", out_lines[i]),
                                     seconds.sub(" in X s: ", want),
                                     command_line)
                runs += 1
        self.assertEqual(runs, 3)

    def test_grpc_over_tls(self):
        certs = os.path.join(REPO, "tests", "service", "server", "testdata")
        server = Server("--tls_cert=" + os.path.join(certs, "server.crt"),
                        "--tls_key=" + os.path.join(certs, "server.key"))
        try:
            target = "--target=127.0.0.1:%d" % server.port
            want = [c for c in self.cases if c["rpc"].endswith("/LegalMoves")]
            done = run(target, "--suite=" + SUITE, "--filter=rpc:LegalMoves",
                       "--ca_cert=" + os.path.join(certs, "server.crt"),
                       "--tls_server_name=localhost")
            self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
            self.assertEqual(summary(done.stdout)["passed"], len(want))
            # Plaintext to a TLS port never connects.
            done = run(target, "--suite=" + SUITE, "--deadline_ms=2000")
            self.assertEqual(done.returncode, 1, done.stdout)
        finally:
            server.stop()

    def test_help(self):
        done = subprocess.run([HALMACTL, "help", "conformance"],
                              capture_output=True, text=True, timeout=30)
        self.assertEqual(done.returncode, 0)
        self.assertIn("--protocol=connect", done.stdout)


if __name__ == "__main__":
    HALMACTL, SERVER, REPO = sys.argv[1:4]
    SUITE = os.path.join(REPO, "conformance", "suite")
    sys.path.insert(0, os.path.join(REPO, "conformance"))
    import harness
    unittest.main(argv=sys.argv[:1] + sys.argv[4:], verbosity=2)
