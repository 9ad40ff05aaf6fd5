"""Fixtures of the service tests: in-process servers with the observers under test."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import grpc
import pytest

from ordo.v1 import engine_service_pb2_grpc as rpc
from service.calls.call_path import REQUEST_ID_KEY
from service.config import Settings
from service.process.worker import create_server
from service.telemetry.observe import CallRecord, Observer
from tests.conftest import Doors
from tests.redis_server import RedisServer, running_redis
from tests.seat_calls import DOORS, Caller

StartServer = Callable[[Sequence[Observer]], rpc.GameEngineServiceStub]
SETTLE_SECONDS = 10.0


def race(work: Callable[[int], None], threads: int) -> None:
    """Run ``work(index)`` on ``threads`` threads at once, switching between them as often as
    the interpreter can, and wait for all of them."""
    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        running = [threading.Thread(target=work, args=(index,)) for index in range(threads)]
        for thread in running:
            thread.start()
        for thread in running:
            thread.join()
    finally:
        sys.setswitchinterval(switch)


class Settled:
    """The last observer of a test server: knows which calls every observer has seen end.

    The server tells its observers of a finished call after the response has left, so a test
    that reads what they wrote (lines, samples) waits for them first.
    """

    def __init__(self) -> None:
        self._seen: set[str] = set()
        self._changed = threading.Condition()

    def call_started(self, call: CallRecord) -> None:
        """Nothing: only the end of a call matters."""

    def call_finished(self, call: CallRecord) -> None:
        with self._changed:
            self._seen.add(call.request_id)
            self._changed.notify_all()

    def wait(self, request_id: str) -> None:
        """Return once the observers have seen the call ``request_id`` end."""
        with self._changed:
            if not self._changed.wait_for(lambda: request_id in self._seen, SETTLE_SECONDS):
                raise AssertionError(f"the observers never saw call {request_id} end")
            self._seen.discard(request_id)


class WaitForObservers(grpc.UnaryUnaryClientInterceptor):  # type: ignore[misc]
    """Returns a call's outcome once the server's observers have seen it end (the server sends
    the call's request id back in the trailing metadata)."""

    def __init__(self, settled: Settled) -> None:
        self.settled = settled

    def intercept_unary_unary(
        self, continuation: Callable[[Any, Any], Any], details: Any, request: Any
    ) -> Any:
        outcome = continuation(details, request)
        request_id = dict(outcome.trailing_metadata() or ()).get(REQUEST_ID_KEY)
        if request_id:  # none when gRPC refused the call before the handler
            self.settled.wait(request_id)
        return outcome


@pytest.fixture
def start_server() -> Iterator[StartServer]:
    """Start servers on free loopback ports with the given observers; each returns a stub
    whose calls return once the observers have seen them end."""
    running: list[tuple[grpc.Server, grpc.Channel]] = []

    def start(observers: Sequence[Observer]) -> rpc.GameEngineServiceStub:
        settings = Settings(host="127.0.0.1", port=0, workers=1, metrics_port=0)
        settled = Settled()
        server, port, _health = create_server(settings, [*observers, settled])
        server.start()
        channel = grpc.insecure_channel(f"127.0.0.1:{port}")
        running.append((server, channel))
        return rpc.GameEngineServiceStub(grpc.intercept_channel(channel, WaitForObservers(settled)))

    yield start
    for server, channel in running:
        channel.close()
        server.stop(None)


@pytest.fixture(params=DOORS)
def caller(request: pytest.FixtureRequest, seated: Doors) -> Iterator[Caller]:
    """A player's calls, with seat tokens, through each door of the server that requires them."""
    player = Caller(request.param, seated.grpc_address, seated.http_address)
    yield player
    player.close()


@pytest.fixture(params=DOORS)
def host_caller(request: pytest.FixtureRequest, hosting: Doors) -> Iterator[Caller]:
    """A player's calls, with seat tokens, through each door of the server that hosts tables."""
    player = Caller(request.param, hosting.grpc_address, hosting.http_address)
    yield player
    player.close()


@pytest.fixture(scope="module")
def table_store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    """A redis-server of the test module's own, for its hosted tables."""
    with running_redis(tmp_path_factory.mktemp("tables")) as server:
        yield server
