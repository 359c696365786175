#!/usr/bin/python3
"""Prints the figures table of docs/http-library-choice.md from the bench
results named on the command line (default: the two newest
results/bench-*.json): each cell is the range over every round of every file."""
import glob
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def rng(values, fmt):
    lo, hi = min(values), max(values)
    a, b = format(lo, fmt), format(hi, fmt)
    return a if a == b else f"{a}–{b}"


def main():
    paths = sys.argv[1:] or sorted(glob.glob(f"{HERE}/results/bench-*.json"))[-2:]
    runs, base = [], []
    for path in paths:
        with open(path) as f:
            res = json.load(f)
        runs += res["runs"]
        base += [b["cpu_s_per_100k"] for b in res["baseline"]]
    print(f"{len(base)} rounds; baseline (JSON work only) {rng(base, '.2f')} CPU s per 100k")
    print()
    print("| library | conns | req/s | p50 ms | p99 ms | max ms | CPU s / 100k req | HTTP layer / 100k | RSS MiB |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    libs = list(dict.fromkeys(r["lib"] for r in runs))
    b = sum(base) / len(base)
    for lib in libs:
        for conns in (16, 64):
            rs = [r for r in runs if r["lib"] == lib and r["conns"] == conns]
            if not rs:
                continue
            col = lambda k, fmt: rng([r[k] for r in rs if r.get(k) is not None], fmt)  # noqa: E731
            http = rng([r["cpu_s_per_100k"] - b for r in rs], ".1f")
            errors = sum(r["non2xx"] + sum(r["socket_errors"]) for r in rs)
            print(f"| {lib} | {conns} | {col('rps', '.0f')} | {col('p50_ms', '.1f')} | "
                  f"{col('p99_ms', '.0f')} | {col('max_ms', '.0f') if any('max_ms' in r for r in rs) else '-'} | "
                  f"{col('cpu_s_per_100k', '.1f')} | {http} | "
                  f"{rng([r['rss_kib'] / 1024 for r in rs], '.1f')} |" + (f" errors {errors}" if errors else ""))


if __name__ == "__main__":
    sys.exit(main())
