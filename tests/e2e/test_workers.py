"""End to end: the worker processes of the server started as ``make run`` starts it, one per CPU
the server may run on, each pinned to a CPU of its own unless told otherwise."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ordo.client import Client
from tests.e2e.server_process import ServerProcess, events, running_server

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
