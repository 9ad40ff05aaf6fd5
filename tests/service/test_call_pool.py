"""The worker's thread pool: the observers' end-of-call hooks run after the response has left,
the most recently idle thread takes the next task, and it is an executor like any other."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from concurrent import futures

import grpc
import pytest

from ordo.v1 import engine_service_pb2 as api
from ordo.v1 import engine_service_pb2_grpc as rpc
from service.calls.servicer import GameEngineServicer
from service.config import Settings
from service.doors.grpc_door import method_handlers
from service.process.pool import CallThreadPool
from service.process.worker import create_server
from service.telemetry.observe import CallRecord

WAIT_SECONDS = 10.0


class TestAfter:
    """``after`` leaves work for the end of the current task."""

    def test_refused_outside_a_task(self, pool: CallThreadPool) -> None:
        """Outside a task of the pool there is no end to wait for: the caller runs the work."""
        assert pool.after(lambda call: None, CallRecord("ListGames")) is False

    def test_runs_after_the_task_on_its_thread(self, pool: CallThreadPool) -> None:
        """Work left by a task runs in order once the task has returned, on the same thread."""
        events: list[tuple[str, str]] = []

        def work(call: CallRecord) -> None:
            events.append((call.method, threading.current_thread().name))

        def task() -> None:
            assert pool.after(work, CallRecord("first"))
            assert pool.after(work, CallRecord("second"))
            events.append(("task", threading.current_thread().name))

        pool.submit(task).result(WAIT_SECONDS)
        pool.submit(lambda: None).result(WAIT_SECONDS)  # one thread's work is done by now
        names = {thread for _, thread in events}
        assert [what for what, _ in events] == ["task", "first", "second"]
        assert len(names) == 1

    def test_the_future_is_done_once_the_work_left_is(self, pool: CallThreadPool) -> None:
        """A task's future completes after the work it left has run, not before."""
        ran: list[str] = []

        def slow(call: CallRecord) -> None:
            time.sleep(0.2)
            ran.append(call.method)

        def task() -> str:
            pool.after(slow, CallRecord("left"))
            return "done"

        assert pool.submit(task).result(WAIT_SECONDS) == "done"
        assert ran == ["left"]

    def test_a_failing_task_runs_the_work_it_left(self, pool: CallThreadPool) -> None:
        """Work left before a task raises runs all the same, before its future fails."""
        ran: list[str] = []

        def task() -> None:
            pool.after(lambda call: ran.append(call.method), CallRecord("left"))
            raise RuntimeError("broken")

        failed = pool.submit(task)
        assert isinstance(failed.exception(WAIT_SECONDS), RuntimeError)
        assert ran == ["left"]

    def test_result_is_the_tasks(self, pool: CallThreadPool) -> None:
        """The task's future has the task's result, as with any executor."""
        assert pool.submit(lambda a, b: a + b, 2, b=3).result(WAIT_SECONDS) == 5

    def test_failing_work_does_not_stop_the_rest(self, pool: CallThreadPool) -> None:
        """A failing piece of work is logged; the work after it and the pool go on."""
        ran: list[str] = []

        def fail(call: CallRecord) -> None:
            raise RuntimeError("broken")

        def task() -> None:
            pool.after(fail, CallRecord("first"))
            pool.after(lambda call: ran.append(call.method), CallRecord("second"))

        pool.submit(task).result(WAIT_SECONDS)
        assert pool.submit(lambda: "still serving").result(WAIT_SECONDS) == "still serving"
        assert ran == ["second"]


@contextlib.contextmanager
def running_pool(max_workers: int) -> Iterator[CallThreadPool]:
    pool = CallThreadPool(max_workers=max_workers)
    try:
        yield pool
    finally:
        pool.shutdown()


@pytest.fixture
def pool() -> Iterator[CallThreadPool]:
    with running_pool(2) as pool:
        yield pool


def thread_name() -> str:
    return threading.current_thread().name


def wait_until(condition: Callable[[], bool]) -> None:
    deadline = time.monotonic() + WAIT_SECONDS
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


class TestThreads:
    """Which thread runs a task, and how many there are."""

    def test_the_most_recently_idle_thread_takes_the_next_task(self) -> None:
        """Once several threads have started, tasks one at a time all run on one of them: the
        last one to go idle (a queue would wake each in turn)."""
        with running_pool(4) as pool:
            gate = threading.Event()
            started = [pool.submit(gate.wait, WAIT_SECONDS) for _ in range(4)]
            wait_until(lambda: len(pool) == 4)
            gate.set()
            futures.wait(started, WAIT_SECONDS)
            wait_until(lambda: len(pool._idle) == 4)
            last_idle = pool._idle[-1]
            names = [pool.submit(thread_name).result(WAIT_SECONDS) for _ in range(20)]
            assert len(set(names)) == 1
            assert pool._idle[-1] is last_idle

    def test_at_most_max_workers_threads_and_the_rest_wait(self) -> None:
        """Tasks beyond the threads wait for one, and all of them run."""
        with running_pool(2) as pool:
            gate = threading.Event()
            order: list[int] = []
            blocked = [pool.submit(gate.wait, WAIT_SECONDS) for _ in range(2)]
            queued = [pool.submit(order.append, index) for index in range(6)]
            assert len(pool) == 2
            assert not any(future.done() for future in queued)
            gate.set()
            futures.wait([*blocked, *queued], WAIT_SECONDS)
            assert all(future.result() is None for future in queued)
            assert len(pool) == 2
            assert sorted(order) == list(range(6))

    def test_one_thread_runs_the_waiting_tasks_in_order(self) -> None:
        with running_pool(1) as pool:
            gate = threading.Event()
            order: list[int] = []
            pool.submit(gate.wait, WAIT_SECONDS)
            queued = [pool.submit(order.append, index) for index in range(5)]
            gate.set()
            futures.wait(queued, WAIT_SECONDS)
            assert order == list(range(5))

    def test_an_idle_thread_ends_and_a_new_one_starts_when_needed(self) -> None:
        with running_pool(2) as pool:
            pool.IDLE_SECONDS = 0.05
            assert pool.submit(thread_name).result(WAIT_SECONDS)
            wait_until(lambda: len(pool) == 0)
            assert pool.submit(lambda: "again").result(WAIT_SECONDS) == "again"

    def test_a_failing_task_fails_its_future_only(self) -> None:
        with running_pool(1) as pool:
            failed = pool.submit(lambda: 1 / 0)
            assert isinstance(failed.exception(WAIT_SECONDS), ZeroDivisionError)
            assert pool.submit(lambda: "next").result(WAIT_SECONDS) == "next"

    def test_max_workers_must_be_positive(self) -> None:
        with pytest.raises(ValueError, match="at least 1"):
            CallThreadPool(max_workers=0)


class TestShutdown:
    """shutdown as for any executor."""

    def test_waits_for_the_tasks_given_and_ends_every_thread(self) -> None:
        pool = CallThreadPool(max_workers=2)
        done: list[int] = []
        for index in range(6):
            pool.submit(lambda index=index: (time.sleep(0.01), done.append(index)))
        pool.shutdown(wait=True)
        assert sorted(done) == list(range(6))
        assert len(pool) == 0

    def test_ends_idle_threads(self) -> None:
        pool = CallThreadPool(max_workers=3)
        futures.wait([pool.submit(time.sleep, 0.01) for _ in range(3)], WAIT_SECONDS)
        threads = [
            thread for thread in threading.enumerate() if thread.name.startswith(pool._prefix)
        ]
        assert threads
        pool.shutdown(wait=True)
        assert not any(thread.is_alive() for thread in threads)

    def test_refuses_new_tasks(self) -> None:
        pool = CallThreadPool(max_workers=1)
        pool.shutdown()
        with pytest.raises(RuntimeError, match="after shutdown"):
            pool.submit(thread_name)

    def test_cancel_futures_cancels_the_tasks_not_started(self) -> None:
        pool = CallThreadPool(max_workers=1)
        gate = threading.Event()
        running = pool.submit(gate.wait, WAIT_SECONDS)
        queued = [pool.submit(thread_name) for _ in range(3)]
        wait_until(lambda: len(pool._queue) == 3)  # the first task is running
        stopper = threading.Thread(target=pool.shutdown, kwargs={"cancel_futures": True})
        stopper.start()
        wait_until(lambda: all(future.cancelled() for future in queued))
        gate.set()
        stopper.join(WAIT_SECONDS)
        assert running.result(WAIT_SECONDS) is True


class Blocking:
    """An observer whose end-of-call hook waits until it is released."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.finished = threading.Event()

    def call_started(self, call: CallRecord) -> None:
        """Nothing at the start."""

    def call_finished(self, call: CallRecord) -> None:
        self.release.wait(WAIT_SECONDS)
        self.finished.set()


class TestServer:
    """In a server, the caller has its response before the observers hear of the end."""

    def test_response_does_not_wait_for_the_observers(self) -> None:
        blocking = Blocking()
        settings = Settings(host="127.0.0.1", port=0, workers=1, metrics_port=0)
        server, port, _health = create_server(settings, [blocking])
        server.start()
        try:
            with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
                stub = rpc.GameEngineServiceStub(channel)
                # An observer run inside the call would hold the response past this deadline.
                response = stub.ListGames(api.ListGamesRequest(), timeout=WAIT_SECONDS / 2)
                assert response.games
                assert not blocking.finished.is_set()
                blocking.release.set()
                assert blocking.finished.wait(WAIT_SECONDS)
        finally:
            blocking.release.set()
            server.stop(None)

    def test_without_a_pool_the_observers_run_in_the_call(self) -> None:
        """Handlers built without ``after`` (called in-process) tell the observers at once."""
        blocking = Blocking()
        blocking.release.set()
        handlers = method_handlers(GameEngineServicer(), [blocking])
        behavior = handlers["ListGames"].unary_unary

        class Context:
            def invocation_metadata(self) -> tuple[()]:
                return ()

            def set_trailing_metadata(self, metadata: object) -> None:
                """Ignored."""

        assert behavior is not None
        behavior(api.ListGamesRequest().SerializeToString(), Context())
        assert blocking.finished.is_set()
