"""``OrdoError``: the one error of every failed call of the clients."""

from __future__ import annotations

from collections.abc import Mapping

import grpc
from google.rpc import error_details_pb2
from grpc_status import rpc_status

__all__ = ["OrdoError"]


class OrdoError(Exception):
    """A failed call: its status code and the stable reason and metadata of its ``ErrorInfo``.

    ``reason`` is empty when the failure did not come from Ordo's rules (an unreachable server,
    an expired deadline); ``message`` is for people. ``request_id`` is the ``x-request-id`` the
    call was sent with (every attempt), which the server's access log and error lines carry.
    ``answered`` says that the failure is an answer of the service: it carried an ``ErrorInfo``
    (the same request would get it again, so it is never retried, unless its reason is one of
    ``RETRIED_REASONS``: the service could not serve it now, its revision store out of reach).
    """

    def __init__(
        self,
        code: grpc.StatusCode,
        reason: str,
        message: str,
        metadata: Mapping[str, str] | None = None,
        request_id: str = "",
        *,
        answered: bool = False,
    ) -> None:
        super().__init__(code, reason, message)
        self.code = code
        self.reason = reason
        self.message = message
        self.metadata: dict[str, str] = dict(metadata or {})
        self.request_id = request_id
        self.answered = answered

    def __str__(self) -> str:
        head = f"{self.code.name} {self.reason}" if self.reason else self.code.name
        return f"{head}: {self.message}" if self.message else head

    @classmethod
    def from_rpc_error(cls, error: grpc.RpcError) -> OrdoError:
        """Read the code, and the ``ErrorInfo`` of the rich status when there is one."""
        code = error.code()
        message = error.details() or ""
        status = None
        # from_call reads the code, details and trailing metadata, which an asyncio call's error
        # (AioRpcError, no grpc.Call) has as well.
        if isinstance(error, grpc.Call | grpc.aio.AioRpcError):
            try:
                status = rpc_status.from_call(error)  # type: ignore[arg-type]
            except ValueError:  # the rich status contradicts the call's own code: ignore it
                status = None
        if status is None:
            return cls(code, "", message)
        for detail in status.details:
            info = error_details_pb2.ErrorInfo()
            if detail.Unpack(info):
                return cls(code, info.reason, status.message, info.metadata, answered=True)
        return cls(code, "", status.message)
