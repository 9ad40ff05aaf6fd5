"""A worker process: the gRPC server with health and reflection, and the HTTP door beside it.

Each worker is a synchronous ``grpc.server`` with a small thread pool, bound to the same port as
the others with SO_REUSEPORT, so the kernel spreads connections over the workers (CPU-bound
Python wants one process per core). On SIGTERM a worker turns its health NOT_SERVING, stops
taking new calls (it stops listening and sends every connection a GOAWAY, so clients send their
next calls elsewhere), lets the calls it holds finish within the grace period and returns. The
calls gRPC had received but not yet handed to the worker, and those a client sent before it
read the GOAWAY, are cancelled unserved (gRPC's own behaviour, grpc/grpc issue 41785): the
clients retry them, as every call that failed before the service answered it.

The supervisor (``service.process.supervisor``) starts each worker in a process of its own and
never imports this module: only workers load the servicer and the engines.
"""

from __future__ import annotations

import gc
import os
import signal
import sys
import threading
import time
from collections.abc import Collection, Sequence
from types import FrameType

import grpc
import structlog
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection

from service.calls.call_path import SERVICE, SERVICE_NAME
from service.calls.costs import US_PER_MS, CostLimits
from service.calls.servicer import GameEngineServicer
from service.config import Settings, allowed_cpus, policy_names
from service.doors.grpc_door import method_handlers
from service.doors.http_door import http_door
from service.doors.reflection import enable_reflection
from service.process.pool import CallThreadPool
from service.process.readiness import StoreWatch
from service.tables.store import TableStore
from service.tables.watchers import Watchers
from service.telemetry import logs
from service.telemetry.observe import Observer
from service.trust.revision_fence import RevisionFence
from service.trust.sealing import Sealer
from service.trust.seat_tokens import SeatTokens

MILLISECONDS_PER_SECOND = 1_000
# How long a thread keeps Python's lock while another waits for it (Python's default: 5 ms). A
# search holds it between its worlds; a health check or a cheap call waits for it at each of its
# few steps, so a shorter turn answers them sooner beside a heavy call (docs/performance.md, "The
# HTTP door", the probes beside heavy calls).
GIL_SWITCH_SECONDS = 0.001
DRAIN_POLL_SECONDS = 0.05  # how often a draining worker looks whether its calls are done
LONGEST_MILLISECONDS = 2**31 - 1  # gRPC's integer channel arguments are 32-bit
# Calls in flight at once on one connection (HTTP/2's SETTINGS_MAX_CONCURRENT_STREAMS). A stream
# opened past it is refused (RST_STREAM REFUSED_STREAM, which a client reads as UNAVAILABLE: the
# call was never served, so the clients retry it). Without it, a caller with thousands of calls
# in flight on one connection had hundreds cancelled with no detail (calls gRPC had queued, but
# never handed to the worker). A worker runs a handful of calls at a time: a thousand queued on
# one connection is already a second or more of its work.
MAX_CONCURRENT_STREAMS = 1000

log = structlog.get_logger("ordo.server")


def new_servicer(settings: Settings, fence: RevisionFence | None = None) -> GameEngineServicer:
    """A worker's servicer, which both doors call: its caches, its keys, its seat tokens, its
    revision fence (``fence``, or a new one) and its table store as ``settings`` say (its table
    feed not started yet)."""
    from service.calls.servicer import GameEngineServicer  # noqa: PLC0415

    keys = settings.state_keys
    if settings.revision_store and fence is None:
        fence = RevisionFence(settings.revision_store, settings.revision_idle_seconds)
    tables = None
    if settings.table_store:
        tables = TableStore(
            settings.table_store,
            idle_seconds=settings.table_idle_seconds,
            finished_seconds=settings.table_finished_seconds,
            max_tables=settings.table_max_tables,
            max_bytes=settings.table_max_bytes,
        )
    return GameEngineServicer(
        settings.state_cache_bytes,
        Sealer(keys) if keys else None,
        settings.require_sealed,
        SeatTokens(keys) if keys else None,
        settings.require_seat_tokens,
        fence,
        settings.max_search_iterations,
        settings.plain_wire,
        CostLimits(settings.max_call_cpu_ms * US_PER_MS, settings.heavy_call_limit),
        policy_names(settings.suggest_policies),
        tables,
        Watchers(settings.table_max_watchers, settings.table_max_table_watchers),
    )


def create_server(
    settings: Settings,
    observers: Sequence[Observer] = (),
    pool: CallThreadPool | None = None,
    servicer: GameEngineServicer | None = None,
) -> tuple[grpc.Server, int, health.HealthServicer]:
    """Build and bind (not start) a worker's server on ``pool`` (a new one of
    ``settings.threads`` threads by default) and ``servicer`` (``new_servicer(settings)`` by
    default); returns it, its port and its health."""
    options = server_options(settings)
    if pool is None:
        pool = CallThreadPool(max_workers=settings.threads, thread_name_prefix="rpc")
    # gRPC's own maximum_concurrent_rpcs would count health checks with the calls, and refuse
    # them when calls fill it: the door bounds the service's calls alone.
    server = grpc.server(
        pool,  # type: ignore[arg-type]  # any executor will do; gRPC only calls submit
        options=options,
    )
    if servicer is None:
        servicer = new_servicer(settings)
    handlers = method_handlers(servicer, observers, pool.after, settings.max_concurrent_rpcs)
    # Registered methods are found without asking every generic handler on each call, as the
    # generated add_*Servicer_to_server does; the generic handler serves older call paths.
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(SERVICE_NAME, handlers),))
    server.add_registered_method_handlers(SERVICE_NAME, handlers)  # type: ignore[attr-defined]
    health_servicer = health.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    for name in ("", SERVICE_NAME):
        health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    enable_reflection(server, (SERVICE_NAME, health.SERVICE_NAME, reflection.SERVICE_NAME))
    port = server.add_insecure_port(f"{settings.host}:{settings.port}")
    if port == 0:
        raise OSError(f"cannot listen on {settings.host}:{settings.port}")
    return server, port, health_servicer


def server_options(settings: Settings) -> list[tuple[str, int]]:
    """The channel arguments of a worker's gRPC server."""
    options: list[tuple[str, int]] = [
        ("grpc.so_reuseport", 1),
        ("grpc.max_receive_message_length", settings.max_request_bytes),
        ("grpc.max_concurrent_streams", MAX_CONCURRENT_STREAMS),
    ]
    if settings.max_connection_age_seconds:
        # After the age (give or take 10%, which gRPC adds so that connections do not all go at
        # once) the client is told to connect again. The calls in flight finish, however long
        # they take (gRPC's default grace), even with a grace period of 0 for SIGTERM.
        age = milliseconds(settings.max_connection_age_seconds)
        options.append(("grpc.max_connection_age_ms", age))
    return options


def milliseconds(seconds: float) -> int:
    """A duration in whole milliseconds as gRPC's channel arguments take it: at least 1, at most
    the largest 32-bit integer (24 days, as good as for ever)."""
    return min(max(1, round(seconds * MILLISECONDS_PER_SECOND)), LONGEST_MILLISECONDS)


def worker_observers(settings: Settings) -> list[Observer]:
    """The observers of a worker process: the access log and the metrics."""
    from service.telemetry import metrics  # noqa: PLC0415 - prometheus-client reads its env at import

    return [
        logs.AccessLog(settings.access_log_flush_ms / MILLISECONDS_PER_SECOND),
        metrics.Metrics(method.name for method in SERVICE.methods),
    ]


def worker_cpu(settings: Settings, index: int, allowed: Collection[int]) -> int | None:
    """The CPU that worker ``index`` is pinned to, of the ``allowed`` ones; None when the kernel
    places it.

    A worker's threads hand each call from one to the other (gRPC's poller, the pool thread
    that runs the handler); on one core they share its caches, where a call that moves between
    cores finds them cold. Pinning is safe when every worker has a CPU of its own and nothing
    else is meant to run there: with ``auto``, when the workers are exactly as many as the CPUs
    the server may run on (an exclusive cpuset, or a whole machine). A container with a CPU
    quota on a shared node may run on every core of the node: its workers are not pinned, or
    the replicas on that node would all pile onto its first cores.
    """
    cpus = sorted(allowed)
    if not cpus or settings.cpu_affinity == "none":
        return None
    if settings.cpu_affinity == "auto" and settings.worker_count != len(cpus):
        return None
    return cpus[index % len(cpus)]


def pin_to(cpu: int) -> None:
    """Run every thread of this process on ``cpu``; threads started later inherit it."""
    try:
        threads = [int(task) for task in os.listdir("/proc/self/task")]
    except OSError:
        threads = [0]  # this thread, where /proc is missing
    for thread in threads:
        os.sched_setaffinity(thread, {cpu})


def _pin_worker(settings: Settings, index: int) -> int | None:
    """Pin this worker as ``worker_cpu`` says; the CPU, or None (also where pinning fails)."""
    cpu = worker_cpu(settings, index, allowed_cpus())
    if cpu is not None:
        try:
            pin_to(cpu)
        except OSError as error:
            log.warning("cannot pin the worker", worker=index, cpu=cpu, error=str(error))
            return None
    return cpu


def _close_when_idle(server: grpc.Server, pool: CallThreadPool) -> None:
    """End a drain as soon as no call is left (none running or waiting at two looks in a row, a
    poll apart: gRPC may still hand over a call it had received): gRPC would otherwise wait out
    the grace period for every connection whose client keeps it open after the GOAWAY (an idle
    HTTP/2 client that is not gRPC's, a health Watch or reflection stream)."""
    idle = 0
    while idle < 2:
        idle = 0 if pool.busy() else idle + 1
        time.sleep(DRAIN_POLL_SECONDS)
    server.stop(0)


def run_worker(settings: Settings, index: int = 0) -> None:
    """Serve until SIGTERM or SIGINT, then drain within the grace period and return."""
    logs.configure(settings.log_level, settings.log_format)
    sys.setswitchinterval(GIL_SWITCH_SECONDS)
    cpu = _pin_worker(settings, index)
    observers = worker_observers(settings)
    pool = CallThreadPool(max_workers=settings.threads, thread_name_prefix="rpc")
    servicer = new_servicer(settings)
    server, port, health_servicer = create_server(settings, observers, pool, servicer)
    door = None
    if settings.http_port:
        door = http_door(settings, servicer, observers, log, pool)
    feed = None if servicer.hosting is None else servicer.hosting.feed
    if feed is not None:
        feed.start()
    watch = None
    if servicer.fence is not None:
        from service.telemetry.metrics import revision_store_reached  # noqa: PLC0415

        door_health = door.app.health if door is not None else None
        watch = StoreWatch(
            servicer.fence, health_servicer, door_health, index, revision_store_reached
        )
        watch.check()  # ready or not from the first probe on
        watch.start()
    # What exists by now (modules, descriptors, the servicer) lives as long as the worker: kept
    # out of the collector's generations, it is not scanned again at every full collection,
    # which would otherwise stall a call for tens of milliseconds now and then.
    gc.collect()
    gc.freeze()

    def stop(signum: int, frame: FrameType | None) -> None:
        # Health first (load balancers and watchers stop sending), then the GOAWAY: the calls
        # held go on, and only those left past the grace are cancelled.
        health_servicer.enter_graceful_shutdown()
        if feed is not None:  # the watchers watch again elsewhere, from where they were
            feed.drain()
        if watch is not None:
            watch.stop()
        if door is not None:
            door.stop()
        server.stop(settings.grace_seconds)
        threading.Thread(target=_close_when_idle, args=(server, pool), daemon=True).start()
        # Logged once both doors say so: a probe after this line never hears SERVING.
        log.info("draining", worker=index, grace_seconds=settings.grace_seconds)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    server.start()
    if door is not None:
        door.start()
    log.info(
        "serving",
        worker=index,
        pid=os.getpid(),
        host=settings.host,
        port=port,
        http_port=door.port if door is not None else None,
        cpu=cpu,
        frozen_objects=gc.get_freeze_count(),
    )
    server.wait_for_termination()
    if door is not None:
        door.wait()
    pool.shutdown(wait=True)  # the work left by the last calls is done
    if feed is not None:
        feed.stop()
    for observer in observers:
        if isinstance(observer, logs.AccessLog):
            observer.close()
    log.info("stopped", worker=index)
