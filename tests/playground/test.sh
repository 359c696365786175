#!/usr/bin/env bash
# The playground page (service/playground/) in Debian's Chromium, driven by
# playwright-core, against the real server binary; axe-core checks its
# accessibility. Screenshots of every step go to SCREENSHOT_DIR (the
# README's pictures come from there: docs/images/playground/).
#
# Usage: tests/playground/test.sh SERVER_BINARY SCREENSHOT_DIR
#
# Installs the locked npm packages (npm ci, no install scripts) when
# node_modules is missing; never downloads a browser (playwright-core
# drives /usr/bin/chromium, Debian's package `chromium`).
set -euo pipefail

if [ "$#" -ne 2 ]; then
  echo "usage: $0 SERVER_BINARY SCREENSHOT_DIR" >&2
  exit 2
fi
if [ ! -x "$1" ]; then
  echo "$0: $1 is not an executable" >&2
  exit 2
fi
if [ ! -x /usr/bin/chromium ]; then
  echo "$0: /usr/bin/chromium is missing (apt-get install chromium)" >&2
  exit 2
fi
server=$(realpath "$1")
mkdir -p "$2"
shots=$(realpath "$2")
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"

if [ ! -d node_modules/playwright-core ] || [ ! -d node_modules/axe-core ]; then
  npm ci --no-audit --no-fund --ignore-scripts --loglevel=error
fi

log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
HALMA_SERVER="$server" SCREENSHOT_DIR="$shots" \
  node --test --test-concurrency=1 --test-reporter=tap playground.test.js >"$log" 2>&1 || status=$?
pass=$(sed -n 's/^# pass \([0-9]*\)$/\1/p' "$log")
fail=$(sed -n 's/^# fail \([0-9]*\)$/\1/p' "$log")
cancelled=$(sed -n 's/^# cancelled \([0-9]*\)$/\1/p' "$log")
if [ "$status" -ne 0 ] || [ -z "$pass" ] || [ "$pass" -eq 0 ] || [ "$fail" != 0 ] ||
  [ "${cancelled:-0}" != 0 ]; then
  cat "$log" >&2
  echo "tests/playground: tests failed (exit $status)" >&2
  exit 1
fi
echo "playground: ${pass} passed, ${fail} failed; screenshots in $shots"
