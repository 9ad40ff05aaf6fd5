"""The soak (``python -m bench.soak``, ``make soak``): a short run prints its table and summary."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from bench.soak import HEADER, fit, slope

ROOT = Path(__file__).resolve().parents[2]
RUN_SECONDS = 120  # bound on the whole short run, server start-up included
ROW = re.compile(
    r"\s*\d+\.\d+\s+\d+\s+\d+\.\d{2}\s+\d+\.\d{2}\s+\d+\s+\d+\s+(\d+=\d+\.\d )*\d+=\d+\.\d"
)


def test_slope_is_the_least_squares_line() -> None:
    """The RSS slope is that of the least-squares line, with its standard error; none for a
    single minute."""
    assert slope([(5.0, 100.0), (6.0, 100.5), (7.0, 101.0)]) == pytest.approx(0.5)
    assert slope([(5.0, 100.0)]) is None
    value, error = fit([(5.0, 100.0), (6.0, 102.0), (7.0, 100.0), (8.0, 102.0)]) or (0, 0)
    assert value == pytest.approx(0.4)
    assert error == pytest.approx(0.32**0.5)


@pytest.mark.e2e
def test_a_short_soak_prints_rows_and_the_rss_slope() -> None:
    """A few seconds of soak against two workers: a row per interval (throughput, p50, p99,
    bad requests refused, failures, each worker's RSS), then the RSS slope of each worker, the
    p99 of the first and last intervals, and the totals; no call failed."""
    args = ["--minutes", "0.1", "--interval", "2", "--warm-up", "0", "--threads", "2"]
    done = subprocess.run(
        [sys.executable, "-m", "bench.soak", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=RUN_SECONDS,
        check=True,
    )
    lines = done.stdout.splitlines()
    assert lines[1] == HEADER, done.stdout
    rows = [line for line in lines[2:] if ROW.fullmatch(line)]
    assert len(rows) >= 2, done.stdout
    workers = re.findall(r"workers ((?:\d+ ?)+),", lines[0])[0].split()
    assert len(workers) == 2
    for pid in workers:
        assert any(
            re.fullmatch(
                rf"rss slope after minute 0: worker {pid}: [+-]\d+\.\d{{3}} MB/min "
                r"\(standard error \d+\.\d{3}\)",
                line,
            )
            for line in lines
        ), done.stdout
    assert any(
        re.fullmatch(r"p99 after minute 0: first interval .* ms, last .* ms", line)
        for line in lines
    )
    totals = re.fullmatch(r"calls (\d+), bad requests refused (\d+), failed (\d+)", lines[-1])
    assert totals is not None, done.stdout
    calls, bad, failed = map(int, totals.groups())
    assert calls > bad > 0
    assert failed == 0, done.stdout
