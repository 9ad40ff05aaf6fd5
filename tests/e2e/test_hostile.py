"""End to end: hostile traffic against a server on its defaults.

Uploads left unfinished cannot run a worker out of memory, and calls go on meanwhile; a drain
ends as soon as the calls do, whatever idle connections and streams clients keep open, and logs
no error.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import signal
import socket
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from pathlib import Path

import pytest

from bench.soak import rss_mb, worker_pids
from ordo import Client
from service.config import WORKER_RSS_CEILING_MB
from tests.e2e.server_process import HOST, ServerProcess, read_log, running_server
from tests.service.test_idle_streams import idle_streams

pytestmark = pytest.mark.e2e

HOLDERS = 1_000  # connections that each hold an unfinished body
BODY_BYTES = 1 << 20  # each one's declared length: the largest request allowed
SENDERS = 16  # threads that open them
CONNECT_SECONDS = 30.0  # bound on a socket operation on a loaded machine
GRACE_SECONDS = "60"  # a drain that waited for idle connections would take this long
H2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
H2_EMPTY_SETTINGS = b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"


def hold(server: ServerProcess) -> socket.socket:
    """A Connect call whose body is sent but for its last byte, left open."""
    sock = socket.create_connection((HOST, server.http_port), timeout=CONNECT_SECONDS)
    head = (
        "POST /ordo.v1.GameEngineService/NewGame HTTP/1.1\r\n"
        f"Host: {HOST}\r\nContent-Type: application/proto\r\nContent-Length: {BODY_BYTES}\r\n\r\n"
    )
    with contextlib.suppress(OSError):  # refused and closed before all was sent: holds nothing
        sock.sendall(head.encode() + bytes(BODY_BYTES - 1))
    return sock


def calls_succeed(server: ServerProcess) -> None:
    """A call on each door is answered."""
    with Client(server.target, timeout=CONNECT_SECONDS) as client:
        assert client.list_games().games
    connection = http.client.HTTPConnection(HOST, server.http_port, timeout=CONNECT_SECONDS)
    try:
        body = json.dumps({"seats": 4, "seed": 7, "options": {"sixNimmt": {}}}).encode()
        path = "/ordo.v1.GameEngineService/NewGame"
        connection.request("POST", path, body, {"Content-Type": "application/json"})
        response = connection.getresponse()
        assert (response.status, json.loads(response.read())["status"]["seatsToAct"]) == (
            200,
            [0, 1, 2, 3],
        )
    finally:
        connection.close()


class TestUnfinishedUploads:
    """Bodies left unfinished cost a worker at most its body budget."""

    def test_a_thousand_unfinished_bodies_leave_workers_below_their_ceiling(
        self, tmp_path: Path
    ) -> None:
        """1,000 connections that each send all but the last byte of a 1 MiB request: every
        worker stays below its memory ceiling, and calls are answered during and after."""
        with running_server(tmp_path, workers=2) as server, ExitStack() as held:
            workers = worker_pids(server.process.pid)
            with ThreadPoolExecutor(SENDERS) as pool:
                for sock in pool.map(lambda _: hold(server), range(HOLDERS)):
                    held.callback(sock.close)
            calls_succeed(server)
            during = [rss_mb(pid) for pid in workers]
            held.close()
            calls_succeed(server)
        assert all(mb is not None and mb < WORKER_RSS_CEILING_MB for mb in during), during


@contextmanager
def idle_connections(server: ServerProcess) -> Iterator[None]:
    """An idle HTTP/2 connection to each door that ignores the GOAWAY, an idle HTTP/1.1 one to
    the HTTP door, and idle health Watch and reflection streams."""
    with ExitStack() as stack:
        for port in (server.port, server.http_port):
            sock = stack.enter_context(socket.create_connection((HOST, port)))
            sock.sendall(H2_PREFACE + H2_EMPTY_SETTINGS)
        sock = stack.enter_context(socket.create_connection((HOST, server.http_port)))
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        stack.enter_context(idle_streams(server.target, 2))
        yield


class TestDrain:
    """A drain ends when the calls end, and logs no error."""

    def test_idle_connections_and_streams_do_not_hold_a_drain(self, tmp_path: Path) -> None:
        """With idle connections to both doors and idle streams, SIGTERM ends the server far
        within its grace period (gRPC would wait the whole of it for the idle HTTP/2
        connection), exit code 0, and nothing is logged at error level."""
        with (
            running_server(tmp_path, workers=1, grace_seconds=GRACE_SECONDS) as server,
            idle_connections(server),
        ):
            server.process.send_signal(signal.SIGTERM)
            code = server.process.wait(timeout=float(GRACE_SECONDS) / 3)
        assert code == 0
        lines = [json.loads(line) for line in read_log(server.log).splitlines() if line]
        assert [line for line in lines if line["level"] in {"error", "critical"}] == []
