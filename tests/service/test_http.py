"""The HTTP door: the same service over Connect (binary and JSON), gRPC-Web and gRPC, with the same
answers, the same errors, CORS for browsers, a health path, and the web playground's files."""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, ClassVar

import grpc
import pytest
import structlog
from google.protobuf import json_format, message_factory

from engines import registry
from ordo.v1 import common_pb2 as common
from ordo.v1 import engine_service_pb2 as api
from service.calls.call_path import REQUEST_ID_KEY, SERVICE
from service.calls.servicer import GameEngineServicer
from service.config import Settings
from service.doors.http_door import HEALTH_PATH, UNKNOWN_METHOD, HttpServer, http_door
from service.telemetry.observe import CallRecord
from tests.connect_calls import PROTOCOLS, SERVICE_PATH, HttpDoor
from tests.seat_calls import HOSTED_METHODS
from tests.service.test_robustness import raw_call, sample_requests

GAMES = sorted(registry.ENGINES)
# The stateless methods: those of hosted tables go through both doors in test_tables.
METHODS = [method.name for method in SERVICE.methods if method.name not in HOSTED_METHODS]
BINARY_PROTOCOLS = [protocol for protocol in PROTOCOLS if protocol != "connect-json"]
ORIGIN = "https://play.example"
SETTLE_SECONDS = 10.0


def message_types(method: str) -> tuple[Any, Any]:
    """The request and response classes of a method."""
    descriptor = SERVICE.methods_by_name[method]
    return (
        message_factory.GetMessageClass(descriptor.input_type),
        message_factory.GetMessageClass(descriptor.output_type),
    )


def as_json(method: str, payload: bytes) -> bytes:
    """A serialized request as the JSON a browser or curl would send."""
    request_type, _ = message_types(method)
    return json_format.MessageToJson(request_type.FromString(payload)).encode()


def call(client: HttpDoor, protocol: str, method: str, payload: bytes, **headers: str) -> Any:
    """Call ``method`` with a serialized request over ``protocol`` (JSON made from it for
    Connect JSON)."""
    if protocol == "connect-json":
        payload = as_json(method, payload)
    return client.call(protocol, method, payload, headers)


def grpc_answer(channel: grpc.Channel, method: str, payload: bytes) -> bytes:
    """The gRPC door's answer, as bytes."""
    answer: bytes = channel.unary_unary(SERVICE_PATH + method)(payload, timeout=30)
    return answer


@pytest.fixture(scope="module")
def samples() -> dict[str, dict[str, bytes]]:
    """Valid requests of every game and method."""
    return {game: sample_requests(game) for game in GAMES}


@pytest.fixture(scope="module")
def client(http_address: str) -> Iterator[HttpDoor]:
    """A client of the session server's HTTP door."""
    door = HttpDoor(http_address)
    yield door
    door.close()


class Recorder:
    """Keeps every finished call, and tells when one has finished."""

    def __init__(self) -> None:
        self.calls: list[CallRecord] = []
        self.started: list[CallRecord] = []
        self._changed = threading.Condition()

    def call_started(self, call: CallRecord) -> None:
        self.started.append(call)

    def call_finished(self, call: CallRecord) -> None:
        with self._changed:
            self.calls.append(call)
            self._changed.notify_all()

    def wait_for(self, count: int) -> list[CallRecord]:
        """The finished calls, once there are ``count``."""
        with self._changed:
            assert self._changed.wait_for(lambda: len(self.calls) >= count, SETTLE_SECONDS)
            return list(self.calls)


StartDoor = Callable[..., tuple[HttpDoor, HttpServer]]


@pytest.fixture
def start_door() -> Iterator[StartDoor]:
    """Start HTTP doors on free ports with the given settings and observers."""
    running: list[tuple[HttpDoor, HttpServer]] = []

    def start(observers: tuple[Any, ...] = (), **settings: Any) -> tuple[HttpDoor, HttpServer]:
        # A free port: the door's socket shares its port (SO_REUSEPORT), so on the default one
        # a server running on this machine would answer some of the test's calls.
        chosen = Settings(
            host="127.0.0.1", port=0, http_port=0, workers=1, metrics_port=0, **settings
        )
        server = http_door(chosen, GameEngineServicer(), observers, structlog.get_logger())
        server.start()
        running.append((HttpDoor(f"127.0.0.1:{server.port}"), server))
        return running[-1]

    yield start
    for client, server in running:
        client.close()
        server.stop()
        server.wait()


class TestSameAnswers:
    """Every RPC answers the same through each protocol of the HTTP door as through gRPC."""

    @pytest.mark.parametrize("protocol", BINARY_PROTOCOLS)
    @pytest.mark.parametrize("game", GAMES)
    def test_binary_answers_are_the_same_bytes(
        self,
        channel: grpc.Channel,
        client: HttpDoor,
        samples: dict[str, dict[str, bytes]],
        game: str,
        protocol: str,
    ) -> None:
        """Connect binary, gRPC-Web and gRPC on the HTTP port answer byte for byte as gRPC."""
        for method in METHODS:
            payload = samples[game][method]
            expected = grpc_answer(channel, method, payload)
            answer = call(client, protocol, method, payload)
            assert answer.code == grpc.StatusCode.OK, (method, answer)
            assert answer.body == expected, method

    @pytest.mark.parametrize("game", GAMES)
    def test_json_answers_are_the_same_messages(
        self,
        channel: grpc.Channel,
        client: HttpDoor,
        samples: dict[str, dict[str, bytes]],
        game: str,
    ) -> None:
        """Connect JSON answers with the message gRPC gives, in protobuf's JSON mapping."""
        for method in METHODS:
            payload = samples[game][method]
            _, response_type = message_types(method)
            expected = response_type.FromString(grpc_answer(channel, method, payload))
            answer = call(client, "connect-json", method, payload)
            assert answer.code == grpc.StatusCode.OK, (method, answer)
            assert answer.headers["content-type"] == "application/json"
            assert json_format.Parse(answer.body, response_type()) == expected, method

    @pytest.mark.parametrize("protocol", PROTOCOLS)
    def test_request_id_comes_back(self, client: HttpDoor, protocol: str) -> None:
        """The caller's x-request-id comes back, in the headers (Connect) or the trailers."""
        answer = call(client, protocol, "ListGames", b"", **{"X-Request-Id": "walk-1"})
        assert answer.headers[REQUEST_ID_KEY] == "walk-1"


class TestSameErrors:
    """A bad request gets the same code and reason through every protocol as through gRPC."""

    @pytest.mark.parametrize("protocol", PROTOCOLS)
    @pytest.mark.parametrize(
        ("method", "request_message"),
        [
            ("NewGame", api.NewGameRequest(seats=2)),
            ("NewGame", api.NewGameRequest(seats=99, options=common.GameOptions(six_nimmt={}))),
            ("ApplyAction", api.ApplyActionRequest()),
            ("GetView", api.GetViewRequest()),
            ("SuggestAction", api.SuggestActionRequest()),
        ],
    )
    def test_same_reason(
        self,
        channel: grpc.Channel,
        client: HttpDoor,
        protocol: str,
        method: str,
        request_message: Any,
    ) -> None:
        """Missing parts and bad options: INVALID_ARGUMENT with the gRPC door's reason."""
        payload = request_message.SerializeToString()
        expected = raw_call(channel, method, payload)
        assert expected[0] == grpc.StatusCode.INVALID_ARGUMENT
        answer = call(client, protocol, method, payload)
        assert (answer.code, answer.reason) == expected

    @pytest.mark.parametrize("protocol", PROTOCOLS)
    def test_illegal_action(
        self,
        channel: grpc.Channel,
        client: HttpDoor,
        samples: dict[str, dict[str, bytes]],
        protocol: str,
    ) -> None:
        """An action of a seat the game does not have is refused with the same reason."""
        request = api.ApplyActionRequest.FromString(samples["up_or_down"]["ApplyAction"])
        request.action.seat = 99
        payload = request.SerializeToString()
        expected = raw_call(channel, "ApplyAction", payload)
        assert expected[0] == grpc.StatusCode.INVALID_ARGUMENT
        answer = call(client, protocol, "ApplyAction", payload)
        assert (answer.code, answer.reason) == expected

    @pytest.mark.parametrize("protocol", BINARY_PROTOCOLS)
    def test_unparsable_bytes(self, client: HttpDoor, protocol: str) -> None:
        """Bytes that are no message: MALFORMED_REQUEST, as through gRPC."""
        answer = client.call(protocol, "ApplyAction", b"\xff\xff\xff\xff")
        assert (answer.code, answer.reason) == (
            grpc.StatusCode.INVALID_ARGUMENT,
            "MALFORMED_REQUEST",
        )

    @pytest.mark.parametrize(
        "body",
        [b'{"seats": 4,', b'{"seats": "many"}', b'{"noSuchField": 1}', b"\xff\xfe"],
    )
    def test_malformed_json(self, client: HttpDoor, body: bytes) -> None:
        """JSON that does not parse into the request: 400 with MALFORMED_REQUEST."""
        answer = client.call("connect-json", "NewGame", body)
        assert (answer.status, answer.code, answer.reason) == (
            400,
            grpc.StatusCode.INVALID_ARGUMENT,
            "MALFORMED_REQUEST",
        )

    def test_internal_errors_say_nothing(
        self, start_door: StartDoor, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """An unexpected failure is INTERNAL with reason INTERNAL and a generic message."""

        def broken(self: Any, request: Any, call: Any, token: str) -> Any:
            raise RuntimeError("secret detail that must not reach the caller")

        monkeypatch.setattr(GameEngineServicer, "ListGames", broken)
        client, _ = start_door()
        answer = client.call("connect-json", "ListGames", b"{}")
        assert (answer.status, answer.code) == (500, grpc.StatusCode.INTERNAL)
        assert answer.message == "internal error"
        assert b"secret" not in answer.body


class TestRefusedRequests:
    """What the protocol refuses before a method: the error it defines, counted and logged like
    a call, and the worker keeps serving."""

    def test_unknown_method(self, start_door: StartDoor) -> None:
        """An unknown method: 404 for Connect, UNIMPLEMENTED for gRPC-Web and gRPC."""
        recorder = Recorder()
        client, _ = start_door((recorder,))
        assert client.call("connect-json", "Teleport", b"{}").status == 404
        assert client.call("grpc-web", "Teleport", b"").code == grpc.StatusCode.UNIMPLEMENTED
        assert client.call("grpc-http", "Teleport", b"").code == grpc.StatusCode.UNIMPLEMENTED
        calls = recorder.wait_for(3)
        assert {(c.method, c.code) for c in calls} == {(UNKNOWN_METHOD, "UNIMPLEMENTED")}
        assert [c.protocol for c in calls] == ["connect", "grpc-web", "grpc-http"]
        assert client.call("connect-json", "ListGames", b"{}").code == grpc.StatusCode.OK

    def test_wrong_content_type(self, start_door: StartDoor) -> None:
        """A content type that no protocol speaks: 415, with the types Connect accepts."""
        recorder = Recorder()
        client, _ = start_door((recorder,))
        status, headers, _ = client.post(
            SERVICE_PATH + "ListGames", b"{}", {"Content-Type": "text/plain"}
        )
        assert status == 415
        assert "application/json" in headers["accept-post"]
        (refused,) = recorder.wait_for(1)
        assert (refused.method, refused.code) == ("ListGames", "INVALID_ARGUMENT")
        assert client.call("connect-json", "ListGames", b"{}").code == grpc.StatusCode.OK

    @pytest.mark.parametrize("protocol", PROTOCOLS)
    def test_body_over_the_limit(self, start_door: StartDoor, protocol: str) -> None:
        """A request over --max-request-bytes: RESOURCE_EXHAUSTED, never read into a call."""
        recorder = Recorder()
        client, _ = start_door((recorder,), max_request_bytes=1000)
        request = api.NewGameRequest(seats=2, options=common.GameOptions(six_nimmt={}))
        request.options.fora_de_ordem.custom_questions.add(category="x" * 2000)
        answer = call(client, protocol, "NewGame", request.SerializeToString())
        assert answer.code == grpc.StatusCode.RESOURCE_EXHAUSTED
        (refused,) = recorder.wait_for(1)
        assert (refused.method, refused.code) == ("NewGame", "RESOURCE_EXHAUSTED")
        assert call(client, protocol, "ListGames", b"").code == grpc.StatusCode.OK

    def test_calls_are_recorded_with_their_protocol(self, start_door: StartDoor) -> None:
        """Each call reaches the observers once, named by its protocol, with its reason."""
        recorder = Recorder()
        client, _ = start_door((recorder,))
        for protocol in PROTOCOLS:
            call(client, protocol, "NewGame", api.NewGameRequest(seats=2).SerializeToString())
        calls = recorder.wait_for(len(PROTOCOLS))
        assert [c.protocol for c in calls] == ["connect", "connect", "grpc-web", "grpc-http"]
        assert {(c.method, c.reason) for c in calls} == {("NewGame", "GAME_NOT_SELECTED")}
        assert len(recorder.started) == len(PROTOCOLS)


def accepted_sockets(port: int) -> list[socket.socket]:
    """The connections this process accepted on ``port`` (the door runs in the test's process):
    copies of their sockets, found among its open files."""
    found = []
    for name in os.listdir("/proc/self/fd"):
        try:
            sock = socket.socket(fileno=os.dup(int(name)))
        except OSError:  # not a socket, or gone
            continue
        try:
            tcp = sock.family in (socket.AF_INET, socket.AF_INET6)
            if tcp and sock.getsockname()[1] == port and sock.getpeername():  # not the listener
                found.append(sock)
                continue
        except OSError:
            pass
        sock.close()
    return found


class TestNoDelay:
    """Nagle's algorithm is off on the door's connections, HTTP/1.1 and HTTP/2 alike: a response
    written in parts never waits for the client's delayed ACK (40 ms on Linux)."""

    @pytest.mark.parametrize("protocol", ["healthz", *PROTOCOLS])
    def test_every_connection_has_tcp_nodelay(self, http_address: str, protocol: str) -> None:
        """Once a call has been answered, each connection the door accepted has TCP_NODELAY."""
        door = HttpDoor(http_address)
        try:
            if protocol == "healthz":
                assert door.request("GET", HEALTH_PATH)[0] == 200
            else:
                payload = b"{}" if protocol == "connect-json" else b""
                assert door.call(protocol, "ListGames", payload).code == grpc.StatusCode.OK
            connections = accepted_sockets(int(http_address.rsplit(":", 1)[1]))
            assert connections
            for sock in connections:
                with sock:
                    assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
        finally:
            door.close()


class TestCors:
    """Browsers may call from the origins allowed, and only from them."""

    PREFLIGHT: ClassVar[dict[str, str]] = {
        "Origin": ORIGIN,
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "content-type,connect-protocol-version,x-grpc-web",
    }

    def test_preflight(self, start_door: StartDoor) -> None:
        """A preflight from an allowed origin gets 204 with the methods and headers allowed,
        the seat token's among them."""
        client, _ = start_door(http_cors_origins=f"https://other.example, {ORIGIN}")
        status, headers, _ = client.request(
            "OPTIONS", SERVICE_PATH + "NewGame", None, self.PREFLIGHT
        )
        assert status == 204
        assert headers["access-control-allow-origin"] == ORIGIN
        assert "POST" in headers["access-control-allow-methods"]
        allowed = headers["access-control-allow-headers"].lower()
        for header in (
            "content-type",
            "connect-protocol-version",
            "x-grpc-web",
            "grpc-timeout",
            "ordo-seat-token",
        ):
            assert header in allowed
        assert int(headers["access-control-max-age"]) > 0

    def test_call_from_an_allowed_origin(self, start_door: StartDoor) -> None:
        """A call from an allowed origin may read the answer and the gRPC-Web status headers."""
        client, _ = start_door(http_cors_origins=ORIGIN)
        answer = client.call("connect-json", "ListGames", b"{}", {"Origin": ORIGIN})
        assert answer.headers["access-control-allow-origin"] == ORIGIN
        exposed = answer.headers["access-control-expose-headers"].lower()
        assert "grpc-status" in exposed
        assert "x-request-id" in exposed

    def test_other_origins_get_no_cors_headers(self, start_door: StartDoor) -> None:
        """Another origin's preflight and call carry no CORS header: the browser refuses."""
        client, _ = start_door(http_cors_origins=ORIGIN)
        preflight = {**self.PREFLIGHT, "Origin": "https://evil.example"}
        _, headers, _ = client.request("OPTIONS", SERVICE_PATH + "NewGame", None, preflight)
        assert not any(key.startswith("access-control-") for key in headers)
        answer = client.call("connect-json", "ListGames", b"{}", {"Origin": "https://evil.example"})
        assert not any(key.startswith("access-control-") for key in answer.headers)

    def test_none_by_default(self, client: HttpDoor) -> None:
        """Without --http-cors-origins no origin is allowed."""
        _, headers, _ = client.request("OPTIONS", SERVICE_PATH + "NewGame", None, self.PREFLIGHT)
        assert not any(key.startswith("access-control-") for key in headers)

    def test_any_origin(self, start_door: StartDoor) -> None:
        """``*`` allows every origin."""
        client, _ = start_door(http_cors_origins="*")
        answer = client.call("connect-json", "ListGames", b"{}", {"Origin": "https://any.example"})
        assert answer.headers["access-control-allow-origin"] == "*"


class TestHealth:
    """Load balancers and probes that speak only HTTP ask a plain path."""

    def test_serving(self, client: HttpDoor) -> None:
        """200 while the worker serves."""
        status, headers, body = client.request("GET", HEALTH_PATH)
        assert (status, body) == (200, b"SERVING\n")
        assert headers["content-type"].startswith("text/plain")

    def test_draining(self, start_door: StartDoor) -> None:
        """503 once the worker drains."""
        client, server = start_door()
        server.app.health.serving = False
        status, _, body = client.request("GET", HEALTH_PATH)
        assert (status, body) == (503, b"NOT_SERVING\n")


class TestPlayground:
    """The built web playground is served at / on the same port."""

    @pytest.fixture
    def built(self, tmp_path: Path) -> Path:
        """A built playground: an index and its assets."""
        (tmp_path / "assets").mkdir()
        (tmp_path / "index.html").write_text("<!doctype html><title>Ordo</title>")
        (tmp_path / "assets" / "app.js").write_text("console.log('ordo')")
        (tmp_path / "assets" / "app.css").write_text("body { margin: 0 }")
        (tmp_path / "favicon.svg").write_text("<svg xmlns='http://www.w3.org/2000/svg'/>")
        return tmp_path

    @staticmethod
    def serve(start_door: StartDoor, static_dir: Path) -> HttpDoor:
        client, server = start_door()
        server.app.static_dir = static_dir
        return client

    @pytest.mark.parametrize(
        ("path", "kind", "text"),
        [
            ("/", "text/html", b"<title>Ordo</title>"),
            ("/index.html", "text/html", b"<title>Ordo</title>"),
            ("/assets/app.js", "text/javascript", b"console.log"),
            ("/assets/app.css", "text/css", b"margin"),
            ("/favicon.svg", "image/svg+xml", b"<svg"),
        ],
    )
    def test_files_with_their_types(
        self, start_door: StartDoor, built: Path, path: str, kind: str, text: bytes
    ) -> None:
        """Each file comes with its content type."""
        client = self.serve(start_door, built)
        status, headers, body = client.request("GET", path)
        assert status == 200
        assert headers["content-type"].split(";")[0] == kind
        assert text in body

    @pytest.mark.parametrize("path", ["/missing.js", "/../pyproject.toml", "/assets/../../x"])
    def test_nothing_else(self, start_door: StartDoor, built: Path, path: str) -> None:
        """A missing file, or one outside the playground, is a plain 404."""
        client = self.serve(start_door, built)
        status, _, _ = client.request("GET", path)
        assert status == 404

    def test_not_built(self, start_door: StartDoor, tmp_path: Path) -> None:
        """Without a build, / answers a short plain 404 that says so."""
        client = self.serve(start_door, tmp_path / "playground")
        status, headers, body = client.request("GET", "/")
        assert status == 404
        assert headers["content-type"].startswith("text/plain")
        assert b"not built" in body
