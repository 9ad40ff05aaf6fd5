"""``python -m bench.metric_values``: what the metrics cost an ``ApplyAction``, kept as the
server keeps them (``service.telemetry.metric_values``: samples written in place, one lock a
call) and as
prometheus-client's public API keeps them (its own multiprocess values, ``inc`` and ``observe``).

Every round starts one process per way, in turn (the other order the next round), each with a
metrics folder of its own. A process measures, alternating within one run
(``bench.common.micros_per_call``), the server's real ``ApplyAction`` handler without observers
on recorded mid-game requests (the baseline) and the ``Metrics`` observer's two hooks on the
records of those very calls. The public way is the same observer (the same series, children
made once, looked up by the same keys) with each ``Batch`` replaced by the public calls.
Printed: µs per call, and the hooks' cost as a share of the handler measured in the same
process, for every round, then the median with the lowest and the highest.

Options: ``--rounds N`` (default 6), ``--seconds S`` per process (default 3), ``--game ID``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from typing import Any

from bench.common import apply_request, games, micros_per_call, mid_game_steps, table
from service.telemetry.observe import CallRecord

WAYS = ("mapped", "public")
DEFAULT_ROUNDS = 6
DEFAULT_SECONDS = 3.0
DEFAULT_GAME = "six_nimmt"
RECORDED_GAMES = 8  # seeded playouts whose middle half gives the requests


class PublicBatch:
    """A ``service.telemetry.metric_values.Batch`` made of prometheus-client's public calls."""

    def __init__(self, counters: Sequence[Any] = (), histograms: Sequence[Any] = ()) -> None:
        self._counters = tuple(counters)
        self._histograms = tuple(histograms)

    def apply(self, amounts: Sequence[float] = ()) -> None:
        """Count every counter once and observe ``amounts[which]`` in each histogram."""
        for counter in self._counters:
            counter.inc()
        for histogram, which in self._histograms:
            histogram.observe(amounts[which])


class Recorder:
    """An observer that keeps the record of every finished call."""

    def __init__(self) -> None:
        self.calls: list[CallRecord] = []

    def call_started(self, call: CallRecord) -> None:
        """Nothing: the record is kept once finished."""

    def call_finished(self, call: CallRecord) -> None:
        """Keep the record."""
        self.calls.append(call)


def measure(way: str, game_id: str, seconds: float) -> dict[str, float]:
    """In this process: the handler's and the metrics hooks' µs per call, ``way`` kept."""
    from prometheus_client import values  # noqa: PLC0415 - after the folder is set

    from bench.engine import apply_handler  # noqa: PLC0415
    from service.calls.call_path import SERVICE  # noqa: PLC0415
    from service.calls.servicer import GameEngineServicer  # noqa: PLC0415
    from service.telemetry import metrics  # noqa: PLC0415 - installs MappedValue

    if way == "public":
        values.ValueClass = values.MultiProcessValue()  # type: ignore[no-untyped-call]
        metrics.Batch = PublicBatch  # type: ignore[attr-defined,assignment]
    [game] = games((game_id,))
    raw = [apply_request(game, step) for step in mid_game_steps(game, RECORDED_GAMES)]
    recorder = Recorder()
    record = apply_handler(GameEngineServicer(), [recorder])
    for request in raw:
        record(request)
    observer = metrics.Metrics(method.name for method in SERVICE.methods)

    def hooks(call: CallRecord) -> None:
        observer.call_started(call)
        observer.call_finished(call)

    handler, cost = micros_per_call(
        [(apply_handler(GameEngineServicer()), raw), (hooks, recorder.calls)], seconds
    )
    return {"handler": handler, "hooks": cost}


def run_child(way: str, game_id: str, seconds: float) -> dict[str, float]:
    """``measure`` in a new process with a metrics folder of its own."""
    with tempfile.TemporaryDirectory(prefix="ordo-bench-metric-values-") as folder:
        env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": folder}
        command = [sys.executable, "-m", "bench.metric_values", "--child", way]
        command += ["--game", game_id, "--seconds", str(seconds)]
        done = subprocess.run(command, env=env, check=True, capture_output=True, text=True)
    result: dict[str, float] = json.loads(done.stdout)
    return result


def spread(values: Sequence[float]) -> str:
    """The median of ``values``, with the lowest and the highest."""
    return f"{statistics.median(values):.3f} ({min(values):.3f}–{max(values):.3f})"


def main(argv: Sequence[str] | None = None) -> None:
    """Run the rounds and print every measurement and the ratios."""
    parser = argparse.ArgumentParser(prog="python -m bench.metric_values", description=__doc__)
    parser.add_argument("--rounds", type=int, default=DEFAULT_ROUNDS)
    parser.add_argument("--seconds", type=float, default=DEFAULT_SECONDS)
    parser.add_argument("--game", default=DEFAULT_GAME)
    parser.add_argument("--child", choices=WAYS, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(measure(args.child, args.game, args.seconds)))
        return
    rows = []
    shares: dict[str, list[float]] = {way: [] for way in WAYS}
    for index in range(args.rounds):
        ways = WAYS if index % 2 == 0 else WAYS[::-1]
        for way in ways:
            result = run_child(way, args.game, args.seconds)
            share = result["hooks"] / result["handler"]
            shares[way].append(share)
            rows.append(
                (
                    index + 1,
                    way,
                    f"{result['handler']:.1f}",
                    f"{result['hooks']:.2f}",
                    f"{share:.3f}",
                )
            )
    print(f"ApplyAction on {args.game}: the handler without observers (baseline) and the metrics")
    print("hooks on the records of its calls, µs per call, in one process per way and round.")
    print(table(("round", "way", "handler µs", "metrics µs", "metrics / handler"), rows, left=2))
    print()
    for way in WAYS:
        print(f"metrics / handler, {way}: {spread(shares[way])}")
    differences = [public - mapped for mapped, public in zip(*shares.values(), strict=True)]
    print(f"public - mapped, share of the handler, round by round: {spread(differences)}")


if __name__ == "__main__":
    main()
