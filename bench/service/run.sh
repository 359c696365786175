#!/usr/bin/env bash
# The service benchmark in one command: builds halma_server and the payload
# tool, writes the payloads into a temporary directory and runs the h2load
# driver (bench/service/README.md).
#
#   bench/service/run.sh [BUILD_DIR] [service_bench.py flags...]
#   bench/service/run.sh build --smoke          # CI: checks every answer
#   bench/service/run.sh build --json bench.json
#
# BUILD_DIR (default build) is configured with Ninja when it has no build
# files yet. Every other argument goes to service_bench.py. With
# `--server PATH` (a prebuilt halma_server, such as an older commit's, for a
# before/after comparison) only the payload tool is built, and PATH is the
# server measured:
#   bench/service/run.sh build --server /tmp/old/build/service/halma_server
set -euo pipefail
cd "$(dirname "$0")/../.."
BUILD_DIR=build
if [[ $# -gt 0 && "$1" != -* ]]; then
  BUILD_DIR=$1
  shift
fi
# --http: the HTTP/JSON endpoint beside gRPC (http_bench.py) instead.
DRIVER=bench/service/service_bench.py
if [[ "${1:-}" == --http ]]; then
  DRIVER=bench/service/http_bench.py
  shift
fi
SERVER="$BUILD_DIR/service/halma_server"
TARGETS=(halma_server halma_service_payloads)
for arg in "$@"; do
  case "$arg" in
    --server | --server=*) TARGETS=(halma_service_payloads) ;;
  esac
done
if [[ ! -f "$BUILD_DIR/build.ninja" && ! -f "$BUILD_DIR/Makefile" ]]; then
  cmake -S . -B "$BUILD_DIR" -G Ninja >/dev/null
fi
cmake --build "$BUILD_DIR" --target "${TARGETS[@]}"

PAYLOADS=$(mktemp -d -t halma-service-payloads.XXXXXX)
trap 'rm -rf "$PAYLOADS"' EXIT
"$BUILD_DIR/bench/service/halma_service_payloads" --out="$PAYLOADS"
# A --server among "$@" comes after this one, and the driver takes the last.
/usr/bin/python3 "$DRIVER" \
  --server "$SERVER" --payloads "$PAYLOADS" "$@"
