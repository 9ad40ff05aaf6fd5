"""Our multiprocess values write what prometheus-client's own values write, sample for sample.

Each side runs in a new process with a fresh metrics folder: one with prometheus-client's own
multiprocess value class, updated through ``inc`` and ``observe``; the other with
``MappedValue``, updated through ``Batch`` and the ``Metrics`` observer. The endpoint's exposition
(``MultiProcessCollector``) of both folders must have the same families and the same samples, to
the last bit of every value.
"""

from __future__ import annotations

import math
import multiprocessing
import os
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

import pytest
from prometheus_client import (
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
    values,
)
from prometheus_client.parser import text_string_to_metric_families

from service.calls.call_path import SERVICE
from service.telemetry import metrics
from service.telemetry.metric_values import Batch, MappedValue
from service.telemetry.observe import CallRecord
from tests.service.conftest import race

T = TypeVar("T")

METHODS = [method.name for method in SERVICE.methods]
BOUNDS = (0.5, 1.0, 2.5, 5.0)
# Amounts on the bounds (a bound counts in its own bucket), between them, above the last, ints,
# negatives, and the ones only +Inf (or, for NaN, no bucket) takes.
OBSERVATIONS = [
    ("a", 0.5), ("b", 0.75), ("a", 1), ("a", 0.0), ("b", 5.0), ("a", 7.25), ("b", 2),
    ("a", -1.5), ("b", 1e300), ("c", math.inf), ("c", math.nan), ("c", 3), ("a", 2.5),
]  # fmt: skip
EARLY_KINDS = 120  # series made after the first batch: the file grows and is mapped again
INITIAL_FILE_BYTES = 1 << 16  # the size of a new file of prometheus-client's


def exposition() -> list[str]:
    """What ``/metrics`` serves from this process's metrics folder, one line per family and per
    sample, sorted: the endpoint's order follows the folder's listing, which differs from one
    folder to the next."""
    registry = CollectorRegistry()
    multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
    text = generate_latest(registry).decode()
    return sorted(
        [
            f"{family.name} {family.type} {family.documentation}"
            for family in text_string_to_metric_families(text)
        ]
        + [line for line in text.splitlines() if not line.startswith("#")]
    )


def use_prometheus_client_values() -> None:
    """Make prometheus-client's own multiprocess values the value class of this process."""
    values.ValueClass = values.MultiProcessValue()  # type: ignore[no-untyped-call]


def in_new_process(folder: Path, function: Callable[..., T], *args: Any) -> T:
    """Run ``function`` in a new Python process whose metrics folder is ``folder``."""
    folder.mkdir()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(metrics.MULTIPROC_ENV, str(folder))
        context = multiprocessing.get_context("spawn")
        with ProcessPoolExecutor(1, mp_context=context) as pool:
            return pool.submit(function, *args).result(timeout=120)


def record_values(batched: bool) -> tuple[list[str], list[str], int]:
    """Update counters, histograms and gauges; the exposition, the values read back in this
    process and the size of the histogram file.

    Counters and histograms go through ``Batch`` when ``batched``, else through ``inc`` and
    ``observe`` of prometheus-client's own values; gauges and a few counter updates use the
    metrics' own methods either way.
    """
    if not batched:
        use_prometheus_client_values()
    calls = Counter("test_calls", "Calls.", ["kind"], registry=None)
    seconds = Histogram("test_seconds", "Seconds.", ["kind"], buckets=BOUNDS, registry=None)
    sizes = Histogram("test_bytes", "Bytes.", registry=None)
    gauges = [
        Gauge(f"test_level_{mode}", "Level.", ["kind"], multiprocess_mode=mode, registry=None)
        for mode in ("sum", "max", "min", "mostrecent", "livesum")
    ]
    children = {kind: (calls.labels(kind), seconds.labels(kind)) for kind in ("a", "b", "c")}
    batches = {
        kind: Batch([count], [(observe, 0), (sizes, 1)])
        for kind, (count, observe) in children.items()
        if batched
    }
    calls.labels("unused")
    seconds.labels("unused")
    for index in range(EARLY_KINDS):
        seconds.labels(f"k{index}").observe(index / 10)
    for kind, amount in OBSERVATIONS:
        if batched:
            batches[kind].apply((amount, 2 * amount))
        else:
            count, observe = children[kind]
            count.inc()
            observe.observe(amount)
            sizes.observe(2 * amount)
    calls.labels("a").inc(2.5)
    calls.labels("b").reset()
    seconds.labels("b").observe(0.25)
    for gauge in gauges:
        gauge.labels("a").set(4)
        if gauge._multiprocess_mode == "mostrecent":  # set only: the latest value wins
            gauge.labels("b").set(-0.5)
        else:
            gauge.labels("a").inc(1.5)
            gauge.labels("b").dec(0.5)
    read_back = [
        f"{sample.name} {sorted(sample.labels.items())} {float(sample.value)!r}"
        for metric in (calls, seconds, sizes, *gauges)
        for family in metric.collect()
        for sample in family.samples
        if not sample.name.endswith("_created")
    ]
    histogram_file = Path(os.environ[metrics.MULTIPROC_ENV]) / f"histogram_{os.getpid()}.db"
    return exposition(), read_back, histogram_file.stat().st_size


class PlainMetrics:
    """``Metrics`` written the plain way, through ``labels()``, ``inc()`` and ``observe()``."""

    def __init__(self, methods: list[str]) -> None:
        for method in methods:
            metrics.GRPC_STARTED.labels(metrics.SERVICE, method, metrics.UNARY, "grpc")
            metrics.GRPC_HANDLED.labels(metrics.SERVICE, method, metrics.UNARY, "OK", "grpc")

    def call_started(self, call: CallRecord) -> None:
        labels = (metrics.SERVICE, call.method, metrics.UNARY, call.protocol)
        metrics.GRPC_STARTED.labels(*labels).inc()

    def call_finished(self, call: CallRecord) -> None:
        method, code, game = call.method, call.code, call.game
        grpc_labels = (metrics.SERVICE, method, metrics.UNARY)
        code_name = metrics.CODE_NAMES.get(code, code)
        metrics.GRPC_HANDLED.labels(*grpc_labels, code_name, call.protocol).inc()
        metrics.GRPC_SECONDS.labels(*grpc_labels, call.protocol).observe(call.seconds)
        metrics.REQUEST_BYTES.labels(method).observe(call.request_bytes)
        if method == "ApplyAction" and code not in {"OK", "INTERNAL"}:
            metrics.ACTIONS_REJECTED.labels(game, call.reason).inc()
        if not game:
            return
        metrics.ENGINE_SECONDS.labels(game, method).observe(call.engine_seconds)
        if call.state_bytes is not None:
            metrics.STATE_BYTES.labels(game).observe(call.state_bytes)
        if code != "OK":
            return
        if method == "NewGame" and call.game_started:
            metrics.GAMES_STARTED.labels(game).inc()
        elif method == "ApplyAction":
            metrics.ACTIONS_APPLIED.labels(game).inc()
            if call.game_finished:
                metrics.GAMES_FINISHED.labels(game).inc()


def calls() -> Iterator[CallRecord]:
    """Calls that take every path of ``Metrics``, some of them again, with unusual amounts."""
    game = "six_nimmt"
    state = {"game": game, "state_bytes": 200}
    yield CallRecord("ListGames", seconds=0.0003, request_bytes=0)
    yield CallRecord("NewGame", seconds=0.001, request_bytes=64, game_started=True, **state)
    yield CallRecord("NewGame", seconds=0.002, request_bytes=65, game="up_or_down")
    yield CallRecord("NewGame", seconds=0.002, request_bytes=70, protocol="connect", **state)
    for finished in (False, False, True):
        yield CallRecord(
            "ApplyAction", seconds=0.0025, engine_seconds=0.00005, request_bytes=213,
            game_finished=finished, **state,
        )  # fmt: skip
    for reason in ("CARD_NOT_IN_HAND", "NOT_YOUR_TURN", "CARD_NOT_IN_HAND"):
        yield CallRecord(
            "ApplyAction", code="INVALID_ARGUMENT", reason=reason, game=game, seconds=30.0,
            engine_seconds=0.25, request_bytes=1 << 21,
        )  # fmt: skip
    yield CallRecord("ApplyAction", code="INVALID_ARGUMENT", reason="STATE_NOT_SET")
    yield CallRecord("ApplyAction", code="INTERNAL", reason="INTERNAL", game=game, seconds=0.5)
    yield CallRecord("ListLegalActions", game=game, seconds=0.0, engine_seconds=0.01)
    yield CallRecord("ValidateAction", game=game, reason="CARD_NOT_IN_HAND", engine_seconds=1e-9)
    yield CallRecord("NewGame", code="CANCELLED", game=game, game_started=True, state_bytes=0)
    yield CallRecord("Unlisted", code="SOMETHING_NEW", seconds=0.1, request_bytes=3)
    yield CallRecord("ListGames", seconds=0.0003, request_bytes=0)


def record_calls(batched: bool) -> list[list[str]]:
    """The exposition after the observer is made and after each of its hooks, over ``calls()``;
    the ``Metrics`` observer when ``batched``, else ``PlainMetrics`` on prometheus-client's own
    values."""
    if not batched:
        use_prometheus_client_values()
    observer = metrics.Metrics(METHODS) if batched else PlainMetrics(METHODS)
    seen = [exposition()]
    for call in calls():
        observer.call_started(call)
        seen.append(exposition())
        observer.call_finished(call)
        seen.append(exposition())
    return seen


def fork_and_record() -> tuple[int, int, int]:
    """Count 3 calls, fork a child that counts 2 and one that counts none, count 1 more here;
    the three process ids."""
    calls = Counter("test_calls", "Calls.", registry=None)
    seconds = Histogram("test_seconds", "Seconds.", buckets=BOUNDS, registry=None)
    batch = Batch([calls], [(seconds, 0)])
    for _ in range(3):
        batch.apply((0.75,))
    counting = os.fork()
    if counting == 0:
        code = 1
        try:
            batch.apply((0.25,))
            calls.inc()
            seconds.observe(4.0)
            code = 0
        finally:
            os._exit(code)
    idle = os.fork()
    if idle == 0:
        os._exit(0)
    for child in (counting, idle):
        _, status = os.waitpid(child, 0)
        assert os.waitstatus_to_exitcode(status) == 0
    batch.apply((0.75,))
    return os.getpid(), counting, idle


def samples_of(folder: Path, pid: int) -> dict[tuple[str, str], float]:
    """The samples one process wrote, by name and ``le``."""
    files = [str(path) for path in folder.glob(f"*_{pid}.db")]
    return {
        (sample.name, sample.labels.get("le", "")): sample.value
        for family in multiprocess.MultiProcessCollector.merge(files)  # type: ignore[no-untyped-call]
        for sample in family.samples
    }


class TestSameAsPrometheusClient:
    """Batches and ``Metrics`` export exactly what prometheus-client's own values would."""

    def test_values_and_batches(self, tmp_path: Path) -> None:
        """Counters, histograms (bounds, NaN, ±Inf, ints), gauges: same exposition, same reads."""
        ours = in_new_process(tmp_path / "ours", record_values, True)
        theirs = in_new_process(tmp_path / "theirs", record_values, False)
        assert ours[0] == theirs[0]
        assert ours[1] == theirs[1]
        assert 'test_seconds_bucket{kind="a",le="0.5"} 3.0' in ours[0]
        assert 'test_seconds_sum{kind="c"} NaN' in ours[0]
        assert ours[2] == theirs[2] > INITIAL_FILE_BYTES

    def test_metrics_observer(self, tmp_path: Path) -> None:
        """``Metrics`` makes the same series at the same call and counts the same, call after
        call."""
        ours = in_new_process(tmp_path / "ours", record_calls, True)
        theirs = in_new_process(tmp_path / "theirs", record_calls, False)
        assert len(ours) == len(theirs) == 1 + 2 * len(list(calls()))
        for index, (mine, reference) in enumerate(zip(ours, theirs, strict=True)):
            assert mine == reference, f"exposition {index}"


class TestProcesses:
    """Every process writes its own files, also a child forked after its values were made."""

    def test_forked_child_writes_its_own_files(self, tmp_path: Path) -> None:
        """A child's counts go to files of its own process id, made at its first update; the
        parent's stay exact."""
        parent, child, idle = in_new_process(tmp_path / "fork", fork_and_record)
        assert not list((tmp_path / "fork").glob(f"*_{idle}.db"))
        assert samples_of(tmp_path / "fork", parent) == {
            ("test_calls_total", ""): 4.0,
            ("test_seconds_sum", ""): 3.0,
            ("test_seconds_bucket", "0.5"): 0.0,
            ("test_seconds_bucket", "1.0"): 4.0,
            ("test_seconds_bucket", "2.5"): 4.0,
            ("test_seconds_bucket", "5.0"): 4.0,
            ("test_seconds_bucket", "+Inf"): 4.0,
            ("test_seconds_count", ""): 4.0,
        }
        assert samples_of(tmp_path / "fork", child) == {
            ("test_calls_total", ""): 2.0,
            ("test_seconds_sum", ""): 4.25,
            ("test_seconds_bucket", "0.5"): 1.0,
            ("test_seconds_bucket", "1.0"): 1.0,
            ("test_seconds_bucket", "2.5"): 1.0,
            ("test_seconds_bucket", "5.0"): 2.0,
            ("test_seconds_bucket", "+Inf"): 2.0,
            ("test_seconds_count", ""): 2.0,
        }

    def test_this_process_uses_mapped_values(self) -> None:
        """Importing the metrics makes ``MappedValue`` the value class of the process."""
        assert values.ValueClass is MappedValue


class TestThreads:
    """Updates from many threads at once are all counted."""

    THREADS = 8
    ROUNDS = 2_000

    def test_batches_and_inc_together(self) -> None:
        """Batches and ``inc`` of the same samples from 8 threads lose and double nothing."""
        calls = Counter("test_threads_calls", "Calls.", registry=None)
        seconds = Histogram("test_threads_seconds", "Seconds.", buckets=BOUNDS, registry=None)
        batch = Batch([calls], [(seconds, 0)])

        def work(index: int) -> None:
            for _ in range(self.ROUNDS):
                if index % 2:
                    batch.apply((0.5,))
                else:
                    calls.inc()
                    seconds.observe(2.0)

        race(work, self.THREADS)
        each = self.THREADS // 2 * self.ROUNDS
        samples = {
            (sample.name, sample.labels.get("le", "")): sample.value
            for metric in (calls, seconds)
            for family in metric.collect()
            for sample in family.samples
        }
        assert samples["test_threads_calls_total", ""] == 2 * each
        assert samples["test_threads_seconds_bucket", "0.5"] == each
        assert samples["test_threads_seconds_bucket", "2.5"] == 2 * each
        assert samples["test_threads_seconds_sum", ""] == 2.5 * each
