"""Calls as a player makes them, with a seat token, through either door: the gRPC port, or the
HTTP port with Connect JSON (as the playground does); each answer as its code, reason and
response message (a stream's first message)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import grpc
from google.protobuf import json_format, message_factory
from google.protobuf.descriptor import Descriptor, FieldDescriptor

from ordo.v1 import common_pb2 as common
from ordo.v1 import engine_service_pb2 as api
from service.trust.seat_tokens import HEADER
from tests.conformance.drivers import reason_of
from tests.connect_calls import SERVICE_PATH, HttpDoor
from tests.stream_calls import StreamEnd, http_stream

SERVICE = api.DESCRIPTOR.services_by_name["GameEngineService"]
HOSTED_METHODS = ("WatchGame", "GetRecord")  # the methods of hosted tables alone
DOORS = ("grpc", "connect-json")
TIMEOUT_SECONDS = 30
GAME = "six_nimmt"  # the game of the hostile requests: who may ask is the same in every game
OTHER_SEAT = 2  # a person's seat that is not the caller's (seat 0); seat 1 is a bot


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
        self.http_address = http_address
        self._channel = grpc.insecure_channel(grpc_address) if door == "grpc" else None
        self._http = HttpDoor(http_address) if door != "grpc" else None

    def close(self) -> None:
        """Close the connection."""
        if self._channel is not None:
            self._channel.close()
        if self._http is not None:
            self._http.close()

    def __call__(self, method: str, request: Any, token: str | None = None) -> Reply:
        """Call ``method`` with ``request``, sending ``token`` when given (a stream: its first
        message, or its end)."""
        headers = {HEADER: token} if token is not None else {}
        if SERVICE.methods_by_name[method].server_streaming:
            return self._stream(method, request, headers)
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

    def _stream(self, method: str, request: Any, headers: dict[str, str]) -> Reply:
        """The first message of a stream, or how it ended before one."""
        if self._channel is not None:
            call = self._channel.unary_stream(SERVICE_PATH + method)
            stream = call(
                request.SerializeToString(),
                timeout=TIMEOUT_SECONDS,
                metadata=tuple(headers.items()),
            )
            try:
                raw = next(stream)
            except grpc.RpcError as error:
                return Reply(error.code(), reason_of(error), error.details() or "")
            finally:
                stream.cancel()
        else:
            messages = http_stream(
                self.http_address, "connect-json", method, request.SerializeToString(), headers
            )
            first = next(messages)
            messages.close()
            if isinstance(first, StreamEnd):
                return Reply(first.code, first.reason)
            raw = first
        return Reply(grpc.StatusCode.OK, response=response_type(method).FromString(raw), raw=raw)

    def ok(self, method: str, request: Any, token: str | None = None) -> Any:
        """The response of a call that must succeed."""
        reply = self(method, request, token)
        assert reply.code == grpc.StatusCode.OK, f"{method}: {reply.code} {reply.reason}"
        return reply.response


def carries_state(message: Descriptor, seen: frozenset[str] = frozenset()) -> bool:
    """Whether a request of type ``message`` holds a ``GameState`` at any depth."""
    for field in message.fields:
        if field.message_type is None or field.message_type.full_name in seen:
            continue
        if field.message_type is common.GameState.DESCRIPTOR:
            return True
        if carries_state(field.message_type, seen | {message.full_name}):
            return True
    return False


STATE_METHODS = [method.name for method in SERVICE.methods if carries_state(method.input_type)]
#: The methods whose request may name a hosted table.
TABLE_METHODS = [m.name for m in SERVICE.methods if "table_id" in m.input_type.fields_by_name]
#: A request's game: a state it carries, or the id of a hosted table it names.
Target = common.GameState | str


#: The messages a request names a move with, one or the other (an action, or a bot's move).
MOVES = (common.Action.DESCRIPTOR, api.BotMove.DESCRIPTOR)


def hostile(message: Descriptor, target: Target) -> Iterator[Any]:
    """Requests of type ``message`` that carry the state ``target`` (or name the hosted table
    ``target``) and name ``OTHER_SEAT`` wherever a field names a seat; one request for each
    member of a oneof that holds a seat, and for each way of naming the move."""
    message_class = message_factory.GetMessageClass(message)
    base = message_class()
    choices: list[tuple[str, Any]] = []
    for field in message.fields:
        filled = fill(field, target)
        if filled is None:
            continue
        alternative = field.containing_oneof is not None or field.message_type in MOVES
        if alternative and field.message_type is not None:
            choices.append((field.name, filled))
        elif field.message_type is not None:
            getattr(base, field.name).CopyFrom(filled)
        else:
            setattr(base, field.name, filled)
    if not choices:
        yield base
    for name, value in choices:
        request = message_class()
        request.CopyFrom(base)
        getattr(request, name).CopyFrom(value)
        yield request


def names_a_seat(message: Descriptor) -> bool:
    """Whether a request of type ``message`` has a field that names a seat."""
    return any(fill(field, "") is not None and field.name != "table_id" for field in message.fields)


def fill(field: FieldDescriptor, target: Target) -> Any:
    """The value a hostile request gives ``field``: the state or the table id of ``target``,
    another seat, or None."""
    if field.is_repeated:
        return None
    state = target if isinstance(target, common.GameState) else None
    if field.name == "table_id" and field.type == FieldDescriptor.TYPE_STRING:
        return None if state is not None else target
    if field.message_type is common.GameState.DESCRIPTOR:
        return state
    if field.name == "seat" and field.type == FieldDescriptor.TYPE_UINT32:
        return OTHER_SEAT
    if field.message_type is common.Viewer.DESCRIPTOR:
        return common.Viewer(seat=OTHER_SEAT)
    if field.message_type is common.Action.DESCRIPTOR:
        return common.Action(seat=OTHER_SEAT, **{GAME: {}})  # malformed, and not the caller's
    if field.message_type is api.BotMove.DESCRIPTOR:
        return api.BotMove(seat=OTHER_SEAT)
    if field.message_type is api.GameRecord.DESCRIPTOR and state is not None:
        return api.GameRecord(format_version=1, initial_state=state)
    return None
