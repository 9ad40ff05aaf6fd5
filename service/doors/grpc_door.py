"""The gRPC door: every method of the service as a gRPC handler on the shared call path.

Each handler hands the request's bytes to ``service.calls.call_path`` and turns its failure into a
rich status (``service.errors``); the server (``service.process.worker``) registers the handlers.

``WatchGame`` streams: its call opens a watcher of a hosted table, and its stream then waits for
what the worker's table feed sends it. A stream holds a thread for as long as it is open, so
watchers run on a pool of their own (as reflection does, ``service.doors.reflection``), of one
thread more than the worker's bound on watchers: a stream past the bound is refused on the spare
thread, and the calls' small pool is never held by a stream.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent import futures
from typing import TYPE_CHECKING, Any

import grpc
import structlog
from google.protobuf import message_factory

from engines.errors import RulesError
from service.calls.call_path import REQUEST_ID_KEY, SERVICE, SERVICE_NAME, invoker, request_id
from service.errors import (
    TooManyCallsError,
    internal_status,
    status_of,
    with_trailing_metadata,
)
from service.tables.watchers import End, Item, Watcher
from service.telemetry.observe import After, CallRecord, Observer
from service.trust.seat_tokens import HEADER as SEAT_TOKEN_KEY

if TYPE_CHECKING:
    from service.calls.servicer import GameEngineServicer
    from service.calls.table_feed import TableFeed

GRPC_PROTOCOL = "grpc"  # the protocol of the calls of the gRPC door, as logged and counted


def metadata_of(context: grpc.ServicerContext) -> tuple[str, str]:
    """The caller's ``x-request-id`` (a new random id when it sent none) and its seat token
    (empty when it sent none), read in one pass over the metadata."""
    sent_id = token = ""
    for key, value in context.invocation_metadata():
        if key == REQUEST_ID_KEY and isinstance(value, str) and not sent_id:
            sent_id = value
        elif key == SEAT_TOKEN_KEY and isinstance(value, str) and not token:
            token = value
    return request_id(sent_id), token


class CallSlots:
    """The calls of the service a worker serves at once, up to ``limit`` (0: no limit). gRPC's
    own limit (``maximum_concurrent_rpcs``) would count health checks too, and refuse them when
    calls fill it: this one counts only the service's methods."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._lock = threading.Lock()
        self._taken = 0

    def take(self) -> bool:
        """Take a slot for a call; False when every slot is taken."""
        with self._lock:
            if self.limit and self._taken >= self.limit:
                return False
            self._taken += 1
            return True

    def give_back(self) -> None:
        """The call has ended: its slot is free."""
        with self._lock:
            self._taken -= 1


def _handler(
    name: str,
    method: Callable[[bytes, CallRecord, str], Any],
    observers: Sequence[Observer],
    log: Any,
    after: After | None = None,
    slots: CallSlots | None = None,
) -> Callable[[bytes, grpc.ServicerContext], Any]:
    """Wrap one servicer method for the gRPC door: the shared call path (``invoker``), its
    errors as rich statuses, the worker's ``slots`` (a call over them is refused, logged and
    counted like any). The request id goes back in the trailing metadata, which leaves with the
    status: sending it at the start would cost a message of its own."""
    invoke = invoker(name, method, observers, log)

    def handle(raw: bytes, context: grpc.ServicerContext) -> Any:
        sent_id, token = metadata_of(context)
        if slots is None or not slots.limit:
            response, failure, call = invoke(
                raw, sent_id, GRPC_PROTOCOL, after, seat_token=token, waiting=context
            )
        elif not slots.take():
            refused = TooManyCallsError(slots.limit)
            response, failure, call = invoke(raw, sent_id, GRPC_PROTOCOL, after, problem=refused)
        else:
            try:
                response, failure, call = invoke(
                    raw, sent_id, GRPC_PROTOCOL, after, seat_token=token, waiting=context
                )
            finally:
                slots.give_back()
        request_id = ((REQUEST_ID_KEY, call.request_id),)
        if failure is not None:
            status = status_of(failure) if isinstance(failure, RulesError) else internal_status()
            context.abort_with_status(with_trailing_metadata(status, request_id))
        context.set_trailing_metadata(request_id)
        return response

    return handle


class WatchStreams:
    """``WatchGame``'s behaviour on the gRPC door: the call opens a watcher, then its stream
    yields what the ``feed`` sends it, on a pool of ``most`` + 1 threads of its own."""

    def __init__(self, invoke: Any, feed: TableFeed | None, most: int, after: After | None) -> None:
        self._invoke = invoke
        self._feed = feed
        self._after = after
        # Read by gRPC: the pool it runs this method on (it must be a ThreadPoolExecutor).
        self.experimental_thread_pool = futures.ThreadPoolExecutor(
            most + 1, thread_name_prefix="watch"
        )

    def __call__(self, raw: bytes, context: grpc.ServicerContext) -> Iterator[Item]:
        sent_id, token = metadata_of(context)
        opened, failure, call = self._invoke(
            raw, sent_id, GRPC_PROTOCOL, self._after, seat_token=token
        )
        request_id = ((REQUEST_ID_KEY, call.request_id),)
        if failure is not None:
            status = status_of(failure) if isinstance(failure, RulesError) else internal_status()
            context.abort_with_status(with_trailing_metadata(status, request_id))
        context.set_trailing_metadata(request_id)
        return self._stream(opened, context, request_id)

    def _stream(
        self, watcher: Watcher, context: grpc.ServicerContext, request_id: Any
    ) -> Iterator[Item]:
        assert self._feed is not None  # a watcher was opened: the server hosts tables
        items: queue.SimpleQueue[Item] = queue.SimpleQueue()
        watcher.attach(items.put)
        try:
            # The stream's end, whoever ends it (the client gone, the server stopping), wakes it.
            if not context.add_callback(lambda: items.put(End())):
                return
            self._feed.follow(watcher)
            while True:
                item = items.get()
                if isinstance(item, End):
                    if item.error is not None:
                        status = with_trailing_metadata(status_of(item.error), request_id)
                        context.abort_with_status(status)
                    return
                watcher.taken()
                yield item
        finally:
            self._feed.close(watcher)


def serializer(response_type: Any) -> Callable[[Any], bytes]:
    """The response serializer of a method: a servicer method may answer with its response
    already serialized (``ApplyAction`` does), which goes out as it is."""
    serialize = response_type.SerializeToString

    def serialized(response: Any) -> bytes:
        return response if type(response) is bytes else serialize(response)

    return serialized


def method_handlers(
    servicer: GameEngineServicer,
    observers: Sequence[Observer] = (),
    after: After | None = None,
    max_calls: int = 0,
) -> dict[str, grpc.RpcMethodHandler[Any, Any]]:
    """The handler of every method of the service, by method name, built from its descriptor;
    ``after`` (a ``CallThreadPool``'s) runs the observers once the response has left;
    ``max_calls`` bounds the calls served at once (0: no bound)."""
    log = structlog.get_logger("ordo.server")  # per server: it keeps the set-up of its first use
    slots = CallSlots(max_calls)
    handlers = {}
    for method in SERVICE.methods:
        response_type = message_factory.GetMessageClass(method.output_type)
        if method.server_streaming:
            hosting = servicer.hosting
            feed = None if hosting is None else hosting.feed
            invoke = invoker(method.name, getattr(servicer, method.name), observers, log)
            most = 1 if feed is None else feed.watchers.max_watchers
            handlers[method.name] = grpc.unary_stream_rpc_method_handler(
                WatchStreams(invoke, feed, most, after),
                request_deserializer=None,
                response_serializer=serializer(response_type),
            )
            continue
        handlers[method.name] = grpc.unary_unary_rpc_method_handler(
            _handler(method.name, getattr(servicer, method.name), observers, log, after, slots),
            request_deserializer=None,
            response_serializer=serializer(response_type),
        )
    return handlers


def rpc_handler(
    servicer: GameEngineServicer, observers: Sequence[Observer] = ()
) -> grpc.GenericRpcHandler[Any, Any]:
    """The generic handler of every method of the service."""
    return grpc.method_handlers_generic_handler(SERVICE_NAME, method_handlers(servicer, observers))
