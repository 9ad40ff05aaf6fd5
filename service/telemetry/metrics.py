"""Prometheus metrics, exact across worker processes (prometheus-client multiprocess mode).

The parent process points ``PROMETHEUS_MULTIPROC_DIR`` at a fresh folder before any worker starts
(``prepare_multiprocess_dir``); every worker writes its samples there and the parent's HTTP
endpoint aggregates them. Without that variable, importing this module makes a temporary folder,
removed when the process that made it exits. The gRPC metrics use the standard names and labels
of the gRPC ecosystem (``grpc_server_started_total`` …); the game metrics are prefixed ``ordo_``.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from service.telemetry.observe import CallRecord

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"


def prepare_multiprocess_dir() -> Path:
    """Create (or empty) the multiprocess folder and export it to this process and its workers."""
    configured = os.environ.get(MULTIPROC_ENV)
    if configured:
        path = Path(configured)
        if path.exists():
            shutil.rmtree(path)
        path.mkdir(parents=True)
    else:
        path = Path(tempfile.mkdtemp(prefix="ordo-metrics-"))
        os.environ[MULTIPROC_ENV] = str(path)
        # Worker processes inherit the variable, so only the process that made the folder
        # removes it.
        atexit.register(shutil.rmtree, path, ignore_errors=True)
    return path


if MULTIPROC_ENV not in os.environ:
    prepare_multiprocess_dir()

from prometheus_client import (  # noqa: E402 - must follow the multiprocess folder's set-up
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    multiprocess,
    values,
)
from prometheus_client import start_http_server as start_prometheus_server  # noqa: E402
from prometheus_client.core import InfoMetricFamily, Metric  # noqa: E402
from prometheus_client.registry import Collector  # noqa: E402

from service.telemetry.build import build_info  # noqa: E402
from service.telemetry.metric_values import Batch, MappedValue  # noqa: E402

# Every sample of this process is kept by MappedValue, whatever prometheus-client chose when it
# was first imported, before any metric below has a child (prometheus-client looks the class up
# each time it makes one, for this purpose).
values.ValueClass = MappedValue

SERVICE = "ordo.v1.GameEngineService"
UNARY = "unary"  # grpc_type: every method of the service is unary
# The protocol label of the gRPC server metrics: grpc for the gRPC door; connect, grpc-web or
# grpc-http (gRPC on the HTTP port) for the HTTP door.
GRPC_PROTOCOL = "grpc"
LATENCY_BUCKETS = (
    0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0,
)  # fmt: skip
ENGINE_BUCKETS = (
    0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.05, 0.25,
)  # fmt: skip
SIZE_BUCKETS = (64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 65536, 262144, 1048576)

GRPC_STARTED = Counter(
    "grpc_server_started_total",
    "RPCs started on the server.",
    ["grpc_service", "grpc_method", "grpc_type", "protocol"],
)
GRPC_HANDLED = Counter(
    "grpc_server_handled_total",
    "RPCs completed on the server, regardless of success or failure.",
    ["grpc_service", "grpc_method", "grpc_type", "grpc_code", "protocol"],
)
GRPC_SECONDS = Histogram(
    "grpc_server_handling_seconds",
    "Response latency of RPCs handled by the server, in seconds.",
    ["grpc_service", "grpc_method", "grpc_type", "protocol"],
    buckets=LATENCY_BUCKETS,
)
GAMES_STARTED = Counter("ordo_games_started_total", "Games dealt by NewGame.", ["game"])
GAMES_FINISHED = Counter(
    "ordo_games_finished_total", "Games brought to their end by ApplyAction.", ["game"]
)
ACTIONS_APPLIED = Counter("ordo_actions_applied_total", "Actions applied.", ["game"])
ACTIONS_REJECTED = Counter(
    "ordo_actions_rejected_total",
    "ApplyAction calls refused, by game (empty when the request names none) and reason.",
    ["game", "reason"],
)
REVISION_STORE_UP = Gauge(
    "ordo_revision_store_up",
    "1 while every worker reaches the revision store (its address, without credentials), 0 "
    "while one cannot; absent without a store.",
    ["store"],
    multiprocess_mode="livemin",
)
ENGINE_SECONDS = Histogram(
    "ordo_engine_seconds",
    "Time spent decoding, validating and running the rules, per game and RPC, in seconds.",
    ["game", "rpc"],
    buckets=ENGINE_BUCKETS,
)
REQUEST_BYTES = Histogram(
    "ordo_request_bytes", "Size of request messages, in bytes.", ["grpc_method"],
    buckets=SIZE_BUCKETS,
)  # fmt: skip
STATE_BYTES = Histogram(
    "ordo_state_bytes", "Size of the game states returned, in bytes.", ["game"],
    buckets=SIZE_BUCKETS,
)  # fmt: skip

# The gRPC status code names as the gRPC ecosystem's metrics spell them.
CODE_NAMES = {
    "OK": "OK",
    "CANCELLED": "Canceled",
    "UNKNOWN": "Unknown",
    "INVALID_ARGUMENT": "InvalidArgument",
    "DEADLINE_EXCEEDED": "DeadlineExceeded",
    "NOT_FOUND": "NotFound",
    "ALREADY_EXISTS": "AlreadyExists",
    "PERMISSION_DENIED": "PermissionDenied",
    "RESOURCE_EXHAUSTED": "ResourceExhausted",
    "FAILED_PRECONDITION": "FailedPrecondition",
    "ABORTED": "Aborted",
    "OUT_OF_RANGE": "OutOfRange",
    "UNIMPLEMENTED": "Unimplemented",
    "INTERNAL": "Internal",
    "UNAVAILABLE": "Unavailable",
    "DATA_LOSS": "DataLoss",
    "UNAUTHENTICATED": "Unauthenticated",
}


# What decides the series a finished call counts in: method, code, game, reason, whether it
# returned no state, whether it started a game, whether it finished one, protocol. Each field
# takes a few values only (the reason is set on refused calls), so there are few such keys.
FinishedKey = tuple[str, str, str, str, bool, bool, bool, str]

# The amounts a finished call observes, in the order ``Metrics.call_finished`` passes them.
SECONDS_AMOUNT, REQUEST_BYTES_AMOUNT, ENGINE_SECONDS_AMOUNT, STATE_BYTES_AMOUNT = range(4)


def _started_batch(method: str, protocol: str) -> Batch:
    """What a started call of ``method`` over ``protocol`` counts."""
    return Batch([GRPC_STARTED.labels(SERVICE, method, UNARY, protocol)])


def _finished_batch(key: FinishedKey) -> Batch:
    """What a finished call counts and observes, the children made in the order of first use."""
    method, code, game, reason, no_state, game_started, game_finished, protocol = key
    counters = [GRPC_HANDLED.labels(SERVICE, method, UNARY, CODE_NAMES.get(code, code), protocol)]
    histograms = [
        (GRPC_SECONDS.labels(SERVICE, method, UNARY, protocol), SECONDS_AMOUNT),
        (REQUEST_BYTES.labels(method), REQUEST_BYTES_AMOUNT),
    ]
    if method == "ApplyAction" and code not in {"OK", "INTERNAL"}:
        counters.append(ACTIONS_REJECTED.labels(game, reason))
    if game:
        histograms.append((ENGINE_SECONDS.labels(game, method), ENGINE_SECONDS_AMOUNT))
        if not no_state:
            histograms.append((STATE_BYTES.labels(game), STATE_BYTES_AMOUNT))
        if code == "OK":
            if method == "NewGame" and game_started:
                counters.append(GAMES_STARTED.labels(game))
            elif method == "ApplyAction":
                counters.append(ACTIONS_APPLIED.labels(game))
                if game_finished:
                    counters.append(GAMES_FINISHED.labels(game))
    return Batch(counters, histograms)


class Metrics:
    """Counts every call: the gRPC server metrics and the game metrics it implies.

    The samples a call updates depend on a few of its fields only. The first call with new such
    fields makes the children it needs (``labels()``: a series appears at its first use, never
    earlier) and gathers their samples in a ``Batch``; every call then updates all its samples
    under one acquisition of the lock.
    """

    def __init__(self, methods: Iterable[str] = ()) -> None:
        """Export ``methods`` with zero counts from the start, as gRPC's own interceptors do.

        A counter that appears only at its first increment hides that increment from
        ``rate()``; the zero series are there before the first call.
        """
        self._started: dict[tuple[str, str], Batch] = {}
        self._finished: dict[FinishedKey, Batch] = {}
        for method in methods:
            self._started[method, GRPC_PROTOCOL] = _started_batch(method, GRPC_PROTOCOL)
            GRPC_HANDLED.labels(SERVICE, method, UNARY, CODE_NAMES["OK"], GRPC_PROTOCOL)

    def call_started(self, call: CallRecord) -> None:
        """Count the call as started."""
        key = (call.method, call.protocol)
        batch = self._started.get(key)
        if batch is None:
            batch = self._started[key] = _started_batch(call.method, call.protocol)
        batch.apply()

    def call_finished(self, call: CallRecord) -> None:
        """Count the call as handled, with its latency and sizes, and its game metrics."""
        state_bytes = call.state_bytes
        key = (
            call.method,
            call.code,
            call.game,
            call.reason,
            state_bytes is None,
            call.game_started,
            call.game_finished,
            call.protocol,
        )
        batch = self._finished.get(key)
        if batch is None:
            batch = self._finished[key] = _finished_batch(key)
        batch.apply((call.seconds, call.request_bytes, call.engine_seconds, state_bytes or 0))


class BuildInfo(Collector):
    """``ordo_build_info``: 1, with the versions of Ordo and of what it runs on as labels. The
    parent process exports it (the workers run the same code)."""

    def collect(self) -> Iterable[Metric]:
        yield InfoMetricFamily(
            "ordo_build", "Versions of Ordo, Python, grpcio and protobuf.", value=build_info()
        )


def start_http_server(port: int, host: str = "0.0.0.0") -> Any:
    """Serve ``/metrics`` of every worker from this process (None when ``port`` is 0)."""
    if not port:
        return None
    registry = CollectorRegistry()
    multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
    registry.register(BuildInfo())
    server, _thread = start_prometheus_server(port, addr=host, registry=registry)
    return server


def revision_store_reached(store: str, reached: bool) -> None:
    """Say whether this worker reaches its revision store (``store``, its address) now."""
    REVISION_STORE_UP.labels(store).set(1 if reached else 0)


def worker_exited(pid: int) -> None:
    """Drop the live gauges of a worker that has exited."""
    multiprocess.mark_process_dead(pid)  # type: ignore[no-untyped-call]
