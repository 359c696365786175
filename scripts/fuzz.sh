#!/usr/bin/env bash
# Runs every libFuzzer target of BUILD_DIR/fuzz (built with the asan preset:
# ASan + UBSan) for SECONDS_PER_TARGET seconds each, two at a time, on a
# temporary copy of its seed corpus (fuzz/corpus/<target>/) with its
# dictionary (fuzz/<name>.dict, or fuzz/request.dict for the *_request_fuzzer
# targets). Prints one summary line per target. A crash, a failed property,
# a leak, a timeout (one input over 1 s) or running out of memory (2 GB)
# fails the run: the script prints the target, the end of its report and the
# failing input (hex dump and base64), and exits non-zero.
#
#   bash scripts/fuzz.sh [BUILD_DIR] [SECONDS_PER_TARGET]   (build-asan, 60)
#
# FUZZ_JOBS (default 2) sets how many targets run at once, FUZZ_TARGETS (a
# space-separated list of names) restricts the run. Nothing is written into
# the repository; the temporary directory is kept (and named) on failure.
set -euo pipefail

START=$SECONDS
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BUILD_DIR="${1:-build-asan}"
SECONDS_PER_TARGET="${2:-60}"
JOBS="${FUZZ_JOBS:-2}"
MAX_LEN=4096
REPORT_LINES=80
REPORT_START='^==[0-9]+==ERROR|ERROR: libFuzzer|runtime error:|^\*\*\* fuzz property failed|^SUMMARY: '
DUMP_BYTES=1024

if [[ ! -d "$BUILD_DIR" && -d "$ROOT/$BUILD_DIR" ]]; then
  BUILD_DIR="$ROOT/$BUILD_DIR"
fi
BUILD_DIR="$(cd "$BUILD_DIR" && pwd)"
if ! [[ "$SECONDS_PER_TARGET" =~ ^[0-9]+$ ]] || ((SECONDS_PER_TARGET < 1)); then
  echo "fuzz.sh: SECONDS_PER_TARGET must be a positive number of seconds" >&2
  exit 2
fi

targets=()
for bin in "$BUILD_DIR"/fuzz/*_fuzzer; do
  [[ -x "$bin" && -f "$bin" ]] || continue
  name="$(basename "$bin")"
  if [[ -n "${FUZZ_TARGETS:-}" && " $FUZZ_TARGETS " != *" $name "* ]]; then
    continue
  fi
  targets+=("$name")
done
if ((${#targets[@]} == 0)); then
  echo "fuzz.sh: no fuzz targets in $BUILD_DIR/fuzz (configure with" \
    "'cmake --preset asan' and build them)" >&2
  exit 2
fi

WORK="$(mktemp -d "${TMPDIR:-/tmp}/halma-fuzz.XXXXXX")"
KEEP=0
cleanup() {
  if ((KEEP == 0)); then rm -rf "$WORK"; fi
}
trap cleanup EXIT

export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:abort_on_error=0:detect_stack_use_after_return=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
export LSAN_OPTIONS="suppressions=$ROOT/tests/sanitizers/lsan.supp"

dictionary_of() {
  local name="$1" base="${1%_fuzzer}"
  if [[ -f "$ROOT/fuzz/$base.dict" ]]; then
    echo "$ROOT/fuzz/$base.dict"
  elif [[ "$name" == *_request_fuzzer && -f "$ROOT/fuzz/request.dict" ]]; then
    echo "$ROOT/fuzz/request.dict"
  fi
}

# Runs one target in WORK/<name>/ and leaves its exit code in rc.
run_target() {
  local name="$1" dir="$WORK/$1"
  mkdir -p "$dir/corpus" "$dir/artifacts"
  if [[ -d "$ROOT/fuzz/corpus/$name" ]]; then
    cp -R "$ROOT/fuzz/corpus/$name/." "$dir/corpus/"
  fi
  local args=(
    "-max_total_time=$SECONDS_PER_TARGET" -timeout=1 -rss_limit_mb=2048
    "-max_len=$MAX_LEN" -print_final_stats=1
    "-artifact_prefix=$dir/artifacts/"
  )
  local dict
  dict="$(dictionary_of "$name")"
  if [[ -n "$dict" ]]; then args+=("-dict=$dict"); fi
  local rc=0
  # The outer timeout only guards against a fuzzer that stops responding.
  (cd "$dir" && timeout --kill-after=10 "$((SECONDS_PER_TARGET + 120))" \
    "$BUILD_DIR/fuzz/$name" "${args[@]}" "$dir/corpus" >"$dir/log" 2>&1) ||
    rc=$?
  echo "$rc" >"$dir/rc"
}

stat_of() {
  sed -n "s/^stat::$1: *//p" "$2" | tail -n 1
}

# Prints the summary line of a finished target; returns its failure.
report() {
  local name="$1" dir="$WORK/$1"
  local rc log="$dir/log"
  rc="$(cat "$dir/rc")"
  local execs rate peak slowest seed done_line cov ft files bytes
  execs="$(stat_of number_of_executed_units "$log")"
  rate="$(stat_of average_exec_per_sec "$log")"
  peak="$(stat_of peak_rss_mb "$log")"
  slowest="$(stat_of slowest_unit_time_sec "$log")"
  seed="$(sed -n 's/^INFO: Seed: //p' "$log" | head -n 1)"
  done_line="$(grep -E '^#[0-9]+.* cov: ' "$log" | tail -n 1 || true)"
  cov="$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$done_line")"
  ft="$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$done_line")"
  files="$(find "$dir/corpus" -type f | wc -l)"
  bytes="$(find "$dir/corpus" -type f -printf '%s\n' | awk '{s += $1} END {print s + 0}')"
  local verdict=OK
  if [[ "$rc" != 0 ]]; then verdict="FAILED (exit $rc)"; fi
  printf '%-30s %s: %s execs, %s exec/s, cov: %s ft: %s, corpus %s files (%s bytes), slowest %s s, peak RSS %s MB, seed %s\n' \
    "$name" "$verdict" "${execs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}" \
    "$files" "$bytes" "${slowest:-?}" "${peak:-?}" "${seed:-?}"
  [[ "$rc" == 0 ]] && return 0

  # The report from its first line (sanitizer, failed property, libFuzzer's
  # own), without ASan's shadow-memory dump; else the end of the log.
  local first
  first="$(grep -n -m 1 -E "$REPORT_START" "$log" | cut -d: -f1 || true)"
  echo "---- $name: the report ($log) ----"
  if [[ -n "$first" ]]; then
    sed -n "$first,\$p" "$log" |
      sed '/^Shadow bytes around/,/^==[0-9]*==ABORTING/d' |
      head -n "$REPORT_LINES"
  else
    tail -n "$REPORT_LINES" "$log"
  fi
  local input found=0
  for input in "$dir"/artifacts/*; do
    [[ -f "$input" ]] || continue
    found=1
    echo "---- $name: failing input $(basename "$input")" \
      "($(stat -c %s "$input") bytes; first $DUMP_BYTES shown) ----"
    head -c "$DUMP_BYTES" "$input" | od -A x -t x1z -v
    echo "---- base64 (first $DUMP_BYTES bytes) ----"
    head -c "$DUMP_BYTES" "$input" | base64 -w 76
    echo "---- reproduce: $BUILD_DIR/fuzz/$name $input ----"
  done
  if ((found == 0)); then
    echo "---- $name: no input was saved (see the report above) ----"
  fi
  return 1
}

echo "fuzz.sh: ${#targets[@]} targets from $BUILD_DIR/fuzz," \
  "$SECONDS_PER_TARGET s each, $JOBS at a time"
failed=()
running=0
next=0
reported=()
report_finished() {
  local name
  for name in "${targets[@]}"; do
    [[ -f "$WORK/$name/rc" ]] || continue
    [[ " ${reported[*]:-} " == *" $name "* ]] && continue
    reported+=("$name")
    report "$name" || failed+=("$name")
  done
}
while ((next < ${#targets[@]} || running > 0)); do
  while ((running < JOBS && next < ${#targets[@]})); do
    run_target "${targets[$next]}" &
    next=$((next + 1))
    running=$((running + 1))
  done
  wait -n || true
  running=$((running - 1))
  report_finished
done
wait
report_finished

echo "fuzz.sh: took $((SECONDS - START)) s"
if ((${#failed[@]} > 0)); then
  KEEP=1
  echo "fuzz.sh: FAILED: ${failed[*]} (inputs and logs kept in $WORK)"
  exit 1
fi
echo "fuzz.sh: all ${#targets[@]} targets passed"
