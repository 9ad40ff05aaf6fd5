"""The one table that maps errors to gRPC status codes, and the rich status built from them.

Every error leaves the server as a ``google.rpc.Status`` with exactly one ``ErrorInfo`` whose
``reason`` is stable and whose ``domain`` is ``ordo``. The status travels in the trailing
metadata (the message twice: as ``grpc-message`` and inside the details), whose size clients
cap at 16 KiB by default: the message and the metadata values are cut to a length that keeps a
status well below that, whatever text of the caller's an error quotes.
"""

from __future__ import annotations

from dataclasses import dataclass

import grpc
from google.protobuf import any_pb2
from google.rpc import error_details_pb2, status_pb2
from grpc_status import rpc_status

from engines.errors import RulesError
from service.tables.errors import (
    GameNotFinishedError,
    HostingNotConfiguredError,
    ServerDrainingError,
    TableBusyError,
    TableLimitError,
    TableNotFoundError,
    TableStoreUnavailableError,
)
from service.trust.revision_fence import (
    RevisionStoreOutcomeUnknownError,
    RevisionStoreUnavailableError,
    StateSupersededError,
)
from service.trust.seat_tokens import (
    SeatNotPermittedError,
    SeatTokenInvalidError,
    SeatTokenMissingError,
)

DOMAIN = "ordo"
INTERNAL_REASON = "INTERNAL"
MAX_MESSAGE_CHARACTERS = 1_000
MAX_METADATA_CHARACTERS = 200  # per value of the ErrorInfo's metadata


class RequestError(RulesError):
    """The request itself is malformed: unparsable bytes, a missing or mismatched part."""

    default_reason = "MALFORMED_REQUEST"


class CallBudgetExceededError(RequestError):
    """A call that would cost, or has cost, more CPU than the server allows one call
    (``service.calls.costs``): the same request is refused again."""

    default_reason = "CALL_BUDGET_EXCEEDED"


class ServerBusyError(RulesError):
    """The worker runs and queues as many heavy calls as it may: the call was not started, and
    may be sent again after ``retry_after_ms``."""

    default_reason = "SERVER_BUSY"

    def __init__(self, message: str, *, retry_after_ms: int, **metadata: str) -> None:
        super().__init__(message, retry_after_ms=str(retry_after_ms), **metadata)
        self.retry_after_ms = retry_after_ms


class TooManyCallsError(RulesError):
    """The worker serves as many calls of the service at once as it may
    (``--max-concurrent-rpcs``): the call was not started. Health checks are never counted."""

    default_reason = "OVERLOADED"

    def __init__(self, limit: int) -> None:
        super().__init__(
            f"this worker serves {limit} calls at once, its most: send the call again later",
            max_calls=str(limit),
        )


class CallDeadlineExceededError(RulesError):
    """The caller's deadline passed while the call worked or waited: its work stopped there."""

    default_reason = "DEADLINE_EXCEEDED"

    def __init__(self) -> None:
        super().__init__("the call's deadline passed: its work was stopped")


class CallCancelledError(RulesError):
    """The caller went away (cancelled, or its connection closed): the call's work stopped."""

    default_reason = "CANCELLED"

    def __init__(self) -> None:
        super().__init__("the caller cancelled the call: its work was stopped")


# Every rules error is the caller's argument: the state and the action travel in the request,
# so "illegal here" and "inconsistent" are problems with the argument. Who may ask is another
# matter: a seat token missing or not the server's, a seat the token does not grant, a state
# the revision fence has seen superseded, a fence out of reach (the one refusal worth sending
# again), a worker busy with heavy calls (sent again after the delay it names), a caller that
# stopped waiting. So are hosted tables' refusals: a table unknown, a server that hosts none or a
# record asked for too early, a bound reached, a store out of reach, a table too busy or a server
# that stops (worth sending again). One line per kind keeps the table the single place to change
# that.
STATUS_CODES: tuple[tuple[type[RulesError], grpc.StatusCode], ...] = (
    (RulesError, grpc.StatusCode.INVALID_ARGUMENT),
    (SeatTokenMissingError, grpc.StatusCode.UNAUTHENTICATED),
    (SeatTokenInvalidError, grpc.StatusCode.UNAUTHENTICATED),
    (SeatNotPermittedError, grpc.StatusCode.PERMISSION_DENIED),
    (StateSupersededError, grpc.StatusCode.FAILED_PRECONDITION),
    (RevisionStoreUnavailableError, grpc.StatusCode.UNAVAILABLE),
    (HostingNotConfiguredError, grpc.StatusCode.FAILED_PRECONDITION),
    (GameNotFinishedError, grpc.StatusCode.FAILED_PRECONDITION),
    (TableNotFoundError, grpc.StatusCode.NOT_FOUND),
    (TableLimitError, grpc.StatusCode.RESOURCE_EXHAUSTED),
    (TableStoreUnavailableError, grpc.StatusCode.UNAVAILABLE),
    (TableBusyError, grpc.StatusCode.UNAVAILABLE),
    (ServerDrainingError, grpc.StatusCode.UNAVAILABLE),
    (RevisionStoreOutcomeUnknownError, grpc.StatusCode.UNAVAILABLE),
    (ServerBusyError, grpc.StatusCode.RESOURCE_EXHAUSTED),
    (TooManyCallsError, grpc.StatusCode.RESOURCE_EXHAUSTED),
    (CallDeadlineExceededError, grpc.StatusCode.DEADLINE_EXCEEDED),
    (CallCancelledError, grpc.StatusCode.CANCELLED),
)


@dataclass(frozen=True, slots=True)
class Status(grpc.Status):
    """A status to abort a call with: code, message and the trailing metadata that go with it."""

    code: grpc.StatusCode
    details: str
    trailing_metadata: tuple[tuple[str, str | bytes], ...]


def with_trailing_metadata(
    status: grpc.Status, metadata: tuple[tuple[str, str | bytes], ...]
) -> grpc.Status:
    """``status`` with ``metadata`` added to its trailing metadata (which holds the details)."""
    return Status(status.code, status.details, (*status.trailing_metadata, *metadata))


def status_code_of(error: RulesError) -> grpc.StatusCode:
    """The status code of a rules error: the entry of its nearest class in the table (which
    holds ``RulesError`` itself, so every rules error has one)."""
    for kind in type(error).__mro__:
        for known, code in STATUS_CODES:
            if kind is known:
                return code
    raise LookupError(f"no status code for {type(error).__name__} in STATUS_CODES")


def rich_status(
    code: grpc.StatusCode,
    message: str,
    reason: str,
    metadata: dict[str, str],
    retry_after_ms: int | None = None,
) -> grpc.Status:
    """Build the status with exactly one ``ErrorInfo`` (and a ``RetryInfo`` when the call may be
    sent again after ``retry_after_ms``), ready for ``context.abort_with_status``."""
    info = error_details_pb2.ErrorInfo(
        reason=reason,
        domain=DOMAIN,
        metadata={key: cut(value, MAX_METADATA_CHARACTERS) for key, value in metadata.items()},
    )
    details = [any_pb2.Any()]
    details[0].Pack(info)
    if retry_after_ms is not None:
        details.append(any_pb2.Any())
        details[1].Pack(retry_info(retry_after_ms))
    proto = status_pb2.Status(
        code=code.value[0], message=cut(message, MAX_MESSAGE_CHARACTERS), details=details
    )
    return rpc_status.to_status(proto)


def retry_info(retry_after_ms: int) -> error_details_pb2.RetryInfo:
    """The ``google.rpc.RetryInfo`` of a call that may be sent again after ``retry_after_ms``."""
    info = error_details_pb2.RetryInfo()
    info.retry_delay.FromMilliseconds(retry_after_ms)
    return info


def retry_after_ms(error: RulesError) -> int | None:
    """The delay after which ``error``'s call may be sent again, when it names one."""
    return error.retry_after_ms if isinstance(error, ServerBusyError) else None


def with_article(noun: str) -> str:
    """``a six_nimmt``, ``an up_or_down``: the indefinite article a message needs before a word
    (read by its first letter, as game ids are)."""
    return f"{'an' if noun[:1].lower() in 'aeiou' else 'a'} {noun}"


def cut(text: str, limit: int) -> str:
    """``text``, or its first characters and an ellipsis, ``limit`` characters in all."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def status_of(error: RulesError) -> grpc.Status:
    """The rich status of a rules error."""
    return rich_status(
        status_code_of(error), error.message, error.reason, error.metadata, retry_after_ms(error)
    )


def internal_status() -> grpc.Status:
    """The generic status of an unexpected failure (details are logged, never sent)."""
    return rich_status(grpc.StatusCode.INTERNAL, "internal error", INTERNAL_REASON, {})
