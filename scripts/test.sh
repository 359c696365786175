#!/usr/bin/env bash
# The one command for all tests: installs the Debian packages, builds, runs
# every test (engine, differential, service, process, reflection), the
# attack suite (tests/attack), then the deployment checks (container image
# and Kubernetes manifests).
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
# Hostile clients against the real binary with the manifests' flags, one
# attack at a time on a quiet machine (so after ctest, not beside it): the
# short mode, a few seconds per attack; --full is the 20 s run of
# docs/security.md.
/usr/bin/python3 tests/attack/attack_test.py \
  --server "$BUILD_DIR/service/halma_server"
T2=$(date +%s)
echo "test.sh: attack suite took $((T2 - T1)) s"
if [ -f deploy/check.sh ]; then
  bash deploy/check.sh "$BUILD_DIR"
fi
echo "test.sh: everything passed in $(( $(date +%s) - START )) s"
