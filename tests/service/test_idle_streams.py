"""Idle streams never take the threads that calls and health probes need.

A reflection stream holds a thread for as long as it stays open; health Watch streams are
served without one. With many of both open and idle on one worker, game calls and probes are
answered as before, and reflection streams past the worker's cap are refused at once.
"""

from __future__ import annotations

import queue
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from ordo.v1 import engine_service_pb2 as api
from ordo.v1 import engine_service_pb2_grpc as rpc
from service.config import Settings
from service.doors.reflection import MAX_REFLECTION_STREAMS
from service.process.worker import create_server

IDLE_STREAMS = 50  # of each kind
CALLS = 20
CALL_SECONDS = 5.0  # a call's deadline: the calls took none of it before the streams starved them
STREAM_SECONDS = 60.0  # a stream's deadline: it stays open (and idle) through a test
LOCAL_POOL = ("grpc.use_local_subchannel_pool", 1)  # a connection of its own per channel


def finish(stream: Any, requests: queue.SimpleQueue[Any]) -> None:
    """End a reflection stream from the client's side and wait for the server to end it."""
    requests.put(None)
    try:
        for _ in stream:
            pass
    except grpc.RpcError:
        pass  # it was refused


@contextmanager
def idle_streams(target: str, count: int) -> Iterator[list[Any]]:
    """``count`` reflection streams that sent one request and wait, and ``count`` health Watch
    streams, each on a connection of its own; yields the reflection streams. They are closed
    by their clients, and the server has ended them, when it returns."""
    with ExitStack() as stack:
        streams: list[Any] = []
        for _ in range(count):
            channel = stack.enter_context(grpc.insecure_channel(target, options=[LOCAL_POOL]))
            requests: queue.SimpleQueue[Any] = queue.SimpleQueue()
            requests.put(reflection_pb2.ServerReflectionRequest(list_services=""))

            def sent(requests: queue.SimpleQueue[Any] = requests) -> Iterator[Any]:
                yield from iter(requests.get, None)

            reflection = reflection_pb2_grpc.ServerReflectionStub(channel)
            stream = reflection.ServerReflectionInfo(sent(), timeout=STREAM_SECONDS)
            stack.callback(finish, stream, requests)
            streams.append(stream)
            request = health_pb2.HealthCheckRequest()
            watch = health_pb2_grpc.HealthStub(channel).Watch(request, timeout=STREAM_SECONDS)
            stack.callback(watch.cancel)
        yield streams


def first_answer(stream: Any) -> Any:
    """A stream's first response, or the error that ended it."""
    try:
        return next(stream)
    except grpc.RpcError as error:
        return error


@pytest.fixture
def target() -> Iterator[str]:
    """A worker with the default settings on a free loopback port."""
    server, port, _health = create_server(
        Settings(host="127.0.0.1", port=0, workers=1, metrics_port=0)
    )
    server.start()
    yield f"127.0.0.1:{port}"
    server.stop(None)


class TestIdleStreams:
    """Idle reflection and Watch streams leave calls and probes their threads."""

    def test_calls_and_probes_are_answered_while_streams_idle(self, target: str) -> None:
        """With 50 idle reflection and 50 idle Watch streams open, game calls and health checks
        are all answered within their deadline (four reflection streams once took every thread
        of the worker's pool)."""
        with idle_streams(target, IDLE_STREAMS), grpc.insecure_channel(target) as channel:
            game = rpc.GameEngineServiceStub(channel)
            health = health_pb2_grpc.HealthStub(channel)
            for _ in range(CALLS):
                assert game.ListGames(api.ListGamesRequest(), timeout=CALL_SECONDS).games
                answer = health.Check(health_pb2.HealthCheckRequest(), timeout=CALL_SECONDS)
                assert answer.status == health_pb2.HealthCheckResponse.SERVING

    def test_reflection_streams_past_the_cap_are_refused(self, target: str) -> None:
        """The first reflection streams are served; those past the worker's cap are refused
        at once with RESOURCE_EXHAUSTED, never left waiting."""
        with idle_streams(target, MAX_REFLECTION_STREAMS + 2) as streams:
            firsts = [first_answer(stream) for stream in streams]
        served = firsts[:MAX_REFLECTION_STREAMS]
        refused = firsts[MAX_REFLECTION_STREAMS:]
        assert all(first.HasField("list_services_response") for first in served)
        assert [error.code() for error in refused] == [grpc.StatusCode.RESOURCE_EXHAUSTED] * 2

    def test_a_closed_reflection_stream_frees_its_place(self, target: str) -> None:
        """Once streams close, as many new ones are served again."""
        with idle_streams(target, MAX_REFLECTION_STREAMS) as streams:
            assert all(
                first_answer(stream).HasField("list_services_response") for stream in streams
            )
        with idle_streams(target, MAX_REFLECTION_STREAMS) as streams:
            firsts = [first_answer(stream) for stream in streams]
        assert all(first.HasField("list_services_response") for first in firsts)
