#!/usr/bin/env bash
# The bot's CI smoke (docs/bot.md, "Strength"): short arena games at small
# node budgets whose records must equal the committed ones (the answers are
# a function of the request: the same on every machine and run, and for any
# --jobs), and the ladder's cheapest pair (level 2 against level 1), whose
# verdict is counted in nodes, not time, so no machine makes it pass or fail.
#
#   tests/bot/arena_smoke.sh <halma_arena> [--update]
#
# --update rewrites the committed records (after a change to the bot that
# is meant to change its moves).
set -euo pipefail
arena="$1"
update="${2:-}"
here="$(cd "$(dirname "$0")" && pwd)"
data="$here/data"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# name variant A B games turn-cap
matches=(
  "brainking-8x8 brainking-8x8 nodes:3000 greedy 4 400"
  "iggamecenter-10x10 iggamecenter-10x10 level:2 distance-ab:2 2 400"
  "classic-16x16 classic-16x16 nodes:2000 spoiler 2 300"
  "classic-16x16-4p classic-16x16-4p nodes:2000 greedy 4 800"
)
for m in "${matches[@]}"; do
  read -r name variant a b games cap <<<"$m"
  for jobs in 1 2; do
    "$arena" --variant "$variant" --a "$a" --b "$b" --games "$games" \
      --turn-cap "$cap" --jobs "$jobs" --seed 7 --quiet \
      --records "$work/$name.$jobs.txt" >"$work/$name.$jobs.out"
  done
  if ! cmp -s "$work/$name.1.txt" "$work/$name.2.txt"; then
    echo "arena_smoke: $name: the records differ between --jobs 1 and 2" >&2
    diff "$work/$name.1.txt" "$work/$name.2.txt" | head -20 >&2
    exit 1
  fi
  if [ "$update" = "--update" ]; then
    cp "$work/$name.1.txt" "$data/arena_smoke_$name.txt"
  elif ! cmp -s "$work/$name.1.txt" "$data/arena_smoke_$name.txt"; then
    echo "arena_smoke: $name: the records differ from the committed ones" \
      "($data/arena_smoke_$name.txt); if the bot's moves were meant to" \
      "change, rerun with --update" >&2
    diff "$data/arena_smoke_$name.txt" "$work/$name.1.txt" | head -20 >&2
    exit 1
  fi
  grep -v '^time per move' "$work/$name.1.out"
done

# --first-game plays one game of a match again, move for move: game 3 of
# the first match on its own is the third record of the match.
read -r name variant a b games cap <<<"${matches[0]}"
"$arena" --variant "$variant" --a "$a" --b "$b" --games 1 --first-game 3 \
  --turn-cap "$cap" --jobs 1 --seed 7 --quiet \
  --records "$work/first-game.txt" >/dev/null
awk '/^\[Variant / { n++ } n == 3' "$work/$name.1.txt" >"$work/game3.txt"
if ! grep -q '^\[Game "3"\]' "$work/first-game.txt" ||
  ! cmp -s "$work/first-game.txt" "$work/game3.txt"; then
  echo "arena_smoke: --first-game 3 did not replay game 3 of the match" >&2
  diff "$work/game3.txt" "$work/first-game.txt" | head -20 >&2
  exit 1
fi

# The ladder's cheapest pair: level 2 must beat level 1 (docs/bot.md,
# "Levels": at least 65% over the full table's 200 games; here 40).
"$arena" --variant brainking-8x8 --a level:2 --b level:1 --games 40 \
  --turn-cap 400 --jobs 2 --seed 7 --quiet >"$work/ladder.out"
grep -v '^time per move' "$work/ladder.out"
score="$(sed -n 's/^RESULT .* score=\([0-9.]*\) .*/\1/p' "$work/ladder.out")"
if ! awk -v s="$score" 'BEGIN { exit !(s >= 0.65) }'; then
  echo "arena_smoke: level 2 scored $score against level 1, expected at" \
    "least 0.65" >&2
  exit 1
fi
# A --records path that cannot be written stops the arena before its
# first game (no game's progress line), naming the flag.
if "$arena" --variant brainking-8x8 --a greedy --b greedy --games 2 \
  --jobs 1 --seed 7 --records "$work" >"$work/bad.out" 2>"$work/bad.err"; then
  echo "arena_smoke: --records with a directory was accepted" >&2
  exit 1
fi
if grep -q '/2 games' "$work/bad.err" || ! grep -q -- '--records' "$work/bad.err"; then
  echo "arena_smoke: --records with a directory: expected an error naming" \
    "the flag before any game, got:" >&2
  cat "$work/bad.err" >&2
  exit 1
fi
# A records file that opens but cannot take the records (a full disk:
# /dev/full) fails the run after the games, naming the flag.
if [ -w /dev/full ]; then
  if "$arena" --variant brainking-8x8 --a greedy --b greedy --games 2 \
    --jobs 1 --seed 7 --records /dev/full >"$work/full.out" \
    2>"$work/full.err"; then
    echo "arena_smoke: --records /dev/full: the failed write was not" \
      "reported" >&2
    exit 1
  fi
  if ! grep -q -- '--records "/dev/full"' "$work/full.err"; then
    echo "arena_smoke: --records /dev/full: expected an error naming the" \
      "flag, got:" >&2
    cat "$work/full.err" >&2
    exit 1
  fi
fi
echo "arena_smoke: passed"
