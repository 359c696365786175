#!/usr/bin/env bash
# The bot's strength and speed tables (docs/bot.md): runs every arena match
# and the search benchmark, keeps every game's record under
# bench/bot/games/ (gzipped record text, docs/record-format.md), and writes
# the tables into docs/bot.md between its "tables:begin" and "tables:end"
# markers, with the machine and the commands.
#
#   bench/bot/run_tables.sh <build-dir> [--games N] [--jobs J] [--only NAME]
#
# --games sets the games per match (200: the issue's tables; fewer for a
# trial run), --jobs the games played side by side (default: the cores),
# --only runs one table (speed, greedy, equal, ladder, self, spoiler, four)
# and leaves docs/bot.md alone. Everything runs under nice -n 10. Every
# loop is bounded: --games games per match, a turn cap per game.
set -euo pipefail
cd "$(dirname "$0")/../.."
build="${1:?usage: bench/bot/run_tables.sh <build-dir> [--games N] [--jobs J] [--only NAME]}"
shift
games=200
jobs="$(nproc)"
only=""
while [ $# -gt 0 ]; do
  case "$1" in
    --games) games="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    --only) only="$2"; shift 2 ;;
    *) echo "run_tables.sh: unknown flag $1" >&2; exit 2 ;;
  esac
done
arena="$build/bench/bot/halma_arena"
bench="$build/bench/bot/halma_bot_bench"
for tool in "$arena" "$bench"; do
  [ -x "$tool" ] || { echo "run_tables.sh: $tool is missing (build it)" >&2; exit 2; }
done
out="bench/bot/games"
mkdir -p "$out"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
results="$work/results.txt"
: >"$results"
top="$("$arena" --print-level 8 | sed -n 's/.*node_budget=\([0-9]*\).*/\1/p')"
started=$SECONDS

# match <table> <name> <variant> <A> <B> <games> <turn-cap>
match() {
  local table="$1" name="$2" variant="$3" a="$4" b="$5" n="$6" cap="$7"
  local records="$work/$name.txt"
  echo "run_tables.sh: $table/$name: $variant, $a vs $b, $n games" >&2
  nice -n 10 "$arena" --variant "$variant" --a "$a" --b "$b" --games "$n" \
    --jobs "$jobs" --seed 1 --turn-cap "$cap" --quiet --records "$records" \
    >"$work/$name.out"
  sed -n "s/^RESULT /$table $name /p" "$work/$name.out" >>"$results"
  gzip -9 -n -c "$records" >"$out/$name.txt.gz"
}

want() { [ -z "$only" ] || [ "$only" = "$1" ]; }

presets2="brainking-8x8 brainking-10x10 iggamecenter-10x10 classic-16x16"

if want speed; then
  echo "run_tables.sh: speed (halma_bot_bench)" >&2
  nice -n 10 "$bench" --benchmark_min_time=3 --benchmark_format=console \
    >"$work/speed.out" 2>/dev/null
  cp "$work/speed.out" "$out/speed.txt"
fi
if want greedy; then
  for v in $presets2; do
    match greedy "top-vs-greedy-$v" "$v" level:8 greedy "$games" 2000
  done
  match greedy "level1-vs-greedy" brainking-10x10 level:1 greedy "$games" 2000
fi
if want equal; then
  for v in classic-16x16 brainking-10x10; do
    match equal "top-vs-distance-ab-$v" "$v" level:8 \
      "distance-ab-nodes:$top" "$games" 2000
  done
fi
if want ladder; then
  for l in 2 3 4 5 6 7 8; do
    match ladder "level$l-vs-level$((l - 1))" brainking-10x10 "level:$l" \
      "level:$((l - 1))" "$games" 2000
  done
fi
if want self; then
  # Self-play at every level on every two-player preset (the ladder and
  # the greedy matches count too): games end.
  for v in $presets2; do
    for l in 1 2 3 4 5 6 7 8; do
      match self "self-level$l-$v" "$v" "level:$l" "level:$l" \
        $(((games + 19) / 20)) 2000
    done
  done
fi
if want spoiler; then
  for v in $presets2 custom:16:2:5,5,4,3,2:lock:exit=60 \
    custom:16:2:5,5,4,3,2:lock:cap=200; do
    name="top-vs-spoiler-${v//[:,=]/_}"
    match spoiler "$name" "$v" level:8 spoiler $(((games + 9) / 10)) 1000
  done
fi
if want four; then
  match four "top-vs-3-greedy" classic-16x16-4p level:8 greedy "$games" 4000
  match four "top-vs-3-distance-ab" classic-16x16-4p level:8 distance-ab:2 \
    "$games" 4000
fi
elapsed=$((SECONDS - started))
cp "$results" "$out/results.txt"
[ -n "$only" ] && { cat "$results"; exit 0; }

# The tables, in markdown, from the RESULT lines.
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$2"; }
pct() { awk -v x="$1" 'BEGIN { printf "%.1f%%", 100 * x }'; }
row() {  # row <line> : | match | games | W-D-L-unfinished | score (CI) | Elo (CI) | plies | ms A | p99 ms A |
  local l="$1"
  printf '| %s | %s | %s-%s-%s-%s | %s (%s..%s) | %s (%s..%s) | %s | %s | %s |\n' \
    "$(cut -d' ' -f2 <<<"$l")" "$(field games "$l")" "$(field wins "$l")" \
    "$(field draws "$l")" "$(field losses "$l")" "$(field unfinished "$l")" \
    "$(pct "$(field score "$l")")" "$(pct "$(field lo "$l")")" \
    "$(pct "$(field hi "$l")")" "$(field elo "$l")" "$(field elo_lo "$l")" \
    "$(field elo_hi "$l")" "$(field plies "$l")" "$(field a_ms "$l")" \
    "$(field a_p99_ms "$l")"
}
{
  echo "<!-- tables:begin (written by bench/bot/run_tables.sh; do not edit) -->"
  echo
  echo "Machine: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)," \
    "$(nproc) cores, shared with other work (load average at the end:" \
    "$(cut -d' ' -f1-3 /proc/loadavg)). Command:" \
    "\`bench/bot/run_tables.sh $build --games $games --jobs $jobs\`" \
    "($((elapsed / 60)) minutes). Every game's record: \`bench/bot/games/\`."
  echo
  echo "### Speed"
  echo
  echo '```'
  grep -E '^(BM_|Benchmark|-)' "$work/speed.out" | cut -c1-160
  echo '```'
  for table in greedy equal ladder self spoiler four; do
    echo
    echo "### $table"
    echo
    echo "| match | games | W-D-L-unfinished | A's score (95% CI) | Elo (95% CI) | plies | A ms/move | A p99 ms |"
    echo "|---|---:|---|---|---|---:|---:|---:|"
    grep "^$table " "$results" | while read -r line; do row "$line"; done
  done
  echo
  echo "<!-- tables:end -->"
} >"$work/tables.md"
awk -v tables="$work/tables.md" '
  /<!-- tables:begin/ { while ((getline l < tables) > 0) print l; skip = 1; next }
  /<!-- tables:end -->/ { skip = 0; next }
  !skip { print }
' docs/bot.md >"$work/bot.md"
cp "$work/bot.md" docs/bot.md
echo "run_tables.sh: docs/bot.md updated ($((elapsed / 60)) minutes)" >&2
