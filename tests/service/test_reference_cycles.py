"""A refused call leaves no reference cycle behind: what it made is freed as it ends.

An exception holds the frames it passed through, and a frame holds its variables: a failure
kept in a variable of a frame it passed through is a cycle, with the call's request, context and
gRPC state hanging from it, which only the collector frees, long after the call. Under a steady
share of bad requests such garbage piles up between collections and raises the worker's memory
at every new peak (docs/performance.md, "Soak").
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from connectrpc.errors import ConnectError
from google.protobuf import json_format

from engines.errors import RulesError
from ordo.v1 import common_pb2 as common
from ordo.v1 import engine_service_pb2 as api
from ordo.v1 import engine_service_pb2_grpc as rpc
from ordo.v1 import six_nimmt_pb2 as six_nimmt
from service.config import Settings
from service.process.worker import create_server
from service.telemetry.observe import CallRecord
from tests.connect_calls import PROTOCOLS, HttpDoor
from tests.service.conftest import Settled, WaitForObservers

SERVICE = "/ordo.v1.GameEngineService/"
SERVICE_DIR = str(Path(__file__).resolve().parents[2] / "service")


@pytest.fixture
def cyclic_garbage() -> Iterator[Callable[[], list[Any]]]:
    """Returns the objects that only the collector could free, from the fixture's start on."""
    gc.collect()
    gc.set_debug(gc.DEBUG_SAVEALL)

    def collect() -> list[Any]:
        gc.collect()
        return list(gc.garbage)

    try:
        yield collect
    finally:
        gc.set_debug(0)
        gc.garbage.clear()


def of_the_server(item: object) -> bool:
    """An object only the server's call path makes: its frames, records and refusals."""
    if isinstance(item, CallRecord | RulesError | ConnectError):
        return True
    code = getattr(item, "f_code", None)
    return code is not None and code.co_filename.startswith(SERVICE_DIR)


@pytest.fixture
def channel_to_server() -> Iterator[grpc.Channel]:
    """A channel to a server of its own whose calls return once the server is done with them
    (its observers have seen them end, after the handler returned)."""
    settled = Settled()
    settings = Settings(host="127.0.0.1", port=0, workers=1, metrics_port=0)
    server, port, _health = create_server(settings, [settled])
    server.start()
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    try:
        yield grpc.intercept_channel(channel, WaitForObservers(settled))
    finally:
        channel.close()
        server.stop(None)


def refused(call: Callable[[Any], object], request: Any) -> None:
    with pytest.raises(grpc.RpcError) as raised:
        call(request)
    assert raised.value.code() == grpc.StatusCode.INVALID_ARGUMENT


def test_refused_calls_leave_no_cycles(
    channel_to_server: grpc.Channel, cyclic_garbage: Callable[[], list[Any]]
) -> None:
    """Refusals from the rules, from a codec, and of bytes that are no request."""
    stub = rpc.GameEngineServiceStub(channel_to_server)
    options = common.GameOptions(six_nimmt=six_nimmt.SixNimmtOptions())
    started = stub.NewGame(api.NewGameRequest(seats=3, seed=1, options=options))
    raw_new_game = channel_to_server.unary_unary(f"{SERVICE}NewGame")  # bytes as they are
    for _ in range(3):
        refused(stub.NewGame, api.NewGameRequest(seats=1, options=options))
        refused(stub.NewGame, api.NewGameRequest(seats=3))  # no game
        refused(stub.ApplyAction, api.ApplyActionRequest(state=started.state))
        refused(raw_new_game, b"\xff\xff\xff")
    found = [item for item in cyclic_garbage() if of_the_server(item)]
    assert not found, f"{len(found)} objects of refused calls in cycles, such as {found[:5]}"


def encoded(protocol: str, request: Any) -> bytes:
    """A request as ``HttpDoor.call`` takes it in ``protocol``."""
    if protocol == "connect-json":
        return json_format.MessageToJson(request).encode()
    return bytes(request.SerializeToString())


def test_refused_calls_through_the_http_door_leave_no_cycles(
    http_address: str, cyclic_garbage: Callable[[], list[Any]]
) -> None:
    """The same through the HTTP door, in each of its protocols. A call answered afterwards on
    each connection makes sure the door is done with the refused ones: it serves the calls of
    one connection one after the other, on one event loop."""
    options = common.GameOptions(six_nimmt=six_nimmt.SixNimmtOptions())
    bad = (api.NewGameRequest(seats=1, options=options), api.NewGameRequest(seats=3))
    good = api.NewGameRequest(seats=3, seed=1, options=options)
    door = HttpDoor(http_address)
    try:
        for protocol in PROTOCOLS:
            for request in bad:
                answer = door.call(protocol, "NewGame", encoded(protocol, request))
                assert answer.code == grpc.StatusCode.INVALID_ARGUMENT, protocol
        for protocol in PROTOCOLS:
            assert (
                door.call(protocol, "NewGame", encoded(protocol, good)).code == grpc.StatusCode.OK
            )
    finally:
        door.close()
    found = [item for item in cyclic_garbage() if of_the_server(item)]
    assert not found, f"{len(found)} objects of refused calls in cycles, such as {found[:5]}"
