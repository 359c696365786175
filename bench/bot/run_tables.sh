#!/usr/bin/env bash
# The bot's strength and speed tables (docs/bot.md): runs the arena matches
# and the search benchmark, keeps every game's record (gzipped record text,
# docs/record-format.md) under the output directory (not in the
# repository), the games the top level did not win against a baseline in
# testdata/bot_games/ (in the repository), and writes the tables into
# docs/bot.md between its "tables:begin" and "tables:end" markers, with
# the machine and the commands.
#
#   bench/bot/run_tables.sh <build-dir> [--games N] [--jobs J]
#       [--only TABLE] [--out DIR] [--no-docs | --docs-only]
#
# --games: games per match (default 200, the issue's tables; a smaller
#   number gives a reduced table, and docs/bot.md shows each match's count).
#   Derived counts: self-play N/6 per level and preset (even; 200 gives
#   34 x 8 levels x 4 presets = 1,088 games), the spoiler N/10 per preset,
#   four players N rounded down to a multiple of 4.
# --jobs: games played side by side (default: the cores).
# --only: one table (speed, greedy, equal, ladder, self, spoiler, four).
# --out: where results and records go (default <build-dir>/bot-tables).
#   Each table's RESULT lines are kept in <out>/<table>.results, so tables
#   run one at a time (with their own --games) add up; docs/bot.md is
#   rewritten from every table found there unless --no-docs.
# --docs-only: runs nothing, rewrites docs/bot.md from <out>.
#
# The full-size tables: bench/bot/run_tables.sh build (about 8 hours of
# CPU on one dedicated core at the levels of halma/bot/levels.cc, as
# estimated from the reduced run; give it the cores with --jobs).
# Everything runs under nice -n 19. Every loop is bounded: a fixed number
# of games per match, a turn cap per game.
set -euo pipefail
cd "$(dirname "$0")/../.."
usage="usage: bench/bot/run_tables.sh <build-dir> [--games N] [--jobs J] [--only TABLE] [--out DIR] [--no-docs | --docs-only]"
build="${1:?$usage}"
shift
games=200
jobs="$(nproc)"
only=""
out=""
docs=1
while [ $# -gt 0 ]; do
  case "$1" in
    --games) games="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    --only) only="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --no-docs) docs=0; shift ;;
    --docs-only) only=none; shift ;;
    *) echo "run_tables.sh: unknown flag $1; $usage" >&2; exit 2 ;;
  esac
done
if [[ ! "$only" =~ ^(|none|speed|greedy|equal|ladder|self|spoiler|four)$ ]]; then
  echo "run_tables.sh: --only $only: expected speed, greedy, equal, ladder, self, spoiler or four" >&2
  exit 2
fi
out="${out:-$build/bot-tables}"
arena="$build/bench/bot/halma_arena"
bench="$build/bench/bot/halma_bot_bench"
for tool in "$arena" "$bench"; do
  [ -x "$tool" ] || { echo "run_tables.sh: $tool is missing (build it)" >&2; exit 2; }
done
mkdir -p "$out/records"
top="$("$arena" --print-level 8 | sed -n 's/.*node_budget=\([0-9]*\).*/\1/p')"
even() { local n=$(($1)); [ $n -lt 2 ] && n=2; echo $((n + n % 2)); }
self_games="$(even "$games / 6")"
spoiler_games="$(even "$games / 10")"
four_games=$((games / 4 * 4))
[ "$four_games" -lt 4 ] && four_games=4

# keep_games <records> <name>: the games of a match against a baseline
# that the top level did not win (lost, drawn or unfinished) go to
# testdata/bot_games/<name>.txt, where tests/bot/kept_games_test replays
# them; a match it won throughout leaves no file.
keep_games() {
  local kept="testdata/bot_games/$2.txt"
  awk -v top=level:8 '
    function flush() {
      if (buf != "" && letter != "") {
        split(result, f, ":")
        if (f[1] != "win" || index(f[2], letter) == 0) printf "%s", buf
      }
      buf = ""; letter = ""; result = ""
    }
    /^\[Variant / { flush() }
    /^\[Player[A-Z] / {
      agent = $0; sub(/^\[Player[A-Z] "/, "", agent); sub(/"\]$/, "", agent)
      if (agent == top) letter = tolower(substr($0, 8, 1))
    }
    /^\[Result / {
      result = $0; sub(/^\[Result "/, "", result); sub(/"\]$/, "", result)
    }
    { buf = buf $0 "\n" }
    END { flush() }' "$1" >"$kept"
  [ -s "$kept" ] || rm -f "$kept"
}

# match <table> <name> <variant> <A> <B> <games> <turn-cap>
match() {
  local table="$1" name="$2" variant="$3" a="$4" b="$5" n="$6" cap="$7"
  local records="$out/records/$name.txt"
  local t0=$SECONDS
  echo "run_tables.sh: $table/$name: $variant, $a vs $b, $n games" >&2
  nice -n 19 "$arena" --variant "$variant" --a "$a" --b "$b" --games "$n" \
    --jobs "$jobs" --seed 1 --turn-cap "$cap" --quiet --records "$records" \
    >"$out/records/$name.out"
  case "$table:$a" in
    greedy:level:8 | equal:level:8 | four:level:8) keep_games "$records" "$name" ;;
  esac
  gzip -9 -n -f "$records"
  sed -n "s/^RESULT /$table $name /p" "$out/records/$name.out" |
    sed "s/\$/ cap=$cap seconds=$((SECONDS - t0))/" >>"$out/$table.results.new"
}

# run_table <table> <body...>: the table's results replace the old ones
# only when all its matches ran.
run_table() {
  local table="$1"
  shift
  [ -z "$only" ] || [ "$only" = "$table" ] || return 0
  : >"$out/$table.results.new"
  local t0=$SECONDS
  "$@"
  mv "$out/$table.results.new" "$out/$table.results"
  echo "bench/bot/run_tables.sh $build --games $games --jobs $jobs --only $table" \
    "($(((SECONDS - t0 + 59) / 60)) min, $(date -u +%F))" >"$out/$table.command"
}

presets2="brainking-8x8 brainking-10x10 iggamecenter-10x10 classic-16x16"

speed() {
  echo "run_tables.sh: speed (halma_bot_bench)" >&2
  nice -n 19 "$bench" --benchmark_min_time=3 --benchmark_format=console \
    >"$out/speed.txt" 2>/dev/null
}
greedy() {
  local v
  for v in $presets2; do
    match greedy "top-vs-greedy-$v" "$v" level:8 greedy "$games" 2000
  done
  for v in $presets2; do
    match greedy "level1-vs-greedy-$v" "$v" level:1 greedy "$games" 2000
  done
}
equal() {
  local v
  for v in classic-16x16 brainking-10x10; do
    match equal "top-vs-distance-ab-$v" "$v" level:8 \
      "distance-ab-nodes:$top" "$games" 2000
  done
}
ladder() {
  local l
  for l in 2 3 4 5 6 7 8; do
    match ladder "level$l-vs-level$((l - 1))" brainking-10x10 "level:$l" \
      "level:$((l - 1))" "$games" 2000
  done
}
self() {
  # Self-play at every level on every two-player preset: games end.
  local v l
  for v in $presets2; do
    for l in 1 2 3 4 5 6 7 8; do
      match self "self-level$l-$v" "$v" "level:$l" "level:$l" \
        "$self_games" 2000
    done
  done
}
spoiler() {
  # Presets whose rules end a spoiler's game (a home-exit limit: brainking;
  # a move cap), iggamecenter-10x10 and classic-16x16 (whose rules do not),
  # and classic-16x16 with a home-exit limit or a move cap added.
  local v name
  for v in $presets2 custom:16:2:5,5,4,3,2:lock:exit=60 \
    custom:16:2:5,5,4,3,2:lock:cap=200; do
    name="top-vs-spoiler-${v//[:,=]/_}"
    match spoiler "$name" "$v" level:8 spoiler "$spoiler_games" 1000
  done
}
four() {
  match four "top-vs-3-greedy" classic-16x16-4p level:8 greedy \
    "$four_games" 4000
  match four "top-vs-3-distance-ab" classic-16x16-4p level:8 distance-ab:2 \
    "$four_games" 4000
}

if [ -z "$only" ] || [ "$only" = speed ]; then
  t0=$SECONDS
  speed
  echo "bench/bot/run_tables.sh $build --only speed" \
    "($(((SECONDS - t0 + 59) / 60)) min, $(date -u +%F))" >"$out/speed.command"
fi
for table in greedy equal ladder self spoiler four; do
  run_table "$table" "$table"
done
[ "$docs" = 1 ] || exit 0

# The tables, in markdown, from the RESULT lines.
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$2"; }
pct() { awk -v x="$1" 'BEGIN { printf "%.1f%%", 100 * x }'; }
row() {
  local l="$1"
  printf '| %s | %s | %s | %s-%s-%s-%s | %s (%s..%s) | %s (%s..%s) | %s | %s | %s | %s |\n' \
    "$(cut -d' ' -f2 <<<"$l")" "$(field variant "$l")" "$(field games "$l")" \
    "$(field wins "$l")" "$(field draws "$l")" "$(field losses "$l")" \
    "$(field unfinished "$l")" \
    "$(pct "$(field score "$l")")" "$(pct "$(field lo "$l")")" \
    "$(pct "$(field hi "$l")")" "$(field elo "$l")" "$(field elo_lo "$l")" \
    "$(field elo_hi "$l")" "$(field plies "$l")" "$(field a_nodes "$l")" \
    "$(field a_ms "$l")" "$(field a_p99_ms "$l")"
}
# The command a table was run with, and when (its .command file:
# "<command> (<minutes>, <date>)").
command_line() {
  local c
  c="$(cat "$out/$1.command")"
  echo "Command: \`${c% (*}\` (${c##* (}"
}
tables="$(mktemp)"
trap 'rm -f "$tables" "$tables.md"' EXIT
{
  echo "<!-- tables:begin (written by bench/bot/run_tables.sh; do not edit) -->"
  echo
  echo "Machine: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)," \
    "$(nproc) vCPUs, shared with other work (load average when written:" \
    "$(cut -d' ' -f1-3 /proc/loadavg)). Times are CPU time of the thread" \
    "that searched. W-D-L-unfinished is from A's side; unfinished games" \
    "(the turn cap) count as draws in the score; the interval is Wilson's" \
    "(95%), the Elo interval its image."
  if [ -f "$out/speed.txt" ]; then
    echo
    echo "### Speed"
    echo
    command_line speed
    echo
    echo '```'
    grep -E '^(BM_|Benchmark|-)' "$out/speed.txt" |
      sed -e 's/ items_per_second=[^ ]*//' | cut -c1-260
    echo '```'
  fi
  for table in greedy equal ladder self spoiler four; do
    [ -f "$out/$table.results" ] || continue
    echo
    echo "### Table: $table"
    echo
    command_line "$table"
    echo
    echo "| match | variant | games | W-D-L-unfinished | A's score (95% CI) | Elo (95% CI) | plies | A nodes/move | A ms/move | A p99 ms |"
    echo "|---|---|---:|---|---|---|---:|---:|---:|---:|"
    while read -r line; do row "$line"; done <"$out/$table.results"
  done
  echo
  echo "<!-- tables:end -->"
} >"$tables"
awk -v tables="$tables" '
  /<!-- tables:begin/ { while ((getline l < tables) > 0) print l; skip = 1; next }
  /<!-- tables:end -->/ { skip = 0; next }
  !skip { print }
' docs/bot.md >"$tables.md"
cp "$tables.md" docs/bot.md
echo "run_tables.sh: docs/bot.md updated from $out" >&2
