"""Hosted tables for the tests: in-process servers (both doors, one worker each) that host games
on a ``redis-server`` the tests start, and a table's calls and streams as its seats make them."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import grpc
import structlog

from ordo.v1 import common_pb2 as common
from ordo.v1 import engine_service_pb2 as api
from ordo.v1 import engine_service_pb2_grpc as rpc
from service.calls.servicer import GameEngineServicer
from service.config import Settings
from service.doors.http_door import http_door
from service.process.worker import create_server, new_servicer
from service.trust.seat_tokens import HEADER
from tests.state_keys import TEST_KEY

SUBSCRIBE_SECONDS = 30.0  # bound on a server's first connection to the store's notices
TIMEOUT_SECONDS = 30.0
#: One hand of 6 nimmt!: a whole game in ten turns.
ONE_HAND = common.GameOptions(
    six_nimmt={"end": "SIX_NIMMT_END_RULE_FIXED_HANDS", "hands": 1}  # type: ignore[dict-item]
)


@dataclass(frozen=True)
class HostedServer:
    """A server that hosts tables: its gRPC address, its HTTP door's and its servicer."""

    grpc_address: str
    http_address: str
    servicer: GameEngineServicer

    @property
    def feed(self) -> Any:
        """The worker's table feed."""
        assert self.servicer.hosting is not None
        return self.servicer.hosting.feed


def hosted_settings(store_url: str, **overrides: Any) -> Settings:
    """The settings of a hosting server on free loopback ports, with the test state key."""
    settings: dict[str, Any] = {
        "host": "127.0.0.1",
        "port": 0,
        "workers": 1,
        "metrics_port": 0,
        "http_port": 0,
        "state_keys": (TEST_KEY,),
        "require_sealed": True,
        "require_seat_tokens": True,
        "table_store": store_url,
        **overrides,
    }
    return Settings(**settings)


@contextmanager
def hosted_server(store_url: str, **overrides: Any) -> Iterator[HostedServer]:
    """A started hosting server on the store at ``store_url``, listening to its notices."""
    settings = hosted_settings(store_url, **overrides)
    servicer = new_servicer(settings)
    assert servicer.hosting is not None
    feed = servicer.hosting.feed
    feed.start()
    assert feed.reader.wait_subscribed(SUBSCRIBE_SECONDS), "the feed never reached the store"
    server, port, _health = create_server(settings, servicer=servicer)
    server.start()
    door = http_door(settings, servicer, (), structlog.get_logger("ordo.server"))
    door.start()
    try:
        yield HostedServer(f"127.0.0.1:{port}", f"127.0.0.1:{door.port}", servicer)
    finally:
        feed.drain()
        door.stop()
        door.wait()
        server.stop(None)
        feed.stop()
        servicer.hosting.store.close()


def seat_token(token: str) -> tuple[tuple[str, str], ...]:
    """The metadata that sends ``token``."""
    return ((HEADER, token),)


class Player:
    """The calls of one seat (or the spectator) of one table, on one server."""

    def __init__(self, stub: rpc.GameEngineServiceStub, table_id: str, token: str) -> None:
        self.stub = stub
        self.table_id = table_id
        self.token = token

    def legal(self, seat: int) -> list[common.Action]:
        """The seat's legal actions now."""
        request = api.ListLegalActionsRequest(table_id=self.table_id, seat=seat)
        answer = self.stub.ListLegalActions(
            request, metadata=seat_token(self.token), timeout=TIMEOUT_SECONDS
        )
        return list(answer.actions)

    def apply(self, action: common.Action, revision: int) -> api.ApplyActionResponse:
        """Apply ``action``, chosen at table revision ``revision``."""
        request = api.ApplyActionRequest(
            table_id=self.table_id, action=action, table_revision=revision
        )
        answer: api.ApplyActionResponse = self.stub.ApplyAction(
            request, metadata=seat_token(self.token), timeout=TIMEOUT_SECONDS
        )
        return answer

    def view(self, seat: int | None) -> api.GetViewResponse:
        """The view of ``seat`` (None: a spectator's)."""
        viewer = common.Viewer(spectator=True) if seat is None else common.Viewer(seat=seat)
        answer: api.GetViewResponse = self.stub.GetView(
            api.GetViewRequest(table_id=self.table_id, viewer=viewer),
            metadata=seat_token(self.token),
            timeout=TIMEOUT_SECONDS,
        )
        return answer

    def watch(self, after: int | None = None) -> Any:
        """The table's stream for this token's seat (from ``after`` when given)."""
        request = api.WatchGameRequest(table_id=self.table_id)
        if after is not None:
            request.after_revision = after
        return self.stub.WatchGame(request, metadata=seat_token(self.token))

    def record(self) -> api.GetRecordResponse:
        """The table's record."""
        answer: api.GetRecordResponse = self.stub.GetRecord(
            api.GetRecordRequest(table_id=self.table_id),
            metadata=seat_token(self.token),
            timeout=TIMEOUT_SECONDS,
        )
        return answer


def host(
    stub: rpc.GameEngineServiceStub,
    seats: int = 4,
    bots: tuple[int, ...] = (1,),
    options: common.GameOptions = ONE_HAND,
) -> api.NewGameResponse:
    """A new hosted table (6 nimmt!, one hand by default) with bots on ``bots``."""
    request = api.NewGameRequest(
        seats=seats,
        options=options,
        bots=[common.BotSeat(seat=seat) for seat in bots],
        host=True,
    )
    dealt: api.NewGameResponse = stub.NewGame(request, timeout=TIMEOUT_SECONDS)
    return dealt


def players(stub: rpc.GameEngineServiceStub, dealt: api.NewGameResponse) -> dict[int, Player]:
    """A ``Player`` for each seat a person plays."""
    return {
        seat: Player(stub, dealt.table_id, token)
        for seat, token in enumerate(dealt.seat_tokens)
        if token
    }


def play_out(people: dict[int, Player], status: common.GameStatus, revision: int) -> int:
    """Play the table to its end, one move at a time (each person's first legal action); the
    last revision."""
    while not status.finished:
        seat = status.seats_to_act[0]
        player = people[seat]
        answer = player.apply(player.legal(seat)[0], revision)
        status, revision = answer.status, answer.table_revision
    return revision


def channel_stub(address: str) -> tuple[grpc.Channel, rpc.GameEngineServiceStub]:
    """A channel to ``address`` and its stub."""
    channel = grpc.insecure_channel(address)
    return channel, rpc.GameEngineServiceStub(channel)
