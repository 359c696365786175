#!/usr/bin/env bash
# The one command to try the service: installs the Debian packages, builds
# the server and runs it on port 50051 (flags are passed through, e.g.
# --port=6000). Stop it with Ctrl-C: it drains and exits 0.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
BUILD_DIR="${BUILD_DIR:-build}"
cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
ninja -C "$BUILD_DIR" halma_server halmactl
exec "$BUILD_DIR/service/halma_server" "$@"
