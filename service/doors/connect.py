"""The service over Connect, gRPC-Web and gRPC on HTTP: codecs and the servicer's adapter.

The HTTP door runs the generated ``GameEngineServiceASGIApplication`` of ``connectrpc``, whose
endpoints call ``ConnectService``: each method goes down the same call path as the gRPC door's
(``service.calls.call_path``), with the same servicer. Binary requests reach it as the bytes that
arrived, exactly as gRPC hands them over, so both doors give the same answer byte for byte; a
JSON request is parsed and serialized to those bytes first. Errors leave as Connect errors with
the one ``google.rpc.ErrorInfo`` of the gRPC door's status among their details, in Connect's JSON
also in readable form (the detail's ``debug`` field), so that curl shows the reason.

``WatchGame`` is a server stream (Connect's streaming protocol over HTTP/1.1 or HTTP/2, or
gRPC-Web): its call opens a watcher of a hosted table, then the stream awaits, on the door's
event loop, what the worker's table feed hands it from its own thread: an open stream costs a
coroutine and a queue, no thread.
"""

from __future__ import annotations

import asyncio
import re
import threading
import time
from collections.abc import AsyncIterator, Callable, Sequence
from concurrent.futures import Executor
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from connectrpc.code import Code
from connectrpc.errors import ConnectError, ErrorDetail
from google.protobuf import descriptor_pool, json_format, message_factory
from google.protobuf.message import Message
from google.rpc import error_details_pb2
from protobuf.wkt import Any as AnyDetail
from protobuf.wkt import Struct

from engines.errors import RulesError
from service.calls.call_path import REQUEST_ID_KEY, SERVICE, Invoke, invoker, request_id
from service.doors.http_guard import content_protocol
from service.doors.json_wire import JsonWire
from service.errors import (
    DOMAIN,
    INTERNAL_REASON,
    MAX_MESSAGE_CHARACTERS,
    RequestError,
    cut,
    retry_after_ms,
    retry_info,
    status_code_of,
)
from service.errors import MAX_METADATA_CHARACTERS as METADATA_CHARACTERS
from service.tables.watchers import End, Item, Watcher
from service.telemetry.observe import After, CallRecord, Observer
from service.trust.seat_tokens import HEADER as SEAT_TOKEN_KEY

if TYPE_CHECKING:
    from service.calls.servicer import GameEngineServicer
    from service.calls.table_feed import TableFeed

ERROR_INFO_TYPE = "type.googleapis.com/" + error_details_pb2.ErrorInfo.DESCRIPTOR.full_name
RETRY_INFO_TYPE = "type.googleapis.com/" + error_details_pb2.RetryInfo.DESCRIPTOR.full_name
JSON_CODEC = "json"
PROTO_CODEC = "proto"
# What protobuf's JSON parser says around the part worth reading: the fields it was parsing, and
# the list of a message's fields when a name is unknown.
PARSING_FIELD = re.compile(r"Failed to parse (\w+) field: ")
AVAILABLE_FIELDS = re.compile(r'\.?\s*Available Fields\(except extensions\): "\[(.*)\]"', re.DOTALL)
# An enum value the parser does not know: the name sent, and the enum's full name.
INVALID_ENUM = re.compile(r"Invalid enum value (\S+) for enum type ([\w.]+)")


@dataclass(slots=True)
class Served:
    """What the door learns of the request it serves from inside the library."""

    #: Whether it reached the servicer: the door counts those refused before (unknown method,
    #: bad content type, too large).
    reached: bool = False
    #: The error a method raised. The library keeps it in a variable of a frame its traceback
    #: holds, a reference cycle: the door drops the traceback once the library has answered.
    error: ConnectError | None = None
    #: The work the call left (its observers), done once its answer has been sent.
    left: list[tuple[Callable[[CallRecord], None], CallRecord]] = field(default_factory=list)
    #: Whether the answer has been sent (or the request abandoned): work left later is done
    #: at once, by the thread that leaves it.
    finished: bool = False
    lock: threading.Lock = field(default_factory=threading.Lock)

    def after(self, work: Callable[[CallRecord], None], call: CallRecord) -> bool:
        """Leave ``work(call)`` until the answer has left (``After``): the servicer's thread
        hands the answer to the event loop without running the observers first. False once the
        request is over (a call that went on after its caller left): the caller does it."""
        with self.lock:
            if self.finished:
                return False
            self.left.append((work, call))
            return True

    def finish(self) -> None:
        """Do the work the call left."""
        with self.lock:
            self.finished = True
            left, self.left = self.left, []
        for work, call in left:
            work(call)


#: The ``Served`` of the request being served, one per request.
served: ContextVar[Served] = ContextVar("served")


@dataclass(frozen=True, slots=True)
class JsonRequest:
    """A JSON request as the JSON codec took it, unread: the bytes sent, the message they
    should hold, and the codec's converter, so that the worker's thread reads it, not the
    door's event loop."""

    data: bytes
    message_class: Any
    wire: JsonWire

    def call(self, invoke: Invoke, response_type: Any, *args: Any) -> Any:
        """Read the request, call the method with it (``invoke``, with ``args``: the request
        id, the protocol, the work left after, the seat token and the caller), and write its
        answer in JSON: ``invoke``'s outcome, with the answer as JSON bytes. A request that
        does not parse is handed on with its problem, so that the call path refuses it with a
        reason like any bad request."""
        call_id, protocol, after, token, waiting = args
        try:
            raw, problem = self.wire.parse(self.data, self.message_class), None
        except (json_format.ParseError, UnicodeDecodeError, RecursionError) as error:
            raw, problem = (
                b"",
                RequestError(
                    f"the request is not a valid {self.message_class.DESCRIPTOR.full_name} in "
                    f"JSON: {json_problem(str(error))}"
                ),
            )
        response, failure, record = invoke(
            raw, call_id, protocol, after, len(self.data), problem, token, waiting
        )
        if type(response) is bytes:
            response = self.wire.dump(response_type.FromString(response))
        elif isinstance(response, Message):
            response = self.wire.dump(response)
        # Any other answer (a stream's watcher) goes on as it is: its messages are written one
        # by one.
        return response, failure, record


class BinaryCodec:
    """Protobuf binary: a request stays the bytes that arrived; a response goes out as the
    servicer serialized it, or serialized here."""

    def name(self) -> str:
        return PROTO_CODEC

    def encode(self, message: Any) -> bytes:
        return message if type(message) is bytes else bytes(message.SerializeToString())

    def decode(self, data: bytes | bytearray, message_class: type[Any]) -> bytes:
        return bytes(data)


class JsonCodec:
    """Protobuf's JSON mapping, field names in lowerCamelCase, converted by ``JsonWire`` (its
    fast path, or ``json_format`` alone when ``plain``); unknown fields are refused, as the
    binary form cannot carry them through either. A request is read, and its answer written,
    on the worker's thread (``JsonRequest``): an answer reaches ``encode`` as JSON already."""

    def __init__(self, plain: bool = False) -> None:
        self.wire = JsonWire(plain)

    def name(self) -> str:
        return JSON_CODEC

    def encode(self, message: Any) -> bytes:
        return message if type(message) is bytes else self.wire.dump(message)

    def decode(self, data: bytes | bytearray, message_class: type[Any]) -> JsonRequest:
        return JsonRequest(bytes(data), message_class, self.wire)


def wire_formats(plain: bool = False) -> tuple[BinaryCodec, JsonCodec]:
    """The codecs of the HTTP door: binary, and JSON (``json_format`` alone when ``plain``)."""
    return BinaryCodec(), JsonCodec(plain)


def json_problem(text: str) -> str:
    """What protobuf's JSON parser found wrong, said once: the path of the field it was parsing
    (``state.options.hands``) instead of a "Failed to parse … field" per level when the parser
    names no place itself, and a message's fields in plain words, so that the reason comes before
    any cut."""
    path = PARSING_FIELD.findall(text)
    text = PARSING_FIELD.sub("", text)
    text = AVAILABLE_FIELDS.sub(
        lambda fields: f"; its fields are {fields[1].replace(chr(39), '')}", text
    )
    text = text.strip().rstrip(".")
    text = f"{'.'.join(path)}: {text}" if path and " at " not in text else text
    unknown = INVALID_ENUM.search(text)
    return f"{text}; {enum_hint(unknown[1], unknown[2])}" if unknown else text


def enum_hint(sent: str, enum_name: str) -> str:
    """What to send instead of the unknown value ``sent`` of the enum ``enum_name``: its name
    with the enum's prefix, which the JSON mapping needs (``TAKE_CHEAPEST_ROW`` is sent as
    ``SIX_NIMMT_TOO_LOW_RULE_TAKE_CHEAPEST_ROW``), or the values the enum has."""
    try:
        enum = descriptor_pool.Default().FindEnumTypeByName(enum_name)
    except KeyError:
        return "enum values go on the wire with their type's prefix"
    names = [value.name for value in enum.values if not value.name.endswith("_UNSPECIFIED")]
    prefixed = [name for name in names if name.endswith(f"_{sent.upper()}")]
    if prefixed:
        return f"enum values go on the wire with their type's prefix: send {prefixed[0]}"
    return f"its values are {', '.join(names)}"


class ReadableErrorInfo(ErrorDetail):
    """An ``ErrorInfo`` detail, which Connect's JSON also writes in readable form (the detail's
    ``debug`` field, as Connect's other servers do) beside its base64 ``value``."""

    def __init__(self, info: error_details_pb2.ErrorInfo) -> None:
        super().__init__(AnyDetail(type_url=ERROR_INFO_TYPE, value=info.SerializeToString()))
        self._info = info

    def value(self, desc_or_registry: Any = None) -> Any:
        """The detail as a message: its readable form when the library asks for one."""
        if desc_or_registry is not None:
            return super().value(desc_or_registry)
        info = self._info
        return Struct.from_python(
            {"reason": info.reason, "domain": info.domain, "metadata": dict(info.metadata)}
        )


def connect_error(failure: Exception) -> ConnectError:
    """The Connect error of a failed call: the code of a rules error (``service.errors``'s
    table, INVALID_ARGUMENT for most) with its reason (and a ``RetryInfo`` when it names a
    delay to retry after), INTERNAL for anything else (whose details were logged, never
    sent)."""
    if isinstance(failure, RulesError):
        code = Code[status_code_of(failure).name]
        message, reason = failure.message, failure.reason
        metadata = {key: cut(value, METADATA_CHARACTERS) for key, value in failure.metadata.items()}
    else:
        code, message, reason, metadata = Code.INTERNAL, "internal error", INTERNAL_REASON, {}
    info = error_details_pb2.ErrorInfo(reason=reason, domain=DOMAIN, metadata=metadata)
    details: list[ErrorDetail] = [ReadableErrorInfo(info)]
    delay = retry_after_ms(failure) if isinstance(failure, RulesError) else None
    if delay is not None:
        packed = retry_info(delay).SerializeToString()
        details.append(ErrorDetail(AnyDetail(type_url=RETRY_INFO_TYPE, value=packed)))
    return ConnectError(code, cut(message, MAX_MESSAGE_CHARACTERS), details)


def snake_case(name: str) -> str:
    """The Python name the generated code gives a method: ``ApplyAction`` -> ``apply_action``."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


class HttpWaiting:
    """The caller of an HTTP call, as the door sees it: its deadline (from the timeout its
    request sent, which the library keeps too), and whether the library gave up on it (the
    deadline passed, or the client went away: the library cancels the method then)."""

    __slots__ = ("deadline", "gone")

    def __init__(self, timeout_ms: float | None) -> None:
        self.deadline = None if timeout_ms is None else time.monotonic() + timeout_ms / 1000
        self.gone = False

    def is_active(self) -> bool:
        return not self.gone and (self.deadline is None or time.monotonic() < self.deadline)

    def time_remaining(self) -> float | None:
        return None if self.deadline is None else self.deadline - time.monotonic()


async def _invoked(
    invoke: Invoke,
    response_type: Any,
    after: After | None,
    executor: Executor,
    request: bytes | JsonRequest,
    ctx: Any,
) -> Any:
    """Call a method through the call path on ``executor``'s threads: its response (raising
    its failure as a Connect error)."""
    record = served.get(None)
    if record is not None:
        record.reached = True
    headers = ctx.request_headers
    call_id = request_id(headers.get(REQUEST_ID_KEY, ""))
    protocol = content_protocol(headers.get("content-type", ""))
    token = headers.get(SEAT_TOKEN_KEY, "")
    waiting = HttpWaiting(ctx.timeout_ms)
    leave = record.after if record is not None else after
    # The servicer runs on the worker's threads, never on the door's event loop, which goes on
    # serving /healthz and reading other requests meanwhile.
    if isinstance(request, bytes):
        called = executor.submit(
            invoke, request, call_id, protocol, leave, seat_token=token, waiting=waiting
        )
    else:
        called = executor.submit(
            request.call, invoke, response_type, call_id, protocol, leave, token, waiting
        )
    try:
        response, failure, _ = await asyncio.wrap_future(called)
    except asyncio.CancelledError:
        waiting.gone = True  # the servicer stops the call's long work at its next check
        raise
    if protocol == "connect":
        ctx.response_headers[REQUEST_ID_KEY] = call_id
    else:
        ctx.response_trailers[REQUEST_ID_KEY] = call_id
    if failure is not None:
        error = connect_error(failure)
        if record is not None:
            record.error = error
        raise error
    return response


def _method(
    invoke: Invoke, response_type: Any, after: After | None, executor: Executor
) -> Callable[..., Any]:
    async def call(request: bytes | JsonRequest, ctx: Any) -> Any:
        return await _invoked(invoke, response_type, after, executor, request, ctx)

    return call


def _stream_method(
    invoke: Invoke,
    response_type: Any,
    after: After | None,
    executor: Executor,
    feed: TableFeed | None,
) -> Callable[..., AsyncIterator[Any]]:
    """``WatchGame`` as the library calls it: an async generator of its messages."""

    async def call(request: bytes | JsonRequest, ctx: Any) -> AsyncIterator[Any]:
        watcher: Watcher = await _invoked(invoke, response_type, after, executor, request, ctx)
        assert feed is not None  # a watcher was opened: the server hosts tables
        loop = asyncio.get_running_loop()
        items: asyncio.Queue[Item] = asyncio.Queue()

        def sink(item: Item) -> None:
            loop.call_soon_threadsafe(items.put_nowait, item)

        watcher.attach(sink)
        feed.follow(watcher)
        json = not isinstance(request, bytes)
        try:
            while True:
                item = await items.get()
                if isinstance(item, End):
                    if item.error is not None:
                        raise connect_error(item.error)
                    return
                watcher.taken()
                yield response_type.FromString(item) if json else item
        finally:
            feed.close(watcher)

    return call


def connect_service(
    servicer: GameEngineServicer,
    observers: Sequence[Observer],
    log: Any,
    executor: Executor,
    after: After | None = None,
) -> Any:
    """An object with the servicer's methods as the generated application calls them, each
    running the servicer on ``executor``'s threads (``WatchGame``'s stream then on the door's
    event loop)."""
    feed = None if servicer.hosting is None else servicer.hosting.feed
    methods = {}
    for method in SERVICE.methods:
        response_type = message_factory.GetMessageClass(method.output_type)
        invoke = invoker(method.name, getattr(servicer, method.name), observers, log)
        name = snake_case(method.name)
        if method.server_streaming:
            methods[name] = _stream_method(invoke, response_type, after, executor, feed)
        else:
            methods[name] = _method(invoke, response_type, after, executor)
    return type("ConnectService", (), {name: staticmethod(f) for name, f in methods.items()})()
