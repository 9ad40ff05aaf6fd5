"""End to end: the worker processes of the server started as ``make run`` starts it, one per CPU
the server may run on, each pinned to a CPU of its own unless told otherwise."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from ordo.client import Client
from tests.e2e.server_process import (
    POLL_SECONDS,
    STOP_SECONDS,
    ServerProcess,
    events,
    running_server,
)

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(not hasattr(os, "sched_getaffinity"), reason="no CPU affinity here"),
]


def allowed_cpus() -> set[int]:
    """The CPUs this test process (and so the server it starts) may run on."""
    return set(os.sched_getaffinity(0))


def thread_cpus(pid: int) -> dict[int, set[int]]:
    """The CPUs each thread of a process may run on, by thread id."""
    return {
        int(task): set(os.sched_getaffinity(int(task))) for task in os.listdir(f"/proc/{pid}/task")
    }


def serve_some_calls(server: ServerProcess, connections: int) -> None:
    """Call the server on several connections, so that the workers' pools start threads."""
    with Client(server.target, channels=connections) as client:
        for _ in range(4 * connections):
            assert client.list_games()


class TestPinning:
    """Where each worker runs."""

    def test_each_worker_on_a_cpu_of_its_own(self, tmp_path: Path) -> None:
        """With as many workers as CPUs, every thread of worker i runs on its CPU alone, each
        worker on a different one, and its 'serving' line says which."""
        cpus = allowed_cpus()
        with running_server(tmp_path, workers=len(cpus)) as server:
            serve_some_calls(server, 2 * len(cpus))
            serving = events(server.log, "serving")
            assert sorted(line["cpu"] for line in serving) == sorted(cpus)
            for line in serving:
                threads = thread_cpus(line["pid"])
                assert len(threads) > 1  # the worker's own threads and gRPC's
                assert all(allowed == {line["cpu"]} for allowed in threads.values())

    def test_none_leaves_the_workers_to_the_kernel(self, tmp_path: Path) -> None:
        """--cpu-affinity none: the workers may run on every CPU the server may."""
        cpus = allowed_cpus()
        with running_server(tmp_path, workers=len(cpus), cpu_affinity="none") as server:
            serve_some_calls(server, 2 * len(cpus))
            serving = events(server.log, "serving")
            assert [line["cpu"] for line in serving] == [None] * len(cpus)
            for line in serving:
                assert all(allowed == cpus for allowed in thread_cpus(line["pid"]).values())


def alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie, dead and not yet reaped, does not)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


class TestOrphans:
    """No worker outlives its supervisor."""

    @pytest.mark.parametrize("sent", [signal.SIGKILL, signal.SIGTERM])
    def test_the_workers_stop_when_the_supervisor_dies(
        self, tmp_path: Path, sent: signal.Signals
    ) -> None:
        """The supervisor ended by SIGKILL (it cannot stop its workers) or SIGTERM: every
        worker stops too, on its own."""
        with running_server(tmp_path, workers=2, grace_seconds="2") as server:
            workers = [line["pid"] for line in events(server.log, "serving")]
            os.kill(server.process.pid, sent)
            server.process.wait(timeout=STOP_SECONDS)
            try:
                deadline = time.monotonic() + STOP_SECONDS
                while any(map(alive, workers)):
                    assert time.monotonic() < deadline, f"workers left: {workers}"
                    time.sleep(POLL_SECONDS)
            finally:
                for pid in filter(alive, workers):
                    os.kill(pid, signal.SIGKILL)
