"""Start the server as its own process, the way ``make run`` does, on free loopback ports."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT_SECONDS = 30.0
STOP_TIMEOUT_SECONDS = 30.0


def free_port() -> int:
    """A loopback port nobody listens on right now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class ServerProcess:
    """A running server process and where to reach it."""

    process: subprocess.Popen[bytes]
    port: int
    metrics_port: int

    @property
    def target(self) -> str:
        """The gRPC target of the server."""
        return f"127.0.0.1:{self.port}"

    def terminate(self) -> int:
        """Send SIGTERM and return the exit code."""
        self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout=STOP_TIMEOUT_SECONDS)


def wait_until_serving(target: str, service: str = "") -> None:
    """Poll the health service until it answers SERVING (bounded)."""
    deadline = time.monotonic() + START_TIMEOUT_SECONDS
    with grpc.insecure_channel(target) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        while True:
            try:
                reply = stub.Check(health_pb2.HealthCheckRequest(service=service), timeout=1)
                if reply.status == health_pb2.HealthCheckResponse.SERVING:
                    return
            except grpc.RpcError:
                if time.monotonic() > deadline:
                    raise
            time.sleep(0.1)


@contextmanager
def running_server(workers: int = 2, **env: str) -> Iterator[ServerProcess]:
    """Run ``python -m service`` with ``ORDO_*`` settings on free ports; stop it at the end."""
    port, metrics_port = free_port(), free_port()
    environ = {
        **os.environ,
        "ORDO_HOST": "127.0.0.1",
        "ORDO_PORT": str(port),
        "ORDO_METRICS_PORT": str(metrics_port),
        "ORDO_WORKERS": str(workers),
        **env,
    }
    environ.pop("PROMETHEUS_MULTIPROC_DIR", None)
    process = subprocess.Popen(
        [sys.executable, "-m", "service"],
        cwd=ROOT,
        env=environ,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    server = ServerProcess(process, port, metrics_port)
    try:
        wait_until_serving(server.target)
        yield server
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(timeout=STOP_TIMEOUT_SECONDS)
        if process.stderr is not None:
            process.stderr.close()
