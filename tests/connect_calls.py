"""Calls to the HTTP door as a browser or curl makes them: Connect (binary or JSON) and gRPC-Web
over HTTP/1.1 with ``http.client``, and gRPC with grpcio on the same port; each answer as a code,
the ErrorInfo reason, and the response's bytes."""

from __future__ import annotations

import base64
import http.client
import json
import socket
import struct
from dataclasses import dataclass, field

import grpc
from google.rpc import error_details_pb2

from tests.conformance.drivers import reason_of

SERVICE_PATH = "/ordo.v1.GameEngineService/"
PROTOCOLS = ("connect-proto", "connect-json", "grpc-web", "grpc-http")
GRPC_WEB_TRAILERS = 0x80  # the flag of the frame that carries the status in gRPC-Web
TIMEOUT_SECONDS = 30
ERROR_INFO = "google.rpc.ErrorInfo"
# The codes of the service's own answers, each with one ErrorInfo: a rules error, a seat token
# refused, a seat not granted, a state superseded, a revision store out of reach, a worker busy.
ANSWERED_CODES = frozenset(
    {
        grpc.StatusCode.INVALID_ARGUMENT,
        grpc.StatusCode.UNAUTHENTICATED,
        grpc.StatusCode.PERMISSION_DENIED,
        grpc.StatusCode.FAILED_PRECONDITION,
        grpc.StatusCode.UNAVAILABLE,
        grpc.StatusCode.RESOURCE_EXHAUSTED,
    }
)
# The gRPC status of an HTTP answer without one, as gRPC's clients read it.
HTTP_STATUS_CODES = {
    400: grpc.StatusCode.INTERNAL,
    401: grpc.StatusCode.UNAUTHENTICATED,
    403: grpc.StatusCode.PERMISSION_DENIED,
    404: grpc.StatusCode.UNIMPLEMENTED,
    429: grpc.StatusCode.UNAVAILABLE,
    502: grpc.StatusCode.UNAVAILABLE,
    503: grpc.StatusCode.UNAVAILABLE,
    504: grpc.StatusCode.UNAVAILABLE,
}


@dataclass
class Answer:
    """What a call gave: a gRPC status code, the ErrorInfo reason (when it failed) and the
    response (its bytes; the JSON text for Connect JSON), with the headers."""

    code: grpc.StatusCode
    reason: str = ""
    body: bytes = b""
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    message: str = ""


def connect_code(name: str) -> grpc.StatusCode:
    """The gRPC status code of a Connect error code (``invalid_argument``)."""
    return grpc.StatusCode[name.upper().replace("CANCELED", "CANCELLED")]


def one_reason(details: list[dict[str, str]]) -> str:
    """The reason of the one ErrorInfo among a Connect error's details (domain ordo)."""
    infos = [detail for detail in details if detail.get("type") == ERROR_INFO]
    assert len(infos) == 1, f"expected exactly one ErrorInfo, got {details}"
    value = infos[0]["value"]
    info = error_details_pb2.ErrorInfo.FromString(base64.b64decode(value + "=" * (-len(value) % 4)))
    assert info.domain == "ordo"
    return info.reason


class HttpDoor:
    """A client of one HTTP door, on one kept-alive HTTP/1.1 connection."""

    def __init__(self, address: str) -> None:
        self.address = address
        self._connection: http.client.HTTPConnection | None = None
        self._channel: grpc.Channel | None = None

    def close(self) -> None:
        """Close the connection and the gRPC channel."""
        if self._connection is not None:
            self._connection.close()
        if self._channel is not None:
            self._channel.close()

    def post(
        self, path: str, body: bytes, headers: dict[str, str]
    ) -> tuple[int, dict[str, str], bytes]:
        """POST ``body``; the status, the headers (lower-case names) and the body."""
        return self.request("POST", path, body, headers)

    def request(
        self,
        method: str,
        path: str,
        body: bytes | None = None,
        headers: dict[str, str] | None = None,
    ) -> tuple[int, dict[str, str], bytes]:
        """Any request, on the kept-alive connection (opened again when the server closed it)."""
        for attempt in range(2):
            if self._connection is None:
                host, port = self.address.rsplit(":", 1)
                self._connection = http.client.HTTPConnection(host, int(port), TIMEOUT_SECONDS)
            try:
                self._connection.request(method, path, body, headers or {})
                response = self._connection.getresponse()
                data = response.read()
            except (ConnectionError, http.client.HTTPException):
                self._connection.close()
                self._connection = None
                if attempt:
                    raise
                continue
            if response.getheader("connection", "").lower() == "close":
                self._connection.close()
                self._connection = None
            return response.status, {k.lower(): v for k, v in response.getheaders()}, data
        raise AssertionError("unreachable")

    def call(
        self, protocol: str, method: str, payload: bytes, headers: dict[str, str] | None = None
    ) -> Answer:
        """Call ``method`` with ``payload`` (a serialized request; JSON text for connect-json)."""
        if protocol == "connect-proto":
            return self.connect(method, payload, "application/proto", headers)
        if protocol == "connect-json":
            return self.connect(method, payload, "application/json", headers)
        if protocol == "grpc-web":
            return self.grpc_web(method, payload, headers)
        if protocol == "grpc-http":
            return self.grpc(method, payload, headers)
        raise ValueError(protocol)

    def connect(
        self, method: str, payload: bytes, content_type: str, headers: dict[str, str] | None
    ) -> Answer:
        """A Connect unary call."""
        status, got, body = self.post(
            SERVICE_PATH + method, payload, {"Content-Type": content_type, **(headers or {})}
        )
        if status == 200:
            return Answer(grpc.StatusCode.OK, body=body, headers=got)
        if got.get("content-type", "").startswith("application/json"):
            error = json.loads(body)
            details = error.get("details", [])
            code = connect_code(error["code"])
            reason = one_reason(details) if code in ANSWERED_CODES and details else ""
            return Answer(code, reason, body, status, got, error.get("message", ""))
        return Answer(grpc.StatusCode.UNKNOWN, body=body, status=status, headers=got)

    def grpc_web(self, method: str, payload: bytes, headers: dict[str, str] | None) -> Answer:
        """A gRPC-Web call (binary), its status read from the trailers frame (or the headers,
        for an answer with no body)."""
        frame = b"\x00" + struct.pack(">I", len(payload)) + payload
        status, got, body = self.post(
            SERVICE_PATH + method,
            frame,
            {"Content-Type": "application/grpc-web+proto", "X-Grpc-Web": "1", **(headers or {})},
        )
        message, trailers = b"", dict(got)
        while len(body) >= 5:
            flags, length = body[0], struct.unpack(">I", body[1:5])[0]
            data, body = body[5 : 5 + length], body[5 + length :]
            if flags & GRPC_WEB_TRAILERS:
                for line in data.decode().split("\r\n"):
                    if ":" in line:
                        key, value = line.split(":", 1)
                        trailers[key.strip().lower()] = value.strip()
            else:
                message = data
        if "grpc-status" not in trailers:
            code = HTTP_STATUS_CODES.get(status, grpc.StatusCode.UNKNOWN)
            return Answer(code, body=body, status=status, headers=trailers)
        code = next(c for c in grpc.StatusCode if c.value[0] == int(trailers["grpc-status"]))
        reason = ""
        if code in ANSWERED_CODES and "grpc-status-details-bin" in trailers:
            reason = status_reason(trailers["grpc-status-details-bin"])
        return Answer(code, reason, message, status, trailers, trailers.get("grpc-message", ""))

    def grpc(self, method: str, payload: bytes, headers: dict[str, str] | None) -> Answer:
        """A gRPC call (HTTP/2) on the HTTP port, with grpcio."""
        if self._channel is None:
            self._channel = grpc.insecure_channel(self.address)
        call = self._channel.unary_unary(SERVICE_PATH + method)
        metadata = tuple((key.lower(), value) for key, value in (headers or {}).items())
        try:
            response, outcome = call.with_call(payload, timeout=TIMEOUT_SECONDS, metadata=metadata)
        except grpc.RpcError as error:
            code = error.code()
            answered = code in ANSWERED_CODES and any(
                key == "grpc-status-details-bin" for key, _ in error.trailing_metadata() or ()
            )
            reason = reason_of(error) if answered else ""
            trailers = {key: str(value) for key, value in error.trailing_metadata() or ()}
            return Answer(code, reason, headers=trailers, message=error.details() or "")
        trailers = {key: str(value) for key, value in outcome.trailing_metadata() or ()}
        return Answer(grpc.StatusCode.OK, body=response, headers=trailers)


def status_reason(details_bin: str) -> str:
    """The ErrorInfo reason of a ``grpc-status-details-bin`` value (base64 google.rpc.Status)."""
    from google.rpc import status_pb2  # noqa: PLC0415

    status = status_pb2.Status.FromString(
        base64.b64decode(details_bin + "=" * (-len(details_bin) % 4))
    )
    reasons = []
    for detail in status.details:
        info = error_details_pb2.ErrorInfo()
        if detail.Unpack(info):
            reasons.append(info.reason)
    assert len(reasons) == 1, f"expected exactly one ErrorInfo, got {status}"
    return reasons[0]


def held_call(address: str, body: bytes, request_id: str, timeout: float) -> socket.socket:
    """A Connect JSON NewGame (``body``) whose head is sent with ``Expect: 100-continue`` and
    whose body is held back, on a socket of its own: once the door answered ``100 Continue``,
    the call is in progress (it waits for its body) and stays so until the caller sends it."""
    host, port = address.rsplit(":", 1)
    sock = socket.create_connection((host, int(port)), timeout=timeout)
    head = (
        f"POST {SERVICE_PATH}NewGame HTTP/1.1\r\n"
        f"Host: {host}\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n"
        f"X-Request-Id: {request_id}\r\nExpect: 100-continue\r\n\r\n"
    )
    sock.sendall(head.encode())
    answer = b""
    while not answer.endswith(b"\r\n\r\n"):
        chunk = sock.recv(1)
        assert chunk, "the server closed the connection before 100 Continue"
        answer += chunk
    assert answer.startswith(b"HTTP/1.1 100"), answer
    return sock
