"""The gRPC server: handlers, health, reflection, worker processes and graceful shutdown.

Each worker process is a synchronous ``grpc.server`` with a small thread pool, bound to the same
port with SO_REUSEPORT so the kernel spreads connections over the workers (CPU-bound Python wants
one process per core). The parent process supervises the workers, serves the metrics of all of
them, and forwards SIGTERM: every worker turns its health NOT_SERVING, stops taking new calls
(it stops listening and sends every connection a GOAWAY, so clients send their next calls
elsewhere), lets the calls it holds finish within the grace period and exits 0. The calls gRPC
had received but not yet handed to the worker, and those a client sent before it read the
GOAWAY, are cancelled unserved (gRPC's own behaviour, grpc/grpc issue 41785): the clients retry
them, as every call that failed before the service answered it.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import signal
import socket
import time
from collections.abc import Callable, Collection, Sequence
from random import getrandbits
from types import FrameType
from typing import TYPE_CHECKING, Any

import grpc
import structlog
from google.protobuf import message_factory
from google.protobuf.message import DecodeError

from engines.errors import RulesError
from ordo.v1 import engine_service_pb2 as api
from service import logs
from service.build import build_info
from service.config import Settings, allowed_cpus
from service.errors import (
    INTERNAL_REASON,
    RequestError,
    internal_status,
    status_code_of,
    status_of,
    with_trailing_metadata,
)
from service.observe import CallRecord, Observer
from service.pool import After, CallThreadPool

if TYPE_CHECKING:
    from grpc_health.v1 import health

    from service.servicer import GameEngineServicer

SERVICE = api.DESCRIPTOR.services_by_name["GameEngineService"]
SERVICE_NAME = SERVICE.full_name
REQUEST_ID_KEY = "x-request-id"
MAX_REQUEST_ID_LENGTH = 128  # a longer id sent by a caller is cut to this many characters
REQUEST_ID_BITS = 128  # a request id made here: 128 random bits, written as 32 hex digits
MILLISECONDS_PER_SECOND = 1_000
RESTART_DELAY_SECONDS = 1.0  # a worker that dies is started again after this pause
LONGEST_MILLISECONDS = 2**31 - 1  # gRPC's integer channel arguments are 32-bit
EXIT_CANNOT_START = 1  # the exit code when a port cannot be served (taken, say)
# Calls in flight at once on one connection (HTTP/2's SETTINGS_MAX_CONCURRENT_STREAMS). A stream
# opened past it is refused (RST_STREAM REFUSED_STREAM, which a client reads as UNAVAILABLE: the
# call was never served, so the clients retry it). Without it, a caller with thousands of calls
# in flight on one connection had hundreds cancelled with no detail (calls gRPC had queued, but
# never handed to the worker). A worker runs a handful of calls at a time: a thousand queued on
# one connection is already a second or more of its work.
MAX_CONCURRENT_STREAMS = 1000
GRPC_PROTOCOL = "grpc"  # the protocol of the calls of the gRPC door, as logged and counted
# glibc's allocator gives the threads that allocate at the same time arenas of their own, up to
# eight per core of the machine (not of the container's CPU quota), and keeps in each the memory
# freed there: a worker's RSS crept up as its arenas held more free memory (``python -m
# bench.memory``: 8 MB free after a minute, 10-18 MB from minute 5 to 9, with the 16 arenas two
# cores allow; 4-9 MB with 2). Two arenas keep it flat at no cost in calls per second (the
# handlers allocate under the GIL anyway). The workers are started with this default in their
# environment; an operator's own MALLOC_ARENA_MAX is kept.
MALLOC_ARENAS = ("MALLOC_ARENA_MAX", "2")

log = structlog.get_logger("ordo.server")

#: The shared call path of one method (see ``invoker``).
Invoke = Callable[..., tuple[Any, "Exception | None", CallRecord]]


def request_id_of(context: grpc.ServicerContext) -> str:
    """The caller's ``x-request-id``, or a new random id when it sent none."""
    for key, value in context.invocation_metadata():
        if key == REQUEST_ID_KEY and isinstance(value, str) and value:
            return value[:MAX_REQUEST_ID_LENGTH]
    return new_request_id()


def new_request_id() -> str:
    """A new request id, for a call whose caller sent none."""
    # Unique, not secret: Python's generator (seeded from the system's, again in a forked child)
    # costs no system call, unlike os.urandom.
    return f"{getrandbits(REQUEST_ID_BITS):032x}"


def _observer_failed(observer: Observer, call: CallRecord, error: Exception, log: Any) -> None:
    """Log the failure of an observer's hook (if logging works at all); the call goes on."""
    logs.log_error(
        log,
        "observer failed",
        error,
        observer=type(observer).__qualname__,
        method=call.method,
        request_id=call.request_id,
    )


def drop_tracebacks(error: Exception) -> None:
    """Drop the traceback of ``error`` and those of the exceptions it was raised from.

    A failure leaves the call path as an answer (a status), logged already when unexpected. Its
    traceback holds the frame of the call path, which holds the failure: a reference cycle that
    only the collector frees, with the call's request, context and gRPC state hanging from it,
    for every refused request."""
    chained: list[BaseException | None] = [error]
    seen: set[int] = set()
    while chained:
        link = chained.pop()
        if link is not None and id(link) not in seen:
            seen.add(id(link))
            link.__traceback__ = None
            chained += (link.__cause__, link.__context__)


def invoker(
    name: str,
    request_type: Any,
    method: Callable[[Any, CallRecord], Any],
    observers: Sequence[Observer],
    log: Any,
) -> Invoke:
    """The call path of one servicer method that both doors share: parse, call, observe.

    ``invoke(raw, request_id, protocol, after, size, problem)`` returns the response (None on
    failure), the error (a ``RulesError``, or any other exception for an unexpected failure,
    already logged) and the call's record. The request arrives as raw bytes so that unparsable
    input is a bad argument with a reason like any other, not a transport error; a method named
    in ``RAW_REQUESTS`` gets the bytes and parses them itself. ``size`` is the size of the
    request as sent when that was not ``raw`` (JSON); a ``problem`` found before (JSON that does
    not parse) fails the call as the servicer would have. The observers hear of the finished
    call through ``after`` (see ``CallThreadPool``), once the response has left, or at once
    without it.
    """

    from service.servicer import RAW_REQUESTS  # noqa: PLC0415 - see create_server

    raw_request = name in RAW_REQUESTS

    def finished(call: CallRecord) -> None:
        for observer in observers:
            try:
                observer.call_finished(call)
            except Exception as error:
                _observer_failed(observer, call, error, log)

    def invoke(
        raw: bytes,
        request_id: str,
        protocol: str,
        after: After | None,
        size: int | None = None,
        problem: RulesError | None = None,
    ) -> tuple[Any, Exception | None, CallRecord]:
        call = CallRecord(
            method=name,
            request_bytes=len(raw) if size is None else size,
            request_id=request_id,
            protocol=protocol,
        )
        for observer in observers:
            try:
                observer.call_started(call)
            except Exception as error:
                _observer_failed(observer, call, error, log)
        failure: Exception | None = None
        response = None
        try:
            if problem is not None:
                raise problem
            if raw_request:
                response = method(raw, call)
            else:
                try:
                    request = request_type.FromString(raw)
                except DecodeError:
                    raise RequestError(
                        f"the request is not a valid {request_type.DESCRIPTOR.full_name} message"
                    ) from None
                response = method(request, call)
        except RulesError as error:
            failure = error
            call.code = status_code_of(error).name
            call.reason = error.reason
        except Exception as error:
            # Never the request, nor the exception's message: both may hold hidden state.
            logs.log_error(
                log,
                "unexpected error",
                error,
                method=name,
                game=call.game or None,
                seat=call.seat,
                request_id=call.request_id,
            )
            failure = error
            call.code, call.reason = "INTERNAL", INTERNAL_REASON
        if failure is not None:
            drop_tracebacks(failure)
        call.seconds = time.perf_counter() - call.started
        if after is None or not after(finished, call):
            finished(call)
        return response, failure, call

    return invoke


def _handler(
    name: str,
    request_type: Any,
    method: Callable[[Any, CallRecord], Any],
    observers: Sequence[Observer],
    log: Any,
    after: After | None = None,
) -> Callable[[bytes, grpc.ServicerContext], Any]:
    """Wrap one servicer method for the gRPC door: the shared call path (``invoker``), its
    errors as rich statuses. The request id goes back in the trailing metadata, which leaves
    with the status: sending it at the start would cost a message of its own."""
    invoke = invoker(name, request_type, method, observers, log)

    def handle(raw: bytes, context: grpc.ServicerContext) -> Any:
        response, failure, call = invoke(raw, request_id_of(context), GRPC_PROTOCOL, after)
        request_id = ((REQUEST_ID_KEY, call.request_id),)
        if failure is not None:
            status = status_of(failure) if isinstance(failure, RulesError) else internal_status()
            context.abort_with_status(with_trailing_metadata(status, request_id))
        context.set_trailing_metadata(request_id)
        return response

    return handle


def serializer(response_type: Any) -> Callable[[Any], bytes]:
    """The response serializer of a method: a servicer method may answer with its response
    already serialized (``ApplyAction`` does), which goes out as it is."""
    serialize = response_type.SerializeToString

    def serialized(response: Any) -> bytes:
        return response if type(response) is bytes else serialize(response)

    return serialized


def method_handlers(
    servicer: GameEngineServicer, observers: Sequence[Observer] = (), after: After | None = None
) -> dict[str, grpc.RpcMethodHandler[Any, Any]]:
    """The handler of every method of the service, by method name, built from its descriptor;
    ``after`` (a ``CallThreadPool``'s) runs the observers once the response has left."""
    log = structlog.get_logger("ordo.server")  # per server: it keeps the set-up of its first use
    handlers = {}
    for method in SERVICE.methods:
        request_type = message_factory.GetMessageClass(method.input_type)
        response_type = message_factory.GetMessageClass(method.output_type)
        handlers[method.name] = grpc.unary_unary_rpc_method_handler(
            _handler(
                method.name, request_type, getattr(servicer, method.name), observers, log, after
            ),
            request_deserializer=None,
            response_serializer=serializer(response_type),
        )
    return handlers


def rpc_handler(
    servicer: GameEngineServicer, observers: Sequence[Observer] = ()
) -> grpc.GenericRpcHandler[Any, Any]:
    """The generic handler of every method of the service."""
    return grpc.method_handlers_generic_handler(SERVICE_NAME, method_handlers(servicer, observers))


def new_servicer(settings: Settings) -> GameEngineServicer:
    """A worker's servicer, which both doors call: its caches and its keys as ``settings`` say."""
    from service.sealing import Sealer  # noqa: PLC0415 - see create_server
    from service.servicer import GameEngineServicer  # noqa: PLC0415

    sealer = Sealer(settings.state_keys) if settings.state_keys else None
    return GameEngineServicer(settings.state_cache_bytes, sealer, settings.require_sealed)


def create_server(
    settings: Settings,
    observers: Sequence[Observer] = (),
    pool: CallThreadPool | None = None,
    servicer: GameEngineServicer | None = None,
) -> tuple[grpc.Server, int, health.HealthServicer]:
    """Build and bind (not start) a worker's server on ``pool`` (a new one of
    ``settings.threads`` threads by default) and ``servicer`` (``new_servicer(settings)`` by
    default); returns it, its port and its health."""
    # Imported here, in the workers: the parent process only supervises them, and starts them
    # sooner without the engines, the servicer, health and reflection.
    from grpc_health.v1 import health, health_pb2, health_pb2_grpc  # noqa: PLC0415
    from grpc_reflection.v1alpha import reflection  # noqa: PLC0415

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
    if pool is None:
        pool = CallThreadPool(max_workers=settings.threads, thread_name_prefix="rpc")
    server = grpc.server(
        pool,  # type: ignore[arg-type]  # any executor will do; gRPC only calls submit
        options=options,
        maximum_concurrent_rpcs=settings.max_concurrent_rpcs or None,
    )
    if servicer is None:
        servicer = new_servicer(settings)
    handlers = method_handlers(servicer, observers, pool.after)
    # Registered methods are found without asking every generic handler on each call, as the
    # generated add_*Servicer_to_server does; the generic handler serves older call paths.
    server.add_generic_rpc_handlers((grpc.method_handlers_generic_handler(SERVICE_NAME, handlers),))
    server.add_registered_method_handlers(SERVICE_NAME, handlers)  # type: ignore[attr-defined]
    health_servicer = health.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    for name in ("", SERVICE_NAME):
        health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    reflection.enable_server_reflection(
        (SERVICE_NAME, health.SERVICE_NAME, reflection.SERVICE_NAME), server
    )
    port = server.add_insecure_port(f"{settings.host}:{settings.port}")
    if port == 0:
        raise OSError(f"cannot listen on {settings.host}:{settings.port}")
    return server, port, health_servicer


def milliseconds(seconds: float) -> int:
    """A duration in whole milliseconds as gRPC's channel arguments take it: at least 1, at most
    the largest 32-bit integer (24 days, as good as for ever)."""
    return min(max(1, round(seconds * MILLISECONDS_PER_SECOND)), LONGEST_MILLISECONDS)


def worker_observers(settings: Settings) -> list[Observer]:
    """The observers of a worker process: the access log and the metrics."""
    from service import metrics  # noqa: PLC0415 - prometheus-client reads its env at import

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


def run_worker(settings: Settings, index: int = 0) -> None:
    """Serve until SIGTERM or SIGINT, then drain within the grace period and return."""
    logs.configure(settings.log_level, settings.log_format)
    cpu = _pin_worker(settings, index)
    observers = worker_observers(settings)
    pool = CallThreadPool(max_workers=settings.threads, thread_name_prefix="rpc")
    servicer = new_servicer(settings)
    server, port, health_servicer = create_server(settings, observers, pool, servicer)
    door = None
    if settings.http_port:
        from service.http_door import http_door  # noqa: PLC0415 - the HTTP stack, when served

        door = http_door(settings, servicer, observers, log)
    # What exists by now (modules, descriptors, the servicer) lives as long as the worker: kept
    # out of the collector's generations, it is not scanned again at every full collection,
    # which would otherwise stall a call for tens of milliseconds now and then.
    gc.collect()
    gc.freeze()

    def stop(signum: int, frame: FrameType | None) -> None:
        # Health first (load balancers and watchers stop sending), then the GOAWAY: the calls
        # held go on, and only those left past the grace are cancelled.
        health_servicer.enter_graceful_shutdown()
        if door is not None:
            door.stop()
        server.stop(settings.grace_seconds)
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
    for observer in observers:
        if isinstance(observer, logs.AccessLog):
            observer.close()
    log.info("stopped", worker=index)


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


def stop_code(exitcode: int) -> int:
    """The exit code a worker's exit gives the server once stopping: a worker that SIGTERM
    ended before it set its handler (while it started) had nothing to drain."""
    return 0 if exitcode == -signal.SIGTERM else abs(exitcode)


def serve(settings: Settings) -> int:
    """Run the worker processes and the metrics endpoint until SIGTERM; returns the exit code
    (``EXIT_CANNOT_START`` at once when a port is taken)."""
    from service import metrics  # noqa: PLC0415 - prometheus-client reads its env at import

    logs.configure(settings.log_level, settings.log_format)
    for port in (settings.port, settings.http_port):
        if port and (taken := port_taken(settings.host, port)):
            log.error("cannot listen", port=port, error=taken)
            return EXIT_CANNOT_START
    metrics.prepare_multiprocess_dir()  # samples of an earlier run must not count
    try:
        metrics_server = metrics.start_http_server(settings.metrics_port, settings.host)
    except OSError as error:
        log.error(
            "cannot serve metrics",
            metrics_port=settings.metrics_port,
            error=str(error),
        )
        return EXIT_CANNOT_START
    count = settings.worker_count
    if count == 1 and settings.port == 0:
        run_worker(settings)
        return 0
    os.environ.setdefault(*MALLOC_ARENAS)  # read by each worker's allocator as it starts
    context = multiprocessing.get_context("spawn")
    stopping = False
    workers: list[multiprocessing.process.BaseProcess] = []

    def start(index: int) -> None:
        """Start worker ``index`` (again, when it died)."""
        process = context.Process(target=run_worker, args=(settings, index), name=f"worker-{index}")
        process.start()
        if index < len(workers):
            workers[index] = process
        else:
            workers.append(process)
        if stopping:  # the stop came as it started, and may have missed it
            process.terminate()

    def stop(signum: int, frame: FrameType | None) -> None:
        nonlocal stopping
        stopping = True
        for process in workers:
            if process.is_alive() and process.pid is not None:
                process.terminate()  # SIGTERM: the worker drains on its own

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    for index in range(count):
        if not stopping:
            start(index)
    from service.http_door import playground_url  # noqa: PLC0415 - beside the HTTP stack

    log.info(
        "started",
        workers=count,
        port=settings.port,
        http_port=settings.http_port,
        metrics_port=settings.metrics_port,
        playground=playground_url(settings.host, settings.http_port),
        **build_info(),
    )
    died: set[int] = set()  # the workers that died before the stop and were not started again
    while True:
        for index, process in enumerate(workers):
            process.join(timeout=0.2)
            if process.exitcode is None or index in died or stopping:
                continue
            log.error("worker died; starting it again", worker=index, exitcode=process.exitcode)
            if process.pid is not None:
                metrics.worker_exited(process.pid)
            time.sleep(RESTART_DELAY_SECONDS)
            if stopping:  # the stop came during the pause: not a worker to start again
                died.add(index)
                continue
            start(index)
        if stopping and all(process.exitcode is not None for process in workers):
            break
    # Read once all have ended: a worker that ends as the last one is awaited counts too.
    codes = [process.exitcode for index, process in enumerate(workers) if index not in died]
    exit_code = max((stop_code(code) for code in codes if code is not None), default=0)
    if metrics_server is not None:
        metrics_server.shutdown()
        metrics_server.server_close()
    log.info("stopped", exit_code=exit_code)
    return exit_code
