"""Hosted tables on a real ``redis-server``: a game kept by the server, acted on by table id from
several devices at once, its bots moving by themselves, retries recognised, its record, and the
bounds of the store."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
import redis

from ordo.v1 import common_pb2 as common
from ordo.v1 import engine_service_pb2 as api
from service.tables.store import INDEX_KEY, MOVES_SUFFIX, TABLE_PREFIX
from tests.conformance.drivers import reason_of
from tests.redis_server import RedisServer, running_redis
from tests.service.conftest import race
from tests.tables import (
    HostedServer,
    channel_stub,
    host,
    hosted_server,
    play_out,
    players,
    seat_token,
)

IDLE_SECONDS = 3600.0
FINISHED_SECONDS = 60.0


@pytest.fixture(scope="module")
def hosted(table_store: RedisServer) -> Iterator[HostedServer]:
    """A server hosting tables on the module's store."""
    with hosted_server(
        table_store.url, table_idle_seconds=IDLE_SECONDS, table_finished_seconds=FINISHED_SECONDS
    ) as server:
        yield server


@pytest.fixture
def stub(hosted: HostedServer) -> Iterator[object]:
    """A stub of the hosting server."""
    channel, stub = channel_stub(hosted.grpc_address)
    yield stub
    channel.close()


def refusal(call: object, *args: object, **kwargs: object) -> tuple[grpc.StatusCode, str]:
    """The code and reason of a call that must fail."""
    with pytest.raises(grpc.RpcError) as failed:
        call(*args, **kwargs)  # type: ignore[operator]
    return failed.value.code(), reason_of(failed.value)


class TestHosting:
    """``NewGame`` with ``host`` keeps the game on the server, under a table id."""

    def test_a_hosted_game_has_a_table_id_and_no_state(self, stub: object) -> None:
        """The answer holds the table id and the seat tokens, never the state."""
        dealt = host(stub)
        assert len(dealt.table_id) == 22
        assert not dealt.HasField("state")
        assert [bool(token) for token in dealt.seat_tokens] == [True, False, True, True]
        assert dealt.spectator_token

    def test_list_games_says_the_server_hosts(self, stub: object) -> None:
        """``ListGames`` tells that hosting is on."""
        assert stub.ListGames(api.ListGamesRequest()).hosting  # type: ignore[attr-defined]

    def test_the_bots_move_in_the_call_that_made_them_due(self, stub: object) -> None:
        """At the deal every seat selects at once: the bot's selection is made already."""
        dealt = host(stub)
        assert list(dealt.status.seats_to_act) == [0, 2, 3]
        view = players(stub, dealt)[0].view(None).view.six_nimmt  # type: ignore[arg-type]
        assert list(view.selected) == [False, True, False, False]

    def test_a_table_of_bots_plays_to_its_end_at_once(self, stub: object) -> None:
        """With bots on every seat, the whole game is played in ``NewGame``."""
        dealt = host(stub, seats=3, bots=(0, 1, 2))
        assert dealt.status.finished

    def test_a_server_without_a_store_hosts_nothing(self, seated_stub: object) -> None:
        """Without a table store, ``host`` and a table id are refused, saying so."""
        code, reason = refusal(
            seated_stub.NewGame,  # type: ignore[attr-defined]
            api.NewGameRequest(seats=2, options=common.GameOptions(six_nimmt={}), host=True),
        )
        assert (code, reason) == (grpc.StatusCode.FAILED_PRECONDITION, "HOSTING_NOT_CONFIGURED")
        dealt = seated_stub.NewGame(  # type: ignore[attr-defined]
            api.NewGameRequest(seats=2, options=common.GameOptions(six_nimmt={}))
        )
        request = api.GetViewRequest(table_id="A" * 22, viewer=common.Viewer(seat=0))
        code, reason = refusal(
            seated_stub.GetView,  # type: ignore[attr-defined]
            request,
            metadata=seat_token(dealt.seat_tokens[0]),
        )
        assert (code, reason) == (grpc.StatusCode.FAILED_PRECONDITION, "HOSTING_NOT_CONFIGURED")


class TestTableIds:
    """A call names its table, or carries its state: one of the two."""

    def test_both_a_state_and_a_table_are_refused(self, stub: object) -> None:
        """A request with a state and a table id: STATE_AND_TABLE_ID_SET."""
        dealt = host(stub)
        state = common.GameState(sealed=b"x", game_id="six_nimmt")
        for method, request in (
            ("GetView", api.GetViewRequest(state=state, viewer=common.Viewer(seat=0))),
            ("ApplyAction", api.ApplyActionRequest(state=state, action=common.Action(seat=0))),
        ):
            request.table_id = dealt.table_id
            code, reason = refusal(
                getattr(stub, method), request, metadata=seat_token(dealt.seat_tokens[0])
            )
            assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, "STATE_AND_TABLE_ID_SET")

    def test_a_malformed_or_unknown_table_is_refused(self, stub: object) -> None:
        """Not a table id: TABLE_ID_INVALID; an id of no table: TABLE_NOT_FOUND."""
        token = host(stub).seat_tokens[0]
        for table_id, expected in (
            ("../../etc", (grpc.StatusCode.INVALID_ARGUMENT, "TABLE_ID_INVALID")),
            ("B" * 22, (grpc.StatusCode.NOT_FOUND, "TABLE_NOT_FOUND")),
        ):
            request = api.ListLegalActionsRequest(table_id=table_id, seat=0)
            found = refusal(
                stub.ListLegalActions,  # type: ignore[attr-defined]
                request,
                metadata=seat_token(token),
            )
            assert found == expected

    def test_the_calls_that_take_a_state_take_a_table(self, stub: object) -> None:
        """Legal actions, validation, a suggestion and the view, by table id."""
        dealt = host(stub)
        player = players(stub, dealt)[0]
        actions = player.legal(0)
        assert len(actions) == 10
        meta = seat_token(player.token)
        table = dealt.table_id
        checked = stub.ValidateAction(  # type: ignore[attr-defined]
            api.ValidateActionRequest(table_id=table, action=actions[0]), metadata=meta
        )
        assert checked.legal
        suggested = stub.SuggestAction(  # type: ignore[attr-defined]
            api.SuggestActionRequest(table_id=table, seat=0), metadata=meta
        )
        assert suggested.action in actions
        hand = player.view(0).view.six_nimmt.hand
        assert sorted(hand) == sorted(action.six_nimmt.select_card for action in actions)


class TestMoves:
    """``ApplyAction`` by table id: compare-and-set on the revision, bots after each move."""

    def test_a_whole_game_one_move_at_a_time(self, stub: object) -> None:
        """Each answer carries the new revision and no state; the game reaches its end."""
        dealt = host(stub)
        people = players(stub, dealt)
        first = people[0].apply(people[0].legal(0)[0], 0)
        assert not first.HasField("state")
        assert first.table_revision == 2  # the bot's selection, then seat 0's
        last = play_out(people, first.status, first.table_revision)
        assert last > 30

    def test_a_bot_move_sent_to_a_table_is_refused(self, stub: object) -> None:
        """The table plays its bots: TABLE_PLAYS_ITS_BOTS (after the access checks)."""
        dealt = host(stub)
        request = api.ApplyActionRequest(table_id=dealt.table_id, bot=api.BotMove(seat=1))
        code, reason = refusal(
            stub.ApplyAction,  # type: ignore[attr-defined]
            request,
            metadata=seat_token(dealt.seat_tokens[0]),
        )
        assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, "TABLE_PLAYS_ITS_BOTS")

    def test_simultaneous_selections_all_land(self, hosted: HostedServer) -> None:
        """Three seats selecting at once, from three connections: every selection is applied,
        whatever the order they land in."""
        channel, stub = channel_stub(hosted.grpc_address)
        dealt = host(stub)
        channels = [channel_stub(hosted.grpc_address) for _ in range(3)]
        seats = (0, 2, 3)
        answers: dict[int, api.ApplyActionResponse] = {}

        def select(index: int) -> None:
            seat = seats[index]
            player = players(channels[index][1], dealt)[seat]
            answers[seat] = player.apply(player.legal(seat)[-1], 1)

        race(select, 3)
        revisions = sorted(answer.table_revision for answer in answers.values())
        assert revisions[:2] == [2, 3]  # the third selection ends the turn: the bot's follows
        view = players(stub, dealt)[0].view(None).view.six_nimmt
        assert list(view.hand_sizes) == [9, 8, 9, 9]  # the next turn: the bot selected again
        for opened, _ in (*channels, (channel, None)):
            opened.close()

    def test_a_retried_request_is_answered_again(self, stub: object) -> None:
        """The same request sent again (the answer lost on its way) gets the same answer and
        moves nothing; the same action chosen at another revision is a new move."""
        dealt = host(stub)
        player = players(stub, dealt)[0]
        action = player.legal(0)[0]
        first = player.apply(action, 1)
        again = player.apply(action, 1)
        assert again.SerializeToString() == first.SerializeToString()
        code, reason = refusal(player.apply, action, 2)
        assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, "NOT_SEATS_TURN")

    def test_an_illegal_action_changes_nothing(self, stub: object) -> None:
        """An illegal action on a table is refused with its reason, and leaves the table as it
        was: the same hand, and the next legal move makes the next revision."""
        dealt = host(stub, seats=2)
        player = players(stub, dealt)[0]
        code, _ = refusal(player.apply, common.Action(seat=0, six_nimmt={"select_card": 200}), 1)
        assert code == grpc.StatusCode.INVALID_ARGUMENT
        assert len(player.legal(0)) == 10
        player.apply(player.legal(0)[0], 1)
        stream = player.watch(1)
        after_the_bot = next(stream)
        stream.cancel()
        assert (after_the_bot.revision, after_the_bot.seat) == (2, 0)


class TestRecords:
    """``GetRecord``: a finished game's record, for any of its seats."""

    def test_an_unfinished_game_has_no_record_yet(self, stub: object) -> None:
        """While the game goes on: GAME_NOT_FINISHED (its moves would show hidden cards)."""
        dealt = host(stub)
        code, reason = refusal(players(stub, dealt)[0].record)
        assert (code, reason) == (grpc.StatusCode.FAILED_PRECONDITION, "GAME_NOT_FINISHED")

    def test_a_finished_record_replays_to_the_table(self, stub: object) -> None:
        """The record of a finished table replays, digest for digest, for a seat and the
        spectator alike; a bot's move is the action it chose."""
        dealt = host(stub)
        people = players(stub, dealt)
        play_out(people, dealt.status, 0)
        record = people[2].record().record
        assert record.moves[0].action.seat == 1  # the bot's selection, made at the deal
        replayed = stub.ReplayGame(  # type: ignore[attr-defined]
            api.ReplayGameRequest(record=record), metadata=seat_token(dealt.spectator_token)
        )
        assert replayed.final_status.finished
        digest = hashlib.sha256(replayed.final_state.SerializeToString()).digest()
        assert digest == record.final_digest


class TestStore:
    """What the store keeps, for how long, and its bounds."""

    def test_tables_expire_when_idle_and_once_finished(
        self, stub: object, table_store: RedisServer
    ) -> None:
        """A table lives the idle time after its last move, a finished one the finished
        time, its moves as long."""
        client = redis.Redis.from_url(table_store.url)
        dealt = host(stub)
        key = TABLE_PREFIX + dealt.table_id.encode()
        assert FINISHED_SECONDS * 1000 < client.pttl(key) <= IDLE_SECONDS * 1000
        play_out(players(stub, dealt), dealt.status, 0)
        assert 0 < client.pttl(key) <= FINISHED_SECONDS * 1000
        assert 0 < client.pttl(key + MOVES_SUFFIX) <= FINISHED_SECONDS * 1000
        assert client.zscore(INDEX_KEY, dealt.table_id)
        client.close()

    def test_the_store_bounds_its_tables(self, table_store: RedisServer, tmp_path: Path) -> None:
        """Past the most tables: STORE_TABLE_LIMIT, until one expires."""
        with running_redis(tmp_path) as small, hosted_server(small.url, table_max_tables=2) as one:
            channel, stub = channel_stub(one.grpc_address)
            host(stub)
            host(stub)
            code, reason = refusal(host, stub)
            assert (code, reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "STORE_TABLE_LIMIT")
            channel.close()

    def test_a_table_is_bounded_in_bytes(self, stub: object, table_store: RedisServer) -> None:
        """A move that would take a table past its bytes: TABLE_BYTE_LIMIT, nothing
        applied."""
        dealt = host(stub)
        client = redis.Redis.from_url(table_store.url)
        size = int(client.hget(TABLE_PREFIX + dealt.table_id.encode(), "bytes"))
        client.close()
        with hosted_server(table_store.url, table_max_bytes=size + 50) as small:
            channel, small_stub = channel_stub(small.grpc_address)
            player = players(small_stub, dealt)[0]
            code, reason = refusal(player.apply, player.legal(0)[0], 1)
            assert (code, reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "TABLE_BYTE_LIMIT")
            assert len(player.legal(0)) == 10
            channel.close()
