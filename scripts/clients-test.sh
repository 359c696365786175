#!/usr/bin/env bash
# The Python, Node and Go clients' tests (client/*/test.sh) and the Connect
# protocol's npm client (tests/connect/test.sh), each against the real
# server binary on 127.0.0.1, run side by side (they are mostly
# waiting on compilers and the server) with their output kept apart. Prints
# each one's time; on a failure, its output.
#
# Usage: scripts/clients-test.sh SERVER_BINARY
set -euo pipefail
cd "$(dirname "$0")/.."
server="$1"
logs="$(mktemp -d)"
trap 'rm -rf "$logs"' EXIT

declare -A pids
declare -A scripts=([python]=client/python/test.sh [node]=client/node/test.sh
  [go]=client/go/test.sh [connect]=tests/connect/test.sh)
for lang in python node go connect; do
  (
    t0=$SECONDS
    if bash "${scripts[$lang]}" "$server" >"$logs/$lang.log" 2>&1; then
      echo "clients-test: $lang passed in $((SECONDS - t0)) s"
    else
      echo "clients-test: $lang FAILED after $((SECONDS - t0)) s:"
      cat "$logs/$lang.log"
      exit 1
    fi
  ) &
  pids[$lang]=$!
done
failed=0
for lang in python node go connect; do
  wait "${pids[$lang]}" || failed=1
done
exit "$failed"
