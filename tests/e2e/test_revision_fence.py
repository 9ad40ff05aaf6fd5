"""The revision fence end to end: two servers (``python -m service``) sharing one real
``redis-server``, with seat tokens required, as players holding their own games meet them."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from ordo import Client, OrdoError
from ordo.v1 import common_pb2 as common
from ordo.v1 import engine_service_pb2 as api
from ordo.v1 import engine_service_pb2_grpc as rpc
from service.calls.call_path import SERVICE_NAME
from tests.connect_calls import HttpDoor
from tests.e2e.server_process import (
    POLL_SECONDS,
    START_SECONDS,
    events,
    read_log,
    running_replicas,
    running_server,
)
from tests.redis_server import RedisServer
from tests.seat_calls import Caller
from tests.state_keys import TEST_KEY, keys_file_text

MOVES = 12  # moves played: enough older states of every kind
SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING


@dataclass
class Fenced:
    """Two servers and the store they share."""

    store: RedisServer
    callers: tuple[Caller, Caller]
    json: Caller  # the second server's HTTP door, with Connect JSON
    targets: tuple[str, str]
    logs: tuple[Path, Path]


@pytest.fixture(scope="module")
def fenced(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fenced]:
    """Two servers with the same keys file, seat tokens required, fenced by one durable store."""
    scratch = tmp_path_factory.mktemp("fenced")
    store = RedisServer(scratch, durable=True)
    store.start()
    with ExitStack() as stack:
        stack.callback(store.stop)  # also when a server fails to start
        servers = stack.enter_context(running_replicas(scratch, revision_store=store.url))
        callers = tuple(
            Caller("grpc", server.target, f"127.0.0.1:{server.http_port}") for server in servers
        )
        json = Caller("connect-json", servers[1].target, f"127.0.0.1:{servers[1].http_port}")
        yield Fenced(
            store,
            (callers[0], callers[1]),
            json,
            (servers[0].target, servers[1].target),
            (servers[0].log, servers[1].log),
        )
        for caller in (*callers, json):
            caller.close()


def new_game(call: Caller) -> tuple[api.NewGameResponse, str]:
    """A two-seat 6 nimmt! game, seat 1 a bot; the response and seat 0's token."""
    request = api.NewGameRequest(
        seats=2, options=common.GameOptions(six_nimmt={}), bots=[common.BotSeat(seat=1)]
    )
    dealt = call.ok("NewGame", request)
    return dealt, dealt.seat_tokens[0]


def move(state: common.GameState, status: common.GameStatus, call: Caller, token: str) -> Any:
    """The request of the next move: seat 0's first legal action, or the bot's move."""
    return moves(state, status, call, token)[0]


def moves(
    state: common.GameState, status: common.GameStatus, call: Caller, token: str
) -> list[api.ApplyActionRequest]:
    """Requests of legal moves on ``state``: seat 0's first and last legal actions when it is
    to act, the bot's move when seat 1 is."""
    found = []
    if 0 in status.seats_to_act:
        request = api.ListLegalActionsRequest(state=state, seat=0)
        listed = call.ok("ListLegalActions", request, token)
        found += [
            api.ApplyActionRequest(state=state, action=action)
            for action in (listed.actions[0], listed.actions[-1])
        ]
    if 1 in status.seats_to_act:
        found.append(api.ApplyActionRequest(state=state, bot=api.BotMove(seat=1)))
    return found


class TestTwoServers:
    """Servers sharing a store take each game's latest state only."""

    def test_every_older_state_is_refused_on_both(self, fenced: Fenced) -> None:
        """A game played on both servers in turn: after each move, every older state is
        refused by both with STATE_SUPERSEDED, whatever legal move is sent with it; the move
        that was played last is taken again as a retry."""
        a, b = fenced.callers
        dealt, token = new_game(a)
        state, status = dealt.state, dealt.status
        played: list[api.ApplyActionRequest] = []
        older: list[api.ApplyActionRequest] = []
        for index in range(MOVES):
            legal = moves(state, status, a, token)
            applied = (a, b)[index % 2].ok("ApplyAction", legal[0], token)
            played.append(legal[0])
            older += legal
            state, status = applied.state, applied.status
            for caller in (a, b):
                for sent in older:
                    reply = caller("ApplyAction", sent, token)
                    if sent == played[-1]:
                        assert reply.code == grpc.StatusCode.OK  # the last move, retried
                        continue
                    assert (reply.code, reply.reason) == (
                        grpc.StatusCode.FAILED_PRECONDITION,
                        "STATE_SUPERSEDED",
                    ), f"move {index}: an older state was taken"

    def test_a_retried_move_gets_the_same_bytes(self, fenced: Fenced) -> None:
        """The move that moved the game on, sent again to either server, is answered again
        byte for byte (the same answer in JSON through the HTTP door), and leaves the game
        where it was."""
        a, b = fenced.callers
        dealt, token = new_game(a)
        request = move(dealt.state, dealt.status, a, token)
        first = a("ApplyAction", request, token)
        assert first.code == grpc.StatusCode.OK
        for caller in (b, a, b):
            assert caller("ApplyAction", request, token).raw == first.raw
        assert fenced.json.ok("ApplyAction", request, token) == first.response
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


class TestStoreAtStart:
    """A server checks its store as it starts: out of reach, it serves but is not ready."""

    def test_a_store_out_of_reach_leaves_the_server_live_but_not_ready(
        self, tmp_path: Path
    ) -> None:
        """The started line says the store is not reached; the overall health and /healthz say
        SERVING (liveness), the service's health and /readyz NOT_SERVING (readiness), a move is
        refused with its access line a warning; once the store starts, the worker is ready."""
        keys = tmp_path / "keys"
        keys.write_text(keys_file_text(TEST_KEY))
        store = RedisServer(tmp_path)
        with running_server(
            tmp_path, workers=1, state_keys_file=str(keys), revision_store=store.url
        ) as server:
            (started,) = events(server.log, "started")
            assert started["revision_store"] == store.url
            assert started["revision_store_reached"] is False
            assert (started["sealed_states"], started["require_sealed"]) == (True, True)
            assert started["require_seat_tokens"] is False
            door = HttpDoor(f"127.0.0.1:{server.http_port}")
            assert door.request("GET", "/healthz")[0] == 200
            assert door.request("GET", "/readyz")[0] == 503
            with grpc.insecure_channel(server.target) as channel:
                health = health_pb2_grpc.HealthStub(channel)
                asked = health_pb2.HealthCheckRequest(service=SERVICE_NAME)
                assert health.Check(asked, timeout=5).status == NOT_SERVING
                stub = rpc.GameEngineServiceStub(channel)
                dealt = stub.NewGame(
                    api.NewGameRequest(seats=2, options=common.GameOptions(up_or_down={}))
                )
                with pytest.raises(grpc.RpcError) as refused:
                    stub.ApplyAction(
                        api.ApplyActionRequest(state=dealt.state, bot=api.BotMove(seat=0))
                    )
                assert refused.value.code() == grpc.StatusCode.UNAVAILABLE
                line = json.loads(
                    next(
                        each
                        for each in written(server.log, "ApplyAction").splitlines()
                        if '"ApplyAction"' in each
                    )
                )
                assert (line["reason"], line["level"]) == ("REVISION_STORE_UNAVAILABLE", "warning")
                store.start()
                try:
                    for answer in health.Watch(asked, timeout=START_SECONDS):
                        if answer.status == SERVING:
                            break
                    assert door.request("GET", "/readyz")[0] == 200
                finally:
                    store.stop()
            door.close()


def written(log: Path, method: str) -> str:
    """The text of ``log`` once it holds an access line of ``method`` (access lines are
    written in batches, a moment after their calls)."""
    deadline = time.monotonic() + START_SECONDS
    while f'"{method}"' not in (text := read_log(log)):
        assert time.monotonic() < deadline, f"no {method} line in {log}"
        time.sleep(POLL_SECONDS)
    return text


class TestLogs:
    """A seat token is a credential: the servers never write one down."""

    def test_no_token_in_the_logs(self, fenced: Fenced) -> None:
        """After calls with tokens, refused ones included, neither server's log holds one."""
        a, b = fenced.callers
        dealt, token = new_game(a)
        request = move(dealt.state, dealt.status, a, token)
        a.ok("ApplyAction", request, token)
        b("ApplyAction", api.ApplyActionRequest(state=dealt.state, bot=api.BotMove(seat=1)), token)
        b("GetView", api.GetViewRequest(state=dealt.state, viewer=common.Viewer(seat=1)), token)
        for log in fenced.logs:
            text = written(log, "GetView" if log == fenced.logs[1] else "ApplyAction")
            assert token not in text
            assert token.rsplit(".", 1)[1] not in text
