"""The rehearsal of production (``python -m bench.rehearsal``, ``make rehearsal``), short: three
replicas, the store and HAProxy in network namespaces, both clients playing through every fault.
It needs root for the namespaces (CI runs as root); elsewhere these tests are skipped."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from bench.rehearsal.hosts import leftover_namespaces

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "test-artifacts"
RUN_SECONDS = 600  # a bound on a hung run, far above the two or three minutes a short one takes
PHASES = [
    "1-steady",
    "2-kill",
    "3-rolling-restart",
    "4-partition",
    "5a-store-restart",
    "5b-store-pause",
    "6-key-rotation",
    "7a-rollback",
    "7b-upgrade",
]
HELD_TO_ZERO = [
    "calls failed for good (not retryable, or retried in vain)",
    "moves lost",
    "moves applied twice",
    "states accepted that the fence should have refused",
    "watchers that missed a revision",
]
STALE = "states accepted that the fence should have refused"

pytestmark = pytest.mark.skipif(
    os.geteuid() != 0, reason="the rehearsal's hosts are network namespaces: it needs root"
)


@dataclass(frozen=True)
class Run:
    """One run of the rehearsal: its exit code, output and report."""

    code: int
    stdout: str
    stderr: str
    report: dict[str, Any]


def rehearse(out: Path, *arguments: str) -> Run:
    """Run the rehearsal with ``arguments``, its report in ``out``."""
    run = subprocess.run(
        [sys.executable, "-m", "bench.rehearsal", "--out", str(out), *arguments],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=RUN_SECONDS,
        check=False,
    )
    report_file = out / "report.json"
    report = json.loads(report_file.read_text()) if report_file.exists() else {}
    return Run(run.returncode, run.stdout, run.stderr, report)


def namespaces_of(run: Run) -> str:
    """The prefix of the namespaces the run made."""
    found = re.search(r"hosts: namespaces (\S+)-\*", run.stdout)
    assert found, run.stdout + run.stderr
    return found.group(1) + "-"


@pytest.fixture(scope="module")
def short_run() -> Run:
    """A short rehearsal: every phase, briefly."""
    return rehearse(OUT / "rehearsal-short", "--short")


@pytest.fixture(scope="module")
def unfenced_run() -> Run:
    """A very short rehearsal (steady load only) with one replica running without the fence."""
    return rehearse(OUT / "rehearsal-unfenced", "--short", "--phases", "1", "--unfenced", "r2")


class TestShortRehearsal:
    """Every phase runs, with both clients, and every figure meets its target."""

    def test_every_figure_meets_its_target(self, short_run: Run) -> None:
        """The run passes: no phase misses a target."""
        assert short_run.code == 0, short_run.stdout + short_run.stderr
        assert short_run.report["passed"], short_run.report["misses"]

    def test_every_phase_ran(self, short_run: Run) -> None:
        """The report holds the nine phases in order, each with both clients' calls."""
        phases = short_run.report["phases"]
        assert [phase["name"] for phase in phases] == PHASES
        for phase in phases:
            by_client = phase["figures"]["calls by client"]
            assert re.fullmatch(r"python [1-9]\d*, typescript [1-9]\d*", by_client), phase

    def test_the_figures_held_to_zero_are_zero(self, short_run: Run) -> None:
        """In every phase: no call failed for good, no move was lost or applied twice, no stale
        state was accepted, no watcher missed a revision, and stale states were sent."""
        for phase in short_run.report["phases"]:
            figures = phase["figures"]
            assert [figures[name] for name in HELD_TO_ZERO] == [0] * len(HELD_TO_ZERO), phase
            assert figures["stale states sent"] >= 1, phase

    def test_hosted_tables_were_played_and_watched(self, short_run: Run) -> None:
        """Hosted tables were played to their end and watched from every seat."""
        phases = short_run.report["phases"]
        assert sum(phase["figures"]["hosted tables played"] for phase in phases) >= 1
        assert sum(phase["figures"]["watchers"] for phase in phases) >= 2

    def test_the_markdown_report_lands_beside_the_json(self, short_run: Run) -> None:
        """report.md shows the table with every phase."""
        text = (OUT / "rehearsal-short" / "report.md").read_text()
        assert all(f" {phase} " in text for phase in PHASES)

    def test_nothing_is_left_behind(self, short_run: Run) -> None:
        """No namespace of the run is left (its processes are checked by the run's end)."""
        assert leftover_namespaces(namespaces_of(short_run)) == []


class TestFenceOff:
    """A replica without the revision fence fails the rehearsal, naming the phase and figure."""

    def test_a_replica_without_the_fence_fails_naming_the_phase_and_the_figure(
        self, unfenced_run: Run
    ) -> None:
        """Stale states that reached the unfenced replica were accepted: exit 1, and the miss
        names the phase and the figure with its count."""
        assert unfenced_run.code == 1, unfenced_run.stdout + unfenced_run.stderr
        found = re.search(
            rf"phase 1-steady: {re.escape(STALE)} = (\d+) \(target 0\)", unfenced_run.stderr
        )
        assert found, unfenced_run.stderr
        assert int(found.group(1)) > 0
        assert leftover_namespaces(namespaces_of(unfenced_run)) == []
