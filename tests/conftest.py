"""Shared fixtures: a real server on free ports (both doors of one worker), and a channel to it."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import grpc
import pytest
import structlog

from ordo.v1 import engine_service_pb2_grpc as rpc
from service.config import Settings
from service.http_door import http_door
from service.server import create_server
from service.servicer import GameEngineServicer
from tests.state_keys import TEST_KEY


@dataclass(frozen=True)
class Worker:
    """Where the session's server listens: its gRPC door and its HTTP door."""

    grpc_address: str
    http_address: str


@pytest.fixture(scope="session")
def worker() -> Iterator[Worker]:
    """Start one in-process server for the whole session, as a worker runs: a gRPC server and
    the HTTP door on free loopback ports, with one servicer."""
    settings = Settings(host="127.0.0.1", port=0, workers=1, metrics_port=0, http_port=0)
    servicer = GameEngineServicer(settings.state_cache_size)
    server, port, _health = create_server(settings, servicer=servicer)
    door = http_door(settings, servicer, (), structlog.get_logger("ordo.server"))
    server.start()
    door.start()
    yield Worker(f"127.0.0.1:{port}", f"127.0.0.1:{door.port}")
    door.stop()
    door.wait()
    server.stop(None)


@pytest.fixture(scope="session")
def server_address(worker: Worker) -> str:
    """The gRPC address of the session's server."""
    return worker.grpc_address


@pytest.fixture(scope="session")
def http_address(worker: Worker) -> str:
    """The HTTP address of the session's server."""
    return worker.http_address


@pytest.fixture(scope="session")
def channel(server_address: str) -> Iterator[grpc.Channel]:
    """A channel to the session's server."""
    with grpc.insecure_channel(server_address) as chan:
        yield chan


@pytest.fixture(scope="session")
def stub(channel: grpc.Channel) -> rpc.GameEngineServiceStub:
    """A raw generated stub on the session's channel."""
    return rpc.GameEngineServiceStub(channel)


@pytest.fixture(scope="session")
def sealed_stub() -> Iterator[rpc.GameEngineServiceStub]:
    """A stub of an in-process server with the test state key, for the whole session."""
    settings = Settings(host="127.0.0.1", port=0, workers=1, metrics_port=0, state_keys=(TEST_KEY,))
    server, port, _health = create_server(settings)
    server.start()
    with grpc.insecure_channel(f"127.0.0.1:{port}") as chan:
        yield rpc.GameEngineServiceStub(chan)
    server.stop(None)
