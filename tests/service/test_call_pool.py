"""The worker's thread pool runs the observers' end-of-call hooks after the response has left."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import grpc
import pytest

from ordo.v1 import engine_service_pb2 as api
from ordo.v1 import engine_service_pb2_grpc as rpc
from service.config import Settings
from service.observe import CallRecord
from service.server import CallThreadPool, create_server, method_handlers
from service.servicer import GameEngineServicer

WAIT_SECONDS = 10.0


@pytest.fixture
def pool() -> Iterator[CallThreadPool]:
    pool = CallThreadPool(max_workers=2)
    yield pool
    pool.shutdown()


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
