"""Calls as a player makes them, with a seat token, through either door: the gRPC port, or the
HTTP port with Connect JSON (as the playground does); each answer as its code, reason and
response message."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import grpc
from google.protobuf import json_format, message_factory

from ordo.v1 import engine_service_pb2 as api
from service.trust.seat_tokens import HEADER
from tests.conformance.drivers import reason_of
from tests.connect_calls import SERVICE_PATH, HttpDoor

SERVICE = api.DESCRIPTOR.services_by_name["GameEngineService"]
DOORS = ("grpc", "connect-json")
TIMEOUT_SECONDS = 30


@dataclass
class Reply:
    """A call's outcome: its code, the ErrorInfo reason and message (when refused), the
    response message (when not) and, for ApplyAction, the response's bytes as sent."""

    code: grpc.StatusCode
    reason: str = ""
    message: str = ""
    response: Any = None
    raw: bytes = b""


def response_type(method: str) -> Any:
    """The response message class of ``method``."""
    return message_factory.GetMessageClass(SERVICE.methods_by_name[method].output_type)


class Caller:
    """One door of a server, called as a player calls it."""

    def __init__(self, door: str, grpc_address: str, http_address: str) -> None:
        self.door = door
        self._channel = grpc.insecure_channel(grpc_address) if door == "grpc" else None
        self._http = HttpDoor(http_address) if door != "grpc" else None

    def close(self) -> None:
        """Close the connection."""
        if self._channel is not None:
            self._channel.close()
        if self._http is not None:
            self._http.close()

    def __call__(self, method: str, request: Any, token: str | None = None) -> Reply:
        """Call ``method`` with ``request``, sending ``token`` when given."""
        headers = {HEADER: token} if token is not None else {}
        if self._channel is not None:
            call = self._channel.unary_unary(SERVICE_PATH + method)
            try:
                raw = call(
                    request.SerializeToString(),
                    timeout=TIMEOUT_SECONDS,
                    metadata=tuple(headers.items()),
                )
            except grpc.RpcError as error:
                return Reply(error.code(), reason_of(error), error.details() or "")
            return Reply(
                grpc.StatusCode.OK, response=response_type(method).FromString(raw), raw=raw
            )
        assert self._http is not None
        answer = self._http.call(
            "connect-json", method, json_format.MessageToJson(request).encode(), headers
        )
        if answer.code != grpc.StatusCode.OK:
            assert answer.reason, f"{method} refused with no reason: {answer.body!r}"
            return Reply(answer.code, answer.reason, answer.message)
        response = json_format.Parse(answer.body, response_type(method)())
        return Reply(answer.code, response=response, raw=response.SerializeToString())

    def ok(self, method: str, request: Any, token: str | None = None) -> Any:
        """The response of a call that must succeed."""
        reply = self(method, request, token)
        assert reply.code == grpc.StatusCode.OK, f"{method}: {reply.code} {reply.reason}"
        return reply.response
