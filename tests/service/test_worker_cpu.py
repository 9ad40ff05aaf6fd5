"""Which CPU each worker is pinned to (``service.process.worker.worker_cpu``)."""

from __future__ import annotations

import errno
import os

import pytest

from service.config import Settings
from service.process import worker
from service.process.worker import worker_cpu


class TestWorkerCpu:
    """auto pins only when every worker can have a CPU of its own; pin always; none never."""

    def test_auto_gives_each_worker_its_own_cpu(self) -> None:
        """As many workers as CPUs: worker i gets the i-th CPU of the set, in order."""
        settings = Settings(workers=3)
        assert [worker_cpu(settings, index, {7, 2, 5}) for index in range(3)] == [2, 5, 7]

    @pytest.mark.parametrize("workers", [1, 2, 4])
    def test_auto_leaves_other_counts_to_the_kernel(self, workers: int) -> None:
        """Fewer workers than CPUs (a CPU quota on a shared node) or more: nobody is pinned."""
        settings = Settings(workers=workers)
        assert {worker_cpu(settings, index, {0, 1, 2}) for index in range(workers)} == {None}

    def test_auto_one_worker_per_cpu_by_default(self) -> None:
        """The default worker count is the number of CPUs the server may run on, so pinned."""
        cpus = set(range(Settings().worker_count))
        assert {worker_cpu(Settings(), index, cpus) for index in cpus} == cpus

    def test_pin_wraps_around(self) -> None:
        """pin with more workers than CPUs: the workers take the CPUs in turn."""
        settings = Settings(workers=5, cpu_affinity="pin")
        assert [worker_cpu(settings, index, {0, 1}) for index in range(5)] == [0, 1, 0, 1, 0]

    def test_none_never_pins(self) -> None:
        """none: the kernel places every worker."""
        assert worker_cpu(Settings(workers=2, cpu_affinity="none"), 0, {0, 1}) is None

    def test_no_cpus_known(self) -> None:
        """An empty set (nothing known about the machine) pins nobody."""
        assert worker_cpu(Settings(workers=1, cpu_affinity="pin"), 0, set()) is None


class TestPinWorker:
    """A worker that cannot be pinned serves all the same."""

    @pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="no CPU affinity here")
    def test_refused_pinning_leaves_the_worker_unpinned(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        def refuse(cpu: int) -> None:
            raise OSError(errno.EINVAL, "Invalid argument")

        monkeypatch.setattr(worker, "pin_to", refuse)
        assert worker._pin_worker(Settings(workers=1, cpu_affinity="pin"), 0) is None

    def test_unpinned_worker_is_not_touched(self, monkeypatch: pytest.MonkeyPatch) -> None:
        def fail(cpu: int) -> None:
            raise AssertionError("pinned")

        monkeypatch.setattr(worker, "pin_to", fail)
        assert worker._pin_worker(Settings(workers=1, cpu_affinity="none"), 0) is None
