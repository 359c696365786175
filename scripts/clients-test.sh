#!/usr/bin/env bash
# The Python, Node and Go clients' tests (client/*/test.sh), each against
# the real server binary on 127.0.0.1, run side by side (they are mostly
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
for lang in python node go; do
  (
    t0=$SECONDS
    if bash "client/$lang/test.sh" "$server" >"$logs/$lang.log" 2>&1; then
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
for lang in python node go; do
  wait "${pids[$lang]}" || failed=1
done
exit "$failed"
