#!/usr/bin/python3
"""The service benchmark's rounds (bench/service/service_bench.py
--rounds): each stream run is compared with the unary run of its own round
and concurrency, and the median of the rounds' ratios decides the target.

Runs the driver's own functions over rows shaped as run_scenario makes
them (no server: what is checked is the pairing and the arithmetic)."""

import os
import sys
import unittest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
sys.path.insert(0, os.path.join(REPO, "bench", "service"))
import service_bench as sb  # noqa: E402


def row(scenario, concurrency, round_number, cpu_us_per_record,
        compare_with=None, records_per_call=1):
    """A row as run_scenario and bench_concurrency leave it."""
    return {
        "scenario": scenario, "concurrency": concurrency,
        "round": round_number, "role": "scenario",
        "compare_with": compare_with,
        "records_per_call": records_per_call,
        "records_per_s": 1000.0, "cpu_us_per_record": cpu_us_per_record,
        "records_per_core_s": 1e6 / cpu_us_per_record,
        "server_cpus_busy": 0.9, "p99_ms": 1.0,
    }


UNARY = "adjudicate/classic-16x16-300"
STREAM = "adjudicate_stream/classic-16x16-300"


def rounds(unary_and_stream, concurrency=64):
    """Rows of consecutive rounds, one (unary CPU, stream CPU) pair each."""
    rows = []
    for k, (unary_cpu, stream_cpu) in enumerate(unary_and_stream, start=1):
        rows.append(row(UNARY, concurrency, k, unary_cpu))
        rows.append(row(STREAM, concurrency, k, stream_cpu,
                        compare_with=UNARY, records_per_call=128))
    return rows


class RoundsTest(unittest.TestCase):
    def test_each_stream_run_is_paired_with_its_own_rounds_unary_run(self):
        # Round 2 ran in a slow spell: both of its runs cost twice as much.
        comparisons = sb.stream_vs_unary(rounds([(31.2, 12.0),
                                                 (62.4, 24.0),
                                                 (32.5, 12.5)]))
        self.assertEqual([c["round"] for c in comparisons], [1, 2, 3])
        for c in comparisons:
            self.assertAlmostEqual(c["records_per_core_ratio"], 2.6)
            self.assertTrue(c["target_met"])

    def test_the_median_of_the_rounds_decides_the_target(self):
        comparisons = sb.stream_vs_unary(rounds([(31.1, 13.0), (31.0, 13.1),
                                                 (38.4, 13.6), (39.6, 17.3),
                                                 (61.4, 19.9)]))
        [summary] = sb.stream_rounds(comparisons)
        self.assertEqual(summary["rounds"], 5)
        ratios = sorted(c["records_per_core_ratio"]
                        for c in comparisons)
        self.assertAlmostEqual(summary["median"], ratios[2])
        self.assertAlmostEqual(summary["min"], ratios[0])
        self.assertAlmostEqual(summary["max"], ratios[-1])
        # Two rounds over 2.5 do not make the target met: the median is
        # 31.1 / 13.0 = 2.39.
        self.assertAlmostEqual(summary["median"], 31.1 / 13.0)
        self.assertFalse(summary["target_met"])

    def test_an_even_number_of_rounds_takes_the_middle_two(self):
        comparisons = sb.stream_vs_unary(rounds([(30.0, 10.0), (30.0, 15.0)]))
        [summary] = sb.stream_rounds(comparisons)
        self.assertAlmostEqual(summary["median"], (3.0 + 2.0) / 2)
        self.assertTrue(summary["target_met"])

    def test_concurrencies_are_summarised_apart(self):
        rows = rounds([(45.0, 11.0)], concurrency=16) + \
            rounds([(31.0, 13.0)], concurrency=64)
        summary = sb.stream_rounds(sb.stream_vs_unary(rows))
        self.assertEqual([s["concurrency"] for s in summary], [16, 64])
        self.assertEqual([s["target_met"] for s in summary], [True, False])


if __name__ == "__main__":
    unittest.main()
