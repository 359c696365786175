#!/usr/bin/env bash
# What the nghttpx front proxy costs: the same calls, driven by h2load
# (Debian's nghttp2-client), against halma_server serving gRPC directly and
# against it behind its front proxy (--front_proxy), in one run.
#
#   bench/front_proxy_cost.sh [BUILD_DIR] [CALLS]
#
# For each call and each arrangement: calls per second, mean and p99
# latency as h2load reports them, and server CPU per call (the server and
# nghttpx together, from /proc). Client and server share the machine, so
# compare the two arrangements within one run, not across runs. Only
# 127.0.0.1 is used; every h2load run is bounded by CALLS requests.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${1:-build}
CALLS=${2:-20000}
SERVER="$BUILD_DIR/service/halma_server"
NGHTTPX=${NGHTTPX:-/usr/sbin/nghttpx}
for tool in h2load "$NGHTTPX" /usr/bin/python3 protoc; do
  command -v "$tool" >/dev/null || { echo "missing: $tool" >&2; exit 1; }
done
[[ -x "$SERVER" ]] || { echo "build first: $SERVER" >&2; exit 1; }

WORK=$(mktemp -d)
trap 'kill "$SERVER_PID" 2>/dev/null || true; rm -rf "$WORK"' EXIT
SERVER_PID=""

# Request bodies as gRPC frames (a 5-byte prefix, then the message).
protoc --python_out="$WORK" -I proto proto/halma/v1/halma.proto
/usr/bin/python3 - "$WORK" <<'EOF'
import struct, sys
sys.path.insert(0, sys.argv[1])
from halma.v1 import halma_pb2 as pb

def frame(message, name):
    data = message.SerializeToString()
    with open(f"{sys.argv[1]}/{name}.bin", "wb") as out:
        out.write(struct.pack(">BI", 0, len(data)) + data)

frame(pb.ListVariantsRequest(), "empty")  # Health/Check's request is empty too.
legal = pb.LegalMovesRequest()
legal.variant.preset = "classic-16x16"
frame(legal, "legal")
EOF

cpu_ticks() {  # user + system ticks of the server and its descendants
  local total=0 pid
  for pid in "$SERVER_PID" $(pgrep -P "$SERVER_PID" || true) \
      $(for c in $(pgrep -P "$SERVER_PID" || true); do pgrep -P "$c" || true; done); do
    total=$((total + $(awk '{ print $14 + $15 }' "/proc/$pid/stat" 2>/dev/null || echo 0)))
  done
  echo "$total"
}

start_server() {  # $1: front proxy path or ""
  HALMA_FRONT_PROXY="$1" "$SERVER" --host=127.0.0.1 --port=0 --http_port=0 2>"$WORK/server.log" &
  SERVER_PID=$!
  for _ in $(seq 1 100); do
    PORT=$(sed -n 's/.*halma_server listening on 127.0.0.1:\([0-9]*\) .*/\1/p' "$WORK/server.log")
    [[ -n "$PORT" ]] && return 0
    sleep 0.1
  done
  echo "server did not start" >&2
  exit 1
}

HZ=$(getconf CLK_TCK)
printf '| call | arrangement | calls/s | mean | p99 | server CPU per call |\n|---|---|---:|---:|---:|---:|\n'
for arrangement in direct front; do
  if [[ "$arrangement" == front ]]; then start_server "$NGHTTPX"; else start_server ""; fi
  # h2load does not read gRPC trailers: check the answers with a real
  # client first.
  "$BUILD_DIR/client/halmactl" --target="127.0.0.1:$PORT" health >/dev/null
  "$BUILD_DIR/client/halmactl" --target="127.0.0.1:$PORT" legal \
    --variant classic-16x16 >/dev/null
  for call in health legal; do
    if [[ "$call" == health ]]; then
      path=/grpc.health.v1.Health/Check; body=empty
    else
      path=/halma.v1.HalmaRules/LegalMoves; body=legal
    fi
    # A warm-up, then the measured run: 4 connections, 16 streams each.
    h2load -n 2000 -c 4 -m 16 -d "$WORK/$body.bin" \
      -H 'content-type: application/grpc' -H 'te: trailers' \
      "http://127.0.0.1:$PORT$path" >/dev/null
    t0=$(cpu_ticks)
    h2load -n "$CALLS" -c 4 -m 16 -d "$WORK/$body.bin" \
      -H 'content-type: application/grpc' -H 'te: trailers' \
      "http://127.0.0.1:$PORT$path" >"$WORK/h2load.out"
    t1=$(cpu_ticks)
    rps=$(awk '/^finished in/ { print $4 }' "$WORK/h2load.out")
    mean=$(awk '/^time for request:/ { print $6 }' "$WORK/h2load.out")
    succeeded=$(awk '/^requests:/ { print $8 }' "$WORK/h2load.out")
    [[ "$succeeded" == "$CALLS" ]] || { echo "only $succeeded of $CALLS calls succeeded" >&2; exit 1; }
    # h2load prints min, max, mean, sd; the p99 comes from its per-request
    # log (--log-file), in microseconds.
    h2load -n "$CALLS" -c 4 -m 16 -d "$WORK/$body.bin" \
      -H 'content-type: application/grpc' -H 'te: trailers' \
      --log-file="$WORK/requests.log" \
      "http://127.0.0.1:$PORT$path" >/dev/null
    p99=$(awk '{ print $3 }' "$WORK/requests.log" | sort -n \
      | awk '{ v[NR] = $1 } END { printf "%.2f ms", v[int(NR * 0.99)] / 1000 }')
    cpu=$(awk -v t=$((t1 - t0)) -v hz="$HZ" -v n="$CALLS" 'BEGIN { printf "%.1f us", t * 1e6 / hz / n }')
    printf '| %s | %s | %s | %s | %s | %s |\n' "$path" "$arrangement" "$rps" "$mean" "$p99" "$cpu"
  done
  kill -TERM "$SERVER_PID"
  wait "$SERVER_PID" || true
done
