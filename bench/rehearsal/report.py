"""The rehearsal's figures, phase by phase: what the drivers counted and the audit found, held to
their targets, written as JSON and as a markdown table."""

from __future__ import annotations

import json
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

PERCENT = 100


@dataclass(frozen=True, slots=True)
class Figure:
    """One figure of one phase and its target (None: shown, not held to one)."""

    name: str
    value: float | str
    target: str = ""
    met: bool = True


@dataclass(frozen=True, slots=True)
class PhaseReport:
    """A phase's figures, what it did and how long it took."""

    name: str
    what: str
    seconds: float
    figures: tuple[Figure, ...]
    samples: tuple[tuple[str, str], ...] = ()  # each failure's first message, by reason

    @property
    def missed(self) -> list[Figure]:
        """The figures that missed their targets."""
        return [figure for figure in self.figures if not figure.met]


def percentile(values: Sequence[float], share: float) -> float:
    """The ``share`` percentile of ``values`` (0 when there are none)."""
    if not values:
        return 0.0
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=PERCENT, method="inclusive")[round(share) - 1]


def merged(drivers: Sequence[Mapping[str, Any]], phase: str) -> dict[str, Any]:
    """One phase's counts summed over the drivers, their latencies together."""
    total: dict[str, Any] = {
        "failures": {},
        "refused": {},
        "samples": {},
        "watch_failures": {},
        "latencies_ms": [],
    }
    for report in drivers:
        figures = report.get(phase, {})
        for key, value in figures.items():
            if key == "samples":
                total[key].update(value)
            elif isinstance(value, dict):
                for name, count in value.items():
                    total[key][name] = total[key].get(name, 0) + count
            elif isinstance(value, list):
                total[key].extend(value)
            else:
                total[key] = total.get(key, 0) + value
    return total


def phase_figures(
    counted: Mapping[str, Any], audited: Mapping[str, int], by_client: Mapping[str, int]
) -> tuple[Figure, ...]:
    """The figures of one phase from its counts and its audit, each held to its target."""
    failed_for_good = sum(counted["refused"].values())
    lost = audited.get("lost", 0) + counted.get("table_moves_lost", 0)
    twice = (
        audited.get("twice", 0)
        + counted.get("revision_skips", 0)
        + counted.get("table_moves_twice", 0)
    )
    missed = counted.get("watchers_missed", 0)
    cut = ", ".join(f"{name} {count}" for name, count in sorted(counted["watch_failures"].items()))
    stale = counted.get("stale_accepted", 0)
    probes = counted.get("probes", 0)
    latencies = counted["latencies_ms"]
    failures = ", ".join(f"{name} {count}" for name, count in sorted(counted["failures"].items()))
    return (
        Figure("calls made", counted.get("calls", 0)),
        Figure("calls by client", ", ".join(f"{k} {v}" for k, v in sorted(by_client.items()))),
        Figure("moves applied", counted.get("moves", 0)),
        Figure("failed attempts by reason (then retried)", failures or "none"),
        Figure("calls retried", counted.get("retried", 0)),
        Figure(
            "calls failed for good (not retryable, or retried in vain)",
            failed_for_good,
            "0",
            failed_for_good == 0,
        ),
        Figure("moves lost", lost, "0", lost == 0),
        Figure("moves applied twice", twice, "0", twice == 0),
        Figure("stale states sent", probes, ">= 1", probes >= 1),
        Figure("states accepted that the fence should have refused", stale, "0", stale == 0),
        Figure("hosted tables played", counted.get("tables", 0)),
        Figure("watchers", counted.get("watchers", 0)),
        Figure("watches the client gave up (then watched again)", cut or "none"),
        Figure("watchers that missed a revision", missed, "0", missed == 0),
        Figure("p50 latency (ms)", round(percentile(latencies, 50), 1)),
        Figure("p99 latency (ms)", round(percentile(latencies, 99), 1)),
    )


def build(
    phases: Sequence[tuple[str, str, float]],
    drivers: Mapping[str, Mapping[str, Any]],
    audit: Mapping[str, Mapping[str, int]],
) -> list[PhaseReport]:
    """Every phase's report, from the phases run (name, what, seconds), each driver's figures
    (by client) and the audit."""
    reports = []
    for name, what, seconds in phases:
        counted = merged(list(drivers.values()), name)
        by_client = {
            client: report.get(name, {}).get("calls", 0) for client, report in drivers.items()
        }
        figures = phase_figures(counted, audit.get(name, {}), by_client)
        samples = tuple(sorted(counted["samples"].items()))
        reports.append(PhaseReport(name, what, round(seconds, 1), figures, samples))
    return reports


def misses(reports: Sequence[PhaseReport]) -> list[str]:
    """One line per figure that missed its target, naming its phase."""
    return [
        f"phase {report.name}: {figure.name} = {figure.value} (target {figure.target})"
        for report in reports
        for figure in report.missed
    ]


def write(reports: Sequence[PhaseReport], folder: Path, setting: Mapping[str, Any]) -> None:
    """``report.json`` and ``report.md`` in ``folder``."""
    data = {
        "setting": dict(setting),
        "passed": not misses(reports),
        "misses": misses(reports),
        "phases": [
            {
                "name": report.name,
                "what": report.what,
                "seconds": report.seconds,
                "figures": {figure.name: figure.value for figure in report.figures},
                "missed": [figure.name for figure in report.missed],
                "failure samples": dict(report.samples),
            }
            for report in reports
        ],
    }
    (folder / "report.json").write_text(json.dumps(data, indent=2) + "\n")
    (folder / "report.md").write_text(markdown(reports, setting))


def write_counts(
    folder: Path,
    drivers: Mapping[str, Mapping[str, Any]],
    audit: Mapping[str, Mapping[str, int]],
) -> None:
    """``counts.json`` in ``folder``: each driver's counts by phase (latencies left out) and
    the audit's, as they came."""
    counts = {
        client: {
            phase: {key: value for key, value in figures.items() if key != "latencies_ms"}
            for phase, figures in phases.items()
        }
        for client, phases in drivers.items()
    }
    text = json.dumps({"drivers": counts, "audit": audit}, indent=2)
    (folder / "counts.json").write_text(text + "\n")


def markdown(reports: Sequence[PhaseReport], setting: Mapping[str, Any]) -> str:
    """The figures as a markdown table, one column a phase, then what each phase did."""
    names = [figure.name for figure in reports[0].figures] if reports else []
    lines = [
        "# Rehearsal",
        "",
        ", ".join(f"{key}: {value}" for key, value in setting.items()),
        "",
        "| Figure | Target | " + " | ".join(report.name for report in reports) + " |",
        "|---|---|" + "---|" * len(reports),
    ]
    for index, name in enumerate(names):
        target = reports[0].figures[index].target or ""
        cells = []
        for report in reports:
            figure = report.figures[index]
            cells.append(f"**{figure.value}**" if not figure.met else str(figure.value))
        lines.append(f"| {name} | {target} | " + " | ".join(cells) + " |")
    lines += ["", "| Phase | Seconds | What happened |", "|---|---|---|"]
    lines += [f"| {report.name} | {report.seconds} | {report.what} |" for report in reports]
    missed = misses(reports)
    lines += ["", "Missed: " + "; ".join(missed) if missed else "Every figure met its target."]
    return "\n".join(lines) + "\n"
