"""Fixtures: the real halma_server binary on 127.0.0.1, and an attempt counter.

Options (test.sh passes them):
  --server=PATH   the halma_server binary (or $HALMA_SERVER); required
  --tls-dir=DIR   holds server.crt / server.key (default tests/service/server/testdata
                  of the repository)
  --installed     the package under test is an installed copy: check that it
                  is not imported from the source tree, run the console script
"""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import threading
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator, List, Optional

import grpc
import pytest

REPO = Path(__file__).resolve().parents[3]
LISTEN_LINE = re.compile(r"halma_server listening on (\S+):(\d+)")
HTTP_PORT = re.compile(r'"http_port":(\d+)')


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--server", default=os.environ.get("HALMA_SERVER"),
                     help="path of the halma_server binary")
    parser.addoption("--tls-dir", default=str(REPO / "tests" / "service" / "server" / "testdata"),
                     help="directory with server.crt and server.key")
    parser.addoption("--installed", action="store_true",
                     help="the halma_client under test is an installed package")


class Server:
    """halma_server as a child process on 127.0.0.1 (port 0 = a free one)."""

    def __init__(self, binary: str, *flags: str, port: int = 0) -> None:
        self.binary = binary
        self.log: List[str] = []
        self.port: Optional[int] = None
        self.http_port: Optional[int] = None
        self._proc = subprocess.Popen(
            [binary, "--host=127.0.0.1", f"--port={port}", "--http_port=0", *flags],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE, text=True)
        listening = threading.Event()

        def read_log() -> None:
            assert self._proc.stderr is not None
            for line in self._proc.stderr:
                self.log.append(line)
                found = LISTEN_LINE.search(line)
                if found and self.port is None:
                    http = HTTP_PORT.search(line)
                    self.http_port = int(http.group(1)) if http else None
                    self.port = int(found.group(2))
                    listening.set()
            listening.set()  # EOF: the server exited.

        self._reader = threading.Thread(target=read_log, daemon=True)
        self._reader.start()
        if not listening.wait(20) or self.port is None:
            self.stop()
            raise RuntimeError(f"{binary} did not start; its log:\n" + "".join(self.log))

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.port}"

    def metric(self, name: str, **labels: str) -> float:
        """The sum of a Prometheus metric's samples with these labels (GET /metrics)."""
        assert self.http_port is not None, "the server serves no HTTP port"
        # No proxy from the environment for a loopback address.
        opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
        with opener.open(f"http://127.0.0.1:{self.http_port}/metrics", timeout=10) as page:
            text = page.read().decode()
        wanted = [f'{key}="{value}"' for key, value in labels.items()]
        total = 0.0
        for line in text.splitlines():
            if line.startswith(name + "{") and all(label in line for label in wanted):
                total += float(line.rsplit(" ", 1)[1])
        return total

    def stop(self) -> int:
        """SIGTERM (SIGKILL after 20 s); returns the exit status."""
        if self._proc.poll() is None:
            self._proc.send_signal(signal.SIGTERM)
            try:
                self._proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
        self._reader.join(timeout=5)
        return self._proc.returncode


@pytest.fixture(scope="session")
def server_binary(pytestconfig: pytest.Config) -> str:
    binary = pytestconfig.getoption("server")
    if not binary:
        raise pytest.UsageError("pass --server=PATH/TO/halma_server (or set HALMA_SERVER)")
    if not os.access(binary, os.X_OK):
        raise pytest.UsageError(f"--server={binary} is not an executable")
    return str(Path(binary).resolve())


@pytest.fixture(scope="session")
def tls_dir(pytestconfig: pytest.Config) -> Path:
    return Path(pytestconfig.getoption("tls_dir"))


def _serve(binary: str, *flags: str) -> Iterator[Server]:
    server = Server(binary, *flags)
    yield server
    status = server.stop()
    assert status == 0, f"halma_server exited with {status}:\n" + "".join(server.log)


@pytest.fixture(scope="session")
def server(server_binary: str) -> Iterator[Server]:
    """A server with the default flags."""
    yield from _serve(server_binary)


@pytest.fixture(scope="session")
def tls_server(server_binary: str, tls_dir: Path) -> Iterator[Server]:
    """A server speaking TLS with the test certificate (CN/SAN localhost, 127.0.0.1)."""
    yield from _serve(server_binary, f"--tls_cert={tls_dir / 'server.crt'}",
                      f"--tls_key={tls_dir / 'server.key'}")


@pytest.fixture(scope="session")
def slow_server(server_binary: str) -> Iterator[Server]:
    """A server that accepts a 2,000,000-move record (about a second to replay)."""
    yield from _serve(server_binary, "--max_record_moves=2000000",
                      "--max_message_bytes=67108864", "--max_call_seconds=60")


def free_port() -> int:
    """A port nothing listens on right now (bound and released at once)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class Attempt:
    method: str
    seconds: float
    code: grpc.StatusCode


@dataclass
class AttemptCounter(grpc.UnaryUnaryClientInterceptor):  # type: ignore[misc]
    """A client interceptor that records every attempt the client makes."""

    attempts: List[Attempt] = field(default_factory=list)

    def intercept_unary_unary(self, continuation: Callable[..., Any],
                              client_call_details: Any, request: Any) -> Any:
        start = time.monotonic()
        outcome = continuation(client_call_details, request)
        self.attempts.append(Attempt(client_call_details.method,
                                     time.monotonic() - start, outcome.code()))
        return outcome

    def codes(self) -> List[grpc.StatusCode]:
        return [attempt.code for attempt in self.attempts]


@pytest.fixture
def counter() -> AttemptCounter:
    return AttemptCounter()
