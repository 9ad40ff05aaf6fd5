"""Shared fixtures: a real server on a free port, and a channel to it."""

from __future__ import annotations

from collections.abc import Iterator

import grpc
import pytest

from ordo.v1 import engine_service_pb2_grpc as rpc
from service.config import Settings
from service.server import create_server
from tests.state_keys import TEST_KEY


@pytest.fixture(scope="session")
def server_address() -> Iterator[str]:
    """Start one in-process server on a free loopback port for the whole session."""
    settings = Settings(host="127.0.0.1", port=0, workers=1, metrics_port=0)
    server, port, _health = create_server(settings)
    server.start()
    yield f"127.0.0.1:{port}"
    server.stop(None)


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
