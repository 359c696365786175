#!/usr/bin/env bash
# The one command for all tests: installs the Debian packages, builds, runs
# every test (engine, differential, service, process, reflection), then the
# deployment checks (container image and Kubernetes manifests).
set -euo pipefail
cd "$(dirname "$0")/.."
START=$(date +%s)
bash scripts/install-deps.sh
bash scripts/build.sh
BUILD_DIR="${BUILD_DIR:-build}"
T0=$(date +%s)
ctest --test-dir "$BUILD_DIR" --output-on-failure -j2 --timeout 900
T1=$(date +%s)
echo "test.sh: ctest took $((T1 - T0)) s"
if [ -f deploy/check.sh ]; then
  bash deploy/check.sh "$BUILD_DIR"
fi
echo "test.sh: everything passed in $(( $(date +%s) - START )) s"
