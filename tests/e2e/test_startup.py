"""A server says which version it runs as it starts; it answers health within seconds of being
started; it refuses to start on a port that is already served, instead of sharing it, and starts
on a port where connections of an earlier run linger."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from grpc_health.v1 import health_pb2

from service.process.supervisor import EXIT_CANNOT_START
from service.telemetry.build import build_info
from tests.e2e.server_process import (
    HOST,
    ROOT,
    START_SECONDS,
    events,
    free_port,
    health_status,
    read_log,
    running_server,
    server_env,
    start_server,
    terminate,
)

HEALTH_SECONDS = 3.0  # from the start of ``python -m service`` to a SERVING health answer
HEALTH_ATTEMPTS = 3  # starts tried: one slowed down by a busy machine is tried again
HEALTH_POLL_SECONDS = 0.02
# A Python process that imports gRPC and protobuf, the first work of every server process, takes
# about this long on an idle machine; where it takes longer (a machine busy with other work),
# the bound grows in proportion, so that the test measures the server and not its neighbours.
REFERENCE_SECONDS = 0.25
REFERENCE = "import grpc, google.protobuf.message"


def start_alone(scratch: Path, **settings: str) -> tuple[int, str, list[dict[str, Any]]]:
    """Run a server with ``settings`` until it exits by itself: exit code, output, log lines."""
    done = subprocess.run(
        [sys.executable, "-m", "service"],
        cwd=ROOT,
        env=server_env(scratch / "metrics-alone", **settings),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=START_SECONDS,
        check=False,
    )
    output = done.stdout + done.stderr
    lines = [json.loads(line) for line in output.splitlines() if line.startswith("{")]
    return done.returncode, output, lines


def test_the_started_line_gives_the_versions(tmp_path: Path) -> None:
    """The parent's ``started`` line names Ordo's version and those of what it runs on."""
    with running_server(tmp_path, workers=2) as server:
        (started,) = events(server.log, "started")
    assert started["workers"] == 2
    assert {key: started[key] for key in build_info()} == build_info()


def seconds_to_health(scratch: Path) -> float:
    """Start ``python -m service`` with two workers on free ports and poll its health; the
    seconds until it answers SERVING (or ``START_SECONDS`` when it never does)."""
    scratch.mkdir()
    env = server_env(
        scratch / "metrics", port=str(port := free_port()), metrics_port="0", workers="2"
    )
    log = scratch / "server.log"
    started = time.monotonic()
    process = start_server(env, log)
    try:
        while health_status(port) != health_pb2.HealthCheckResponse.SERVING:
            assert process.poll() is None, f"the server exited:\n{read_log(log)}"
            if time.monotonic() - started > START_SECONDS:
                return START_SECONDS
            time.sleep(HEALTH_POLL_SECONDS)
        return time.monotonic() - started
    finally:
        terminate(process)


def reference_seconds() -> float:
    """The wall-clock seconds of a Python process that imports gRPC and protobuf."""
    started = time.monotonic()
    subprocess.run([sys.executable, "-c", REFERENCE], cwd=ROOT, check=True, timeout=START_SECONDS)
    return time.monotonic() - started


def test_health_answers_within_seconds_of_the_start(tmp_path: Path) -> None:
    """A server started by ``python -m service`` answers health SERVING within 3 seconds (on a
    machine as fast as an idle one: the bound grows with the time of a reference process)."""
    tried = []
    for attempt in range(HEALTH_ATTEMPTS):
        slowness = max(1.0, reference_seconds() / REFERENCE_SECONDS)
        seconds = seconds_to_health(tmp_path / str(attempt))
        tried.append(f"{seconds:.2f} s of {HEALTH_SECONDS * slowness:.2f} s")
        if seconds <= HEALTH_SECONDS * slowness:
            return
    raise AssertionError(f"health answered too late: {', '.join(tried)}")


def test_the_supervising_process_imports_no_engine() -> None:
    """The parent process, which only supervises the workers, starts without the engines, the
    servicer or the Python client's asyncio half: each worker imports what it serves."""
    loaded = subprocess.run(
        [sys.executable, "-c", "import sys, service.__main__; print(*sorted(sys.modules))"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    heavy = ("engines.registry", "service.calls.servicer", "ordo.aio", "ordo.client")
    assert [name for name in heavy if name in loaded] == []


class TestTakenPorts:
    """A port in use is an error at start-up, with the reason in the log and no traceback."""

    def test_a_served_port_is_not_shared(self, tmp_path: Path) -> None:
        """A second server on the port of a running one exits 1 and takes none of its calls."""
        with running_server(tmp_path, workers=2) as first:
            code, output, lines = start_alone(
                tmp_path, port=str(first.port), metrics_port="0", workers="1"
            )
            assert code == EXIT_CANNOT_START, output
            refused = [line for line in lines if line["event"] == "cannot listen"]
            assert [line["port"] for line in refused] == [first.port], output
            assert "Traceback" not in output
            assert not any(line["event"] == "serving" for line in lines)
            assert health_status(first.port) == health_pb2.HealthCheckResponse.SERVING
            assert len(events(first.log, "serving")) == 2

    def test_a_taken_metrics_port(self, tmp_path: Path) -> None:
        """A metrics port another process listens on stops the start-up with exit code 1."""
        with socket.socket() as holder:
            holder.bind((HOST, 0))
            holder.listen()
            metrics_port = holder.getsockname()[1]
            code, output, lines = start_alone(
                tmp_path, port=str(free_port()), metrics_port=str(metrics_port), workers="1"
            )
        assert code == EXIT_CANNOT_START, output
        refused = [line for line in lines if line["event"] == "cannot serve metrics"]
        assert [line["metrics_port"] for line in refused] == [metrics_port], output
        assert "Traceback" not in output


class TestRestart:
    """Connections of an earlier run that linger on the port do not keep a server from it."""

    def test_a_port_with_a_lingering_connection(self, tmp_path: Path) -> None:
        """A connection closed by the listening side stays in TIME_WAIT on its port for a
        minute, as a stopped server's do; a server starts on that port all the same."""
        with socket.socket() as listener:
            listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            listener.bind((HOST, 0))
            listener.listen()
            port = listener.getsockname()[1]
            with socket.create_connection((HOST, port)) as client:
                accepted, _ = listener.accept()
                accepted.close()  # the listening side closes first: its end lingers
                client.recv(1)
        assert lingering(port), "no connection lingers on the port"
        with running_server(tmp_path, workers=2, port=port) as server:
            assert health_status(server.port) == health_pb2.HealthCheckResponse.SERVING


def lingering(port: int) -> bool:
    """Whether a connection on loopback ``port`` is in TIME_WAIT (Linux's /proc/net/tcp)."""
    time_wait = "06"
    local = f"0100007F:{port:04X}"
    lines = Path("/proc/net/tcp").read_text().splitlines()[1:]
    return any(line.split()[1] == local and line.split()[3] == time_wait for line in lines)
