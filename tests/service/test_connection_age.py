"""Connections are closed gracefully after ``max_connection_age_seconds``: the client connects
again (and so resolves the name again, finding replicas added since), and no call fails."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Sequence

import grpc
import pytest

from ordo.v1 import engine_service_pb2 as api
from ordo.v1 import engine_service_pb2_grpc as rpc
from service.config import Settings
from service.process.worker import (
    LONGEST_MILLISECONDS,
    create_server,
    milliseconds,
    server_options,
)
from service.telemetry.observe import CallRecord, Observer

WAIT_SECONDS = 10.0
RECONNECTIONS = 3  # connections one channel goes through in the test of calls across them
Serve = Callable[..., grpc.Channel]


class Connectivity:
    """The connectivity states a channel went through, in order."""

    def __init__(self, channel: grpc.Channel) -> None:
        self.states: list[grpc.ChannelConnectivity] = []
        self._changed = threading.Condition()
        channel.subscribe(self._record, try_to_connect=False)

    def _record(self, state: grpc.ChannelConnectivity) -> None:
        with self._changed:
            self.states.append(state)
            self._changed.notify_all()

    def wait_for(self, state: grpc.ChannelConnectivity, after: int) -> bool:
        """Whether the channel reaches ``state`` after its first ``after`` changes."""
        with self._changed:
            return self._changed.wait_for(lambda: state in self.states[after:], WAIT_SECONDS)


@pytest.fixture
def serve() -> Iterator[Serve]:
    """Start a server with the given connection age; yield a channel to it."""
    running: list[tuple[grpc.Server, grpc.Channel]] = []

    def start(age: float, observers: Sequence[Observer] = ()) -> grpc.Channel:
        settings = Settings(
            host="127.0.0.1",
            port=0,
            workers=1,
            metrics_port=0,
            max_connection_age_seconds=age,
            grace_seconds=0.0,  # SIGTERM's: the calls on an old connection still finish
        )
        server, port, _health = create_server(settings, observers)
        server.start()
        channel = grpc.insecure_channel(f"127.0.0.1:{port}")
        running.append((server, channel))
        return channel

    yield start
    for server, channel in running:
        channel.close()
        server.stop(None)


def test_an_old_connection_is_closed_and_the_client_connects_again(serve: Serve) -> None:
    """After the age the server sends GOAWAY; the idle channel lets the connection go and the
    next call opens a new one."""
    channel = serve(0.2)
    seen = Connectivity(channel)
    stub = rpc.GameEngineServiceStub(channel)
    stub.ListGames(api.ListGamesRequest(), timeout=WAIT_SECONDS)
    assert seen.wait_for(grpc.ChannelConnectivity.READY, 0)
    ready = seen.states.index(grpc.ChannelConnectivity.READY)
    assert seen.wait_for(grpc.ChannelConnectivity.IDLE, ready + 1)
    changes = len(seen.states)
    assert stub.ListGames(api.ListGamesRequest(), timeout=WAIT_SECONDS).games
    assert seen.wait_for(grpc.ChannelConnectivity.READY, changes)


def test_calls_go_on_across_the_reconnections(serve: Serve) -> None:
    """Calls made one after another until the channel has been connected three times all
    succeed: none is lost as a connection ages out under it."""
    channel = serve(0.1)
    seen = Connectivity(channel)
    stub = rpc.GameEngineServiceStub(channel)
    deadline = time.monotonic() + WAIT_SECONDS  # a bound on a broken server, not a measure
    while seen.states.count(grpc.ChannelConnectivity.READY) < RECONNECTIONS:
        assert time.monotonic() < deadline, seen.states
        assert stub.ListGames(api.ListGamesRequest(), timeout=WAIT_SECONDS).games


class SlowStart:
    """An observer that holds each call back at its start, so that it is in flight longer."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds

    def call_started(self, call: CallRecord) -> None:
        time.sleep(self.seconds)

    def call_finished(self, call: CallRecord) -> None:
        """Nothing."""


def test_a_call_in_flight_at_the_age_finishes(serve: Serve) -> None:
    """A call that outlives its connection's age is answered: the connection closes after it."""
    channel = serve(0.1, [SlowStart(0.5)])
    stub = rpc.GameEngineServiceStub(channel)
    assert stub.ListGames(api.ListGamesRequest(), timeout=WAIT_SECONDS).games


def test_age_zero_sets_no_connection_age() -> None:
    """With age 0 the server asks gRPC for no connection age: connections stay open; with an
    age, gRPC is given it in milliseconds."""
    kept = dict(server_options(Settings(max_connection_age_seconds=0)))
    assert "grpc.max_connection_age_ms" not in kept
    aged = dict(server_options(Settings(max_connection_age_seconds=2.5)))
    assert aged["grpc.max_connection_age_ms"] == 2_500


def test_durations_become_whole_milliseconds_within_range() -> None:
    """gRPC takes 32-bit milliseconds: a longer age is as good as for ever, a shorter one 1 ms."""
    assert milliseconds(300.0) == 300_000
    assert milliseconds(0.0001) == 1
    assert milliseconds(1e12) == LONGEST_MILLISECONDS
