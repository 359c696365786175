#!/usr/bin/env bash
# Builds the Node.js client and runs its tests against a real halma_server.
#
# Usage: client/node/test.sh SERVER_BINARY
#
# Installs the locked npm packages (npm ci), generates the TypeScript code
# from the .proto files (generate.sh: Debian's protoc with ts-proto),
# compiles with tsc and runs the tests with node's test runner; each test
# file starts the server on 127.0.0.1 with --port=0 and stops it. Quiet on
# success but for a summary; on failure prints the log of the failed step.
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
started=$(date +%s)

step() {
  local name=$1
  shift
  if ! "$@" >"$log" 2>&1; then
    echo "client/node: $name failed:" >&2
    cat "$log" >&2
    exit 1
  fi
}

# No dependency needs an install script; --ignore-scripts keeps npm from
# running any.
step "npm ci" npm ci --no-audit --no-fund --ignore-scripts --loglevel=error
step "generate" ./generate.sh
rm -rf dist
step "tsc" node_modules/.bin/tsc -p tsconfig.json

status=0
HALMA_SERVER="$server" node --test --test-reporter=tap dist/test/*.test.js >"$log" 2>&1 || status=$?
pass=$(sed -n 's/^# pass \([0-9]*\)$/\1/p' "$log")
fail=$(sed -n 's/^# fail \([0-9]*\)$/\1/p' "$log")
if [ "$status" -ne 0 ] || [ -z "$pass" ] || [ "$pass" -eq 0 ] || [ "$fail" != 0 ]; then
  cat "$log" >&2
  echo "client/node: tests failed (exit $status)" >&2
  exit 1
fi
grep -E '^# (tests|suites|pass|fail|cancelled|skipped|todo) ' "$log"
echo "client/node: tests took $(($(date +%s) - started)) s (npm ci, generate, tsc and node --test)"
echo "node: ${pass} passed, ${fail} failed"
