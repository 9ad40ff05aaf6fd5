"""The call path both doors share: one call of a servicer method from its request's bytes to its
response, its failure and its record, with the observers told of it.

The gRPC door (``service.doors.grpc_door``) and the HTTP door (``service.doors.connect``) each
wrap the
``invoke`` of every method (``invoker``) in their own framing: a request reaches the servicer the
same way through either, and its failure leaves as the door's form of the same status. The
request id of a call, sent by its caller or made here, is also the doors' shared business.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from random import getrandbits
from typing import Any

from engines.errors import RulesError
from ordo.v1 import engine_service_pb2 as api
from service.errors import INTERNAL_REASON, status_code_of
from service.telemetry import logs
from service.telemetry.observe import After, CallRecord, Observer, Waiting

SERVICE = api.DESCRIPTOR.services_by_name["GameEngineService"]
SERVICE_NAME = SERVICE.full_name
REQUEST_ID_KEY = "x-request-id"
MAX_REQUEST_ID_LENGTH = 128  # a longer id sent by a caller is cut to this many characters
REQUEST_ID_BITS = 128  # a request id made here: 128 random bits, written as 32 hex digits

#: The shared call path of one method (see ``invoker``).
Invoke = Callable[..., tuple[Any, "Exception | None", CallRecord]]


def request_id(sent: str) -> str:
    """The request id of a call: the one its caller ``sent`` (cut to ``MAX_REQUEST_ID_LENGTH``),
    or a new one when it sent none."""
    return sent[:MAX_REQUEST_ID_LENGTH] or new_request_id()


def new_request_id() -> str:
    """A new request id, for a call whose caller sent none."""
    # Unique, not secret: Python's generator (seeded from the system's, again in a forked child)
    # costs no system call, unlike os.urandom.
    return f"{getrandbits(REQUEST_ID_BITS):032x}"


def _observer_failed(observer: Observer, call: CallRecord, error: Exception, log: Any) -> None:
    """Log the failure of an observer's hook (if logging works at all); the call goes on."""
    logs.log_error(
        log,
        "observer failed",
        error,
        observer=type(observer).__qualname__,
        method=call.method,
        request_id=call.request_id,
    )


def drop_tracebacks(error: Exception) -> None:
    """Drop the traceback of ``error`` and those of the exceptions it was raised from.

    A failure leaves the call path as an answer (a status), logged already when unexpected. Its
    traceback holds the frame of the call path, which holds the failure: a reference cycle that
    only the collector frees, with the call's request, context and gRPC state hanging from it,
    for every refused request."""
    chained: list[BaseException | None] = [error]
    seen: set[int] = set()
    while chained:
        link = chained.pop()
        if link is not None and id(link) not in seen:
            seen.add(id(link))
            link.__traceback__ = None
            chained += (link.__cause__, link.__context__)


def invoker(
    name: str,
    method: Callable[[bytes, CallRecord, str], Any],
    observers: Sequence[Observer],
    log: Any,
) -> Invoke:
    """The call path of one servicer method that both doors share: call, observe.

    ``invoke(raw, request_id, protocol, after, size, problem, seat_token, waiting)`` returns the
    response
    (None on failure), the error (a ``RulesError``, or any other exception for an unexpected
    failure, already logged) and the call's record. The request arrives as raw bytes, which the
    servicer's method parses itself, so that unparsable input is a bad argument with a reason
    like any other, not a transport error. ``size`` is the size of the request as sent when that
    was not ``raw`` (JSON); a ``problem`` found before (JSON that does not parse) fails the call
    as the servicer would have; ``seat_token`` is the caller's (see
    ``service.trust.seat_tokens``), handed to the servicer alone, never to the record;
    ``waiting`` is the caller as the door sees it, whose leaving stops a long call. The
    observers hear of the finished call through ``after`` (see ``CallThreadPool``), once the
    response has left, or at once without it.
    """

    def finished(call: CallRecord) -> None:
        for observer in observers:
            try:
                observer.call_finished(call)
            except Exception as error:
                _observer_failed(observer, call, error, log)

    def invoke(
        raw: bytes,
        request_id: str,
        protocol: str,
        after: After | None,
        size: int | None = None,
        problem: RulesError | None = None,
        seat_token: str = "",
        waiting: Waiting | None = None,
    ) -> tuple[Any, Exception | None, CallRecord]:
        call = CallRecord(
            method=name,
            request_bytes=len(raw) if size is None else size,
            request_id=request_id,
            protocol=protocol,
            waiting=waiting,
        )
        for observer in observers:
            try:
                observer.call_started(call)
            except Exception as error:
                _observer_failed(observer, call, error, log)
        failure: Exception | None = None
        response = None
        try:
            if problem is not None:
                raise problem
            response = method(raw, call, seat_token)
        except RulesError as error:
            failure = error
            call.code = status_code_of(error).name
            call.reason = error.reason
        except Exception as error:
            # Never the request, nor the exception's message: both may hold hidden state.
            logs.log_error(
                log,
                "unexpected error",
                error,
                method=name,
                game=call.game or None,
                seat=call.seat,
                request_id=call.request_id,
            )
            failure = error
            call.code, call.reason = "INTERNAL", INTERNAL_REASON
        if failure is not None:
            drop_tracebacks(failure)
        call.waiting = None  # the door's hold on its caller ends with the call
        call.seconds = time.perf_counter() - call.started
        if after is None or not after(finished, call):
            finished(call)
        return response, failure, call

    return invoke
