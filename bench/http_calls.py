"""The soak's callers on the HTTP door: Connect (binary and JSON) and gRPC-Web over HTTP/1.1,
with the methods of ``ordo.Client`` that the soak calls, and the garbage a hostile or broken
client sends, each piece of which must be refused as the caller's error."""

from __future__ import annotations

import http.client
import json
import random
import struct
from collections.abc import Callable
from typing import Any

import grpc
from google.protobuf import json_format
from google.protobuf.message import Message

from ordo import OrdoError
from ordo.client import apply_request, new_game_request, view_request
from ordo.v1 import common_pb2 as common
from ordo.v1 import engine_service_pb2 as api

HTTP_PROTOCOLS = ("connect-proto", "connect-json", "grpc-web")
SERVICE_PATH = "/ordo.v1.GameEngineService/"
TIMEOUT_SECONDS = 30.0
GRPC_WEB_TRAILERS = 0x80  # the flag of gRPC-Web's trailers frame
INVALID_ARGUMENT = b"3"
CLIENT_ERRORS = range(400, 500)
LONGEST_NAME = 255  # bytes in a file name on Linux
Garbage = Callable[[http.client.HTTPConnection], None]


def _call(connection: http.client.HTTPConnection, method: str, body: bytes, **headers: Any) -> None:
    connection.putrequest("POST", SERVICE_PATH + method)
    for name, value in {**headers, "Content-Length": str(len(body))}.items():
        connection.putheader(name, value)
    connection.endheaders(body)


# Each piece of garbage the door must refuse with a 4xx, or gRPC's INVALID_ARGUMENT.
GARBAGE: dict[str, Garbage] = {
    "non-UTF-8 header": lambda c: _call(
        c, "ListGames", b"{}", **{"Content-Type": "application/json", "X-Junk": b"\xff\xfe"}
    ),
    "non-UTF-8 content type": lambda c: _call(
        c, "ListGames", b"{}", **{"Content-Type": b"application/js\xffon"}
    ),
    "GET /%00": lambda c: c.request("GET", "/%00"),
    "long file name": lambda c: c.request("GET", "/" + "a" * (LONGEST_NAME + 1)),
    "unknown content encoding": lambda c: _call(
        c, "ListGames", b"{}", **{"Content-Type": "application/json", "Content-Encoding": "br"}
    ),
    "gRPC-Web compressed without encoding": lambda c: _call(
        c, "ListGames", b"\x01\x00\x00\x00\x00", **{"Content-Type": "application/grpc-web+proto"}
    ),
    "gRPC over HTTP/1.1": lambda c: _call(
        c, "ListGames", b"\x00\x00\x00\x00\x00", **{"Content-Type": "application/grpc"}
    ),
    "DELETE /healthz": lambda c: c.request("DELETE", "/healthz"),
}


def send_garbage(address: str, rng: random.Random) -> str | None:
    """Send one piece of garbage on a connection of its own; None when it was refused as the
    caller's error, else what went wrong."""
    name = rng.choice(sorted(GARBAGE))
    host, port = address.rsplit(":", 1)
    connection = http.client.HTTPConnection(host, int(port), timeout=TIMEOUT_SECONDS)
    try:
        GARBAGE[name](connection)
        response = connection.getresponse()
        response.read()
    except (OSError, http.client.HTTPException) as error:
        return f"garbage {name}: {error!r}"
    finally:
        connection.close()
    if response.status in CLIENT_ERRORS:
        return None
    if response.getheader("grpc-status", "").encode() == INVALID_ARGUMENT:
        return None
    return f"garbage {name}: HTTP {response.status} grpc-status {response.getheader('grpc-status')}"


class HttpClient:
    """The calls of one soak caller over one protocol of the HTTP door, on one kept-alive
    HTTP/1.1 connection; failures raise ``OrdoError`` with the code the door answered."""

    def __init__(self, address: str, protocol: str) -> None:
        self.address = address
        self.protocol = protocol
        self._connection: http.client.HTTPConnection | None = None

    def close(self) -> None:
        """Close the connection."""
        if self._connection is not None:
            self._connection.close()

    def new_game(self, game: str | common.GameOptions, seats: int, seed: int = 0) -> Any:
        """As ``ordo.Client.new_game``."""
        request = new_game_request(game, seats, seed)
        return self._call("NewGame", request, api.NewGameResponse())

    def apply_action(self, state: common.GameState, action: common.Action) -> Any:
        """As ``ordo.Client.apply_action``."""
        request = apply_request(state, None, action=action)
        return self._call("ApplyAction", request, api.ApplyActionResponse())

    def get_view(self, state: common.GameState, seat: int) -> Any:
        """As ``ordo.Client.get_view``."""
        return self._call("GetView", view_request(state, seat), api.GetViewResponse())

    def suggest_action(self, state: common.GameState, seat: int) -> Any:
        """As ``ordo.Client.suggest_action``."""
        request = api.SuggestActionRequest(state=state, seat=seat, policy="heuristic")
        return self._call("SuggestAction", request, api.SuggestActionResponse())

    def _post(self, method: str, body: bytes, content_type: str) -> tuple[int, Any, bytes]:
        """POST on the kept-alive connection (opened again once the server closed it)."""
        if self._connection is None:
            host, port = self.address.rsplit(":", 1)
            self._connection = http.client.HTTPConnection(host, int(port), TIMEOUT_SECONDS)
        try:
            self._connection.request(
                "POST", SERVICE_PATH + method, body, {"Content-Type": content_type}
            )
            response = self._connection.getresponse()
            data = response.read()
        except (OSError, http.client.HTTPException) as error:
            self._connection.close()
            self._connection = None
            raise OrdoError(grpc.StatusCode.UNAVAILABLE, "", repr(error)) from error
        return response.status, response, data

    def _call(self, method: str, request: Message, response: Any) -> Any:
        if self.protocol == "grpc-web":
            return self._grpc_web(method, request, response)
        if self.protocol == "connect-json":
            body = json_format.MessageToJson(request).encode()
            status, _, data = self._post(method, body, "application/json")
            if status == 200:
                return json_format.Parse(data, response)
        else:
            status, _, data = self._post(method, request.SerializeToString(), "application/proto")
            if status == 200:
                response.ParseFromString(data)
                return response
        try:
            error = json.loads(data)
            code = grpc.StatusCode[error["code"].upper().replace("CANCELED", "CANCELLED")]
        except (ValueError, KeyError) as problem:
            raise OrdoError(grpc.StatusCode.UNKNOWN, "", f"HTTP {status}") from problem
        raise OrdoError(code, "", error.get("message", ""), answered=True)

    def _grpc_web(self, method: str, request: Message, response: Any) -> Any:
        payload = request.SerializeToString()
        frame = b"\x00" + struct.pack(">I", len(payload)) + payload
        status, answer, body = self._post(method, frame, "application/grpc-web+proto")
        trailers = {"grpc-status": answer.getheader("grpc-status", "")}
        message = None
        while len(body) >= 5:
            flags, length = body[0], struct.unpack(">I", body[1:5])[0]
            data, body = body[5 : 5 + length], body[5 + length :]
            if flags & GRPC_WEB_TRAILERS:
                for line in data.decode().split("\r\n"):
                    key, _, value = line.partition(":")
                    trailers[key.strip().lower()] = value.strip()
            else:
                message = data
        number = trailers.get("grpc-status", "")
        if status == 200 and number == "0" and message is not None:
            response.ParseFromString(message)
            return response
        code = next((c for c in grpc.StatusCode if str(c.value[0]) == number), None)
        if code is None:
            raise OrdoError(grpc.StatusCode.UNKNOWN, "", f"HTTP {status} without a gRPC status")
        raise OrdoError(code, "", trailers.get("grpc-message", ""), answered=True)
