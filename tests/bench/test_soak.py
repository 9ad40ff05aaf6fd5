"""The soak (``python -m bench.soak``, ``make soak``): a short run prints its table and summary."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bench.soak import HEADER, Memory, Row, Sampler, fit, slope, summary

ROOT = Path(__file__).resolve().parents[2]
RUN_SECONDS = 120  # bound on the whole short run, server start-up included
MEMORY = r"\d+=\d+\.\d/\d+\.\d/\d+\.\d"  # pid=RSS mean/RSS max/anonymous mean
ROW = re.compile(
    rf"\s*\d+\.\d+\s+\d+\s+\d+\.\d{{2}}\s+\d+\.\d{{2}}\s+\d+\s+\d+\s+({MEMORY} )*{MEMORY}"
)
GONE_PID = 2**22 + 1  # above the kernel's largest pid: never a process
SLOPE = r"[+-]\d+\.\d{3} MB/min \(standard error \d+\.\d{3}\)"


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
    bad requests refused, failures, each worker's mean and largest RSS and mean anonymous
    memory over several samples), then the slopes of each worker's RSS and anonymous memory
    and its largest RSS, the p99 of the first and last intervals, and the totals; no call
    failed."""
    args = ["--minutes", "0.1", "--interval", "2", "--sample", "0.5", "--warm-up", "0"]
    args += ["--threads", "2"]
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
                rf"rss slope after minute 0: worker {pid}: {SLOPE}; "
                rf"anonymous memory {SLOPE}; largest RSS \d+\.\d MB",
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


def test_memory_is_sampled_within_each_interval() -> None:
    """The sampler reads a process's memory many times per interval and sums the interval up
    by the mean and largest RSS and the mean anonymous memory; a process gone gives None."""
    with Sampler([os.getpid(), GONE_PID], 0.01, time.monotonic()) as sampler:
        time.sleep(0.2)
        taken = sampler.take()
    memory = taken[os.getpid()]
    assert memory is not None
    assert 0 < memory.anonymous_mean < memory.rss_mean <= memory.rss_max
    assert taken[GONE_PID] is None


def test_the_slopes_are_of_the_interval_means() -> None:
    """The summary fits each worker's RSS slope to the means of the intervals that began after
    the warm-up (at the mean time of their samples; an interval that ends a moment after it is
    not one of them), the anonymous memory's alike, and names the largest RSS of the run."""
    means = {4.5: 150.0, 5.5: 100.0, 6.5: 101.0, 7.5: 102.0}
    rows = [
        Row(minute + 0.501, 1, 60.0, 1.0, 2.0, 0, 0, {7: Memory(minute, mean, 200.0, mean / 2)})
        for minute, mean in means.items()
    ]
    assert summary(rows, warm_up=5)[0] == (
        "rss slope after minute 5: worker 7: +1.000 MB/min (standard error 0.000); "
        "anonymous memory +0.500 MB/min (standard error 0.000); largest RSS 200.0 MB"
    )
