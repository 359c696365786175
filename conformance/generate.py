#!/usr/bin/python3
"""Generates the conformance suite (conformance/suite/*.jsonl) from the
engine, or checks that the files are what it would generate.

    /usr/bin/python3 conformance/generate.py --server build/service/halma_server
    /usr/bin/python3 conformance/generate.py --server ... --check

It starts the halma_server it is given on 127.0.0.1 (free ports, default
limits), builds the requests (the public vectors of testdata/vectors,
seeded playouts, the rule book's and docs/perft.md's examples and
hand-written edge cases: cases.py), asks the server for each answer over
gRPC, reviews the answers (builder.py: the vectors' expected answers,
docs/perft.md's counts, an independent move generator, the expectations
written by hand beside each case) and fails on any disagreement. Then it
writes one JSON line per case, in a fixed order with sorted keys, so that a
second run gives the same bytes. --check writes nothing and exits 1 when
the files differ from what it would write (CI runs it).

docs/conformance.md describes the format and how to review a change.
"""

import argparse
import difflib
import json
import os
import shutil
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import builder  # noqa: E402
import cases  # noqa: E402
import harness  # noqa: E402

REPO = os.path.dirname(HERE)
CASE_KEYS = ("id", "rpc", "areas", "protocols", "request", "expect")


def case_line(case):
    """One case as one JSON line: the case's keys in a fixed order, the keys
    of everything inside sorted, ASCII only."""
    parts = []
    for key in CASE_KEYS:
        if key in case:
            parts.append("%s:%s" % (json.dumps(key), json.dumps(
                case[key], sort_keys=True, ensure_ascii=True,
                separators=(",", ":"))))
    assert set(case) <= set(CASE_KEYS), case
    return "{" + ",".join(parts) + "}\n"


def render(files):
    return {name + ".jsonl": "".join(case_line(c) for c in file_cases)
            for name, file_cases in files.items()}


def check(rendered, suite_dir):
    """Prints how the files on disk differ from `rendered`; True if equal."""
    same = True
    on_disk = set()
    if os.path.isdir(suite_dir):
        on_disk = {f for f in os.listdir(suite_dir) if f.endswith(".jsonl")}
    for name in sorted(on_disk - set(rendered)):
        print("generate.py --check: %s would be removed" % name)
        same = False
    for name in sorted(rendered):
        path = os.path.join(suite_dir, name)
        if name not in on_disk:
            print("generate.py --check: %s is missing" % name)
            same = False
            continue
        with open(path, encoding="utf-8") as f:
            old = f.read()
        if old == rendered[name]:
            continue
        same = False
        print("generate.py --check: %s differs:" % name)
        diff = difflib.unified_diff(
            old.splitlines(), rendered[name].splitlines(),
            "suite/" + name, "regenerated", n=0, lineterm="")
        for i, line in enumerate(diff):
            if i >= 12:
                print("  ...")
                break
            print("  " + (line if len(line) <= 300 else line[:300] + "..."))
    return same


def write(rendered, suite_dir):
    os.makedirs(suite_dir, exist_ok=True)
    for name in os.listdir(suite_dir):
        if name.endswith(".jsonl") and name not in rendered:
            os.remove(os.path.join(suite_dir, name))
    for name, text in rendered.items():
        with open(os.path.join(suite_dir, name), "w", encoding="utf-8",
                  newline="\n") as f:
            f.write(text)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--server", required=True,
                        help="the halma_server binary to ask")
    parser.add_argument("--suite", default=os.path.join(HERE, "suite"),
                        help="the suite's folder (default: conformance/suite)")
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 if the files differ")
    parser.add_argument("--keep-going", action="store_true",
                        help="report every review disagreement, not only "
                        "the first (and write nothing)")
    parser.add_argument("--protoc", default=shutil.which("protoc") or "protoc",
                        help="protoc, to read proto/halma/v1/halma.proto")
    args = parser.parse_args()

    started = time.monotonic()
    messages = harness.load_messages(args.protoc, os.path.join(REPO, "proto"))
    server = harness.Server(args.server)
    try:
        api = harness.Api(messages, server.port)
        try:
            suite = builder.Builder(api, keep_going=args.keep_going)
            cases.build_all(suite, REPO)
            if suite.problems:
                raise builder.GenerationError(
                    "%d disagreements:\n  %s" % (
                        len(suite.problems), "\n  ".join(suite.problems)))
        finally:
            api.close()
    except builder.GenerationError as error:
        print("generate.py: %s" % error, file=sys.stderr)
        return 1
    finally:
        server.stop()
    rendered = render(suite.files)
    total = sum(len(c) for c in suite.files.values())
    summary = ", ".join("%s %d" % (name, len(c))
                        for name, c in sorted(suite.files.items()))
    took = time.monotonic() - started
    if args.check:
        if not check(rendered, args.suite):
            print("generate.py --check: the suite is not what the engine "
                  "answers now; regenerate it (docs/conformance.md, "
                  "\"Regenerating\") and review the diff", file=sys.stderr)
            return 1
        print("generate.py --check: %d cases up to date (%s; %d calls, "
              "%.1f s)" % (total, summary, api.calls, took))
        return 0
    write(rendered, args.suite)
    print("generate.py: wrote %d cases to %s (%s; %d calls, %.1f s)" %
          (total, os.path.relpath(args.suite), summary, api.calls, took))
    return 0


if __name__ == "__main__":
    sys.exit(main())
