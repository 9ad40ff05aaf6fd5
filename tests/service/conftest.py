"""Fixtures of the service tests: in-process servers with the observers under test."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

import grpc
import pytest

from ordo.v1 import engine_service_pb2_grpc as rpc
from service.config import Settings
from service.observe import Observer
from service.server import create_server

StartServer = Callable[[Sequence[Observer]], rpc.GameEngineServiceStub]


@pytest.fixture
def start_server() -> Iterator[StartServer]:
    """Start servers on free loopback ports with the given observers; each returns a stub."""
    running: list[tuple[grpc.Server, grpc.Channel]] = []

    def start(observers: Sequence[Observer]) -> rpc.GameEngineServiceStub:
        settings = Settings(host="127.0.0.1", port=0, workers=1, metrics_port=0)
        server, port, _health = create_server(settings, observers)
        server.start()
        channel = grpc.insecure_channel(f"127.0.0.1:{port}")
        running.append((server, channel))
        return rpc.GameEngineServiceStub(channel)

    yield start
    for server, channel in running:
        channel.close()
        server.stop(None)
