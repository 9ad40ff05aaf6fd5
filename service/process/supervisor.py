"""The supervisor: the server's parent process, which starts the workers and stops them.

It checks that the ports are free, serves the metrics of every worker (prometheus-client's
multiprocess mode), starts one worker process per core (``service.process.worker``, by its
module's name: the parent never loads the servicer nor the engines, and starts them sooner),
starts again a worker that dies, and forwards SIGTERM: each worker drains on its own, and the
supervisor exits once all have.
"""

from __future__ import annotations

import importlib
import multiprocessing
import os
import signal
import socket
import time
from collections.abc import Callable
from types import FrameType

import structlog

from service.config import Settings
from service.doors.http_door import playground_url
from service.process.orphan import die_with_parent
from service.telemetry import logs
from service.telemetry.build import build_info
from service.trust.revision_fence import (
    RevisionFence,
    RevisionStoreUnavailableError,
    store_address,
)

WORKER_MODULE = "service.process.worker"  # imported by each worker process, never by the parent
RESTART_DELAY_SECONDS = 1.0  # a worker that dies is started again after this pause
EXIT_CANNOT_START = 1  # the exit code when a port cannot be served (taken, say)
# glibc's allocator keeps freed memory in per-thread arenas, up to eight per core of the machine:
# two keep a worker's resident memory flat at no cost in calls per second (docs/performance.md,
# "Memory"). The workers start with this default; an operator's own MALLOC_ARENA_MAX is kept.
MALLOC_ARENAS = ("MALLOC_ARENA_MAX", "2")

log = structlog.get_logger("ordo.server")


def run_worker(settings: Settings, index: int = 0, parent: int | None = None) -> None:
    """Serve as worker ``index`` (in this process) until SIGTERM, then drain and return; a
    worker started by the supervisor of pid ``parent`` stops when that process dies."""
    if parent is not None:
        die_with_parent(parent, settings.grace_seconds)
    importlib.import_module(WORKER_MODULE).run_worker(settings, index)


def port_taken(host: str, port: int) -> str | None:
    """Why ``port`` on ``host`` is taken, or None when nothing listens on it.

    The workers bind with SO_REUSEPORT, which lets any process of the same user share a port
    that is already served: a second server (an old build, a stray copy) would quietly take a
    share of the connections. A socket without it cannot bind a port that a listener holds, so
    binding one first tells (connections of an earlier run that linger do not count).
    """
    try:
        addresses = socket.getaddrinfo(
            host.strip("[]") or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )
    except socket.gaierror as error:
        return f"cannot resolve {host}: {error.strerror}"
    for family, kind, protocol, _name, address in addresses:
        with socket.socket(family, kind, protocol) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind(address)
            except OSError as error:
                return f"{address[0]} port {port}: {error.strerror}"
    return None


def trust_features(settings: Settings) -> dict[str, object]:
    """What the server trusts and checks, for its ``started`` line: sealed states (and whether
    it takes only those), seat tokens, and its revision store with whether it answers now (a
    server whose store does not answer starts all the same, not ready: its workers check the
    store again every few seconds)."""
    features: dict[str, object] = {
        "sealed_states": bool(settings.state_keys),
        "require_sealed": settings.require_sealed,
        "require_seat_tokens": settings.require_seat_tokens,
        "revision_store": store_address(settings.revision_store) or None,
    }
    if settings.revision_store:
        fence = RevisionFence(settings.revision_store, settings.revision_idle_seconds)
        try:
            fence.check()
            features["revision_store_reached"] = True
        except RevisionStoreUnavailableError:
            features["revision_store_reached"] = False
        finally:
            fence.close()
    return features


def stop_code(exitcode: int) -> int:
    """The exit code a worker's exit gives the server once stopping: a worker that SIGTERM
    ended before it set its handler (while it started) had nothing to drain."""
    return 0 if exitcode == -signal.SIGTERM else abs(exitcode)


class Workers:
    """The worker processes of one server: started, started again when one dies, stopped."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.stopping = False
        self.processes: list[multiprocessing.process.BaseProcess] = []
        self.died: set[int] = set()  # those that died before the stop, not started again
        self._context = multiprocessing.get_context("spawn")

    def start(self, index: int) -> None:
        """Start worker ``index`` (again, when it died)."""
        process = self._context.Process(
            target=run_worker, args=(self.settings, index, os.getpid()), name=f"worker-{index}"
        )
        process.start()
        if index < len(self.processes):
            self.processes[index] = process
        else:
            self.processes.append(process)
        if self.stopping:  # the stop came as it started, and may have missed it
            process.terminate()

    def stop(self, signum: int, frame: FrameType | None) -> None:
        """SIGTERM or SIGINT: each worker drains on its own."""
        self.stopping = True
        for process in self.processes:
            if process.is_alive() and process.pid is not None:
                process.terminate()

    def supervise(self, worker_exited: Callable[[int], None]) -> int:
        """Start again each worker that dies (telling ``worker_exited`` its pid) until the
        stop; once every worker has ended, the exit code."""
        while True:
            for index, process in enumerate(self.processes):
                process.join(timeout=0.2)
                if process.exitcode is None or index in self.died or self.stopping:
                    continue
                log.error("worker died; starting it again", worker=index, exitcode=process.exitcode)
                if process.pid is not None:
                    worker_exited(process.pid)
                time.sleep(RESTART_DELAY_SECONDS)
                if self.stopping:  # the stop came during the pause: not one to start again
                    self.died.add(index)
                    continue
                self.start(index)
            if self.stopping and all(process.exitcode is not None for process in self.processes):
                break
        # Read once all have ended: a worker that ends as the last one is awaited counts too.
        codes = [
            process.exitcode
            for index, process in enumerate(self.processes)
            if index not in self.died
        ]
        return max((stop_code(code) for code in codes if code is not None), default=0)


def serve(settings: Settings) -> int:
    """Run the worker processes and the metrics endpoint until SIGTERM; returns the exit code
    (``EXIT_CANNOT_START`` at once when a port is taken)."""
    from service.telemetry import metrics  # noqa: PLC0415 - prometheus-client reads its env at import

    logs.configure(settings.log_level, settings.log_format)
    for port in (settings.port, settings.http_port):
        if port and (taken := port_taken(settings.host, port)):
            log.error("cannot listen", port=port, error=taken)
            return EXIT_CANNOT_START
    metrics.prepare_multiprocess_dir()  # samples of an earlier run must not count
    try:
        metrics_server = metrics.start_http_server(settings.metrics_port, settings.host)
    except OSError as error:
        log.error("cannot serve metrics", metrics_port=settings.metrics_port, error=str(error))
        return EXIT_CANNOT_START
    if settings.worker_count == 1 and settings.port == 0:
        run_worker(settings)
        return 0
    os.environ.setdefault(*MALLOC_ARENAS)  # read by each worker's allocator as it starts
    workers = Workers(settings)
    signal.signal(signal.SIGTERM, workers.stop)
    signal.signal(signal.SIGINT, workers.stop)
    for index in range(settings.worker_count):
        if not workers.stopping:
            workers.start(index)
    log.info(
        "started",
        workers=settings.worker_count,
        port=settings.port,
        http_port=settings.http_port,
        metrics_port=settings.metrics_port,
        playground=playground_url(settings.host, settings.http_port),
        **trust_features(settings),
        **build_info(),
    )
    exit_code = workers.supervise(metrics.worker_exited)
    if metrics_server is not None:
        metrics_server.shutdown()
        metrics_server.server_close()
    log.info("stopped", exit_code=exit_code)
    return exit_code
