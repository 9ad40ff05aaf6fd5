"""The revision fence end to end: two servers (``python -m service``) sharing one real
``redis-server``, with seat tokens required, as players holding their own games meet them."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any

import grpc
import pytest

from ordo import Client, OrdoError
from ordo.v1 import common_pb2 as common
from ordo.v1 import engine_service_pb2 as api
from tests.e2e.server_process import running_server
from tests.redis_server import RedisServer
from tests.seat_calls import Caller
from tests.state_keys import TEST_KEY, keys_file_text

MOVES = 12  # moves played: enough older states of every kind


@dataclass
class Fenced:
    """Two servers and the store they share."""

    store: RedisServer
    callers: tuple[Caller, Caller]
    targets: tuple[str, str]


@pytest.fixture(scope="module")
def fenced(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fenced]:
    """Two servers with the same keys file, seat tokens required, fenced by one durable store."""
    scratch = tmp_path_factory.mktemp("fenced")
    keys = scratch / "keys"
    keys.write_text(keys_file_text(TEST_KEY))
    store = RedisServer(scratch, durable=True)
    store.start()
    with ExitStack() as stack:
        servers = []
        for name in ("a", "b"):
            folder = scratch / name
            folder.mkdir()
            servers.append(
                stack.enter_context(
                    running_server(
                        folder,
                        workers=1,
                        state_keys_file=str(keys),
                        require_seat_tokens="true",
                        revision_store=store.url,
                    )
                )
            )
        callers = tuple(
            Caller("grpc", server.target, f"127.0.0.1:{server.http_port}") for server in servers
        )
        yield Fenced(store, (callers[0], callers[1]), (servers[0].target, servers[1].target))
        for caller in callers:
            caller.close()
    store.stop()


def new_game(call: Caller) -> tuple[api.NewGameResponse, str]:
    """A two-seat 6 nimmt! game, seat 1 a bot; the response and seat 0's token."""
    request = api.NewGameRequest(
        seats=2, options=common.GameOptions(six_nimmt={}), bots=[common.BotSeat(seat=1)]
    )
    dealt = call.ok("NewGame", request)
    return dealt, dealt.seat_tokens[0]


def move(state: common.GameState, status: common.GameStatus, call: Caller, token: str) -> Any:
    """The request of the next move: seat 0's first legal action, or the bot's move."""
    if 0 in status.seats_to_act:
        listed = call.ok(
            "ListLegalActions", api.ListLegalActionsRequest(state=state, seat=0), token
        )
        return api.ApplyActionRequest(state=state, action=listed.actions[0])
    return api.ApplyActionRequest(state=state, bot=api.BotMove(seat=1))


class TestTwoServers:
    """Servers sharing a store take each game's latest state only."""

    def test_every_older_state_is_refused_on_both(self, fenced: Fenced) -> None:
        """A game played on both servers in turn: after each move, every older state is
        refused by both with STATE_SUPERSEDED, whatever the move sent with it."""
        a, b = fenced.callers
        dealt, token = new_game(a)
        state, status = dealt.state, dealt.status
        older: list[api.ApplyActionRequest] = []
        for index in range(MOVES):
            request = move(state, status, (a, b)[index % 2], token)
            applied = (a, b)[index % 2].ok("ApplyAction", request, token)
            older.append(request)
            state, status = applied.state, applied.status
            for previous in older:
                bot = api.ApplyActionRequest(state=previous.state, bot=api.BotMove(seat=1))
                for caller in (a, b):
                    for sent in (previous, bot):
                        reply = caller("ApplyAction", sent, token)
                        if sent == older[-1]:
                            assert reply.code == grpc.StatusCode.OK  # the last move, retried
                            continue
                        assert (reply.code, reply.reason) == (
                            grpc.StatusCode.FAILED_PRECONDITION,
                            "STATE_SUPERSEDED",
                        ), f"move {index}: an older state was taken"

    def test_a_retried_move_gets_the_same_bytes(self, fenced: Fenced) -> None:
        """The move that moved the game on, sent again to either server, is answered again
        byte for byte, and leaves the game where it was."""
        a, b = fenced.callers
        dealt, token = new_game(a)
        request = move(dealt.state, dealt.status, a, token)
        first = a("ApplyAction", request, token)
        assert first.code == grpc.StatusCode.OK
        for caller in (b, a, b):
            assert caller("ApplyAction", request, token).raw == first.raw
        later = move(first.response.state, first.response.status, b, token)
        assert b("ApplyAction", later, token).code == grpc.StatusCode.OK


class TestStoreRestart:
    """The store going away refuses every move; once it is back, the game goes on."""

    def test_a_restart_is_unavailable_then_the_game_goes_on(self, fenced: Fenced) -> None:
        """While the store is down every move is UNAVAILABLE (REVISION_STORE_UNAVAILABLE) on
        both servers, none applied; once it is back (its data kept) the game goes on from its
        latest state, and the older ones are still refused."""
        a, b = fenced.callers
        dealt, token = new_game(a)
        first = move(dealt.state, dealt.status, a, token)
        applied = a.ok("ApplyAction", first, token)
        nxt = move(applied.state, applied.status, a, token)
        fenced.store.stop()
        try:
            for caller in (a, b):
                for request in (first, nxt):
                    reply = caller("ApplyAction", request, token)
                    assert (reply.code, reply.reason) == (
                        grpc.StatusCode.UNAVAILABLE,
                        "REVISION_STORE_UNAVAILABLE",
                    )
        finally:
            fenced.store.start()
        stale = api.ApplyActionRequest(state=dealt.state, bot=api.BotMove(seat=1))
        assert b("ApplyAction", stale, token).reason == "STATE_SUPERSEDED"
        assert b("ApplyAction", nxt, token).code == grpc.StatusCode.OK

    def test_the_client_raises_what_the_fence_answers(self, fenced: Fenced) -> None:
        """Through the Python client: REVISION_STORE_UNAVAILABLE once its retries are spent,
        the move applied once the store is back, STATE_SUPERSEDED for the older state."""
        dealt, token = new_game(fenced.callers[0])
        request = move(dealt.state, dealt.status, fenced.callers[0], token)
        with Client(fenced.targets[0], seat_token=token, retries=0) as ordo:
            fenced.store.stop()
            try:
                with pytest.raises(OrdoError) as caught:
                    ordo.apply_action(request.state, request.action)
            finally:
                fenced.store.start()
            assert caught.value.reason == "REVISION_STORE_UNAVAILABLE"
            assert caught.value.answered
            applied = ordo.apply_action(request.state, request.action)
            assert applied.state.revision == 1
            with pytest.raises(OrdoError) as superseded:
                ordo.play_bot(request.state, 1)
            assert superseded.value.code == grpc.StatusCode.FAILED_PRECONDITION
