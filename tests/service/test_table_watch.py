"""``WatchGame`` on a real ``redis-server``: each seat's view of a hosted table, move after move,
in order and once each, through every door and protocol, across two servers on one store,
again from the last revision seen, within the worker's bounds."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import grpc
import pytest

from ordo.v1 import common_pb2 as common
from ordo.v1 import engine_service_pb2 as api
from service.tables.watchers import MAX_PENDING, End, Watcher
from tests.conformance.drivers import reason_of
from tests.redis_server import RedisServer
from tests.stream_calls import STREAM_PROTOCOLS, StreamEnd, http_stream
from tests.tables import (
    HostedServer,
    Player,
    channel_stub,
    host,
    hosted_server,
    play_out,
    players,
    seat_token,
)


@pytest.fixture(scope="module")
def servers(table_store: RedisServer) -> Iterator[tuple[HostedServer, HostedServer]]:
    """Two servers hosting tables on the module's one store."""
    with hosted_server(table_store.url) as first, hosted_server(table_store.url) as second:
        yield first, second


@pytest.fixture
def stubs(servers: tuple[HostedServer, HostedServer]) -> Iterator[list[object]]:
    """A stub of each server."""
    opened = [channel_stub(server.grpc_address) for server in servers]
    yield [stub for _, stub in opened]
    for channel, _ in opened:
        channel.close()


def finished_table(stub: object) -> tuple[api.NewGameResponse, int]:
    """A table played to its end, and its last revision."""
    dealt = host(stub)
    return dealt, play_out(players(stub, dealt), dealt.status, 0)


def collect(stream: object, into: list[api.WatchGameResponse]) -> threading.Thread:
    """Read ``stream`` to its end into ``into``, on a thread of its own."""

    def read() -> None:
        into.extend(stream)  # type: ignore[call-overload]

    thread = threading.Thread(target=read)
    thread.start()
    return thread


class TestStream:
    """What a watcher is sent, and in which order."""

    def test_the_view_now_then_every_move_to_the_end(self, stubs: list[object]) -> None:
        """First the view now (no events), then each move once, in order, each with the seat
        that moved, the view and the events of that seat; the stream ends with the game."""
        dealt = host(stubs[0])
        people = players(stubs[0], dealt)
        seen: list[api.WatchGameResponse] = []
        reader = collect(people[0].watch(), seen)
        last = play_out(people, dealt.status, 0)
        reader.join()
        assert not seen[0].events
        assert not seen[0].HasField("seat")
        assert [message.revision for message in seen] == list(range(seen[0].revision, last + 1))
        assert seen[-1].status.finished
        assert seen[-1].view.status == seen[-1].status
        assert seen[-1].view.six_nimmt == people[0].view(0).view.six_nimmt

    def test_a_watcher_back_gets_exactly_what_it_missed(self, stubs: list[object]) -> None:
        """Watching again after revision k gives the moves after k, the same messages a
        watcher that never left was sent."""
        dealt, last = finished_table(stubs[0])
        player = players(stubs[0], dealt)[2]
        whole = list(player.watch(0))
        assert [message.revision for message in whole] == list(range(1, last + 1))
        for after in (0, 5, last - 20, last - 1, last):
            again = list(player.watch(after))
            assert again == whole[after:]

    def test_a_spectator_sees_no_hand(self, stubs: list[object]) -> None:
        """The spectator token watches as a spectator: no hand, no own selection."""
        dealt, _ = finished_table(stubs[0])
        messages = list(Player(stubs[0], dealt.table_id, dealt.spectator_token).watch(0))
        assert messages
        assert not any(message.view.six_nimmt.hand for message in messages)

    def test_another_seats_view_is_refused(self, stubs: list[object]) -> None:
        """A viewer other than the token's seat: SEAT_NOT_PERMITTED; a revision the table has
        not reached: REVISION_AHEAD."""
        dealt = host(stubs[0])
        meta = seat_token(dealt.seat_tokens[0])
        for request, expected in (
            (
                api.WatchGameRequest(table_id=dealt.table_id, viewer=common.Viewer(seat=2)),
                (grpc.StatusCode.PERMISSION_DENIED, "SEAT_NOT_PERMITTED"),
            ),
            (
                api.WatchGameRequest(table_id=dealt.table_id, after_revision=99),
                (grpc.StatusCode.INVALID_ARGUMENT, "REVISION_AHEAD"),
            ),
        ):
            with pytest.raises(grpc.RpcError) as failed:
                next(stubs[0].WatchGame(request, metadata=meta))  # type: ignore[attr-defined]
            assert (failed.value.code(), reason_of(failed.value)) == expected


class TestReplicas:
    """Two servers on one store: a move through either reaches the watchers of both."""

    def test_moves_through_either_reach_watchers_on_both(self, stubs: list[object]) -> None:
        """Seats acting through both servers in turn; a watcher on each sees every move."""
        dealt = host(stubs[0])
        by_server = [players(stub, dealt) for stub in stubs]
        seen: list[list[api.WatchGameResponse]] = [[], []]
        readers = [collect(by_server[i][0].watch(), seen[i]) for i in range(2)]
        status, revision, turn = dealt.status, 0, 0
        while not status.finished:
            seat = status.seats_to_act[0]
            player = by_server[turn % 2][seat]
            answer = player.apply(player.legal(seat)[0], revision)
            status, revision, turn = answer.status, answer.table_revision, turn + 1
        for reader in readers:
            reader.join()
        for messages in seen:
            assert [message.revision for message in messages][-1] == revision
            revisions = [message.revision for message in messages]
            assert revisions == list(range(revisions[0], revision + 1))
        assert seen[0][-1] == seen[1][-1]


class TestDoors:
    """The same stream over gRPC, Connect (binary and JSON), gRPC-Web and gRPC on the HTTP
    port."""

    @pytest.mark.parametrize("protocol", STREAM_PROTOCOLS)
    def test_every_protocol_streams_the_same_messages(
        self, stubs: list[object], servers: tuple[HostedServer, HostedServer], protocol: str
    ) -> None:
        """A finished table watched from revision 0: the same messages, then a normal end."""
        dealt, _ = finished_table(stubs[0])
        player = players(stubs[0], dealt)[3]
        expected = [message.SerializeToString() for message in player.watch(0)]
        request = api.WatchGameRequest(table_id=dealt.table_id, after_revision=0)
        got = list(
            http_stream(
                servers[1].http_address,
                protocol,
                "WatchGame",
                request.SerializeToString(),
                dict(seat_token(player.token)),
            )
        )
        assert got[-1] == StreamEnd(grpc.StatusCode.OK)
        assert [api.WatchGameResponse.FromString(m) for m in got[:-1]] == [
            api.WatchGameResponse.FromString(m) for m in expected
        ]

    @pytest.mark.parametrize("protocol", STREAM_PROTOCOLS)
    def test_a_refusal_ends_the_stream_with_its_reason(
        self, stubs: list[object], servers: tuple[HostedServer, HostedServer], protocol: str
    ) -> None:
        """An unknown table over HTTP: NOT_FOUND with TABLE_NOT_FOUND, in the protocol's form."""
        token = host(stubs[0]).seat_tokens[0]
        request = api.WatchGameRequest(table_id="C" * 22)
        got = list(
            http_stream(
                servers[0].http_address,
                protocol,
                "WatchGame",
                request.SerializeToString(),
                dict(seat_token(token)),
            )
        )
        assert got == [StreamEnd(grpc.StatusCode.NOT_FOUND, "TABLE_NOT_FOUND")]

    def test_grpc_on_the_http_port(
        self, stubs: list[object], servers: tuple[HostedServer, HostedServer]
    ) -> None:
        """gRPC over HTTP/2 on the HTTP port streams as the gRPC port does."""
        dealt, _ = finished_table(stubs[0])
        player = players(stubs[0], dealt)[0]
        channel, http_stub = channel_stub(servers[0].http_address)
        over_http = list(Player(http_stub, dealt.table_id, player.token).watch(0))
        channel.close()
        assert over_http == list(player.watch(0))


class TestBounds:
    """The worker's bounds on watchers, and its drain."""

    def test_watchers_per_worker_and_per_table(self, table_store: RedisServer) -> None:
        """Past the bound in all: WORKER_WATCHER_LIMIT; on one table: TABLE_WATCHER_LIMIT."""
        for limits, reason in (
            ({"table_max_watchers": 1}, "WORKER_WATCHER_LIMIT"),
            ({"table_max_table_watchers": 1}, "TABLE_WATCHER_LIMIT"),
        ):
            with hosted_server(table_store.url, **limits) as small:
                channel, stub = channel_stub(small.grpc_address)
                dealt = host(stub)
                people = players(stub, dealt)
                first = people[0].watch()
                assert next(first).revision == 1
                with pytest.raises(grpc.RpcError) as failed:
                    next(people[2].watch())
                assert failed.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
                assert reason_of(failed.value) == reason
                first.cancel()
                channel.close()

    def test_a_drain_ends_every_stream(self, table_store: RedisServer) -> None:
        """A server that stops ends its streams with SERVER_DRAINING, and opens no more."""
        with hosted_server(table_store.url) as stopping:
            channel, stub = channel_stub(stopping.grpc_address)
            dealt = host(stub)
            player = players(stub, dealt)[0]
            stream = player.watch()
            next(stream)
            stopping.feed.drain()
            with pytest.raises(grpc.RpcError) as ended:
                next(stream)
            assert (ended.value.code(), reason_of(ended.value)) == (
                grpc.StatusCode.UNAVAILABLE,
                "SERVER_DRAINING",
            )
            with pytest.raises(grpc.RpcError) as refused:
                next(player.watch())
            assert reason_of(refused.value) == "SERVER_DRAINING"
            channel.close()

    def test_a_watcher_that_does_not_read_is_ended(self) -> None:
        """A watcher more than MAX_PENDING messages behind ends with WATCHER_TOO_SLOW."""
        sent: list[object] = []
        watcher = Watcher("D" * 22, 0, None)
        watcher.attach(sent.append)
        for _ in range(MAX_PENDING + 3):
            watcher.send(b"message")
        assert sent[:MAX_PENDING] == [b"message"] * MAX_PENDING
        end = sent[MAX_PENDING]
        assert isinstance(end, End)
        assert end.error is not None
        assert end.error.reason == "WATCHER_TOO_SLOW"
        assert len(sent) == MAX_PENDING + 1
