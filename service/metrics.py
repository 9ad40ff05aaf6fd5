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

from service.observe import CallRecord

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
    Histogram,
    multiprocess,
    values,
)
from prometheus_client import start_http_server as start_prometheus_server  # noqa: E402

from service.metric_values import MappedValue  # noqa: E402

# Every sample of this process is kept by MappedValue, whatever prometheus-client chose when it
# was first imported, before any metric below has a child (prometheus-client looks the class up
# each time it makes one, for this purpose).
values.ValueClass = MappedValue

SERVICE = "ordo.v1.GameEngineService"
UNARY = "unary"  # grpc_type: every method of the service is unary
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
    ["grpc_service", "grpc_method", "grpc_type"],
)
GRPC_HANDLED = Counter(
    "grpc_server_handled_total",
    "RPCs completed on the server, regardless of success or failure.",
    ["grpc_service", "grpc_method", "grpc_type", "grpc_code"],
)
GRPC_SECONDS = Histogram(
    "grpc_server_handling_seconds",
    "Response latency of RPCs handled by the server, in seconds.",
    ["grpc_service", "grpc_method", "grpc_type"],
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


class _Series:
    """The labelled children of one metric, each looked up once.

    ``labels()`` checks and locks on every call; the child it returns for the same label values
    is always the same object, so keeping it here counts exactly as before, for less work per
    call. A child is still made at its first use, never ahead: no series appears earlier than
    it did.
    """

    __slots__ = ("_children", "_metric")

    def __init__(self, metric: Any) -> None:
        self._metric = metric
        self._children: dict[tuple[str, ...], Any] = {}

    def of(self, *labels: str) -> Any:
        """The child of these label values."""
        child = self._children.get(labels)
        if child is None:
            child = self._children[labels] = self._metric.labels(*labels)
        return child


class Metrics:
    """Counts every call: the gRPC server metrics and the game metrics it implies."""

    def __init__(self, methods: Iterable[str] = ()) -> None:
        """Export ``methods`` with zero counts from the start, as gRPC's own interceptors do.

        A counter that appears only at its first increment hides that increment from
        ``rate()``; the zero series are there before the first call.
        """
        self.started = _Series(GRPC_STARTED)
        self.handled = _Series(GRPC_HANDLED)
        self.seconds = _Series(GRPC_SECONDS)
        self.request_bytes = _Series(REQUEST_BYTES)
        self.rejected = _Series(ACTIONS_REJECTED)
        self.engine_seconds = _Series(ENGINE_SECONDS)
        self.state_bytes = _Series(STATE_BYTES)
        self.games_started = _Series(GAMES_STARTED)
        self.applied = _Series(ACTIONS_APPLIED)
        self.games_finished = _Series(GAMES_FINISHED)
        for method in methods:
            self.started.of(SERVICE, method, UNARY)
            self.handled.of(SERVICE, method, UNARY, CODE_NAMES["OK"])

    def call_started(self, call: CallRecord) -> None:
        """Count the call as started."""
        self.started.of(SERVICE, call.method, UNARY).inc()

    def call_finished(self, call: CallRecord) -> None:
        """Count the call as handled, with its latency and sizes, and its game metrics."""
        method, code, game = call.method, call.code, call.game
        self.handled.of(SERVICE, method, UNARY, CODE_NAMES.get(code, code)).inc()
        self.seconds.of(SERVICE, method, UNARY).observe(call.seconds)
        self.request_bytes.of(method).observe(call.request_bytes)
        if method == "ApplyAction" and code not in {"OK", "INTERNAL"}:
            self.rejected.of(game, call.reason).inc()
        if not game:
            return
        self.engine_seconds.of(game, method).observe(call.engine_seconds)
        if call.state_bytes is not None:
            self.state_bytes.of(game).observe(call.state_bytes)
        if code != "OK":
            return
        if method == "NewGame" and call.game_started:
            self.games_started.of(game).inc()
        elif method == "ApplyAction":
            self.applied.of(game).inc()
            if call.game_finished:
                self.games_finished.of(game).inc()


def start_http_server(port: int, host: str = "0.0.0.0") -> Any:
    """Serve ``/metrics`` of every worker from this process (None when ``port`` is 0)."""
    if not port:
        return None
    registry = CollectorRegistry()
    multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
    server, _thread = start_prometheus_server(port, addr=host, registry=registry)
    return server


def worker_exited(pid: int) -> None:
    """Drop the live gauges of a worker that has exited."""
    multiprocess.mark_process_dead(pid)  # type: ignore[no-untyped-call]
