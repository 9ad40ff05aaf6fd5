"""Start the server as its own process, the way ``make run`` does (``python -m service``), on
free loopback ports, with its log in a file."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

ROOT = Path(__file__).resolve().parents[2]
HOST = "127.0.0.1"
START_SECONDS = 60  # bound on the server's start-up
STOP_SECONDS = 30  # bound on a SIGTERM drain
POLL_SECONDS = 0.1


def free_port() -> int:
    """A loopback port that was free a moment ago."""
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        port: int = sock.getsockname()[1]
        return port


def read_log(path: Path) -> str:
    """The output a process has written so far."""
    return path.read_text(errors="replace") if path.exists() else ""


def events(log: Path, event: str) -> list[dict[str, Any]]:
    """The complete JSON lines of the server's log whose event is ``event``."""
    complete = read_log(log).split("\n")[:-1]
    return [line for line in map(json.loads, complete) if line["event"] == event]


def health_status(port: int) -> int | None:
    """The overall health of the server on ``port``, None when it does not answer."""
    with grpc.insecure_channel(f"{HOST}:{port}") as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        try:
            response = stub.Check(health_pb2.HealthCheckRequest(service=""), timeout=1)
        except grpc.RpcError:
            return None
        status: int = response.status
        return status


def terminate(process: subprocess.Popen[bytes]) -> None:
    """Stop a process if it still runs: SIGTERM, then SIGKILL when it outlasts the bound."""
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=STOP_SECONDS)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=STOP_SECONDS)


@dataclass
class ServerProcess:
    """The server process and where it listens and writes."""

    process: subprocess.Popen[bytes]
    port: int
    metrics_port: int
    metrics_dir: Path
    log: Path
    http_port: int = 0

    @property
    def target(self) -> str:
        """The gRPC target of the server."""
        return f"{HOST}:{self.port}"

    def stop(self) -> int:
        """SIGTERM the server and wait for it to drain; returns its exit code."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        return self.process.wait(timeout=STOP_SECONDS)


def server_env(metrics_dir: Path, **settings: str) -> dict[str, str]:
    """This environment without its ``ORDO_*`` settings, with the given ones instead: the
    server on loopback, logging JSON, its metrics files in ``metrics_dir``, its HTTP port off
    unless given."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith("ORDO_") and key != "PROMETHEUS_MULTIPROC_DIR"
    }
    env.update(
        {
            "PROMETHEUS_MULTIPROC_DIR": str(metrics_dir),
            "ORDO_HOST": HOST,
            "ORDO_LOG_FORMAT": "json",
            "ORDO_HTTP_PORT": "0",
            **{f"ORDO_{name.upper()}": value for name, value in settings.items()},
        }
    )
    return env


def start_server(
    env: dict[str, str], log: Path, python: str = sys.executable, cwd: Path = ROOT
) -> subprocess.Popen[bytes]:
    """Start ``python -m service`` in ``env``, its output to ``log``; do not wait for it."""
    with log.open("wb") as output:
        return subprocess.Popen(
            [python, "-m", "service"],
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=output,
            stderr=output,
        )


@contextmanager
def running_server(
    scratch: Path,
    workers: int = 2,
    port: int | None = None,
    python: str = sys.executable,
    source: Path | None = None,
    **settings: str,
) -> Iterator[ServerProcess]:
    """Run ``python -m service`` with ``ORDO_*`` settings, on ``port`` or a free one (and the
    HTTP door on a free port); yield once every worker serves. Another ``python`` (an installed
    server's) runs in ``scratch``, away from this checkout's sources; another ``source`` (a
    release's checkout) runs from there, its own modules first on the path."""
    metrics_dir = scratch / "metrics"
    log = scratch / "server.log"
    port, metrics_port = port or free_port(), free_port()
    http_port = int(settings.pop("http_port", free_port()))
    env = server_env(
        metrics_dir,
        port=str(port),
        metrics_port=str(metrics_port),
        workers=str(workers),
        http_port=str(http_port),
        **settings,
    )
    if source is not None:
        env["PYTHONPATH"] = f"{source}:{source / 'clients' / 'python'}"
    cwd = source or (ROOT if python == sys.executable else scratch)
    process = start_server(env, log, python, cwd)
    running = ServerProcess(process, port, metrics_port, metrics_dir, log, http_port)
    try:
        deadline = time.monotonic() + START_SECONDS
        # Health answers as soon as one worker listens; each worker logs when it does.
        while (
            health_status(port) != health_pb2.HealthCheckResponse.SERVING
            or len(events(log, "serving")) < workers
        ):
            assert process.poll() is None, f"the server exited:\n{read_log(log)}"
            assert time.monotonic() < deadline, f"the server did not start:\n{read_log(log)}"
            time.sleep(POLL_SECONDS)
        yield running
    finally:
        terminate(process)


@contextmanager
def running_replicas(
    scratch: Path, workers: int = 1, **settings: str
) -> Iterator[tuple[ServerProcess, ServerProcess]]:
    """Two servers (each in a folder of its own in ``scratch``) with one keys file of the test
    key, seat tokens required, and ``settings`` (a store they share)."""
    from tests.state_keys import TEST_KEY, keys_file_text  # noqa: PLC0415

    keys = scratch / "keys"
    keys.write_text(keys_file_text(TEST_KEY))
    with ExitStack() as stack:
        servers = []
        for name in ("a", "b"):
            folder = scratch / name
            folder.mkdir()
            started = running_server(
                folder,
                workers=workers,
                state_keys_file=str(keys),
                require_seat_tokens="true",
                **settings,
            )
            servers.append(stack.enter_context(started))
        yield servers[0], servers[1]
