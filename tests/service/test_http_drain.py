"""The HTTP door's drain keeps no connection alive: one made after the drain began is closed at
once, unserved, as uvicorn closes those it knew of.

uvicorn asks each of its connections to close as its drain begins; a connection accepted just
before the listener closed is made a moment later and was never asked, so an HTTP/1.1 client
kept calling it, kept alive, for the whole grace period. The test hands the door's event loop a
connection the way its listener does (``connect_accepted_socket``), once the drain has begun.
"""

from __future__ import annotations

import asyncio
import json
import socket
import time

import structlog

from service.calls.servicer import GameEngineServicer
from service.config import Settings
from service.doors.http_door import HttpServer, http_door
from tests.connect_calls import held_call

HOST = "127.0.0.1"
WAIT_SECONDS = 10.0
POLL_SECONDS = 0.02
BODY = json.dumps({"seats": 2, "seed": 7, "options": {"sixNimmt": {}}}).encode()


def listening(port: int) -> bool:
    """Whether the door still takes connections on ``port``."""
    try:
        socket.create_connection((HOST, port), timeout=WAIT_SECONDS).close()
    except ConnectionRefusedError:
        return False
    return True


def hand_over(door: HttpServer, sock: socket.socket) -> None:
    """Hand ``sock`` to the door's event loop as its listener hands an accepted connection."""
    server = door._server  # uvicorn's server: its loop, its protocol and their shared state
    loop = server.servers[0].get_loop()
    config = server.config

    def protocol() -> asyncio.Protocol:
        made: asyncio.Protocol = config.http_protocol_class(  # type: ignore[call-arg]
            config=config, server_state=server.server_state, app_state={}
        )
        return made

    accepted = loop.connect_accepted_socket(protocol, sock)
    asyncio.run_coroutine_threadsafe(accepted, loop).result(WAIT_SECONDS)


class TestDrain:
    """A draining door serves no connection it did not already serve."""

    def test_a_connection_made_after_the_drain_began_is_closed_unserved(self) -> None:
        """Once the door stopped listening, a connection handed to it is closed without an
        answer, and the call held in progress is answered, its connection closed after it."""
        settings = Settings(host=HOST, port=0, http_port=0, metrics_port=0, grace_seconds=30.0)
        door = http_door(settings, GameEngineServicer(), (), structlog.get_logger())
        door.start()
        held = held_call(f"{HOST}:{door.port}", BODY, "held", WAIT_SECONDS)
        door.stop()
        deadline = time.monotonic() + WAIT_SECONDS
        while listening(door.port):
            assert time.monotonic() < deadline, "the door never stopped listening"
            time.sleep(POLL_SECONDS)
        ours, theirs = socket.socketpair()
        hand_over(door, theirs)
        ours.settimeout(WAIT_SECONDS)
        try:
            ours.sendall(b"GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n")
            answer = ours.recv(1024)
        except (BrokenPipeError, ConnectionResetError):
            answer = b""
        assert answer == b"", answer  # closed, unanswered
        ours.close()
        held.sendall(BODY)
        answer = b""
        while chunk := held.recv(65536):
            answer += chunk
        held.close()
        assert answer.startswith(b"HTTP/1.1 200"), answer[:100]
        door.wait()
