#!/usr/bin/env bash
# End-to-end test of halma_server's Connect protocol listener with the npm
# Connect client (@connectrpc/connect-node over HTTP/1.1).
#
# Usage: tests/connect/test.sh SERVER_BINARY
#
# Installs the locked npm packages (npm ci), generates the TypeScript types
# and service descriptor from proto/halma/v1/halma.proto (Debian's protoc
# with protoc-gen-es), compiles with tsc and runs the tests with node's test
# runner; each test file starts the server on 127.0.0.1 with --port=0
# --http_port=0 and stops it with SIGTERM. Quiet on success but for a
# one-line summary; on failure prints the log of the failed step.
set -euo pipefail

if [ "$#" -ne 1 ]; then
  echo "usage: $0 SERVER_BINARY" >&2
  exit 2
fi
if [ ! -x "$1" ]; then
  echo "$0: $1 is not an executable" >&2
  exit 2
fi
server=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"

log=$(mktemp)
trap 'rm -f "$log"' EXIT

step() {
  local name=$1
  shift
  if ! "$@" >"$log" 2>&1; then
    echo "tests/connect: $name failed:" >&2
    cat "$log" >&2
    exit 1
  fi
}

# No dependency needs an install script; --ignore-scripts keeps npm from
# running any.
step "npm ci" npm ci --no-audit --no-fund --ignore-scripts --loglevel=error
rm -rf src/gen dist
mkdir -p src/gen
step "generate" protoc --plugin=protoc-gen-es=node_modules/.bin/protoc-gen-es \
  --es_out=src/gen --es_opt=target=ts -I ../../proto ../../proto/halma/v1/halma.proto
step "tsc" node_modules/.bin/tsc -p tsconfig.json

status=0
# One test file at a time: the deadline tests compare timings.
HALMA_SERVER="$server" node --test --test-concurrency=1 --test-reporter=tap dist/test/*.test.js >"$log" 2>&1 || status=$?
pass=$(sed -n 's/^# pass \([0-9]*\)$/\1/p' "$log")
fail=$(sed -n 's/^# fail \([0-9]*\)$/\1/p' "$log")
skipped=$(sed -n 's/^# skipped \([0-9]*\)$/\1/p' "$log")
cancelled=$(sed -n 's/^# cancelled \([0-9]*\)$/\1/p' "$log")
if [ "$status" -ne 0 ] || [ -z "$pass" ] || [ "$pass" -eq 0 ] || [ "$fail" != 0 ] || [ "${cancelled:-0}" != 0 ]; then
  cat "$log" >&2
  echo "tests/connect: tests failed (exit $status)" >&2
  exit 1
fi
echo "connect: ${pass} passed, ${fail} failed, ${skipped:-0} skipped"
