"""Clocks on hosted tables, on a real ``redis-server``, with a server clock the tests move: a
timeout claimed by table id, the clocks in views and streams, and a record of timeouts that
replays to the table's game."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator

import grpc
import pytest

from ordo.v1 import common_pb2 as common
from ordo.v1 import engine_service_pb2 as api
from tests.conformance.drivers import reason_of
from tests.fake_clock import FakeClock
from tests.redis_server import RedisServer
from tests.tables import HostedServer, channel_stub, host, hosted_server, players

LIMIT_MS = 5_000
PAST_DUE_MS = LIMIT_MS + 250  # the limit and the clocks' default tolerance
PER_MOVE = common.TimeControl(move_limit_ms=LIMIT_MS)
MOST_MOVES = 40  # a hand of 6 nimmt! for two, a move or a timeout at a time


@pytest.fixture(scope="module")
def clock() -> FakeClock:
    """The server's clock, which the tests move."""
    return FakeClock()


@pytest.fixture(scope="module")
def hosted(table_store: RedisServer, clock: FakeClock) -> Iterator[HostedServer]:
    """A server hosting tables on the module's store, reading the module's clock."""
    with hosted_server(table_store.url, clock=clock) as server:
        yield server


@pytest.fixture
def stub(hosted: HostedServer) -> Iterator[object]:
    """A stub of the hosting server."""
    channel, stub = channel_stub(hosted.grpc_address)
    yield stub
    channel.close()


class TestTableClaims:
    """ClaimTimeout by table id."""

    def test_a_due_claim_plays_for_the_seat_and_an_early_one_is_refused(
        self, stub: object, clock: FakeClock
    ) -> None:
        """Before the seat's time is up the claim is refused with the time left; once it is up,
        the bot plays for it, the table moves on and its views show the clocks; a claim on a
        seat no longer to act answers the table as it is."""
        dealt = host(stub, seats=2, bots=(), time_control=PER_MOVE)  # type: ignore[arg-type]
        people = players(stub, dealt)  # type: ignore[arg-type]
        with pytest.raises(grpc.RpcError) as early:
            people[1].claim(0)
        assert early.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        assert reason_of(early.value) == "TIMEOUT_NOT_DUE"
        clock.advance(PAST_DUE_MS)
        claimed = people[1].claim(0)
        assert claimed.timed_out
        assert claimed.table_revision == 1
        assert claimed.at_ms == clock.now_ms()
        assert not claimed.HasField("state")
        view = people[0].view(0).view
        assert view.clock.seats[0].running is False
        assert view.clock.seats[1].running
        assert view.clock.seats[1].remaining_ms == 0  # its wait began with the deal
        again = people[0].claim(0)
        assert not again.timed_out
        assert again.table_revision == 1

    def test_a_record_of_timeouts_replays_to_the_table(
        self, stub: object, clock: FakeClock
    ) -> None:
        """A hosted game played to its end by moves and timeouts has a record that ReplayGame
        plays to the table's last state, each timeout a timeout."""
        dealt = host(stub, seats=2, bots=(), time_control=PER_MOVE)  # type: ignore[arg-type]
        people = players(stub, dealt)  # type: ignore[arg-type]
        status, revision = dealt.status, 0
        for step in range(MOST_MOVES):
            if status.finished:
                break
            seat = status.seats_to_act[0]
            player = people[seat]
            if step % 3 == 0:
                clock.advance(PAST_DUE_MS)
                claimed = player.claim(seat)
                status, revision = claimed.status, claimed.table_revision
            else:
                clock.advance(1_000)
                answer = player.apply(player.legal(seat)[0], revision)
                status, revision = answer.status, answer.table_revision
        assert status.finished
        record = people[0].record().record
        kinds = {move.WhichOneof("move") for move in record.moves}
        assert kinds == {"action", "timeout"}
        assert all(move.at_ms for move in record.moves)
        replayed = stub.ReplayGame(  # type: ignore[attr-defined]
            api.ReplayGameRequest(record=record),
            metadata=(("ordo-seat-token", dealt.seat_tokens[0]),),
        )
        digest = hashlib.sha256(replayed.final_state.SerializeToString()).digest()
        assert digest == record.final_digest


class TestTableStreams:
    """A watcher sees the clocks, and which moves were timeouts."""

    def test_a_stream_shows_the_clocks_and_the_timeouts(
        self, stub: object, clock: FakeClock
    ) -> None:
        """The first message of a stream has every seat's clock; a timeout's message says so."""
        dealt = host(stub, seats=2, bots=(), time_control=PER_MOVE)  # type: ignore[arg-type]
        people = players(stub, dealt)  # type: ignore[arg-type]
        stream = people[1].watch()
        first = next(stream)
        assert len(first.view.clock.seats) == 2
        clock.advance(PAST_DUE_MS)
        people[1].claim(0)
        moved = next(stream)
        assert moved.revision == 1
        assert moved.seat == 0
        assert moved.timed_out
        stream.cancel()
