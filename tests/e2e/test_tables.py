"""Hosted tables end to end: two servers (``python -m service``, two workers each) hosting on one
durable ``redis-server`` the tests start, as devices meet them: a move through either server
reaches the watchers of both, and a store that restarts mid-game makes moves UNAVAILABLE, then
the game goes on from its last stored revision, nothing lost and nothing applied twice."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass

import grpc
import pytest

from ordo.v1 import engine_service_pb2 as api
from tests.conformance.drivers import reason_of
from tests.e2e.server_process import ServerProcess, running_replicas
from tests.redis_server import RedisServer
from tests.stream_calls import http_stream
from tests.tables import Player, channel_stub, host, seat_token

pytestmark = pytest.mark.e2e


@dataclass
class Replicas:
    """Two servers and the store they share."""

    store: RedisServer
    servers: tuple[ServerProcess, ServerProcess]
    stubs: tuple[object, object]


@pytest.fixture(scope="module")
def replicas(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Replicas]:
    """Two servers with the same keys, hosting on one durable store."""
    scratch = tmp_path_factory.mktemp("replicas")
    store = RedisServer(scratch, durable=True)
    store.start()
    with running_replicas(scratch, workers=2, table_store=store.url) as servers:
        channels = [channel_stub(server.target) for server in servers]
        yield Replicas(store, servers, (channels[0][1], channels[1][1]))
        for channel, _ in channels:
            channel.close()
    store.stop()


def watch_all(player: Player, into: list[int]) -> threading.Thread:
    """Read a gRPC watcher's revisions to the end of the game, on a thread of its own."""

    def read() -> None:
        into.extend(message.revision for message in player.watch())

    thread = threading.Thread(target=read)
    thread.start()
    return thread


def watch_http(address: str, player: Player, into: list[int]) -> threading.Thread:
    """Read a Connect watcher's revisions (HTTP/1.1) to the end of the game."""
    request = api.WatchGameRequest(table_id=player.table_id).SerializeToString()

    def read() -> None:
        stream = http_stream(
            address, "connect-proto", "WatchGame", request, dict(seat_token(player.token))
        )
        into.extend(
            api.WatchGameResponse.FromString(item).revision
            for item in stream
            if isinstance(item, bytes)
        )

    thread = threading.Thread(target=read)
    thread.start()
    return thread


class TestReplicas:
    """Moves through either server reach the watchers of both."""

    def test_watchers_on_both_servers_see_every_move(self, replicas: Replicas) -> None:
        """Watchers over gRPC on each server and over Connect on the second see every
        revision once, in order, while the seats act through both servers in turn."""
        dealt = host(replicas.stubs[0])
        seats = {
            server: {
                seat: Player(stub, dealt.table_id, token)
                for seat, token in enumerate(dealt.seat_tokens)
                if token
            }
            for server, stub in enumerate(replicas.stubs)
        }
        seen: list[list[int]] = [[], [], []]
        readers = [
            watch_all(seats[0][0], seen[0]),
            watch_all(seats[1][2], seen[1]),
            watch_http(f"127.0.0.1:{replicas.servers[1].http_port}", seats[1][3], seen[2]),
        ]
        status, revision, turn = dealt.status, 0, 0
        while not status.finished:
            seat = status.seats_to_act[0]
            player = seats[turn % 2][seat]
            answer = player.apply(player.legal(seat)[0], revision)
            status, revision, turn = answer.status, answer.table_revision, turn + 1
        for reader in readers:
            reader.join()
        for revisions in seen:
            assert revisions == list(range(revisions[0], revision + 1))


class TestStoreRestart:
    """A store that restarts mid-game: UNAVAILABLE, then the game goes on."""

    def test_a_restart_is_unavailable_then_the_game_goes_on(self, replicas: Replicas) -> None:
        """While the store is down, moves are refused with TABLE_STORE_UNAVAILABLE; once it is
        back, the same request is applied once, the watcher on the other server is sent every
        revision once, and the record replays the whole game."""
        dealt = host(replicas.stubs[0])
        people = {
            seat: Player(replicas.stubs[0], dealt.table_id, token)
            for seat, token in enumerate(dealt.seat_tokens)
            if token
        }
        revisions: list[int] = []
        reader = watch_all(
            Player(replicas.stubs[1], dealt.table_id, dealt.seat_tokens[2]), revisions
        )
        status, revision, moves = dealt.status, 0, 0
        while not status.finished:
            seat = status.seats_to_act[0]
            player = people[seat]
            action = player.legal(seat)[0]
            if moves == 5:
                replicas.store.stop()
                try:
                    with pytest.raises(grpc.RpcError) as down:
                        player.apply(action, revision)
                    assert (down.value.code(), reason_of(down.value)) == (
                        grpc.StatusCode.UNAVAILABLE,
                        "TABLE_STORE_UNAVAILABLE",
                    )
                finally:
                    replicas.store.start()
            answer = player.apply(action, revision)
            assert answer.table_revision > revision
            status, revision, moves = answer.status, answer.table_revision, moves + 1
        reader.join()
        assert revisions == list(range(revisions[0], revision + 1))
        record = people[0].record().record
        assert len(record.moves) == revision
        replayed = replicas.stubs[1].ReplayGame(  # type: ignore[attr-defined]
            api.ReplayGameRequest(record=record), metadata=seat_token(dealt.spectator_token)
        )
        assert replayed.final_status == status
