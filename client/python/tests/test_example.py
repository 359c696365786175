"""The example program, end to end, against the real server."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Callable, List

import pytest

import halma_client
from conftest import Server, free_port
from halma_client import HalmaClient

Runner = Callable[..., "subprocess.CompletedProcess[str]"]


@pytest.fixture(scope="module")
def example(pytestconfig: pytest.Config, tmp_path_factory: pytest.TempPathFactory) -> Runner:
    """Runs the example: the installed console script with --installed, else the module."""
    env = dict(os.environ)
    if pytestconfig.getoption("installed"):
        command = [str(Path(sys.executable).parent / "halma-example")]
    else:  # The package as imported here (the source tree).
        command = [sys.executable, "-m", "halma_client.example"]
        env["PYTHONPATH"] = str(Path(halma_client.__file__).resolve().parents[1])
    workdir = tmp_path_factory.mktemp("example")

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(command + list(args), cwd=workdir, env=env,
                              capture_output=True, text=True, timeout=60, check=False)

    return run


def test_example_plays_a_short_game(example: Runner, server: Server) -> None:
    done = example(server.target)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    lines: List[str] = done.stdout.splitlines()
    assert lines[0] == "Health: SERVING"
    assert lines[1] == "Variants:"
    assert lines[2] == ("  brainking-8x8: 8x8, 2 seats, 10 pieces each; "
                        "start 4bbbb/5bbb/6bb/7b/w7/ww6/www5/wwww4 w 0,0")
    assert len([line for line in lines if line.startswith("  ") and "pieces each" in line]) == 5
    assert ("Legal moves of a3 at the start of brainking-8x8: "
            "a3-a5 (1 hop), a3-b4 (a step), a3-c3 (1 hop)") in lines
    assert ("Validate b1-d3: legal, path b1-d3, "
            "position after 4bbbb/5bbb/6bb/7b/w7/ww1w4/www5/w1ww4 b 1,0") in lines
    assert "Validate a1-b2: illegal, DESTINATION_OCCUPIED: b2 is occupied" in lines
    plies = [line for line in lines if line.startswith("  ply ")]
    assert len(plies) == 6
    assert plies[0] == ("  ply 1: w has 24 moves, plays a1-c3 (1 hop) -> "
                        "4bbbb/5bbb/6bb/7b/w7/www5/www5/1www4 b 1,0")
    played = [line for line in lines if line.startswith("Adjudicate a1-c3 ")]
    assert len(played) == 1 and "6 moves played, w to move" in played[0], lines
    assert played[0].endswith(" w 3,3 (as played)"), played
    assert ("Adjudicate b1-d3 h7-f5 a1-b2: 2 moves played, illegal move a1-b2 "
            "at ply 3: DESTINATION_OCCUPIED: b2 is occupied") in lines
    assert "Perft depth 2 from the start: 576 sequences, 24 first moves (a1-c3: 24)" in lines
    # The move is the bot's to choose: legal, and level 4's best.
    suggested = [re.fullmatch(r"Suggest after b1-d3 \(level 4, seed 7\): b plays (\S+); "
                              r"best 3: (\S+), (\S+), (\S+)", line) for line in lines]
    found = [m for m in suggested if m]
    assert len(found) == 1, lines
    move, *best = found[0].groups()
    assert move == best[0]
    with HalmaClient(server.target) as client:
        after = "4bbbb/5bbb/6bb/7b/w7/ww1w4/www5/w1ww4 b 1,0"
        for path in best:
            assert client.validate_move("brainking-8x8", path, position=after).legal, path
    assert lines[-4:] == [
        "AdjudicateStream, three records on one call:",
        "  played: 6 moves played, w to move",
        "  bad: 2 moves played, illegal move at ply 3",
        '  malformed: error INVALID_ARGUMENT: moves[0] (ply 1): move "b1-z9": square 2: '
        "square \"z9\": file 'z' is off the 8x8 board, expected a..h"]


def test_example_over_tls(example: Runner, tls_server: Server, tls_dir: Path) -> None:
    done = example("--ca-file", str(tls_dir / "server.crt"), "--plies", "2", tls_server.target)
    assert done.returncode == 0, done.stderr
    assert "Validate a1-b2: illegal, DESTINATION_OCCUPIED: b2 is occupied" in done.stdout
    assert done.stdout.count("  ply ") == 2


def test_example_reports_an_unreachable_server(example: Runner) -> None:
    done = example("--timeout", "1", f"127.0.0.1:{free_port()}")
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.startswith(
        "halma-example: grpc.health.v1.Health/Check failed: UNAVAILABLE: "), done.stderr


def test_example_usage_error(example: Runner) -> None:
    done = example()
    assert done.returncode == 2
    assert "usage: halma-example" in done.stderr
