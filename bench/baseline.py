"""The baseline of the RPC benchmark: a bare gRPC server that answers ``ApplyAction`` with the
request's state unchanged.

It has Ordo's server shape (worker processes bound to one port with SO_REUSEPORT, each a sync
``grpc.server`` with the same thread count, pinned to CPUs as Ordo's ``--cpu-affinity`` pins
them) and speaks the same messages on the same method path (``/ordo.v1.GameEngineService/
ApplyAction``: parse an ``ApplyActionRequest``, build and serialize an ``ApplyActionResponse``),
so the ratio Ordo / baseline measures what our own code costs per call: Ordo's work in the
handler, and its thread pool (``service.process.pool``) against the plain
``ThreadPoolExecutor`` here.
Health (``grpc.health.v1``) answers SERVING like Ordo's. SIGTERM stops it.

    python -m bench.baseline --port P --workers W --threads T [--cpu-affinity auto|pin|none]
"""

from __future__ import annotations

import argparse
import multiprocessing
import signal
from collections.abc import Sequence
from concurrent import futures
from types import FrameType

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from ordo.v1 import engine_service_pb2 as api
from service.config import CPU_AFFINITIES, Settings, allowed_cpus
from service.process.worker import pin_to, worker_cpu

SERVICE_NAME = "ordo.v1.GameEngineService"
GRACE_SECONDS = 2.0


def apply_action(
    request: api.ApplyActionRequest, context: grpc.ServicerContext
) -> api.ApplyActionResponse:
    """Answer with the request's state unchanged: no rules, no codec, no observers."""
    return api.ApplyActionResponse(state=request.state)


def run_worker(host: str, port: int, threads: int, cpu: int | None = None) -> None:
    """Serve one worker until SIGTERM, on ``cpu`` alone when given."""
    if cpu is not None:
        pin_to(cpu)
    server = grpc.server(
        futures.ThreadPoolExecutor(max_workers=threads),
        options=[("grpc.so_reuseport", 1)],
    )
    handler = grpc.unary_unary_rpc_method_handler(
        apply_action,
        request_deserializer=api.ApplyActionRequest.FromString,
        response_serializer=api.ApplyActionResponse.SerializeToString,
    )
    # Registered as the generated add_*Servicer_to_server registers, like the Ordo server.
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler(SERVICE_NAME, {"ApplyAction": handler}),)
    )
    server.add_registered_method_handlers(SERVICE_NAME, {"ApplyAction": handler})  # type: ignore[attr-defined]
    health_servicer = health.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    for name in ("", SERVICE_NAME):
        health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    if server.add_insecure_port(f"{host}:{port}") == 0:
        raise OSError(f"cannot listen on {host}:{port}")

    def stop(signum: int, frame: FrameType | None) -> None:
        server.stop(GRACE_SECONDS)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    server.start()
    server.wait_for_termination()


def main(argv: Sequence[str] | None = None) -> None:
    """Start the worker processes and wait for them; SIGTERM stops them all."""
    parser = argparse.ArgumentParser(prog="python -m bench.baseline", description=__doc__)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--cpu-affinity", choices=CPU_AFFINITIES, default="auto")
    args = parser.parse_args(argv)
    placement = Settings(workers=args.workers, cpu_affinity=args.cpu_affinity)
    context = multiprocessing.get_context("spawn")
    workers = [
        context.Process(
            target=run_worker,
            args=(args.host, args.port, args.threads, worker_cpu(placement, index, allowed_cpus())),
        )
        for index in range(args.workers)
    ]
    for process in workers:
        process.start()

    def stop(signum: int, frame: FrameType | None) -> None:
        for process in workers:
            if process.is_alive():
                process.terminate()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    for process in workers:
        process.join()


if __name__ == "__main__":
    main()
