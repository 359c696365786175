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
# The production arrangement: nghttpx (Debian's nghttp2-proxy) in front on
# the port, gRPC behind it on loopback (docs/security.md). Set
# HALMA_FRONT_PROXY= (empty) to serve gRPC directly.
export HALMA_FRONT_PROXY="${HALMA_FRONT_PROXY-/usr/sbin/nghttpx}"
exec "$BUILD_DIR/service/halma_server" "$@"
