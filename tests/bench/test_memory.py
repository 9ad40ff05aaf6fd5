"""``python -m bench.memory``: a short run prints a line per interval and the allocations that
grew."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
RUN_SECONDS = 120  # bound on the whole short run, server start-up included
LINE = re.compile(
    r"\s*\d+\.\d{2}\s+(\d+)\s+(\d+\.\d{2})/\d+\.\d{2}\s+\d+\s+(\d+\.\d)\s+\d+\.\d"
    r"\s+\d+\.\d/\d+\.\d\s+\d+\.\d/\d+\.\d\s+(\{.*\})"
)


@pytest.mark.e2e
def test_a_short_run_shows_the_worker_memory_and_tables() -> None:
    """A few seconds of load on an in-process worker: each line gives the calls served, the
    memory traced, the RSS and every table the worker keeps (the state cache among them), and
    the run ends with the lines of code whose allocations grew."""
    args = ["--minutes", "0.2", "--interval", "4", "--warm-up", "0", "--threads", "2"]
    done = subprocess.run(
        [sys.executable, "-m", "bench.memory", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=RUN_SECONDS,
        check=True,
    )
    lines = [found for line in done.stdout.splitlines() if (found := LINE.fullmatch(line))]
    assert len(lines) >= 2, done.stdout
    calls, traced, rss, tables = lines[-1].groups()
    assert int(calls) > 0
    assert 0 < float(traced) < float(rss)
    assert "'states': " in tables
    assert "allocations that grew most after minute 0:" in done.stdout
