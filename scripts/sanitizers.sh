#!/usr/bin/env bash
# The sanitizer builds of CMakePresets.json, built and run:
#   asan  AddressSanitizer + UndefinedBehaviorSanitizer (clang 14) over the
#         test suite but the conformance suite and halmactl's batch run
#         (labels conformance and client: release-only), then every libFuzzer target (fuzz/) for
#         FUZZ_SECONDS each (scripts/fuzz.sh);
#   tsan  ThreadSanitizer over the service, process and reflection tests
#         (label "service": the code with threads).
# Usage: bash scripts/sanitizers.sh [asan|tsan|all]   (default all)
# Environment: FUZZ_SECONDS (default 60). Build directories are the presets'
# own: build-asan and build-tsan.
set -euo pipefail
cd "$(dirname "$0")/.."
WHICH="${1:-all}"
FUZZ_SECONDS="${FUZZ_SECONDS:-60}"

stage() {
  local name="$1"
  shift
  local t0=$SECONDS
  echo "sanitizers.sh: $name ..."
  "$@"
  echo "sanitizers.sh: $name took $((SECONDS - t0)) s"
}

run_asan() {
  stage "asan: configure" cmake --preset asan >/dev/null
  stage "asan: build" cmake --build --preset asan
  # The test preset's environment (ASAN_OPTIONS, UBSAN_OPTIONS,
  # LSAN_OPTIONS) is what makes a report fail the test.
  stage "asan: ctest" ctest --preset asan
  stage "asan: fuzz ${FUZZ_SECONDS}s per target" \
    bash scripts/fuzz.sh build-asan "$FUZZ_SECONDS"
}

run_tsan() {
  stage "tsan: configure" cmake --preset tsan >/dev/null
  stage "tsan: build" cmake --build --preset tsan
  stage "tsan: ctest" ctest --preset tsan
}

case "$WHICH" in
  asan) run_asan ;;
  tsan) run_tsan ;;
  all)
    run_asan
    run_tsan
    ;;
  *)
    echo "usage: $0 [asan|tsan|all]" >&2
    exit 2
    ;;
esac
