"""The HTTP door against hostile and broken clients: what it refuses, how, and what it holds.

Bytes the Connect library cannot read are the caller's error (a 4xx, or gRPC's
INVALID_ARGUMENT), never a traceback or an INTERNAL; requests past the worker's limits are
refused with RESOURCE_EXHAUSTED before their bodies are read; slow heads and bodies are cut off.
"""

from __future__ import annotations

import contextlib
import logging
import socket
import struct
import threading
from collections.abc import Callable
from pathlib import Path

import grpc
import pytest

from service.doors.http_door import HEALTH_PATH
from service.doors.http_guard import MALFORMED, OVERLOADED, TOO_SLOW
from tests.conformance.drivers import reason_of
from tests.connect_calls import SERVICE_PATH
from tests.service.test_http import Recorder, StartDoor, start_door

__all__ = ["start_door"]  # the fixture, shared with the door's other tests

HOST = "127.0.0.1"
SOCKET_SECONDS = 30.0  # bound on any wait for the door on a loaded machine
TIMEOUT_SECONDS = 0.5  # the head and body timeouts of the tests that meet them
WAIT_STEP_SECONDS = 0.01
LONGEST_NAME = 255  # bytes in a file name on Linux
H2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
H2_EMPTY_SETTINGS = b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"
H2_GOAWAY = 0x07
LIST_GAMES = SERVICE_PATH + "ListGames"


def head(path: str, *headers: bytes, method: bytes = b"POST") -> bytes:
    """An HTTP/1.1 request head with ``headers`` (each a whole line, without its end)."""
    lines = [method + b" " + path.encode() + b" HTTP/1.1", b"Host: " + HOST.encode(), *headers]
    return b"\r\n".join(lines) + b"\r\n\r\n"


def post(path: str, body: bytes, *headers: bytes) -> bytes:
    """A whole HTTP/1.1 POST with ``body``."""
    return head(path, *headers, b"Content-Length: %d" % len(body)) + body


def exchange(port: int, request: bytes) -> bytes:
    """Send ``request`` on a connection of its own; everything the door answers until it closes
    the connection or goes quiet."""
    with socket.create_connection((HOST, port), timeout=SOCKET_SECONDS) as sock:
        sock.sendall(request)
        sock.shutdown(socket.SHUT_WR)
        return read_all(sock)


def read_all(sock: socket.socket) -> bytes:
    """What the door sends until it closes the connection."""
    answer = b""
    while chunk := sock.recv(65536):
        answer += chunk
    return answer


def status_of(answer: bytes) -> int:
    """The status of a raw HTTP/1.1 answer."""
    return int(answer.split(b" ", 2)[1])


def grpc_status_of(answer: bytes) -> bytes | None:
    """The grpc-status header of a raw HTTP/1.1 answer, if any."""
    for line in answer.split(b"\r\n\r\n", 1)[0].split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.lower() == b"grpc-status":
            return value.strip()
    return None


def wait_for(condition: Callable[[], bool]) -> None:
    """Return once ``condition`` holds (the door's event loop gets there on its own)."""
    done = threading.Event()
    for _ in range(int(SOCKET_SECONDS / WAIT_STEP_SECONDS)):
        if condition():
            return
        done.wait(WAIT_STEP_SECONDS)
    raise AssertionError("the door never got there")


JSON = b"Content-Type: application/json"
GRPC_WEB = b"Content-Type: application/grpc-web+proto"
EMPTY_FRAME = b"\x00\x00\x00\x00\x00"
COMPRESSED_FRAME = b"\x01\x00\x00\x00\x00"  # flagged as compressed
# Each request a broken or hostile client sends, once failed inside the library (a 5xx or
# gRPC's INTERNAL or UNKNOWN, a traceback, an INTERNAL counted), and how the door answers now:
# an HTTP status, or gRPC's status (3: INVALID_ARGUMENT) in the headers of a 200.
GARBAGE = {
    "header value not UTF-8": (post(LIST_GAMES, b"{}", JSON, b"X-Junk: \xff\xfe"), 400),
    "content type not UTF-8": (post(LIST_GAMES, b"{}", b"Content-Type: application/js\xffon"), 400),
    "gRPC-Web header not UTF-8": (post(LIST_GAMES, EMPTY_FRAME, GRPC_WEB, b"X-J: \xff"), b"3"),
    "Content-Encoding br": (post(LIST_GAMES, b"{}", JSON, b"Content-Encoding: br"), 400),
    "Content-Encoding zstd": (post(LIST_GAMES, b"{}", JSON, b"Content-Encoding: zstd"), 400),
    "Content-Encoding deflate": (post(LIST_GAMES, b"{}", JSON, b"Content-Encoding: deflate"), 400),
    "grpc-encoding br": (post(LIST_GAMES, EMPTY_FRAME, GRPC_WEB, b"Grpc-Encoding: br"), b"3"),
    "gRPC-Web compressed, no encoding": (post(LIST_GAMES, COMPRESSED_FRAME, GRPC_WEB), b"3"),
    "gRPC over HTTP/1.1": (
        post(LIST_GAMES, EMPTY_FRAME, b"Content-Type: application/grpc", b"TE: trailers"),
        b"3",
    ),
}  # fmt: skip


class TestGarbage:
    """What the library cannot read is refused as the caller's error, never a traceback."""

    @pytest.mark.parametrize("name", sorted(GARBAGE))
    def test_refused_as_invalid_argument(
        self, start_door: StartDoor, caplog: pytest.LogCaptureFixture, name: str
    ) -> None:
        """The answer is a 4xx or gRPC's INVALID_ARGUMENT; the call is counted and logged as
        INVALID_ARGUMENT with reason MALFORMED_REQUEST; nothing is logged at error level; the
        door serves the next call."""
        request, expected = GARBAGE[name]
        recorder = Recorder()
        client, server = start_door((recorder,))
        with caplog.at_level(logging.WARNING):
            answer = exchange(server.port, request)
        if isinstance(expected, int):
            assert status_of(answer) == expected, answer
        else:
            assert (status_of(answer), grpc_status_of(answer)) == (200, expected), answer
        (call,) = recorder.wait_for(1)
        assert (call.method, call.code, call.reason) == ("ListGames", "INVALID_ARGUMENT", MALFORMED)
        assert [record for record in caplog.records if record.levelno >= logging.ERROR] == []
        assert client.call("connect-json", "ListGames", b"{}").status == 200

    def test_grpc_with_an_unknown_encoding(self, start_door: StartDoor) -> None:
        """gRPC (HTTP/2) with a message encoding the library lacks (deflate): INVALID_ARGUMENT
        in the trailers, with reason MALFORMED_REQUEST."""
        recorder = Recorder()
        _, server = start_door((recorder,))
        with grpc.insecure_channel(f"{HOST}:{server.port}") as channel:
            method = channel.unary_unary(LIST_GAMES)
            with pytest.raises(grpc.RpcError) as raised:
                method(b"", timeout=SOCKET_SECONDS, compression=grpc.Compression.Deflate)
            assert method(b"", timeout=SOCKET_SECONDS)
        assert raised.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert reason_of(raised.value) == MALFORMED
        assert recorder.wait_for(2)[0].code == "INVALID_ARGUMENT"

    @pytest.mark.parametrize(
        "path", ["/%00", "/assets/%00.js", "/" + "a" * (LONGEST_NAME + 1), "/a/" + "b" * 5000]
    )
    def test_file_names_no_file_can_have(
        self, start_door: StartDoor, tmp_path: Path, caplog: pytest.LogCaptureFixture, path: str
    ) -> None:
        """A playground path with a NUL byte or a name longer than a file name can be: 404, no
        error logged."""
        (tmp_path / "index.html").write_text("<!doctype html>")
        client, server = start_door()
        server.app.static_dir = tmp_path
        with caplog.at_level(logging.WARNING):
            status, _, body = client.request("GET", path)
        assert (status, body) == (404, b"Not found.\n")
        assert [record for record in caplog.records if record.levelno >= logging.ERROR] == []


class TestHealthMethods:
    """The health path answers reads only."""

    @pytest.mark.parametrize("method", ["GET", "HEAD"])
    def test_reads(self, start_door: StartDoor, method: str) -> None:
        """GET and HEAD: 200."""
        client, _ = start_door()
        assert client.request(method, HEALTH_PATH)[0] == 200

    @pytest.mark.parametrize("method", ["DELETE", "POST", "PUT", "PATCH"])
    def test_anything_else(self, start_door: StartDoor, method: str) -> None:
        """Any other method: 405 with the methods allowed."""
        client, _ = start_door()
        status, headers, _ = client.request(method, HEALTH_PATH)
        assert (status, headers["allow"]) == (405, "GET, HEAD")


def holding(port: int, length: int, sent: int) -> socket.socket:
    """A Connect call of a ``length``-byte body whose head and first ``sent`` bytes are sent;
    returns once the door has taken it in (answered its ``100 Continue``)."""
    sock = socket.create_connection((HOST, port), timeout=SOCKET_SECONDS)
    request = head(
        LIST_GAMES,
        b"Content-Type: application/proto",
        b"Content-Length: %d" % length,
        b"Expect: 100-continue",
    )
    sock.sendall(request)
    answer = b""
    while not answer.endswith(b"\r\n\r\n"):
        answer += sock.recv(1)
    assert answer.startswith(b"HTTP/1.1 100"), answer
    sock.sendall(bytes(sent))
    return sock


class TestLimits:
    """Requests past the worker's limits are refused before their bodies are read."""

    def test_requests_in_progress(self, start_door: StartDoor) -> None:
        """With as many requests in progress as allowed, the next is refused with
        RESOURCE_EXHAUSTED (429, reason OVERLOADED); those in progress are answered, and once
        they are, calls are taken again."""
        recorder = Recorder()
        client, server = start_door((recorder,), http_max_requests=2)
        held = [holding(server.port, 10, 0) for _ in range(2)]
        refused = client.call("connect-json", "ListGames", b"{}")
        assert (refused.status, refused.code.name) == (429, "RESOURCE_EXHAUSTED")
        (call,) = recorder.wait_for(1)
        assert (call.code, call.reason) == ("RESOURCE_EXHAUSTED", OVERLOADED)
        for sock in held:
            sock.sendall(bytes(10))
            assert status_of(sock.recv(65536)) == 200
            sock.close()
        assert client.call("connect-json", "ListGames", b"{}").status == 200

    def test_body_bytes_held(self, start_door: StartDoor) -> None:
        """Large bodies left unfinished fill the byte budget but for its reserve: the next
        large one is refused with RESOURCE_EXHAUSTED and its connection closed, while small
        calls still get in."""
        client, server = start_door(max_request_bytes=100_000, http_body_budget_bytes=200_000)
        first = holding(server.port, 100_000, 90_000)
        wait_for(lambda: server.app.budget.held == 90_000)
        second = holding(server.port, 100_000, 0)
        with contextlib.suppress(OSError):  # refused and closed before all of it was sent
            second.sendall(bytes(90_000))
        answer = read_all(second)
        second.close()
        assert status_of(answer) == 429
        assert b"resource_exhausted" in answer
        assert client.call("connect-proto", "ListGames", b"").status == 200
        first.sendall(bytes(10_000))
        assert status_of(first.recv(65536)) == 200
        first.close()
        wait_for(lambda: server.app.budget.held == 0)


class TestTimeouts:
    """Heads and bodies that arrive too slowly are cut off."""

    def test_slow_head(self, start_door: StartDoor) -> None:
        """A head left unfinished: the connection is closed once the head timeout is over."""
        _, server = start_door(http_header_timeout_seconds=TIMEOUT_SECONDS)
        with socket.create_connection((HOST, server.port), timeout=SOCKET_SECONDS) as sock:
            sock.sendall(b"POST " + LIST_GAMES.encode() + b" HTTP/1.1\r\nHo")
            assert read_all(sock) == b""

    def test_slow_head_of_a_second_request(self, start_door: StartDoor) -> None:
        """The same for the next request on a kept-alive connection."""
        _, server = start_door(http_header_timeout_seconds=TIMEOUT_SECONDS)
        with socket.create_connection((HOST, server.port), timeout=SOCKET_SECONDS) as sock:
            sock.sendall(head(HEALTH_PATH, method=b"GET") + b"GET /healthz HTTP/1.1\r\nHo")
            assert status_of(read_all(sock)) == 200

    def test_slow_http2_head(self, start_door: StartDoor) -> None:
        """An HTTP/2 connection that starts a HEADERS frame and never ends it: a GOAWAY, and the
        connection is closed."""
        _, server = start_door(http_header_timeout_seconds=TIMEOUT_SECONDS)
        with socket.create_connection((HOST, server.port), timeout=SOCKET_SECONDS) as sock:
            headers_frame = struct.pack(">I", 100)[1:] + b"\x01\x04" + struct.pack(">I", 1)
            sock.sendall(H2_PREFACE + H2_EMPTY_SETTINGS + headers_frame + b"\x00" * 10)
            answer = read_all(sock)
        frames = []
        while len(answer) >= 9:
            length, kind = int.from_bytes(answer[:3], "big"), answer[3]
            frames.append(kind)
            answer = answer[9 + length :]
        assert frames[-1] == H2_GOAWAY, frames

    def test_slow_body(self, start_door: StartDoor) -> None:
        """A body left unfinished: once the body timeout is over, the call is CANCELLED (408
        for Connect, reason REQUEST_TOO_SLOW) and the connection closed."""
        recorder = Recorder()
        _, server = start_door((recorder,), http_body_timeout_seconds=TIMEOUT_SECONDS)
        sock = holding(server.port, 10, 5)
        answer = read_all(sock)
        sock.close()
        assert status_of(answer) == 408
        (call,) = recorder.wait_for(1)
        assert (call.code, call.reason) == ("CANCELLED", TOO_SLOW)
