"""The HTTP door: the service over Connect, gRPC-Web and gRPC, health, CORS and the playground.

Each worker serves it beside its gRPC server, on a port of its own that all workers bind with
SO_REUSEPORT, from an event loop on a thread of its own. One ASGI application routes a request:

- ``/ordo.v1.GameEngineService/<Method>``: the generated Connect application
  (``service.doors.connect``), which calls the worker's servicer through the call path the gRPC
  door uses;
- ``/healthz``, with GET or HEAD: 200 while the worker serves, 503 once it drains (liveness);
- ``/readyz``, with GET or HEAD: 200 while the worker serves and can serve every call (its
  revision store, when it has one, within reach), else 503 (readiness);
- anything else, with GET or HEAD: the files of the built web playground, the package data
  ``service/playground`` (built there by ``clients/web/build.mjs``; wheels and the image ship
  it); any other method gets 405, with a body saying which methods read it and where the
  service's methods are.

An RPC is held to the worker's limits first (``service.doors.http_guard``): the requests in
progress,
the bytes of their bodies, the time a body may take; its body is read whole before the library
is handed it, and a request the library could not read is refused here as the caller's error.
Requests refused before they reach a method (by the door, or by the library: an unknown method,
a content type that is not Connect's, gRPC's or gRPC-Web's) are logged and counted like calls,
under the method they named (``unknown`` when it is none of the service's). The library answers
an unknown method, an HTTP method other than POST (a GET from a browser's address bar) and a
content type it does not speak with an empty body: the door gives them a Connect error body that
says what went wrong (``refusal_body``). A service path in the wrong case
is an unknown method too.

On SIGTERM the door closes its idle connections at once (HTTP/2 with a GOAWAY) and the others as
their calls are answered; the grace period bounds the wait, kept here rather than by uvicorn,
which would log an error at the end of every drain that reached it.
"""

from __future__ import annotations

import asyncio
import json
import mimetypes
import re
import socket
import threading
from collections.abc import Awaitable, Callable, Iterable, Sequence
from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import structlog
import uvicorn

from service.calls.call_path import REQUEST_ID_KEY, SERVICE, request_id
from service.config import Settings
from service.doors.http_guard import (
    OVERLOADED,
    BodyBudget,
    DoorConfig,
    Limits,
    Message,
    Receive,
    Refusal,
    Scope,
    Send,
    answer,
    check_head,
    header,
    read_body,
    replay_body,
    scope_protocol,
)
from service.telemetry.observe import CallRecord, Observer

HEALTH_PATH = "/healthz"
READY_PATH = "/readyz"
SERVICE_PREFIX = f"/{SERVICE.full_name}/"
STATIC_DIR = Path(__file__).resolve().parents[1] / "playground"  # service/playground
NOT_BUILT = (
    b"The web playground is not built into this server. In a checkout of Ordo, make run builds "
    b"it when npm is installed (make web too); a package installed after that build, and the "
    b"container image, have it.\n"
)
NOT_FOUND = b"Not found.\n"
BUSY = "the server has too many requests in progress: try again later"
READ_METHODS = b"GET, HEAD"  # what /healthz and the playground's files answer
UNKNOWN_METHOD = "unknown"
# What a browser may send and read across origins: Connect's and gRPC-Web's own headers, the
# request id, and (sent only) the seat token.
CORS_ALLOW_METHODS = "GET, POST, OPTIONS"
CORS_ALLOW_HEADERS = (
    "Content-Type, Connect-Protocol-Version, Connect-Timeout-Ms, Connect-Accept-Encoding, "
    "Connect-Content-Encoding, Content-Encoding, Accept-Encoding, Grpc-Timeout, X-Grpc-Web, "
    "X-User-Agent, X-Request-Id, Ordo-Seat-Token"
)
CORS_EXPOSE_HEADERS = (
    "Grpc-Status, Grpc-Message, Grpc-Status-Details-Bin, Connect-Content-Encoding, "
    "Content-Encoding, X-Request-Id, Trailer-X-Request-Id"
)
CORS_MAX_AGE = "7200"  # seconds a browser may keep a preflight's answer
# The status codes of the answers the Connect library gives itself, as gRPC names them.
HTTP_CODES = {
    400: "INVALID_ARGUMENT",
    404: "UNIMPLEMENTED",
    405: "UNIMPLEMENTED",
    408: "DEADLINE_EXCEEDED",
    415: "INVALID_ARGUMENT",
    429: "RESOURCE_EXHAUSTED",
    499: "CANCELLED",
    501: "UNIMPLEMENTED",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}
GRPC_CODES = {
    0: "OK", 1: "CANCELLED", 2: "UNKNOWN", 3: "INVALID_ARGUMENT", 4: "DEADLINE_EXCEEDED",
    5: "NOT_FOUND", 6: "ALREADY_EXISTS", 7: "PERMISSION_DENIED", 8: "RESOURCE_EXHAUSTED",
    9: "FAILED_PRECONDITION", 10: "ABORTED", 11: "OUT_OF_RANGE", 12: "UNIMPLEMENTED",
    13: "INTERNAL", 14: "UNAVAILABLE", 15: "DATA_LOSS", 16: "UNAUTHENTICATED",
}  # fmt: skip
GRPC_WEB_STATUS = re.compile(rb"grpc-status: ?(\d+)")
METHOD_NAMES = frozenset(method.name for method in SERVICE.methods)
# The paths of the methods that stream their answers (WatchGame): a stream may stay open for
# hours, held to the worker's bound on watchers, not to its bound on requests in progress.
STREAM_PATHS = frozenset(SERVICE_PREFIX + m.name for m in SERVICE.methods if m.server_streaming)
# The refusals the library sends with an empty body, and the Connect code of the body they get.
EXPLAINED_STATUSES = {404: "unimplemented", 405: "unimplemented", 415: "invalid_argument"}
READ_ONLY = b"Only GET and HEAD read this path; the service's methods take POST at %s<Method>.\n"

log = structlog.get_logger("ordo.server")


def parse_origins(text: str) -> frozenset[str]:
    """The origins of ``--http-cors-origins``: comma-separated, ``*`` for any."""
    return frozenset(origin.strip().rstrip("/") for origin in text.split(",") if origin.strip())


@dataclass
class Health:
    """Whether the worker serves (it stops when the worker drains), and whether it can serve
    every call (not while its revision store is out of reach)."""

    serving: bool = True
    ready: bool = True


@dataclass
class Door:
    """The ASGI application of the HTTP door."""

    connect_app: Callable[[Scope, Receive, Send], Awaitable[None]]
    observers: Sequence[Observer] = ()
    cors_origins: frozenset[str] = frozenset()
    static_dir: Path = STATIC_DIR
    health: Health = field(default_factory=Health)
    limits: Limits = field(default_factory=lambda: Limits.of(Settings()))
    budget: BodyBudget = field(default_factory=lambda: BodyBudget.of(Settings()))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await _lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        path: str = scope["path"]
        method: str = scope["method"]
        cors = self._cors_headers(scope)
        if method == "OPTIONS" and cors is not None:
            await _respond(send, 204, [*cors, *_preflight_headers(scope)], b"")
            return
        if path.lower().startswith(SERVICE_PREFIX.lower()):
            await self._call(scope, receive, _with_headers(send, cors or []))
        elif method not in {"GET", "HEAD"}:
            body = READ_ONLY % SERVICE_PREFIX.encode()
            await _respond(send, 405, [(b"allow", READ_METHODS), *_text(None)], body)
        elif path in (HEALTH_PATH, READY_PATH):
            serving = self.health.serving and (path == HEALTH_PATH or self.health.ready)
            body = b"SERVING\n" if serving else b"NOT_SERVING\n"
            await _respond(send, 200 if serving else 503, _text(cors), body)
        else:
            await self._static(path, method, send)

    def _cors_headers(self, scope: Scope) -> list[tuple[bytes, bytes]] | None:
        """The CORS headers of a request from an allowed origin; None for any other."""
        if not self.cors_origins:
            return None
        origin = header(scope, b"origin")
        if origin is None:
            return None
        if "*" in self.cors_origins:
            return [(b"access-control-allow-origin", b"*")]
        if origin.decode("latin-1") not in self.cors_origins:
            return None
        return [(b"access-control-allow-origin", origin), (b"vary", b"Origin")]

    async def _call(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Serve an RPC within the worker's budget (``service.doors.http_guard``), its body read
        whole before the library is handed it; refuse it here when it cannot be."""
        refusal = check_head(scope, self.limits)
        if refusal is None and not self.budget.enter():
            refusal = Refusal("RESOURCE_EXHAUSTED", OVERLOADED, BUSY, close=True)
        if refusal is not None:
            await self._refuse(scope, send, refusal)
            return
        held = [0]
        counted = True
        try:
            body = await read_body(scope, receive, self.budget, self.limits, held)
            if isinstance(body, Refusal):
                await self._refuse(scope, send, body)
            else:
                if scope["path"] in STREAM_PATHS:  # read whole: the stream holds no body
                    self.budget.leave(held[0])
                    counted = False
                await self._serve(scope, replay_body(body, receive), send)
        finally:
            if counted:
                self.budget.leave(held[0])

    async def _refuse(self, scope: Scope, send: Send, refusal: Refusal) -> None:
        """Answer ``refusal`` in the request's protocol; count and log it like a call."""
        for message in answer(scope, refusal):
            await send(message)
        self._record(self._refusal(scope, refusal.code, refusal.reason))

    def _record(self, call: CallRecord) -> None:
        for observer in self.observers:
            observer.call_started(call)
        for observer in self.observers:
            observer.call_finished(call)

    async def _serve(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Hand an RPC to the library; count and log it here when the library refused it
        before a method."""
        from service.doors.connect import Served, served  # noqa: PLC0415 - loaded with the library

        record = Served()
        token = served.set(record)
        status: int | None = None
        grpc_status: bytes | None = None
        held: Message | None = None  # the start of a refusal whose body may need words

        async def watch(message: Message) -> None:
            nonlocal status, grpc_status, held
            kind = message["type"]
            if record.reached:
                # A unary answer's head waits for its one body, which then goes out with its
                # length: one write fewer than a chunked body and its end.
                if kind == "http.response.start" and held is None:
                    held = message
                    return
                if held is not None and kind == "http.response.body":
                    start, held = held, None
                    if not message.get("more_body", False):
                        start = with_length(start, len(message.get("body", b"")))
                    await send(start)
                elif held is not None:
                    await send(held)
                    held = None
                await send(message)
                return
            if not record.reached:
                # A refusal's status: the HTTP status, or gRPC's in the headers (trailers-only),
                # the trailers (gRPC), or the trailers frame of the body (gRPC-Web).
                kind = message["type"]
                if kind == "http.response.start":
                    status = message["status"]
                    grpc_status = dict(message.get("headers", ())).get(b"grpc-status")
                elif kind == "http.response.trailers" and grpc_status is None:
                    grpc_status = dict(message.get("headers", ())).get(b"grpc-status")
                elif kind == "http.response.body" and grpc_status is None:
                    found = GRPC_WEB_STATUS.search(message.get("body", b""))
                    grpc_status = found[1] if found else None
                if kind == "http.response.start" and status in EXPLAINED_STATUSES:
                    held = message
                    return
                if held is not None and kind == "http.response.body":
                    start, held = held, None
                    body = message.get("body", b"")
                    if not body and not message.get("more_body", False):
                        body = refusal_body(scope, start["status"])
                        headers = [(b"content-type", b"application/json"), *start["headers"]]
                        start = {**start, "headers": headers}
                        message = {**message, "body": body}
                    await send(start)
            await send(message)

        try:
            await self.connect_app(scope, receive, watch)
        finally:
            if held is not None and record.reached:
                await send(held)  # a head the library ended without a body message
            served.reset(token)
            record.finish()
            if record.error is not None:
                record.error.__traceback__ = None
            if not record.reached and status is not None:
                if grpc_status is not None and grpc_status.isdigit():
                    code = GRPC_CODES.get(int(grpc_status), "UNKNOWN")
                else:
                    code = HTTP_CODES.get(status, "INTERNAL" if status >= 500 else "UNKNOWN")
                self._record(self._refusal(scope, code))

    def _refusal(self, scope: Scope, code: str, reason: str = "") -> CallRecord:
        """The record of a request refused before it reached a method."""
        name = scope["path"][len(SERVICE_PREFIX) :]
        sent_id = (header(scope, REQUEST_ID_KEY.encode()) or b"").decode("latin-1")
        return CallRecord(
            method=name if name in METHOD_NAMES else UNKNOWN_METHOD,
            request_id=request_id(sent_id),
            protocol=scope_protocol(scope),
            code=code,
            reason=reason,
        )

    async def _static(self, path: str, method: str, send: Send) -> None:
        """A file of the playground, ``index.html`` for ``/``; a plain 404 for any other."""
        root = self.static_dir
        if not root.is_dir():
            await _respond(send, 404, _text(None), NOT_BUILT)
            return
        relative = path.lstrip("/") or "index.html"
        try:
            target = (root / relative).resolve()
            if target.is_dir():
                target = target / "index.html"
            found = target.is_relative_to(root.resolve()) and target.is_file()
        except (OSError, ValueError):  # a name no file can have: too long, a NUL byte
            found = False
        if not found:
            await _respond(send, 404, _text(None), NOT_FOUND)
            return
        kind = mimetypes.guess_type(target.name)[0] or "application/octet-stream"
        if kind.startswith("text/") or kind in {"application/javascript", "application/json"}:
            kind += "; charset=utf-8"
        body = await asyncio.to_thread(target.read_bytes)
        headers = [(b"content-type", kind.encode()), (b"content-length", b"%d" % len(body))]
        await _respond(send, 200, headers, b"" if method == "HEAD" else body)


def playground_url(host: str, port: int, static_dir: Path = STATIC_DIR) -> str | None:
    """Where a person on this machine opens the playground; None without an HTTP port or a
    built playground."""
    if not port or not (static_dir / "index.html").is_file():
        return None
    name = "localhost" if host in {"0.0.0.0", "::", "[::]", ""} else host.strip("[]")
    return f"http://{f'[{name}]' if ':' in name else name}:{port}/"


def with_length(start: Message, length: int) -> Message:
    """A response head with its body's length, unless it names a length or a transfer coding."""
    headers = start.get("headers", ())
    if any(name in (b"content-length", b"transfer-encoding") for name, _ in headers):
        return start
    return {**start, "headers": [*headers, (b"content-length", b"%d" % length)]}


def refusal_body(scope: Scope, status: int) -> bytes:
    """The Connect error body of a request the library refused before a method with an empty
    one: an unknown method (naming the service's methods, or the one whose case differs), an
    HTTP method other than POST (saying how to call), or a content type none of the protocols
    speaks."""
    path: str = scope["path"]
    name = path[len(SERVICE_PREFIX) :]
    if status == 405:
        message = (
            f"{scope['method']} does not call a method: POST the request to it, in JSON with "
            f"Content-Type application/json, e.g. curl -H 'Content-Type: application/json' "
            f"-d '{{}}' {path}"
        )
    elif status == 404:
        methods = sorted(METHOD_NAMES)
        same = [m for m in methods if m.lower() == name.lower()]
        message = (
            f"no method {path}: paths are case-sensitive; did you mean {SERVICE_PREFIX}{same[0]}?"
            if same
            else f"no method {name!r} in {SERVICE.full_name}: it has {', '.join(methods)}"
        )
    else:
        given = (header(scope, b"content-type") or b"").decode("latin-1") or "none"
        message = (
            f"Content-Type {given} is none that Connect, gRPC-Web or gRPC speaks: send "
            "application/json or application/proto (Connect), application/grpc-web+proto or "
            "application/grpc"
        )
    return json.dumps({"code": EXPLAINED_STATUSES[status], "message": message}).encode()


def _preflight_headers(scope: Scope) -> list[tuple[bytes, bytes]]:
    return [
        (b"access-control-allow-methods", CORS_ALLOW_METHODS.encode()),
        (b"access-control-allow-headers", CORS_ALLOW_HEADERS.encode()),
        (b"access-control-max-age", CORS_MAX_AGE.encode()),
    ]


def _text(cors: list[tuple[bytes, bytes]] | None) -> list[tuple[bytes, bytes]]:
    return [(b"content-type", b"text/plain; charset=utf-8"), *(cors or [])]


def _with_headers(send: Send, extra: list[tuple[bytes, bytes]]) -> Send:
    """``send`` that adds ``extra`` (the CORS headers) to the response's headers."""
    if not extra:
        return send
    expose = [(b"access-control-expose-headers", CORS_EXPOSE_HEADERS.encode())]

    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start":
            message = {**message, "headers": [*message.get("headers", ()), *extra, *expose]}
        await send(message)

    return sending


async def _respond(
    send: Send, status: int, headers: Iterable[tuple[bytes, bytes]], body: bytes
) -> None:
    await send({"type": "http.response.start", "status": status, "headers": list(headers)})
    await send({"type": "http.response.body", "body": body})


async def _lifespan(receive: Receive, send: Send) -> None:
    while True:
        message = await receive()
        if message["type"] == "lifespan.startup":
            await send({"type": "lifespan.startup.complete"})
        elif message["type"] == "lifespan.shutdown":
            await send({"type": "lifespan.shutdown.complete"})
            return


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port`` that every worker binds (SO_REUSEPORT)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # Nagle's algorithm off on every connection: the server writes a response in parts (head,
    # body, end of the chunks), and with Nagle on each part after the first waits for the
    # client's ACK, which the client delays (40 ms on Linux): every call would take 40 ms more.
    # Accepted connections inherit the option from this socket on Linux; named TCP, the socket
    # also gets asyncio to set the option on each connection it accepts, wherever it runs.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind((host.strip("[]"), port))
    sock.listen(1024)
    sock.set_inheritable(True)
    return sock


class HttpServer:
    """The HTTP door of one worker, served by uvicorn on a thread of its own."""

    def __init__(
        self, app: Door, sock: socket.socket, grace_seconds: float, header_timeout: float
    ) -> None:
        self.app = app
        self.sock = sock
        self.port: int = sock.getsockname()[1]
        self.grace_seconds = grace_seconds
        config = DoorConfig(
            app,
            header_timeout=header_timeout,
            http="zttp",  # HTTP/1.1, and HTTP/2 (h2c, or over TLS) with trailers for gRPC
            http2=True,
            loop="asyncio",  # uvloop saved too little to be worth a dependency
            lifespan="off",
            log_level="warning",  # its start and stop lines would repeat the worker's
            log_config=None,
            access_log=False,
            server_header=False,
            # The grace period is kept here (``stop``): uvicorn's own logs an error at every
            # drain that outlasts it, and at every drain when it is 0.
            timeout_graceful_shutdown=None,
        )
        self._config = config
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._run, name="http", daemon=True)
        self._grace_over: threading.Timer | None = None

    def _run(self) -> None:
        asyncio.run(self._server.serve(sockets=[self.sock]))

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        """Stop taking connections: idle ones are closed at once (HTTP/2 with a GOAWAY), the
        others once their calls are answered, within the grace period; the calls still in
        progress after it are cancelled."""
        self.app.health.serving = False
        self._config.draining = True  # a connection made from now on is closed at once
        self._server.should_exit = True
        if self._grace_over is None:
            self._grace_over = threading.Timer(self.grace_seconds, self._end_grace)
            self._grace_over.daemon = True
            self._grace_over.start()

    def _end_grace(self) -> None:
        """The grace period is over: stop waiting for the calls in progress."""
        left = len(self._server.server_state.tasks)
        if left:
            log.warning("HTTP calls cancelled at the end of the grace period", calls=left)
        self._server.force_exit = True

    def wait(self) -> None:
        self._thread.join()
        if self._grace_over is not None:
            self._grace_over.cancel()


def http_door(
    settings: Any,
    servicer: Any,
    observers: Sequence[Observer],
    log: Any,
    executor: Executor | None = None,
) -> HttpServer:
    """Build and bind (not start) a worker's HTTP door on the worker's servicer, which runs on
    ``executor``'s threads (the worker's thread pool, which its gRPC server shares; a pool of
    ``settings.threads`` of the door's own by default)."""
    from ordo.v1.engine_service_connect import (  # noqa: PLC0415 - loaded when served
        GameEngineServiceASGIApplication,
    )
    from service.doors.connect import connect_service, wire_formats  # noqa: PLC0415

    if executor is None:
        executor = ThreadPoolExecutor(settings.threads, thread_name_prefix="http")
    service = connect_service(servicer, observers, log, executor)
    connect_app = GameEngineServiceASGIApplication(
        service,
        codecs=wire_formats(settings.plain_wire),
        read_max_bytes=settings.max_request_bytes,
    )
    door = Door(
        connect_app,
        observers=observers,
        cors_origins=parse_origins(settings.http_cors_origins),
        limits=Limits.of(settings),
        budget=BodyBudget.of(settings),
    )
    sock = bind(settings.host, settings.http_port)
    return HttpServer(door, sock, settings.grace_seconds, settings.http_header_timeout_seconds)
