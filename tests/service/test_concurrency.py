"""Many calls at once on one worker: what it keeps (states, actions, encodings) never mixes them up.

The threads of a worker share its state cache, its decoded actions and its status and event
encodings. Here every game's chained playouts go to one server at once, from many threads, each
playout in order as a game server sends it, with tampered copies of requests in between. The
server keeps so few of each that it evicts and empties all the time. Every answer must be the
one a new servicer, which has kept nothing yet, gives: the same bytes, or the same reason.
"""

from __future__ import annotations

from collections.abc import Iterator
from random import Random

import grpc
import pytest

from engines import registry
from engines.errors import RulesError
from ordo.v1 import engine_service_pb2 as api
from service.calls import caches
from service.calls.caches import encoding_cost
from service.calls.servicer import GameEngineServicer
from service.calls.state_cache import state_cost
from service.config import Settings
from service.process.worker import create_server
from service.telemetry.observe import CallRecord
from tests.conformance.drivers import InProcess, reason_of
from tests.service.conftest import race

APPLY = "/ordo.v1.GameEngineService/ApplyAction"
INVALID = grpc.StatusCode.INVALID_ARGUMENT
THREADS = 16  # client threads, each sending its playouts step by step
SERVER_THREADS = 8
KEPT = 8  # states, actions and encodings (of their usual size) the server keeps: fewer than the
# playouts under way
PLAYOUTS = 4  # per game
STEPS = 60  # at most, per playout
TAMPERED = 0.3  # the share of steps followed by a tampered copy of their request

# One call: the request's bytes and what a new servicer answers, the response's bytes or the
# reason of its refusal.
Call = tuple[bytes, bytes | str]


def answer(request: bytes) -> bytes | str:
    """The response of a new servicer, which has kept nothing yet, to ``request``, or the
    reason it refuses it."""
    try:
        return GameEngineServicer(state_cache_bytes=0).ApplyAction(
            request, CallRecord("ApplyAction")
        )
    except RulesError as error:
        return error.reason


def playout(game: str, seed: int) -> list[Call]:
    """A chained random playout (each request carries the state the one before returned), with
    tampered copies of some requests, each a byte of it changed."""
    rng = Random(seed)
    driver = InProcess(game)
    state = driver.new_game(registry.get(game).info.min_seats, seed)
    calls: list[Call] = []
    for _ in range(STEPS):
        status = driver.status(state)
        if status.finished:
            break
        seat = rng.choice(list(status.seats_to_act))
        request = api.ApplyActionRequest(
            state=state, action=rng.choice(driver.legal(state, seat))
        ).SerializeToString()
        response = answer(request)
        assert isinstance(response, bytes)
        calls.append((request, response))
        if rng.random() < TAMPERED:
            tampered = bytearray(request)
            tampered[rng.randrange(len(tampered))] ^= 1 << rng.randrange(8)
            calls.append((bytes(tampered), answer(bytes(tampered))))
        state = api.ApplyActionResponse.FromString(response).state
    return calls


@pytest.fixture
def channel(monkeypatch: pytest.MonkeyPatch) -> Iterator[grpc.Channel]:
    """A channel to a server that keeps ``KEPT`` states, actions and encodings."""
    monkeypatch.setattr(caches, "ACTION_BYTES", KEPT * caches.KEPT_ACTION_COST)
    monkeypatch.setattr(caches, "ENCODING_BYTES", KEPT * encoding_cost(bytes(64)))
    settings = Settings(
        host="127.0.0.1",
        port=0,
        workers=1,
        metrics_port=0,
        threads=SERVER_THREADS,
        state_cache_bytes=KEPT * state_cost(bytes(256)),
    )
    server, port, _health = create_server(settings)
    server.start()
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        yield channel
    server.stop(None)


def test_answers_under_concurrency_are_those_of_a_servicer_that_keeps_nothing(
    channel: grpc.Channel,
) -> None:
    """Every answer, sent from many threads at once, is the one a new servicer gives."""
    playouts = [
        playout(game, seed) for game in sorted(registry.ENGINES) for seed in range(1, PLAYOUTS + 1)
    ]
    call = channel.unary_unary(APPLY)
    wrong: list[str] = []

    def work(index: int) -> None:
        for calls in playouts[index::THREADS]:
            for request, expected in calls:
                try:
                    got: bytes | str = call(request, timeout=30)
                except grpc.RpcError as error:
                    got = reason_of(error) if error.code() == INVALID else error.code().name
                except Exception as error:  # a thread's failure must fail the test
                    got = repr(error)
                if got != expected:
                    wrong.append(f"{request.hex()[:60]}…: {got!r:.60} instead of {expected!r:.60}")

    race(work, THREADS)
    assert not wrong, f"{len(wrong)} answers differ, e.g. {wrong[:3]}"
    assert sum(map(len, playouts)) > KEPT * THREADS  # enough calls to evict again and again
    assert any(isinstance(expected, str) for calls in playouts for _, expected in calls)
