"""The state cache changes no answer: it only skips decoding states this worker returned."""

from __future__ import annotations

import gc
import tracemalloc

import pytest

from bench.soak import largest_fora_de_ordem_options
from engines import registry
from engines.errors import RulesError
from engines.fora_de_ordem.rules import MAX_SEATS
from engines.prng import Rng
from engines.six_nimmt.rules import HAND_SIZE
from ordo.v1 import common_pb2 as common
from ordo.v1 import engine_service_pb2 as api
from service.calls.servicer import GameEngineServicer
from service.calls.state_cache import KnownState, StateCache, state_cost
from service.telemetry.observe import CallRecord
from tests.conformance.drivers import InProcess

GAMES = sorted(registry.ENGINES)


def chained_playout(servicer: GameEngineServicer, game: str, seed: int) -> list[bytes]:
    """Play a whole game sending back each returned state; the serialized responses."""
    driver = InProcess(game)
    rng = Rng(seed)
    options = common.GameOptions(**{game: {}})
    seats = registry.get(game).info.min_seats
    new = servicer.NewGame(
        api.NewGameRequest(seats=seats, seed=seed, options=options), CallRecord("NewGame")
    )
    responses = [new.SerializeToString()]
    state, status = new.state, new.status
    while not status.finished:
        seat = rng.choice(list(status.seats_to_act))
        request = api.ApplyActionRequest(state=state, action=rng.choice(driver.legal(state, seat)))
        data = servicer.ApplyAction(
            api.ApplyActionRequest.FromString(request.SerializeToString()),
            CallRecord("ApplyAction"),
        )
        responses.append(data)
        reply = api.ApplyActionResponse.FromString(data)
        state, status = reply.state, reply.status
    return responses


class TestStateCache:
    """Answers with and without the cache."""

    @pytest.mark.parametrize("game", GAMES)
    def test_same_answers_with_and_without_the_cache(self, game: str) -> None:
        """A whole chained playout gives byte-identical responses with the cache on and off."""
        cached = GameEngineServicer(state_cache_bytes=1 << 20)
        assert chained_playout(cached, game, 3) == chained_playout(GameEngineServicer(0), game, 3)
        assert len(cached.states) > 0

    def test_a_tampered_copy_of_a_returned_state_is_still_validated(self) -> None:
        """Changing one number of a state the worker returned makes it be checked again."""
        servicer = GameEngineServicer(state_cache_bytes=1 << 20)
        options = common.GameOptions(six_nimmt={})
        state = servicer.NewGame(
            api.NewGameRequest(seats=2, seed=5, options=options), CallRecord("NewGame")
        ).state
        state.six_nimmt.penalties[0] = 50  # above what the seat took: impossible
        viewer = common.Viewer(spectator=True)
        with pytest.raises(RulesError) as refused:
            servicer.GetView(api.GetViewRequest(state=state, viewer=viewer), CallRecord("GetView"))
        assert refused.value.reason == "INVALID_STATE"

    def test_a_returned_state_sent_back_is_not_decoded_again(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """A state the worker returned (by NewGame, then by ApplyAction), sent back unchanged
        as a message or as the request's bytes, is found in the cache: the codec does not
        decode it again."""
        servicer = GameEngineServicer(state_cache_bytes=1 << 20)
        options = common.GameOptions(six_nimmt={})
        new = servicer.NewGame(
            api.NewGameRequest(seats=2, seed=5, options=options), CallRecord("NewGame")
        )

        def decode_again(*args: object) -> None:
            raise AssertionError("a state this worker returned was decoded again")

        monkeypatch.setattr(servicer.games["six_nimmt"].codec, "decode_state", decode_again)
        viewer = common.Viewer(spectator=True)
        servicer.GetView(api.GetViewRequest(state=new.state, viewer=viewer), CallRecord("GetView"))
        seat = new.status.seats_to_act[0]
        action = common.Action(seat=seat)
        action.six_nimmt.select_card = new.state.six_nimmt.hand_cards[seat * HAND_SIZE]
        request = api.ApplyActionRequest(state=new.state, action=action)
        data = servicer.ApplyAction(request.SerializeToString(), CallRecord("ApplyAction"))
        state = api.ApplyActionResponse.FromString(data).state
        servicer.GetView(api.GetViewRequest(state=state, viewer=viewer), CallRecord("GetView"))

    def test_bytes_bound_the_cache(self) -> None:
        """The least recently used state is evicted beyond the bytes it may hold."""
        cache = StateCache(2 * state_cost(b"a"))
        for key in (b"a", b"b", b"c"):
            cache.put(key, KnownState("six_nimmt", key))
        assert len(cache) == 2
        assert cache.get(b"a") is None
        assert cache.get(b"c") == KnownState("six_nimmt", b"c")

    def test_a_state_asked_for_again_is_kept_longest(self) -> None:
        """Finding a state makes it the most recently used: the next eviction takes another."""
        cache = StateCache(2 * state_cost(b"a"))
        cache.put(b"a", KnownState("six_nimmt", b"a"))
        cache.put(b"b", KnownState("six_nimmt", b"b"))
        assert cache.get(b"a") is not None
        cache.put(b"c", KnownState("six_nimmt", b"c"))
        assert cache.get(b"b") is None
        assert cache.get(b"a") == KnownState("six_nimmt", b"a")

    def test_a_state_returned_again_is_kept_longest(self) -> None:
        """Putting a state the cache holds (the same state returned again) makes it the most
        recently used, as finding it does: the next eviction takes another."""
        cache = StateCache(2 * state_cost(b"a"))
        cache.put(b"a", KnownState("six_nimmt", b"a"))
        cache.put(b"b", KnownState("six_nimmt", b"b"))
        cache.put(b"a", KnownState("six_nimmt", b"a"))
        cache.put(b"c", KnownState("six_nimmt", b"c"))
        assert cache.get(b"b") is None
        assert cache.get(b"a") == KnownState("six_nimmt", b"a")

    def test_zero_bytes_turns_it_off(self) -> None:
        """With 0 bytes nothing is remembered."""
        cache = StateCache(0)
        cache.put(b"a", KnownState("six_nimmt", 1))
        assert cache.get(b"a") is None

    def test_large_states_take_the_room_of_many_small_ones(self) -> None:
        """A state is charged by its size: one large state evicts as many small ones as it needs
        room for, and one larger than the whole cache is not kept."""
        small, large = b"s" * 100, b"L" * 30_000
        cache = StateCache(state_cost(large) + 2 * state_cost(small))
        for index in range(5):
            cache.put(small + bytes([index]), KnownState("six_nimmt", index))
        cache.put(large, KnownState("fora_de_ordem", "large"))
        assert cache.get(large) == KnownState("fora_de_ordem", "large")
        assert cache.bytes <= cache.max_bytes
        assert len(cache) < 5
        cache.put(b"x" * cache.max_bytes, KnownState("fora_de_ordem", "too large"))
        assert cache.get(b"x" * cache.max_bytes) is None

    def test_the_charge_bounds_what_a_decoded_state_takes(self) -> None:
        """A state's charge covers its key, its engine state and its encoded parts as
        tracemalloc measures them, for the largest Fora de Ordem state and a small one."""
        servicer = GameEngineServicer(0)
        for options, seats in ((largest_fora_de_ordem_options(), MAX_SEATS), (None, 2)):
            game_options = options or common.GameOptions(six_nimmt={})
            state = servicer.NewGame(
                api.NewGameRequest(seats=seats, seed=3, options=game_options),
                CallRecord("NewGame"),
            ).state
            key = state.SerializeToString()
            game = servicer.games[state.WhichOneof("game")]
            gc.collect()
            tracemalloc.start()
            try:
                decoded = game.codec.decode_state(
                    getattr(state, game.id), state.rules_version, state.revision
                )
                parts = game.codec.state_parts and game.codec.state_parts.serialize(
                    decoded, None, None
                )
                taken, _ = tracemalloc.get_traced_memory()
            finally:
                tracemalloc.stop()
            assert parts is not None
            assert len(key) + taken < state_cost(key)
