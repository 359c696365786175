#!/usr/bin/python3
"""halmactl end to end against three real halma_server processes.

    batch_test.py HALMACTL HALMA_SERVER VECTORS_DIR PAGE.md... [unittest args]

`halmactl adjudicate --batch` over a few thousand records (the public
vectors' games, prefixes of them, illegal and malformed ones mixed in),
spread by round_robin over three servers on 127.0.0.1: each server gets a
share (its /metrics), the output is complete and in input order, every
answer equals the unary Adjudicate answer for the same record, exit code 3
and the summary; JSON lines and text format, a file and standard input; a
server stopped and killed mid-run (records sent again, output complete);
the progress line only on a terminal; perft; adjudicate --record; bad
input lines; and every halmactl example of the markdown pages given
(README.md, docs/halmactl.md: see tests/CMakeLists.txt; a page with none
fails the test). Every wait is bounded.
"""

import http.client
import json
import os
import pty
import random
import re
import select
import shlex
import signal
import subprocess
import sys
import tempfile
import threading
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "docs"))
import markdown_examples  # noqa: E402

HALMACTL = SERVER = VECTORS = None  # From argv.
PAGES = []  # The markdown pages whose halmactl examples are run, from argv.
# The halmactl examples the pages have today (README.md 1, docs/halmactl.md
# 9): fewer means one was dropped or moved to a page this test is not given.
MIN_EXAMPLES = 10
LISTEN = re.compile(r"listening on [^ ]*:(\d+) ")
HTTP = re.compile(r"; http [^ ]*:(\d+) \(Connect protocol\)")
SUMMARY = re.compile(
    r"halmactl: (\d+) records in [\d.]+ s \(\d+ records/s\): (\d+) legal, "
    r"(\d+) illegal, (\d+) malformed, (\d+) failed")
RUN_TIMEOUT = 120


class Server:
    """halma_server on 127.0.0.1 with free gRPC and HTTP ports."""

    def __init__(self, extra=()):
        self.proc = subprocess.Popen(
            [SERVER, "--host=127.0.0.1", "--port=0", "--http_port=0",
             "--grace_period_seconds=5", *extra],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE, text=True)
        self.lines = []
        deadline = time.monotonic() + 30
        self.port = self.http_port = None
        while time.monotonic() < deadline:
            line = self.proc.stderr.readline()
            if not line:
                break
            self.lines.append(line)
            try:
                message = json.loads(line).get("message", "")
            except ValueError:
                continue
            match, http_match = LISTEN.search(message), HTTP.search(message)
            if match and http_match:
                self.port = int(match.group(1))
                self.http_port = int(http_match.group(1))
                break
        if self.port is None:
            self.kill()
            raise AssertionError("no start-up line: %s" % "".join(self.lines))
        # Keep draining stderr so that the server never blocks on it.
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self):
        for line in self.proc.stderr:
            if len(self.lines) < 10000:
                self.lines.append(line)

    def address(self):
        return "127.0.0.1:%d" % self.port

    def metrics(self):
        conn = http.client.HTTPConnection("127.0.0.1", self.http_port,
                                          timeout=10)
        conn.request("GET", "/metrics")
        body = conn.getresponse().read().decode()
        conn.close()
        return body

    def records_adjudicated(self):
        """Records this server adjudicated (unary calls and stream records
        alike: halma_variant_calls_total counts each record of a stream
        under Adjudicate; AdjudicateStream too, should it get a label of
        its own)."""
        total = 0
        for line in self.metrics().splitlines():
            if (line.startswith("halma_variant_calls_total{") and
                    ('method="halma.v1.HalmaRules/Adjudicate"' in line or
                     'method="halma.v1.HalmaRules/AdjudicateStream"' in line)):
                total += int(float(line.rsplit(" ", 1)[1]))
        return total

    def stream_calls(self):
        total = 0
        for line in self.metrics().splitlines():
            if (line.startswith("halma_rpc_calls_total{") and
                    "HalmaRules/AdjudicateStream" in line and
                    'protocol="grpc"' in line):
                total += int(float(line.rsplit(" ", 1)[1]))
        return total

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=10)
        self.close()

    def close(self):
        try:
            self.proc.stderr.close()
        except (OSError, ValueError):
            pass

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            code = self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.kill()
            return None
        self.close()
        return code


def variant_json(variant):
    if isinstance(variant, str):
        return {"preset": variant}
    return {"custom": {
        "boardSize": variant["n"], "seatCount": variant["seats"],
        "campRows": variant["camp"], "homeExitLimit": variant["home_exit"],
        "roundCompletion": variant["round_completion"],
        "targetLock": variant["target_lock"],
        "moveCap": variant["move_cap"]}}


def make_records(count, seed=12):
    """(JSON line, expected id) pairs: vector games, their prefixes, illegal
    and malformed records, and lines that are not records at all."""
    games = []
    with open(os.path.join(VECTORS, "records.jsonl")) as vectors:
        for line in vectors:
            vector = json.loads(line)
            request = {"variant": variant_json(vector["variant"]),
                       "moves": vector["moves"]}
            if "from" in vector:
                request["startPosition"] = vector["from"]
            games.append(request)
    rng = random.Random(seed)
    lines = []
    for i in range(count):
        kind = rng.random()
        game = dict(rng.choice(games))
        if kind < 0.03:
            line = "not json at all %d" % i
        elif kind < 0.05:
            line = json.dumps({"variant": {"preset": "brainking-8x8"},
                               "moves": ["b1-d3"], "colour": "red"})
        elif kind < 0.08:
            line = json.dumps({"variant": {"preset": "brainking-9x9"},
                               "moves": ["b1-d3"]})
        elif kind < 0.10:
            moves = list(game["moves"])
            moves.insert(rng.randrange(len(moves) + 1), "z9-a1")
            line = json.dumps(dict(game, moves=moves))
        elif kind < 0.30:
            line = json.dumps(game)
        elif kind < 0.40:
            line = json.dumps({"id": "g%d" % i, "record": game})
        else:
            moves = game["moves"][:rng.randrange(len(game["moves"]) + 1)]
            line = json.dumps(dict(game, moves=moves))
        lines.append(line)
        if rng.random() < 0.01:
            lines.append("")  # Blank lines are skipped (ids stay line numbers).
    ids = []
    for number, line in enumerate(lines, 1):
        if not line:
            continue
        try:
            obj = json.loads(line)
        except ValueError:
            obj = None
        ids.append(obj["id"] if isinstance(obj, dict) and "id" in obj
                   else str(number))
    return lines, ids


def read_file(path):
    with open(path) as f:
        return f.read()


def run(args, stdin=None, input_text=None, timeout=RUN_TIMEOUT):
    return subprocess.run([HALMACTL, *args], stdin=stdin, input=input_text,
                          capture_output=True, text=True, timeout=timeout)


def normalized(value):
    """JSON with default values dropped (the proto3 mapping prints them or
    not, depending on the printer)."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            item = normalized(item)
            if item in (None, False, 0, "", "0", [], {}) or (
                    isinstance(item, str) and item.endswith("_UNSPECIFIED")):
                continue
            out[key] = item
        return out
    if isinstance(value, list):
        return [normalized(item) for item in value]
    return value


class Unary:
    """Unary Adjudicate through a server's Connect JSON endpoint."""

    def __init__(self, server):
        self.conn = http.client.HTTPConnection("127.0.0.1", server.http_port,
                                               timeout=30)

    def call(self, method, request):
        self.conn.request("POST", "/halma.v1.HalmaRules/" + method,
                          body=json.dumps(request),
                          headers={"Content-Type": "application/json"})
        response = self.conn.getresponse()
        return response.status, json.loads(response.read())

    def close(self):
        self.conn.close()


class BatchTest(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.servers = [Server() for _ in range(3)]
        cls.target = "ipv4:" + ",".join(s.address() for s in cls.servers)
        cls.tmp = tempfile.TemporaryDirectory(prefix="halmactl_batch_")
        cls.lines, cls.ids = make_records(3000)
        cls.path = os.path.join(cls.tmp.name, "records.jsonl")
        with open(cls.path, "w") as out:
            out.write("\n".join(cls.lines) + "\n")
        # The batch run every test compares with; the servers' shares are
        # read before anything else calls them.
        before = [s.records_adjudicated() for s in cls.servers]
        cls.first = run(["--target=" + cls.target, "adjudicate",
                         "--batch=" + cls.path])
        cls.shares = [s.records_adjudicated() - b
                      for s, b in zip(cls.servers, before)]
        cls.streams = [s.stream_calls() for s in cls.servers]
        print("records per server: %s; AdjudicateStream calls: %s; %s" % (
            cls.shares, cls.streams, cls.first.stderr.strip()),
            file=sys.stderr)

    @classmethod
    def tearDownClass(cls):
        for server in cls.servers:
            server.kill()
        cls.tmp.cleanup()

    def output(self, result):
        return [json.loads(line) for line in result.stdout.splitlines()]

    def test_every_server_gets_a_share_and_output_is_complete_in_order(self):
        result = self.first
        self.assertEqual(result.returncode, 3, result.stderr)
        answers = self.output(result)
        self.assertEqual([a["id"] for a in answers], self.ids)
        sent = sum(1 for a in answers if "result" in a or
                   not a["error"]["message"].startswith("line "))
        self.assertEqual(sum(self.shares), sent)
        for share in self.shares:
            self.assertGreater(share, len(self.ids) // 20, self.shares)
        # The summary counts what the output says.
        match = SUMMARY.search(result.stderr)
        self.assertIsNotNone(match, result.stderr)
        records, legal, illegal, malformed, failed = map(int, match.groups())
        self.assertEqual(records, len(self.ids))
        self.assertEqual(legal, sum(1 for a in answers if "result" in a and
                                    "illegalMove" not in a["result"]))
        self.assertEqual(illegal, sum(1 for a in answers if "result" in a and
                                      "illegalMove" in a["result"]))
        self.assertEqual(malformed, sum(1 for a in answers if "error" in a))
        self.assertGreater(illegal, 100)
        self.assertGreater(malformed, 100)
        self.assertEqual(failed, 0)
        # A pipe is no terminal: no progress line.
        self.assertNotIn("\r", result.stderr)
        self.assertNotIn("records/s,", result.stderr)

    def test_every_answer_equals_the_unary_answer(self):
        answers = self.output(self.first)
        unary = Unary(self.servers[0])
        try:
            for line, answer in zip((l for l in self.lines if l), answers):
                try:
                    obj = json.loads(line)
                except ValueError:
                    obj = None
                if not isinstance(obj, dict) or "error" in answer and \
                        answer["error"]["message"].startswith("line "):
                    # Refused by halmactl itself, naming the line and text.
                    self.assertEqual(answer["error"]["code"],
                                     "INVALID_ARGUMENT")
                    self.assertRegex(answer["error"]["message"],
                                     r"^line \d+: .*'.+'")
                    continue
                request = obj.get("record", obj)
                status, body = unary.call("Adjudicate", request)
                if "result" in answer:
                    self.assertEqual(status, 200, (line, body))
                    self.assertEqual(normalized(answer["result"]),
                                     normalized(body), line)
                else:
                    self.assertNotEqual(status, 200, (line, body))
                    self.assertEqual(answer["error"]["code"].lower(),
                                     body["code"], line)
                    self.assertEqual(answer["error"]["message"],
                                     body["message"], line)
        finally:
            unary.close()

    def test_standard_input_gives_the_same_output(self):
        with open(self.path) as stdin:
            result = run(["--target=" + self.target, "adjudicate", "--batch",
                          "-", "--streams=3", "--window=4"], stdin=stdin)
        self.assertEqual(result.returncode, 3, result.stderr)
        self.assertEqual(result.stdout, self.first.stdout)

    def test_text_format_round_trip(self):
        # The legal and illegal records in text form, adjudicated...
        text = run(["--target=" + self.target, "adjudicate",
                    "--batch=" + self.path, "--text-out"])
        self.assertEqual(text.returncode, 3, text.stderr)
        answers = self.output(self.first)
        results = [a["result"] for a in answers if "result" in a]
        self.assertEqual(text.stdout.count('[Variant "'), len(results))
        # ... are read back as text: the same results, the claims agree.
        text_path = os.path.join(self.tmp.name, "records.halma")
        with open(text_path, "w") as out:
            out.write(text.stdout)
        again = run(["--target=" + self.target, "adjudicate",
                     "--batch=" + text_path])
        self.assertEqual(again.returncode, 3, again.stderr)
        answers = self.output(again)
        self.assertEqual([a["id"] for a in answers],
                         [str(i) for i in range(1, len(results) + 1)])
        for answer, expected in zip(answers, results):
            self.assertIn("result", answer, answer)
            self.assertFalse(answer["result"]["resultMismatch"], answer)
            for key in ("status", "finalPosition", "movesPlayed"):
                self.assertEqual(answer["result"][key], expected[key])
            self.assertEqual(answer["result"]["claimedResult"],
                             answer["result"]["result"])
        # Standard input, a malformed record and a wrong claim among good
        # ones: errors name the line of the whole input.
        records = text.stdout.split('[Variant "')[1:4]
        records = ['[Variant "' + r for r in records]
        bad = '[Variant "brainking-8x8"]\n\n1. b1-d3 2. h7-f5 *\n'
        wrong = '[Variant "brainking-8x8"]\n\n1. b1-d3 h7-f5 win:w:target-filled\n'
        mixed = records[0] + "\n" + bad + records[1] + wrong + records[2]
        bad_line = (records[0] + "\n").count("\n") + 3
        result = run(["--target=" + self.target, "adjudicate", "--batch=-"],
                     input_text=mixed)
        self.assertEqual(result.returncode, 3, result.stderr)
        answers = self.output(result)
        self.assertEqual([a["id"] for a in answers], ["1", "2", "3", "4", "5"])
        self.assertEqual(answers[1]["error"]["code"], "INVALID_ARGUMENT")
        self.assertTrue(answers[1]["error"]["message"].startswith(
            "line %d, column" % bad_line), answers[1])
        self.assertTrue(answers[3]["result"]["resultMismatch"])
        self.assertIn("1 with a claimed result that differs", result.stderr)

    def test_servers_stopped_killed_and_hung_mid_run(self):
        # Servers of its own, so that the shared ones stay up. The input
        # comes in four parts through a pipe; between them one server shuts
        # down (SIGTERM: it answers what it received, then ends its streams
        # with UNAVAILABLE), one is killed (SIGKILL: its connections reset),
        # and one stops answering (SIGSTOP: the watchdog ends its streams
        # after --deadline_ms). The fourth does the rest.
        servers = [Server() for _ in range(4)]
        try:
            target = "ipv4:" + ",".join(s.address() for s in servers)
            proc = subprocess.Popen(
                [HALMACTL, "--target=" + target, "--deadline_ms=2000",
                 "adjudicate", "--batch=-", "--streams=8", "--window=8"],
                stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, text=True)
            out, err = [], []
            readers = [
                threading.Thread(target=lambda: out.append(proc.stdout.read()),
                                 daemon=True),
                threading.Thread(target=lambda: err.append(proc.stderr.read()),
                                 daemon=True)]
            lines = [l + "\n" for l in self.lines]  # Blank ones too.
            quarter = len(lines) // 4
            parts = [lines[:quarter], lines[quarter:2 * quarter],
                     lines[2 * quarter:3 * quarter], lines[3 * quarter:]]
            def feed():
                # halmactl stops reading while records wait for a server
                # that hangs, so the writes are in a thread of their own.
                for number, part in enumerate(parts):
                    proc.stdin.write("".join(part))
                    proc.stdin.flush()
                    events[number].set()
                    time.sleep(0.5)
                proc.stdin.close()
            events = [threading.Event() for _ in parts]
            writer = threading.Thread(target=feed, daemon=True)
            for thread in readers + [writer]:
                thread.start()
            self.assertTrue(events[0].wait(30))
            servers[0].stop()
            self.assertTrue(events[1].wait(30))
            servers[1].kill()
            self.assertTrue(events[2].wait(30))
            servers[2].proc.send_signal(signal.SIGSTOP)
            proc.wait(timeout=RUN_TIMEOUT)
            for thread in readers + [writer]:
                thread.join(timeout=10)
            proc.stdout.close()
            proc.stderr.close()
            self.assertEqual(proc.returncode, 3, err)
            self.assertEqual(out[0], self.first.stdout)
            self.assertRegex(err[0], r"\d+ streams? failed, \d+ records? sent "
                             r"again")
            print("stopped, killed and hung: %s" % err[0].strip(),
                  file=sys.stderr)
        finally:
            for server in servers:
                server.kill()

    def test_bad_input_gets_an_error_per_line(self):
        good = json.dumps({"variant": {"preset": "brainking-8x8"},
                           "moves": ["b1-d3"]})
        lines = [
            "\ufeff" + good,                       # 1: a byte order mark
            good + "\r",                           # 2: CRLF
            '{"moves": ["' + "a" * (2 << 20) + '"]}',  # 3: too long
            "[1, 2]",                               # 4: not an object
            '{"id": 5, "record": {}}',              # 5: id not a string
            '{"record": "x"}',                      # 6: record not an object
            '{"variant": {"preset": "brainking-8x8", "size": 8}}',  # 7
            '{"variant": ',                         # 8: cut short
            "\x00\x01\x02",                         # 9: binary
            good,                                   # 10
        ]
        result = run(["--target=" + self.servers[0].address(), "adjudicate",
                      "--batch=-"], input_text="\n".join(lines))
        self.assertEqual(result.returncode, 3, result.stderr)
        answers = self.output(result)
        self.assertEqual([a["id"] for a in answers],
                         [str(i) for i in range(1, 11)])
        for number in (1, 2, 10):
            self.assertIn("result", answers[number - 1])
        for number in range(3, 10):
            error = answers[number - 1]["error"]
            self.assertEqual(error["code"], "INVALID_ARGUMENT")
            self.assertTrue(error["message"].startswith("line %d: " % number),
                            error)
            self.assertLess(len(error["message"]), 600, error)
        self.assertIn("longer than 1048576 bytes", answers[2]["error"]["message"])
        self.assertIn("cut;", answers[2]["error"]["message"])

    def test_empty_input(self):
        result = run(["--target=" + self.servers[0].address(), "adjudicate",
                      "--batch=-"], input_text="\n\n")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(result.stdout, "")
        self.assertRegex(result.stderr, r"halmactl: 0 records in ")

    def test_doc_examples_print_what_the_page_shows(self):
        """Every `$ halmactl ...` of the pages, run against a server: the
        output as shown (a line "..." stands for the rest; times and rates
        may differ). `$ cat FILE` in a block with halmactl examples makes
        the file the examples read; `$ echo $?` checks the exit code of the
        command before it."""
        workdir = os.path.join(self.tmp.name, "docs")
        os.makedirs(workdir, exist_ok=True)
        examples = markdown_examples.examples_in(PAGES, "halmactl")
        self.assertGreaterEqual(len(examples), MIN_EXAMPLES)
        # The blocks that hold a halmactl example, each run in full.
        blocks = []
        for example in examples:
            if (example.path, example.block) not in blocks:
                blocks.append((example.path, example.block))
        checked = 0
        for path, block in blocks:
            with open(path, encoding="utf-8") as f:
                text = f.read()
            commands = [e for e in markdown_examples.examples(text, path)
                        if e.block == block]
            last = None
            for example in commands:
                command, output = example.command, list(example.output)
                words = command.split()
                if words[:1] == ["cat"]:
                    with open(os.path.join(workdir, words[1]), "w") as f:
                        f.write("\n".join(output) + "\n")
                    continue
                if command == "echo $?":
                    self.assertEqual(output, [str(last)], example)
                    continue
                self.assertTrue(markdown_examples.is_halmactl(command),
                                example)
                args = shlex.split(command)[1:]
                if args[:1] == ["--target"]:
                    args = args[2:]
                result = subprocess.run(
                    [HALMACTL, "--target=" + self.servers[0].address(), *args],
                    cwd=workdir, capture_output=True, text=True,
                    timeout=RUN_TIMEOUT)
                last = result.returncode
                got = (result.stdout + result.stderr).rstrip("\n").split("\n")
                if output and output[-1] == "...":
                    output = output[:-1]
                    got = got[:len(output)]
                timing = re.compile(r"in [\d.]+ s \(\d+ records/s\)")
                got = [timing.sub("in T", l) for l in got]
                output = [timing.sub("in T", l) for l in output]
                # stdout then stderr: the summary lines come last.
                self.assertEqual(sorted(got), sorted(output), example)
                self.assertEqual([l for l in got if l.startswith("halmactl:")],
                                 [l for l in output
                                  if l.startswith("halmactl:")], example)
                self.assertEqual([l for l in got if not
                                  l.startswith("halmactl:")],
                                 [l for l in output if not
                                  l.startswith("halmactl:")], example)
                checked += 1
        self.assertEqual(checked, len(examples))

    def test_no_server_is_exit_one(self):
        result = run(["--target=127.0.0.1:1", "--deadline_ms=2000",
                      "adjudicate", "--batch=" + self.path])
        self.assertEqual(result.returncode, 1)
        self.assertIn("UNAVAILABLE", result.stderr)
        self.assertEqual(result.stdout, "")

    def test_usage_errors(self):
        for args in (["adjudicate", "--batch=/nonexistent/records.jsonl"],
                     ["adjudicate", "--batch=-", "--variant=brainking-8x8"],
                     ["adjudicate", "--batch=-", "--streams=0"],
                     ["adjudicate", "--batch=-", "--window=x"],
                     ["--json", "adjudicate", "--batch=-"]):
            result = run(["--target=" + self.target, *args], input_text="")
            self.assertEqual(result.returncode, 2, (args, result.stderr))
            self.assertIn("halmactl: ", result.stderr)

    def run_on_terminal(self, args, feed, stdout_too=False):
        """Runs halmactl with stderr (and with `stdout_too` stdout) on a
        pseudo-terminal; `feed` writes its standard input. Returns (exit
        code, stdout, what the terminal got)."""
        master, slave = os.openpty()
        proc = subprocess.Popen([HALMACTL, *args], stdin=subprocess.PIPE,
                                stdout=slave if stdout_too else subprocess.PIPE,
                                stderr=slave, text=True)
        if stdout_too:
            proc.stdout = open(os.devnull)
        self.addCleanup(proc.stdout.close)
        os.close(slave)
        terminal = []
        def read_terminal():
            deadline = time.monotonic() + RUN_TIMEOUT
            while time.monotonic() < deadline:
                ready, _, _ = select.select([master], [], [], 0.5)
                if ready:
                    try:
                        data = os.read(master, 65536)
                    except OSError:
                        return
                    if not data:
                        return
                    terminal.append(data.decode(errors="replace"))
                elif proc.poll() is not None:
                    return
        reader = threading.Thread(target=read_terminal, daemon=True)
        reader.start()
        out = []
        out_reader = threading.Thread(
            target=lambda: out.append(proc.stdout.read()), daemon=True)
        out_reader.start()
        feed(proc.stdin)
        proc.stdin.close()
        proc.wait(timeout=RUN_TIMEOUT)
        reader.join(timeout=10)
        out_reader.join(timeout=10)
        os.close(master)
        return proc.returncode, out[0], "".join(terminal)

    def test_progress_line_only_on_a_terminal(self):
        lines = [l + "\n" for l in self.lines if l]
        def slowly(stdin):
            for part in range(4):
                stdin.write("".join(lines[part::4]))
                stdin.flush()
                time.sleep(0.5)
        code, out, terminal = self.run_on_terminal(
            ["--target=" + self.target, "adjudicate", "--batch=-"], slowly)
        self.assertEqual(code, 3, terminal)
        self.assertEqual(len(out.splitlines()), len(lines))
        self.assertRegex(terminal, r"\r\d+ records, \d+ records/s")
        self.assertIn("\r\x1b[K", terminal)  # Cleared before the summary.
        self.assertRegex(terminal, SUMMARY)
        # Output on the same terminal: the progress line is cleared before
        # each write, so every output line arrives whole.
        code, _, terminal = self.run_on_terminal(
            ["--target=" + self.target, "adjudicate", "--batch=-"], slowly,
            stdout_too=True)
        self.assertEqual(code, 3, terminal)
        written = re.sub(r"\r[^\r\n]*\x1b\[K", "", terminal.replace("\r\n", "\n"))
        answers = [l for l in written.splitlines() if l.startswith('{"id":')]
        self.assertEqual(len(answers), len(lines))
        for line in answers:
            self.assertTrue("result" in json.loads(line) or
                            "error" in json.loads(line), line)
        # A file: the total is known, so the line has it and the time left.
        big = os.path.join(self.tmp.name, "big.jsonl")
        with open(big, "w") as f:
            for _ in range(8):
                f.write("".join(lines))
        code, out, terminal = self.run_on_terminal(
            ["--target=" + self.target, "adjudicate", "--batch=" + big,
             "--streams=1", "--window=1"], lambda stdin: None)
        self.assertEqual(code, 3, terminal)
        self.assertEqual(len(out.splitlines()), 8 * len(lines))
        if "\r" in terminal:  # The run lasted long enough for one.
            self.assertRegex(terminal,
                             r"\r\d+/%d records, \d+ records/s, \d+ s left" %
                             (8 * len(lines)))

    def test_perft(self):
        target = "--target=" + self.servers[1].address()
        result = run([target, "perft", "--variant=brainking-8x8",
                      "--depth=0"])
        self.assertEqual((result.returncode, result.stdout),
                         (0, "Nodes at depth 0: 1\n"), result.stderr)
        result = run([target, "perft", "--variant=brainking-8x8",
                      "--depth=1"])
        self.assertEqual(result.stdout, "Nodes at depth 1: 24\n")
        result = run([target, "perft", "--variant=brainking-8x8",
                      "--depth=3", "--split"])
        self.assertEqual(result.returncode, 0, result.stderr)
        lines = result.stdout.splitlines()
        total = int(re.fullmatch(r"Nodes at depth 3: (\d+)", lines[-1])
                    .group(1))
        self.assertEqual(lines[-2], "First moves: 24")
        self.assertEqual(lines[-3], "")
        split = [re.fullmatch(r"(\S+): +(\d+)", l) for l in lines[:-3]]
        self.assertEqual(len(split), 24)
        self.assertEqual(sum(int(m.group(2)) for m in split), total)
        # Each first move's count is the depth-2 perft after it.
        legal = run([target, "--json", "legal", "--variant=brainking-8x8"])
        moves = json.loads(legal.stdout)["moves"]
        self.assertEqual([m.group(1) for m in split],
                         [m["origin"] + "-" + m["destination"] for m in moves])
        unary = Unary(self.servers[1])
        try:
            for match, move in list(zip(split, moves))[:3]:
                _, after = unary.call("ValidateMove", {
                    "variant": {"preset": "brainking-8x8"},
                    "move": move["path"]})
                result = run([target, "perft", "--variant=brainking-8x8",
                              "--position=" + after["positionAfter"],
                              "--depth=2"])
                self.assertEqual(result.stdout,
                                 "Nodes at depth 2: %s\n" % match.group(2))
        finally:
            unary.close()
        result = run([target, "--json", "perft", "--variant=brainking-8x8",
                      "--depth=2"])
        self.assertEqual(json.loads(result.stdout)["nodes"], "576")
        # Usage and server errors.
        self.assertEqual(run([target, "perft", "--variant=brainking-8x8"])
                         .returncode, 2)
        self.assertEqual(run([target, "perft", "--variant=brainking-8x8",
                              "--depth=-1"]).returncode, 2)
        result = run([target, "perft", "--variant=brainking-8x8",
                      "--position=xyz", "--depth=1"])
        self.assertEqual(result.returncode, 1)
        self.assertIn("INVALID_ARGUMENT", result.stderr)

    def test_adjudicate_record_text(self):
        target = "--target=" + self.servers[2].address()
        path = os.path.join(self.tmp.name, "one.halma")
        with open(path, "w") as f:
            f.write('[Variant "brainking-8x8"]\n[Event "Test"]\n\n'
                    '1. b1-d3 h7-f5 2. a2-c4 {a jump} h8-f6-f4 *\n')
        result = run([target, "adjudicate", "--record=" + path])
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("Moves played: 4 of 4\nResult: w to move\n"
                      "Result token: *\nClaimed result: * (agrees)\n",
                      result.stdout)
        result = run([target, "adjudicate", "--record=-", "--text-out"],
                     input_text=read_file(path))
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn('[Event "Test"]', result.stdout)
        self.assertTrue(result.stdout.endswith("*\n"), result.stdout)
        with open(path, "w") as f:
            f.write('[Variant "brainking-8x8"]\n\n1. b1-d3 h8-h7 *\n')
        result = run([target, "adjudicate", "--record=" + path])
        self.assertEqual(result.returncode, 3, result.stderr)
        self.assertIn("Illegal move at ply 2: h8-h7: destination occupied",
                      result.stdout)
        self.assertIn("Result token: illegal:2:destination-occupied\n"
                      "Claimed result: * (differs from the result)\n",
                      result.stdout)
        result = run([target, "adjudicate", "--record=" + path,
                      "--text-out"])
        self.assertTrue(result.stdout.endswith(
            "illegal:2:destination-occupied\n"), result.stdout)
        result = run([target, "adjudicate", "--record=-"],
                     input_text='[Variant "brainking-8x8"]\n\n2. b1-d3\n')
        self.assertEqual(result.returncode, 1)
        self.assertIn("INVALID_ARGUMENT: ", result.stderr)
        self.assertEqual(run([target, "adjudicate", "--record=" + path,
                              "--variant=brainking-8x8"]).returncode, 2)


if __name__ == "__main__":
    if len(sys.argv) < 5 or not sys.argv[4].endswith(".md"):
        sys.exit(__doc__)
    HALMACTL, SERVER, VECTORS = sys.argv[1:4]
    del sys.argv[1:4]
    while len(sys.argv) > 1 and sys.argv[1].endswith(".md"):
        PAGES.append(sys.argv.pop(1))
    unittest.main(verbosity=2)
