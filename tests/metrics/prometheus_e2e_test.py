#!/usr/bin/python3
"""A real Prometheus server scrapes halma_server's /metrics.

Usage: /usr/bin/python3 prometheus_e2e_test.py SERVER [PROMETHEUS] [unittest args]

Starts halma_server on 127.0.0.1 (gRPC and HTTP on free ports) and Debian's
Prometheus (package prometheus) on 127.0.0.1 with a scrape config pointing
at the server's HTTP port every second, makes calls over both protocols
(gRPC with grpcio, the Connect protocol with urllib), and queries
Prometheus's HTTP API until the counters it scraped show them. Every wait
is bounded in time; both processes are stopped at the end.
"""

import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.parse
import urllib.request

import grpc

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "attack"))
import harness  # noqa: E402

SERVER = None
PROMETHEUS = "/usr/bin/prometheus"
HTTP_LINE = re.compile(r"; http (\S+):(\d+) \(Connect protocol\)")
WAIT_SECONDS = 60


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http_json(url, body=None):
    request = urllib.request.Request(
        url, data=None if body is None else json.dumps(body).encode(),
        headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.load(answer)


class PrometheusScrapeTest(unittest.TestCase):
    def setUp(self):
        self.work = tempfile.TemporaryDirectory()
        env = harness.server_environment({})
        env.update({"HALMA_HTTP": "true", "HALMA_HTTP_PORT": "0"})
        self.server = harness.Server(SERVER, env)
        self.http_port = int(HTTP_LINE.search(self.server.listen_line).group(2))
        self.prometheus_port = free_port()
        config = os.path.join(self.work.name, "prometheus.yml")
        with open(config, "w") as f:
            f.write(
                "global:\n"
                "  scrape_interval: 1s\n"
                "  scrape_timeout: 1s\n"
                "scrape_configs:\n"
                "  - job_name: halma\n"
                "    static_configs:\n"
                "      - targets: ['127.0.0.1:%d']\n" % self.http_port)
        self.prometheus_log = open(os.path.join(self.work.name, "log"), "w+")
        self.prometheus = subprocess.Popen(
            [PROMETHEUS, "--config.file=" + config,
             "--storage.tsdb.path=" + os.path.join(self.work.name, "data"),
             "--web.listen-address=127.0.0.1:%d" % self.prometheus_port,
             "--log.level=warn"],
            stdin=subprocess.DEVNULL, stdout=self.prometheus_log,
            stderr=subprocess.STDOUT)

    def tearDown(self):
        self.prometheus.terminate()
        try:
            self.prometheus.wait(20)
        except subprocess.TimeoutExpired:
            self.prometheus.kill()
            self.prometheus.wait(5)
        self.prometheus_log.close()
        code, _ = self.server.stop()
        self.work.cleanup()
        self.assertEqual(code, 0)

    def query(self, expression):
        """The values of an instant query, {labels as a tuple: value}."""
        url = "http://127.0.0.1:%d/api/v1/query?%s" % (
            self.prometheus_port, urllib.parse.urlencode({"query": expression}))
        answer = http_json(url)
        self.assertEqual(answer["status"], "success")
        return {tuple(sorted(r["metric"].items())): float(r["value"][1])
                for r in answer["data"]["result"]}

    def wait_for(self, expression, want):
        """Waits (bounded) until `expression`'s single value is >= want."""
        deadline = time.monotonic() + WAIT_SECONDS
        seen = None
        while time.monotonic() < deadline:
            if self.prometheus.poll() is not None:
                self.prometheus_log.seek(0)
                self.fail("prometheus exited: " + self.prometheus_log.read())
            try:
                values = self.query(expression)
                seen = values
                if values and max(values.values()) >= want:
                    return max(values.values())
            except OSError:
                pass  # Prometheus not up yet.
            time.sleep(0.5)
        self.fail("%s never reached %s (last seen: %r)" % (expression, want,
                                                          seen))

    def test_prometheus_scrapes_the_calls(self):
        self.wait_for('up{job="halma"}', 1)
        base = "http://127.0.0.1:%d/halma.v1.HalmaRules/" % self.http_port
        for _ in range(3):
            answer = http_json(base + "ValidateMove",
                               {"variant": {"preset": "brainking-8x8"},
                                "move": "a1-b2"})
            self.assertEqual(answer["reason"],
                             "ILLEGAL_REASON_DESTINATION_OCCUPIED")
        protos = harness.generate_protos(self.work.name)
        halma = protos.halma
        with grpc.insecure_channel(self.server.target) as channel:
            legal = channel.unary_unary(
                "/halma.v1.HalmaRules/LegalMoves",
                request_serializer=halma.LegalMovesRequest.SerializeToString,
                response_deserializer=halma.LegalMovesResponse.FromString)
            request = halma.LegalMovesRequest()
            request.variant.preset = "classic-16x16"
            for _ in range(5):
                self.assertGreater(legal(request, timeout=10).count, 0)
            with self.assertRaises(grpc.RpcError) as refused:
                bad = halma.LegalMovesRequest()
                bad.variant.preset = "brainking-9x9"
                legal(bad, timeout=10)
            self.assertEqual(refused.exception.code(),
                             grpc.StatusCode.INVALID_ARGUMENT)

        self.wait_for('halma_rpc_calls_total{method="halma.v1.HalmaRules/'
                      'ValidateMove",protocol="connect",code="OK"}', 3)
        self.wait_for('halma_rpc_calls_total{method="halma.v1.HalmaRules/'
                      'LegalMoves",protocol="grpc",code="OK"}', 5)
        self.wait_for('halma_rpc_calls_total{method="halma.v1.HalmaRules/'
                      'LegalMoves",protocol="grpc",code="INVALID_ARGUMENT"}', 1)
        self.wait_for('halma_illegal_moves_total{reason="ILLEGAL_REASON_'
                      'DESTINATION_OCCUPIED"}', 3)
        self.wait_for('halma_variant_calls_total{variant="classic-16x16"}', 5)
        self.wait_for('halma_rpc_duration_seconds_bucket{method="halma.v1.'
                      'HalmaRules/LegalMoves",protocol="grpc",code="OK",'
                      'le="+Inf"}', 5)
        self.wait_for("process_resident_memory_bytes", 1 << 20)
        self.wait_for("process_open_fds", 3)
        self.wait_for('halma_build_info{version!=""}', 1)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    SERVER = sys.argv[1]
    argv = sys.argv[2:]
    if argv and not argv[0].startswith("-"):
        PROMETHEUS = argv.pop(0)
    unittest.main(argv=[sys.argv[0]] + argv)
