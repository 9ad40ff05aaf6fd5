"""SuggestAction without a seed: the move depends on the request alone (the same on every
replica), each seat's on a seed of its own derived from the state and the seat."""

from __future__ import annotations

import zlib

import pytest

from engines import registry
from engines.prng import Rng, derive_seed
from ordo.v1 import common_pb2 as common
from ordo.v1 import engine_service_pb2 as api
from service.calls.servicer import GameEngineServicer
from service.telemetry.observe import CallRecord
from tests.conformance.drivers import InProcess

GAMES = sorted(registry.ENGINES)


def suggested(servicer: GameEngineServicer, state: common.GameState, seat: int) -> bytes:
    """The serialized action SuggestAction gives ``seat`` with the random policy and no seed."""
    request = api.SuggestActionRequest(state=state, seat=seat, policy="random")
    response = servicer.SuggestAction(request, CallRecord("SuggestAction"))
    return response.action.SerializeToString(deterministic=True)  # type: ignore[no-any-return]


@pytest.mark.parametrize("game", GAMES)
def test_the_seed_comes_from_the_state_and_the_seat(game: str) -> None:
    """With seed 0 the bot's generator is seeded from the state's bytes and the seat: a replica
    that has never seen the state answers the same, and seats to act at once draw apart."""
    driver = InProcess(game)
    engine = registry.get(game)
    state = driver.new_game(engine.info.max_seats, 21)
    servicer = GameEngineServicer()
    digest = zlib.crc32(state.SerializeToString(deterministic=True))
    for seat in driver.status(state).seats_to_act:
        expected = engine.suggest(
            driver.to_engine(state), seat, "random", Rng(derive_seed(digest, seat))
        )
        answer = suggested(servicer, state, seat)
        assert answer == driver.action(seat, expected).SerializeToString(deterministic=True)
        assert suggested(GameEngineServicer(state_cache_bytes=0), state, seat) == answer
