#!/usr/bin/env bash
# Instruction counts of the engine's replay, play/undo and LegalMoves work
# (valgrind --tool=callgrind on halma_callgrind_driver): repeatable on a
# loaded machine, where times are not. See docs/benchmarks.md ("The engine").
#
#   bench/callgrind.sh [driver]
#
# `driver` defaults to build/bench/halma_callgrind_driver; any build of
# bench/callgrind_driver.cc works, so an older engine can be counted the
# same way (the driver compiles against it, without the play/undo part;
# against commit f13f5fc with its service's headers and library it also
# counts the service's sort into answer order: the "sorted" mode).
# Prints one line per measurement: what, the unit, instructions in all and
# per unit.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
driver="${1:-$here/../build/bench/halma_callgrind_driver}"
data="$here/data"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

if ! command -v valgrind > /dev/null; then
  echo "callgrind.sh: valgrind is not installed" >&2
  exit 1
fi

# count <function> <log name> <driver args...>: runs the driver (or
# $count_driver when set) under
# callgrind with collection on inside <function>; prints the driver's own
# line, then the instructions counted.
count() {
  local function="$1" name="$2"
  shift 2
  local line
  line="$(valgrind --tool=callgrind --dump-instr=no \
    --callgrind-out-file="$out/$name.out" \
    --toggle-collect="*${function}*" "${count_driver:-$driver}" "$@" 2> "$out/$name.log")"
  local total
  total="$(awk '/^(summary|totals):/ { print $2; exit }' "$out/$name.out")"
  echo "$line $total"
}

per() {  # per <what> <unit> <driver line field index of the unit count> ...
  local what="$1" unit="$2" field="$3" line="$4"
  awk -v what="$what" -v unit="$unit" -v field="$field" '{
    n = $field; total = $NF
    printf "%-44s %8d %-10s %12d instructions %8.1f per %s\n", what, n, unit,
      total, total / n, unit
  }' <<< "$line"
}

for records in classic-16x16-300 brainking-8x8-60; do
  preset="${records%-*}"
  line="$(count ReplayRecords "replay-$records" replay \
    "$data/records/$records.txt" "$preset")"
  per "replay $records" ply 4 "$line"
  if "$driver" playout "$data/records/$records.txt" "$preset" \
    > /dev/null 2>&1; then
    line="$(count PlayUndo "playout-$records" playout \
      "$data/records/$records.txt" "$preset")"
    per "play+undo $records" ply 4 "$line"
  fi
done
for preset in brainking-8x8 brainking-10x10 iggamecenter-10x10 \
  classic-16x16 classic-16x16-4p; do
  line="$(count LegalMovesAnswer "legal-$preset" legal \
    "$data/$preset.txt" "$preset" 16)"
  per "legal moves answer $preset" position 2 "$line"
  # A driver built against f13f5fc with its service library: the same work
  # followed by the service's sort into answer order, and the sort alone.
  if "$driver" sorted "$data/$preset.txt" "$preset" 1 > /dev/null 2>&1; then
    line="$(count LegalMovesAnswerSorted "sorted-$preset" sorted \
      "$data/$preset.txt" "$preset" 16)"
    per "legal moves answer + sort $preset" position 2 "$line"
    line="$(count SortAnswer "sort-$preset" sorted \
      "$data/$preset.txt" "$preset" 16)"
    per "service's sort $preset" position 2 "$line"
  fi
done
for preset in brainking-8x8 classic-16x16; do
  line="$(count MoveSet::Count "count-$preset" count \
    "$data/$preset.txt" "$preset" 100)"
  per "MoveSet::Count $preset" position 2 "$line"
done
# The service's part of Adjudicate read in place (bench/service/record_driver.cc),
# when the driver is built beside this one: the in-place read, the replay,
# the answer and its serialization, per ply, for a unary request and for an
# AdjudicateStream record.
record_driver="$(dirname "$driver")/service/halma_record_driver"
if [ -x "$record_driver" ]; then
  for records in classic-16x16-300 brainking-8x8-60; do
    preset="${records%-*}"
    for mode in unary stream; do
      line="$(count_driver="$record_driver" count AnswerRecords \
        "adjudicate-$mode-$records" "$data/records/$records.txt" "$preset" \
        "$mode")"
      per "adjudicate $mode (service) $records" ply 4 "$line"
    done
  done
fi
