"""End to end: SIGTERM while a call is in flight on the HTTP door.

The call that had reached the service finishes and is answered; once the worker drains, its
health path never says SERVING and new connections are refused; the server exits 0.
"""

from __future__ import annotations

import http.client
import json
import signal
import socket
import time
from pathlib import Path

import pytest

from tests.connect_calls import held_call
from tests.e2e.server_process import (
    HOST,
    POLL_SECONDS,
    STOP_SECONDS,
    ServerProcess,
    events,
    read_log,
    running_server,
)

pytestmark = pytest.mark.e2e

REQUEST_ID = "drain-http-1"
BODY = json.dumps({"seats": 4, "seed": 7, "options": {"sixNimmt": {}}}).encode()
CONNECT_SECONDS = 5.0  # bound on a /healthz answer on a busy machine
HOLD_SECONDS = 1.0  # the call stays in flight this long into the drain (the grace is longer)


def start_call(server: ServerProcess) -> socket.socket:
    """A Connect JSON NewGame whose head is sent and whose body is held back, on a socket of its
    own: once the server has answered ``100 Continue``, the call is in the service's hands."""
    return held_call(f"{HOST}:{server.http_port}", BODY, REQUEST_ID, STOP_SECONDS)


def health(server: ServerProcess) -> int | None:
    """The status of /healthz on a new connection; 0 when the connection was closed unanswered
    (the worker closes those it accepted as it stopped listening), None when it is refused."""
    connection = http.client.HTTPConnection(HOST, server.http_port, timeout=CONNECT_SECONDS)
    try:
        connection.request("GET", "/healthz")
        return connection.getresponse().status
    except ConnectionRefusedError:
        return None
    except ConnectionError:
        return 0
    finally:
        connection.close()


def test_sigterm_finishes_the_call_in_flight_and_refuses_new_connections(
    tmp_path: Path,
) -> None:
    """The call in flight at SIGTERM is answered OK, then its connection closed; after the
    draining line /healthz never answers 200 and new connections are soon refused; the server
    exits 0."""
    with running_server(tmp_path, workers=1, grace_seconds="20") as server:
        assert health(server) == 200
        sock = start_call(server)
        server.process.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + STOP_SECONDS
        while not events(server.log, "draining"):
            assert time.monotonic() < deadline, read_log(server.log)
            time.sleep(POLL_SECONDS)
        statuses = []
        while (status := health(server)) is not None:
            statuses.append(status)
            assert time.monotonic() < deadline, statuses
            time.sleep(POLL_SECONDS)
        assert set(statuses) <= {503, 0}

        time.sleep(HOLD_SECONDS)
        sock.sendall(BODY)
        response = http.client.HTTPResponse(sock)
        response.begin()
        answer = json.loads(response.read())
        closed = sock.recv(1) == b""  # the server keeps no connection alive as it drains
        sock.close()
        assert response.status == 200
        assert answer["status"]["seatsToAct"] == [0, 1, 2, 3]
        assert closed
        assert server.process.wait(timeout=STOP_SECONDS) == 0

    (line,) = [line for line in events(server.log, "rpc") if line["request_id"] == REQUEST_ID]
    assert (line["code"], line["protocol"]) == ("OK", "connect")
    assert events(server.log, "stopped")
