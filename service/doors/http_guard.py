"""What the HTTP door checks before a request reaches the Connect library, and what it holds.

A worker reads request bodies into memory before it can call a method. Hostile or broken clients
can make that cost what they like: many bodies sent all but their last bytes, heads or bodies
sent a byte at a time, bytes that the library does not expect. Here the door bounds that work:

- **Requests in progress** on the service's paths, per worker: past ``http_max_requests`` a
  request is refused with the protocol's RESOURCE_EXHAUSTED before its body is read.
- **Body bytes held**, per worker, a budget like the state cache's: every byte of a body read
  is charged to it until the call has been answered. A body that would take it past its size is
  refused with RESOURCE_EXHAUSTED, and nothing more of it is read. Only bodies of at most
  ``SMALL_BODY_BYTES`` may take the last quarter of the budget: large uploads left unfinished
  cannot keep ordinary calls out.
- **Timeouts**: a request's head must arrive within ``http_header_timeout_seconds`` of its first
  byte (else the connection is closed: HTTP/2 with a GOAWAY) and its body within
  ``http_body_timeout_seconds`` of the head (else the call is CANCELLED and, on HTTP/1.1, the
  connection closed). uvicorn has neither: ``GuardedProtocol`` adds the first to its protocols.
- **Requests the library cannot read** are refused as INVALID_ARGUMENT with reason
  ``MALFORMED_REQUEST``, the caller's error, never a traceback: a header that is not UTF-8, a
  content encoding other than ``gzip`` or ``identity``, a gRPC or gRPC-Web message flagged as
  compressed without an encoding, gRPC over HTTP/1.1 (gRPC needs HTTP/2's trailers).
"""

from __future__ import annotations

import asyncio
import base64
import json
import urllib.parse
from collections.abc import Awaitable, Callable, MutableMapping
from dataclasses import dataclass
from itertools import chain
from typing import Any

import uvicorn
from google.protobuf import any_pb2
from google.rpc import error_details_pb2, status_pb2
from uvicorn.protocols.http.auto_zttp_impl import AutoZttpProtocol
from uvicorn.protocols.http.zttp_h2_impl import ZttpH2Protocol
from uvicorn.protocols.http.zttp_impl import ZttpProtocol

from service.config import Settings
from service.errors import DOMAIN

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

# Streams one HTTP/2 connection carries before the door asks the client for a new one
# (GOAWAY): zttp drops a connection past 4,096 streams as a flood.
STREAMS_PER_CONNECTION = 4_000
SMALL_BODY_BYTES = 64 << 10  # a body up to this size may use the budget's reserve
RESERVE_SHARE = 4  # the budget's last 1/4 is kept for small bodies
ENVELOPE_BYTES = 5  # gRPC's and gRPC-Web's frame head: a flags byte and a 4-byte length
COMPRESSED_FLAG = 0x01  # the flag of a gRPC frame whose message is compressed
ENCODINGS = frozenset({"", "identity", "gzip"})  # what the Connect library decompresses
MALFORMED = "MALFORMED_REQUEST"
TOO_LARGE = "REQUEST_TOO_LARGE"
OVERLOADED = "OVERLOADED"
TOO_SLOW = "REQUEST_TOO_SLOW"
# Connect's HTTP status of each code the door answers with (the Connect protocol's table).
CONNECT_STATUS = {"INVALID_ARGUMENT": 400, "RESOURCE_EXHAUSTED": 429, "CANCELLED": 408}
GRPC_NUMBERS = {"INVALID_ARGUMENT": 3, "RESOURCE_EXHAUSTED": 8, "CANCELLED": 1}
ERROR_INFO_TYPE = "type.googleapis.com/" + error_details_pb2.ErrorInfo.DESCRIPTOR.full_name


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why the door refuses a request itself: a gRPC code name, a reason and a message."""

    code: str
    reason: str
    message: str
    #: Whether the connection is closed after the answer (HTTP/1.1): the rest of the request
    #: is not worth reading.
    close: bool = False


@dataclass(slots=True)
class BodyBudget:
    """The requests in progress and the body bytes a worker holds, and their limits.

    Used from the door's event loop only: no lock.
    """

    max_requests: int
    max_bytes: int
    requests: int = 0
    held: int = 0

    @classmethod
    def of(cls, settings: Settings) -> BodyBudget:
        """The budget ``settings`` give a worker."""
        return cls(settings.http_max_requests, settings.http_body_budget_bytes)

    def enter(self) -> bool:
        """Count a request in; False when as many are in progress as allowed."""
        if self.requests >= self.max_requests:
            return False
        self.requests += 1
        return True

    def leave(self, held: int) -> None:
        """A request is answered: give back its count and the ``held`` bytes of its body."""
        self.requests -= 1
        self.held -= held

    def charge(self, size: int, body: int) -> bool:
        """Take ``size`` more bytes for a body that holds ``body`` bytes with them; False when
        they do not fit (a body over ``SMALL_BODY_BYTES`` may not use the reserve)."""
        limit = self.max_bytes
        if body > SMALL_BODY_BYTES:
            limit -= self.max_bytes // RESERVE_SHARE
        if self.held + size > limit:
            return False
        self.held += size
        return True


@dataclass(frozen=True, slots=True)
class Limits:
    """The door's limits, from the settings."""

    max_request_bytes: int
    body_timeout: float

    @classmethod
    def of(cls, settings: Settings) -> Limits:
        """The limits ``settings`` give."""
        return cls(settings.max_request_bytes, settings.http_body_timeout_seconds)


def header(scope: Scope, name: bytes) -> bytes | None:
    """The value of a request header (names are lower-case in ASGI)."""
    for key, value in scope.get("headers", ()):
        if key == name:
            return bytes(value)
    return None


def content_protocol(content_type: str) -> str:
    """The protocol of a request, as logged and counted, from its content type."""
    if content_type.startswith("application/grpc-web"):
        return "grpc-web"
    if content_type.startswith("application/grpc"):
        return "grpc-http"
    return "connect"


def scope_protocol(scope: Scope) -> str:
    """The protocol of the request of an ASGI ``scope`` (see ``content_protocol``)."""
    return content_protocol((header(scope, b"content-type") or b"").decode("latin-1"))


def check_head(scope: Scope, limits: Limits) -> Refusal | None:
    """Why a request's head alone is refused, or None."""
    try:  # every name and value at once: a line feed cannot end a character
        b"\n".join(chain.from_iterable(scope.get("headers", ()))).decode()
    except UnicodeDecodeError:
        return Refusal("INVALID_ARGUMENT", MALFORMED, "a header is not UTF-8 text")
    protocol = scope_protocol(scope)
    if protocol == "grpc-http" and scope.get("http_version") != "2":
        return Refusal("INVALID_ARGUMENT", MALFORMED, "gRPC needs HTTP/2", close=True)
    name = b"content-encoding" if protocol == "connect" else b"grpc-encoding"
    encoding = (header(scope, name) or b"").decode().strip().lower()
    if encoding not in ENCODINGS:
        message = f"unsupported {name.decode()} {encoding[:40]!r}: only gzip is supported"
        return Refusal("INVALID_ARGUMENT", MALFORMED, message, close=True)
    length = header(scope, b"content-length") or b""
    if length.isdigit() and int(length) > limits.max_request_bytes + ENVELOPE_BYTES:
        message = f"the request is larger than {limits.max_request_bytes} bytes"
        return Refusal("RESOURCE_EXHAUSTED", TOO_LARGE, message, close=True)
    return None


async def read_body(
    scope: Scope, receive: Receive, budget: BodyBudget, limits: Limits, held: list[int]
) -> bytes | Refusal:
    """The whole body of a request, each chunk charged to ``budget`` as it arrives (the total
    kept in ``held[0]``); or why it is refused, once nothing more of it is worth reading."""
    chunks: list[bytes] = []
    size = 0
    most = limits.max_request_bytes + ENVELOPE_BYTES
    try:
        async with asyncio.timeout(limits.body_timeout):
            while True:
                message = await receive()
                if message["type"] != "http.request":  # the client went away
                    return Refusal("CANCELLED", TOO_SLOW, "the client went away", close=True)
                chunk = message.get("body", b"")
                size += len(chunk)
                if size > most:
                    message_text = f"the request is larger than {limits.max_request_bytes} bytes"
                    return Refusal("RESOURCE_EXHAUSTED", TOO_LARGE, message_text, close=True)
                if not budget.charge(len(chunk), size):
                    return Refusal(
                        "RESOURCE_EXHAUSTED",
                        OVERLOADED,
                        "the server holds too many request bodies: try again later",
                        close=True,
                    )
                held[0] += len(chunk)
                if chunk:
                    chunks.append(chunk)
                if not message.get("more_body", False):
                    break
    except TimeoutError:
        message_text = f"the request's body took longer than {limits.body_timeout:g} s"
        return Refusal("CANCELLED", TOO_SLOW, message_text, close=True)
    body = chunks[0] if len(chunks) == 1 else b"".join(chunks)
    protocol = scope_protocol(scope)
    if protocol != "connect" and body and body[0] & COMPRESSED_FLAG:
        encoding = (header(scope, b"grpc-encoding") or b"identity").strip().lower()
        if encoding == b"identity":
            message_text = "a message is flagged as compressed, but grpc-encoding names none"
            return Refusal("INVALID_ARGUMENT", MALFORMED, message_text)
    return body


def replay_body(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` that gives the whole ``body`` at once, then what ``receive`` gives (the
    client's disconnect, which the library waits for)."""
    given = False

    async def receiving() -> Message:
        nonlocal given
        if given:
            return await receive()
        given = True
        return {"type": "http.request", "body": body, "more_body": False}

    return receiving


def answer(scope: Scope, refusal: Refusal) -> list[Message]:
    """The ASGI messages that say ``refusal`` in the request's protocol, with the one
    ``ErrorInfo`` every error of the service carries."""
    protocol = scope_protocol(scope)
    info = error_details_pb2.ErrorInfo(reason=refusal.reason, domain=DOMAIN)
    headers: list[tuple[bytes, bytes]] = []
    if refusal.close:
        headers.append((b"connection", b"close"))
    if protocol == "connect":
        detail = base64.b64encode(info.SerializeToString()).rstrip(b"=").decode()
        error = {
            "code": refusal.code.lower().replace("cancelled", "canceled"),
            "message": refusal.message,
            # The ErrorInfo readable too (``debug``), as the methods' own refusals carry it.
            "details": [
                {
                    "type": info.DESCRIPTOR.full_name,
                    "value": detail,
                    "debug": {"reason": info.reason, "domain": info.domain, "metadata": {}},
                }
            ],
        }
        headers.append((b"content-type", b"application/json"))
        return [
            {
                "type": "http.response.start",
                "status": CONNECT_STATUS[refusal.code],
                "headers": headers,
            },
            {"type": "http.response.body", "body": json.dumps(error).encode()},
        ]
    status = status_pb2.Status(
        code=GRPC_NUMBERS[refusal.code],
        message=refusal.message,
        details=[any_pb2.Any(type_url=ERROR_INFO_TYPE, value=info.SerializeToString())],
    )
    content_type = header(scope, b"content-type") or b"application/grpc"
    headers.append((b"content-type", content_type))
    trailers = [
        (b"grpc-status", b"%d" % status.code),
        (b"grpc-message", urllib.parse.quote(refusal.message).encode()),
        (b"grpc-status-details-bin", base64.b64encode(status.SerializeToString()).rstrip(b"=")),
    ]
    if protocol == "grpc-web" or scope.get("http_version") != "2":
        # gRPC-Web's trailers-only answer: the status in the headers.
        return [
            {"type": "http.response.start", "status": 200, "headers": headers + trailers},
            {"type": "http.response.body", "body": b""},
        ]
    # gRPC's clients read the status from trailers that end the stream.
    return [
        {"type": "http.response.start", "status": 200, "headers": headers, "trailers": True},
        {"type": "http.response.body", "body": b""},
        {"type": "http.response.trailers", "headers": trailers},
    ]


class DoorConfig(uvicorn.Config):
    """uvicorn's settings, with the timeout of request heads that its protocols lack, and
    whether the door drains."""

    def __init__(self, *args: Any, header_timeout: float, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.header_timeout = header_timeout
        self.draining = False

    def load(self) -> None:
        super().load()
        self.http_protocol_class = GuardedProtocol


class _HeadTimer:
    """A connection's timer for the head of its next request: it starts when a byte arrives
    while no request is in progress, and stops when a request starts (mixed into uvicorn's
    HTTP/1.1 and HTTP/2 protocols, which time only idle connections)."""

    _head_timer: asyncio.TimerHandle | None = None
    loop: asyncio.AbstractEventLoop
    config: Any

    def _awaiting_head(self) -> bool:
        raise NotImplementedError

    def _head_too_slow(self) -> None:
        raise NotImplementedError

    def _time_head(self) -> None:
        if self._awaiting_head():
            if self._head_timer is None:
                timeout = self.config.header_timeout
                self._head_timer = self.loop.call_later(timeout, self._head_too_slow)
        else:
            self._stop_head_timer()

    def _stop_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None


class GuardedH1(_HeadTimer, ZttpProtocol):
    """uvicorn's HTTP/1.1 protocol, with a timeout on request heads."""

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if not self.transport.is_closing():
            self._time_head()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_head_timer()
        super().connection_lost(exc)

    def _awaiting_head(self) -> bool:
        return self.cycle is None or self.cycle.response_complete

    def _head_too_slow(self) -> None:
        self._head_timer = None
        self.transport.close()


class GuardedH2(_HeadTimer, ZttpH2Protocol):
    """uvicorn's HTTP/2 protocol, with a timeout on request heads: a connection that sends
    frames but opens no stream for that long is closed with a GOAWAY.

    A connection carries at most ``STREAMS_PER_CONNECTION`` streams: zttp takes a connection
    that opened 4,096 for a flood and drops it, calls in flight and all. So the stream that
    reaches the bound is served and answered with a GOAWAY naming it the last: the client opens
    a new connection for its next calls, and this one closes once its calls are answered."""

    streams = 0

    def handle_request(self, event: Any) -> None:
        super().handle_request(event)
        self.streams += 1
        if self.streams == STREAMS_PER_CONNECTION and not self.shutdown_requested:
            self.shutdown_requested = True
            self.conn.close(0, event.stream_id)  # NO_ERROR: a graceful GOAWAY
            self.flush()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if not self.transport.is_closing():
            self._time_head()

    def connection_lost(self, exc: Exception | None) -> None:
        self._stop_head_timer()
        super().connection_lost(exc)

    def _awaiting_head(self) -> bool:
        return not self.cycles

    def _head_too_slow(self) -> None:
        self._head_timer = None
        self._close_connection()


class GuardedProtocol(AutoZttpProtocol):
    """uvicorn's protocol that tells HTTP/1.1 from HTTP/2, handing over to the guarded ones.

    A connection made once the door drains is closed at once. uvicorn asks every connection to
    close as its drain begins, but a connection accepted just before the listener closed is
    made a moment later, and was never asked: kept alive, an HTTP/1.1 client went on calling
    it for the whole grace period."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        if getattr(self.config, "draining", False):
            self.shutdown()

    def _switch(self, http2: bool, initial_data: bytes = b"") -> None:
        kind: type[GuardedH1 | GuardedH2] = GuardedH2 if http2 else GuardedH1
        protocol = kind(
            config=self.config,
            server_state=self.server_state,
            app_state=self.app_state,
            _loop=self.loop,
        )
        self.transport.set_protocol(protocol)
        protocol.connection_made(self.transport)
        if initial_data:
            protocol.data_received(initial_data)
