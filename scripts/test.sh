#!/usr/bin/env bash
# The one command for all tests: installs the Debian and npm packages,
# checks that every program and Python module the scripts and tests run
# comes from them (scripts/check-deps.sh), builds, runs every test (engine,
# differential, service, process, reflection with buf curl), the conformance
# suite over both protocols, the attack suite (tests/attack) and a short
# soak (tests/soak) against the real binary, the API gate (buf lint, format
# and breaking), the Python, Node and Go clients against the real binary,
# the service benchmark's smoke run, the sanitizer builds (ASan+UBSan over
# the tests but the Python conformance and batch runs, and the fuzz
# targets; TSan over the service tests:
# scripts/sanitizers.sh), then the deployment checks (container image and
# Kubernetes manifests). Each stage prints its time.
set -euo pipefail
cd "$(dirname "$0")/.."
START=$SECONDS
BUILD_DIR="${BUILD_DIR:-build}"

stage() {
  local name="$1"
  shift
  local t0=$SECONDS
  echo "test.sh: $name ..."
  "$@"
  echo "test.sh: $name took $((SECONDS - t0)) s"
}

stage "packages" bash scripts/install-deps.sh
# Every program and Python module the scripts and tests use comes from a
# package that install-deps.sh names (or an Essential one), the npm lock
# files or the build: a tool installed by hand on this machine cannot hide a
# missing install step. A few seconds.
stage "deps check" bash scripts/check-deps.sh
stage "build" bash scripts/build.sh
stage "ctest" ctest --test-dir "$BUILD_DIR" --output-on-failure -j2 \
  --timeout 900 -LE conformance
# The conformance suite (docs/conformance.md): halmactl conformance against
# the real binary over gRPC and HTTP/JSON, a planted wrong expectation
# detected, and the suite regenerated and compared (generate.py --check).
stage "conformance" ctest --test-dir "$BUILD_DIR" --output-on-failure \
  --timeout 300 -L conformance
# Hostile clients against the real binary with the manifests' flags, one
# attack at a time on a quiet machine (so after ctest, not beside it): the
# short mode, a few seconds per attack; --full is the 20 s run of
# docs/security.md.
stage "attack suite" /usr/bin/python3 tests/attack/attack_test.py \
  --server "$BUILD_DIR/service/halma_server"
# Mixed valid, illegal and malformed calls at concurrency 64: codes, memory,
# file descriptors and threads (the full run is --requests 1000000).
stage "soak" /usr/bin/python3 tests/soak/soak_test.py \
  --server "$BUILD_DIR/service/halma_server"
# buf lint, format and breaking over proto/ (the API gate).
stage "api gate" bash scripts/api-check.sh
# The Python, Node and Go clients against the real binary, side by side.
stage "clients" bash scripts/clients-test.sh "$BUILD_DIR/service/halma_server"
# The playground page (GET /) in Debian's Chromium driven by playwright-core,
# axe-core over it; the screenshots are the README's (docs/images/playground/).
stage "playground (chromium)" bash tests/playground/test.sh \
  "$BUILD_DIR/service/halma_server" "$BUILD_DIR/playground-screenshots"
stage "service bench smoke" bash bench/service/run.sh "$BUILD_DIR" --smoke
# The rounds (--rounds): each round's stream and unary runs paired, their
# median reported (a few seconds).
stage "service bench rounds smoke" bash bench/service/run.sh "$BUILD_DIR" \
  --smoke --rounds 2 --scenarios 'adjudicate*' --concurrency 16
# The same requests over the Connect protocol (JSON and protobuf) beside
# gRPC, answers checked, no timing asserted.
stage "http bench smoke" bash bench/service/run.sh "$BUILD_DIR" --http --smoke
# The fuzz targets run 15 s each here (a smoke run over the seed corpus and
# its near mutations); scripts/sanitizers.sh's own default is 60 s and
# fuzz/README.md has the long runs.
stage "sanitizers" env FUZZ_SECONDS="${FUZZ_SECONDS:-15}" \
  bash scripts/sanitizers.sh all
if [ -f deploy/check.sh ]; then
  stage "deploy checks" bash deploy/check.sh "$BUILD_DIR"
fi
echo "test.sh: everything passed in $((SECONDS - START)) s"
