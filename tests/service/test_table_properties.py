"""Properties of hosted tables, on a real ``redis-server`` and two servers: however the moves of
several devices interleave, whichever server each is sent to, however often a request is sent
again and however the watchers come and go, the table ends in the game its record plays one move
at a time, with every device's move in it once, and every watcher is sent every revision once,
in order."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ordo.v1 import common_pb2 as common
from ordo.v1 import engine_service_pb2 as api
from tests.redis_server import RedisServer
from tests.service.conftest import race
from tests.tables import Player, channel_stub, host, hosted_server, seat_token

EXAMPLES = 8  # each plays a whole hand of 6 nimmt!


@pytest.fixture(scope="module")
def stubs(table_store: RedisServer) -> Iterator[list[object]]:
    """Stubs of two servers hosting tables on the module's store."""
    with hosted_server(table_store.url) as first, hosted_server(table_store.url) as second:
        opened = [channel_stub(server.grpc_address) for server in (first, second)]
        yield [stub for _, stub in opened]
        for channel, _ in opened:
            channel.close()


@dataclass
class Watch:
    """A device that watches the table as its seat, watching again (on another server) once
    it has seen revision ``again_at``: the revisions it was sent, in order."""

    players: list[Player]
    again_at: int
    seen: list[api.WatchGameResponse] = field(default_factory=list)

    def run(self) -> None:
        """Watch to the end of the game."""
        stream = self.players[0].watch()
        for message in stream:
            self.seen.append(message)
            if message.revision == self.again_at and not message.status.finished:
                stream.cancel()
                break
        else:
            return
        self.seen.extend(self.players[1].watch(self.seen[-1].revision))


@st.composite
def tables(draw: st.DrawFn) -> tuple[int, tuple[int, ...]]:
    """A table's seats and its bot seats (one person at least)."""
    seats = draw(st.integers(2, 5))
    bots = draw(st.sets(st.integers(0, seats - 1), max_size=seats - 1))
    return seats, tuple(sorted(bots))


def turn(
    people: dict[int, list[Player]],
    status: common.GameStatus,
    revision: int,
    data: st.DataObject,
    sent: list[common.Action],
) -> tuple[common.GameStatus, int]:
    """Every seat to act moves at once, each through a server drawn, some twice; the actions
    are added to ``sent``; the status and revision after the last of them."""
    movers = list(status.seats_to_act)
    chosen = []
    for seat in movers:
        legal = people[seat][0].legal(seat)
        chosen.append(legal[data.draw(st.integers(0, len(legal) - 1))])
    servers = [data.draw(st.integers(0, 1)) for _ in movers]
    twice = [data.draw(st.booleans()) for _ in movers]
    sent.extend(chosen)
    answers: list[api.ApplyActionResponse] = []

    def move(number: int) -> None:
        index = number % len(movers)
        if number < len(movers) or twice[index]:
            player = people[movers[index]][servers[index]]
            answers.append(player.apply(chosen[index], revision))

    race(move, 2 * len(movers))
    last = max(answers, key=lambda answer: answer.table_revision)
    return last.status, last.table_revision


class TestDevicesAtOnce:
    """N devices sending moves at once end in the same game as one move at a time."""

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        suppress_health_check=[HealthCheck.function_scoped_fixture],
    )
    @given(table=tables(), data=st.data())
    def test_the_same_game_as_one_move_at_a_time(
        self, stubs: list[object], table: tuple[int, tuple[int, ...]], data: st.DataObject
    ) -> None:
        """Moves sent at once from several devices, through either server, some twice, with
        watchers that leave and come back: the record plays to the table's last state, holds
        every device's move once, and every watcher saw every revision once, in order."""
        seats, bots = table
        dealt = host(stubs[0], seats=seats, bots=bots)
        people = {
            seat: [Player(stub, dealt.table_id, token) for stub in stubs]
            for seat, token in enumerate(dealt.seat_tokens)
            if token
        }
        watches = [
            Watch(people[seat][::-1] if data.draw(st.booleans()) else people[seat],
                  data.draw(st.integers(1, 40)))
            for seat in people
        ]  # fmt: skip
        readers = [threading.Thread(target=watch.run) for watch in watches]
        for reader in readers:
            reader.start()
        sent: list[common.Action] = []
        status, revision = dealt.status, 0
        while not status.finished:
            status, revision = turn(people, status, revision, data, sent)
        for reader in readers:
            reader.join()
        record = people[next(iter(people))][1].record().record
        replayed = stubs[0].ReplayGame(  # type: ignore[attr-defined]
            api.ReplayGameRequest(record=record), metadata=seat_token(dealt.spectator_token)
        )
        assert replayed.move_count == revision
        assert replayed.final_status == status
        persons = [move.action for move in record.moves if move.action.seat not in bots]
        assert sorted(map(str, persons)) == sorted(map(str, sent))
        for watch in watches:
            revisions = [message.revision for message in watch.seen]
            assert revisions == list(range(revisions[0], revision + 1))
            assert watch.seen[-1].status == status
