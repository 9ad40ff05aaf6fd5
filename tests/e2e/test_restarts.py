"""The parent process supervises its workers: one that dies is started again, unless the server is
stopping, and a stop at any moment of the start-up or of a restart ends the server cleanly."""

from __future__ import annotations

import contextlib
import os
import signal
import time
from pathlib import Path

import pytest
from grpc_health.v1 import health_pb2

from service.process.supervisor import RESTART_DELAY_SECONDS
from tests.e2e.server_process import (
    POLL_SECONDS,
    START_SECONDS,
    STOP_SECONDS,
    events,
    free_port,
    health_status,
    read_log,
    running_server,
    server_env,
    start_server,
)

STARTS_TO_CATCH_LOADING = 5  # servers started to catch one whose workers are still loading


def wait_for(log: Path, event: str, count: int) -> list[dict[str, object]]:
    """The log's ``event`` lines once there are ``count`` of them."""
    deadline = time.monotonic() + START_SECONDS
    while len(found := events(log, event)) < count:
        assert time.monotonic() < deadline, f"no {count} {event!r} lines:\n{read_log(log)}"
        time.sleep(POLL_SECONDS)
    return found


def worker_pid(line: dict[str, object]) -> int:
    """The pid of the worker a ``serving`` line is about."""
    pid = line["pid"]
    assert isinstance(pid, int)
    return pid


def worker_pids(log: Path) -> dict[object, int]:
    """The pid of each worker that has served so far, by its index."""
    return {line["worker"]: worker_pid(line) for line in events(log, "serving")}


class TestRestarts:
    """A worker killed under a running server is replaced; a stop meanwhile ends it all."""

    def test_a_dead_worker_is_started_again(self, tmp_path: Path) -> None:
        """A worker killed with SIGKILL is started again, and the server still drains to 0."""
        with running_server(tmp_path, workers=2) as server:
            first = events(server.log, "serving")
            os.kill(worker_pid(first[0]), signal.SIGKILL)
            serving = wait_for(server.log, "serving", 3)
            assert serving[2]["worker"] == first[0]["worker"]
            assert worker_pid(serving[2]) not in {worker_pid(line) for line in first}
            assert events(server.log, "worker died; starting it again")
            assert health_status(server.port) == health_pb2.HealthCheckResponse.SERVING
            assert server.stop() == 0

    def test_a_stop_during_the_restart_pause(self, tmp_path: Path) -> None:
        """SIGTERM while a dead worker waits to be started again: no worker is started, and
        the server exits 0 within the drain's bound."""
        with running_server(tmp_path, workers=2) as server:
            first = events(server.log, "serving")
            os.kill(worker_pid(first[0]), signal.SIGKILL)
            wait_for(server.log, "worker died; starting it again", 1)
            time.sleep(RESTART_DELAY_SECONDS / 4)
            assert server.stop() == 0
            time.sleep(RESTART_DELAY_SECONDS)
            assert len(events(server.log, "serving")) == 2
            assert health_status(server.port) is None

    def test_a_stop_during_the_restart_pause_while_another_worker_drains(
        self, tmp_path: Path
    ) -> None:
        """A worker that died before the stop and was not started again does not count as a
        failure, even when the server still waits for another worker after the pause: exit 0."""
        with running_server(tmp_path, workers=2) as server:
            pids = worker_pids(server.log)
            os.kill(pids[0], signal.SIGKILL)
            wait_for(server.log, "worker died; starting it again", 1)
            os.kill(pids[1], signal.SIGSTOP)  # it drains only once continued
            try:
                server.process.send_signal(signal.SIGTERM)
                time.sleep(RESTART_DELAY_SECONDS * 1.5)  # the pause is over; worker 1 waits
            finally:
                os.kill(pids[1], signal.SIGCONT)
            assert server.process.wait(timeout=STOP_SECONDS) == 0, read_log(server.log)
            assert len(events(server.log, "serving")) == 2


class TestFailureWhileStopping:
    """A worker that fails while the server stops makes the server's exit code non-zero."""

    def test_a_worker_killed_instead_of_draining(self, tmp_path: Path) -> None:
        """Worker 0 killed while the server stops (it never drained) gives the exit code 9 of
        its SIGKILL, though worker 1 drained and exited 0 after it."""
        with running_server(tmp_path, workers=2) as server:
            stuck = worker_pids(server.log)[0]
            os.kill(stuck, signal.SIGSTOP)  # it can neither drain nor end on the SIGTERM
            try:
                server.process.send_signal(signal.SIGTERM)
                wait_for(server.log, "stopped", 1)  # worker 1 has drained
            finally:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(stuck, signal.SIGKILL)
            assert server.process.wait(timeout=STOP_SECONDS) == signal.SIGKILL
            (stopped,) = [line for line in events(server.log, "stopped") if "exit_code" in line]
            assert stopped["exit_code"] == signal.SIGKILL


class TestStopWhileStarting:
    """SIGTERM before the workers serve: they stop before they set their own handler."""

    def test_a_stop_before_the_workers_serve(self, tmp_path: Path) -> None:
        """The parent has started its workers, which are still loading: exit 0, no one left.
        Workers that load faster than the log is read leave nothing to test: the server is
        started again, a few times at most."""
        for attempt in range(STARTS_TO_CATCH_LOADING):
            log, port = tmp_path / f"server-{attempt}.log", free_port()
            env = server_env(tmp_path / "metrics", port=str(port), metrics_port="0", workers="2")
            process = start_server(env, log)
            try:
                wait_for(log, "started", 1)
                if events(log, "serving"):
                    continue  # the finally clause kills it; try again
                process.send_signal(signal.SIGTERM)
                assert process.wait(timeout=STOP_SECONDS) == 0, read_log(log)
                time.sleep(RESTART_DELAY_SECONDS)
                assert health_status(port) is None
                return
            finally:
                if process.poll() is None:
                    process.kill()
                    process.wait()
        pytest.fail(f"the workers served before every one of {STARTS_TO_CATCH_LOADING} stops")
