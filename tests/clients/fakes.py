"""A scripted fake GameEngineService for the client tests (what a client sent, and failures and
pauses to answer with), and the test certificate of the TLS tests.

``tls/server.pem`` is a self-signed certificate for ``localhost`` and ``127.0.0.1``, valid for a
hundred years, and ``tls/server.key`` its key, made for these tests only with::

    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 36500 \\
      -subj "/CN=localhost" -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" \\
      -keyout server.key -out server.pem
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from concurrent import futures
from dataclasses import dataclass, field
from pathlib import Path

import grpc
from google.protobuf import any_pb2
from google.rpc import error_details_pb2, status_pb2

from ordo.v1 import engine_service_pb2 as api

SERVICE = "ordo.v1.GameEngineService"
TLS = Path(__file__).resolve().parent / "tls"
CERTIFICATE = TLS / "server.pem"  # also the root a client trusts to reach the server
DETAILS_KEY = "grpc-status-details-bin"
WAITING_SECONDS = 0.5  # how long a call must stay unanswered to show that it waits


@dataclass
class Received:
    """One call the fake server received."""

    metadata: dict[str, str]
    peer: str
    time_remaining: float | None = None  # the seconds left before the call's deadline


@dataclass
class FakeServer:
    """A GameEngineService whose ListGames fails with scripted codes, then answers."""

    address: str
    failures: list[grpc.StatusCode] = field(default_factory=list)
    calls: list[Received] = field(default_factory=list)
    received: threading.Event = field(default_factory=threading.Event)  # set at the first call
    # Rich status details to send with the next failure (their code may contradict its code).
    details: status_pb2.Status | None = None
    pauses: list[float] = field(default_factory=list)  # seconds each call waits, in turn

    def list_games(
        self, request: api.ListGamesRequest, context: grpc.ServicerContext
    ) -> api.ListGamesResponse:
        metadata = {key: str(value) for key, value in context.invocation_metadata()}
        self.calls.append(Received(metadata, context.peer(), context.time_remaining()))
        self.received.set()
        if self.pauses:
            time.sleep(self.pauses.pop(0))
        if self.failures:
            if self.details is not None:
                context.set_trailing_metadata(((DETAILS_KEY, self.details.SerializeToString()),))
            context.abort(self.failures.pop(0), "scripted failure")
        return api.ListGamesResponse()


@contextlib.contextmanager
def running_fake(port: int = 0) -> Iterator[FakeServer]:
    """Start a fake server on a loopback port (a free one by default); stop it afterwards."""
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    port = server.add_insecure_port(f"127.0.0.1:{port}")
    fake = FakeServer(f"127.0.0.1:{port}")
    handler = grpc.unary_unary_rpc_method_handler(
        fake.list_games,
        request_deserializer=api.ListGamesRequest.FromString,
        response_serializer=api.ListGamesResponse.SerializeToString,
    )
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler(SERVICE, {"ListGames": handler}),)
    )
    server.start()
    yield fake
    server.stop(None)


def closed_port() -> int:
    """A loopback port nothing listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def details(code: grpc.StatusCode, reason: str, **metadata: str) -> status_pb2.Status:
    """A rich status of ``code`` with one ErrorInfo of ``reason`` and ``metadata``."""
    detail = any_pb2.Any()
    detail.Pack(error_details_pb2.ErrorInfo(reason=reason, domain="ordo", metadata=metadata))
    return status_pb2.Status(code=code.value[0], message="scripted failure", details=[detail])


def server_credentials() -> grpc.ServerCredentials:
    """The TLS credentials of a test server: the test certificate and its key."""
    key = (TLS / "server.key").read_bytes()
    return grpc.ssl_server_credentials([(key, CERTIFICATE.read_bytes())])


def trusting_credentials() -> grpc.ChannelCredentials:
    """Client credentials that trust the test certificate, and nothing else."""
    return grpc.ssl_channel_credentials(root_certificates=CERTIFICATE.read_bytes())
