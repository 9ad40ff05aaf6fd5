"""Fixtures of the client tests: scripted fake servers on free loopback ports, and Ordo's
service behind TLS."""

from __future__ import annotations

from collections.abc import Iterator
from concurrent import futures

import grpc
import pytest

from service.calls.servicer import GameEngineServicer
from service.doors.grpc_door import rpc_handler
from tests.clients.fakes import FakeServer, running_fake, server_credentials


@pytest.fixture
def fake() -> Iterator[FakeServer]:
    """A fake server on a free loopback port."""
    with running_fake() as server:
        yield server


@pytest.fixture
def two_fakes() -> Iterator[tuple[FakeServer, FakeServer]]:
    """Two fake servers, each on a free loopback port of its own."""
    with running_fake() as first, running_fake() as second:
        yield first, second


@pytest.fixture(scope="session")
def tls_server_address() -> Iterator[str]:
    """Ordo's service on a free loopback port behind TLS, with the test certificate."""
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    server.add_generic_rpc_handlers((rpc_handler(GameEngineServicer()),))
    port = server.add_secure_port("127.0.0.1:0", server_credentials())
    server.start()
    yield f"127.0.0.1:{port}"
    server.stop(None)
