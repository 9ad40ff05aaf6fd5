"""The one table that maps errors to gRPC status codes, and the rich status built from them.

Every error leaves the server as a ``google.rpc.Status`` with exactly one ``ErrorInfo`` whose
``reason`` is stable and whose ``domain`` is ``ordo``.
"""

from __future__ import annotations

from dataclasses import dataclass

import grpc
from google.protobuf import any_pb2
from google.rpc import error_details_pb2, status_pb2
from grpc_status import rpc_status

from engines.errors import RulesError

DOMAIN = "ordo"
INTERNAL_REASON = "INTERNAL"


class RequestError(RulesError):
    """The request itself is malformed: unparsable bytes, a missing or mismatched part."""

    default_reason = "MALFORMED_REQUEST"


# Every kind of error is the caller's argument: the state and the action travel in the request,
# so "illegal here" and "inconsistent" are problems with the argument. One line per kind keeps
# the table the single place to change that.
STATUS_CODES: tuple[tuple[type[RulesError], grpc.StatusCode], ...] = (
    (RulesError, grpc.StatusCode.INVALID_ARGUMENT),
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
    """The status code of a rules error: the entry of its nearest class in the table."""
    for kind in type(error).__mro__:
        for known, code in STATUS_CODES:
            if kind is known:
                return code
    return grpc.StatusCode.INVALID_ARGUMENT


def rich_status(
    code: grpc.StatusCode, message: str, reason: str, metadata: dict[str, str]
) -> grpc.Status:
    """Build the status with exactly one ``ErrorInfo``, ready for ``context.abort_with_status``."""
    info = error_details_pb2.ErrorInfo(reason=reason, domain=DOMAIN, metadata=metadata)
    detail = any_pb2.Any()
    detail.Pack(info)
    proto = status_pb2.Status(code=code.value[0], message=message, details=[detail])
    return rpc_status.to_status(proto)


def status_of(error: RulesError) -> grpc.Status:
    """The rich status of a rules error."""
    return rich_status(status_code_of(error), error.message, error.reason, error.metadata)


def internal_status() -> grpc.Status:
    """The generic status of an unexpected failure (details are logged, never sent)."""
    return rich_status(grpc.StatusCode.INTERNAL, "internal error", INTERNAL_REASON, {})
