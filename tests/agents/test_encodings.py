"""Each game's encodings: the action mask is exactly the legal actions, each index naming one
action and back; observations lie in their space; and the wire translation gives back the very
view and actions the server encodes, so an environment over gRPC observes what one in-process
does."""

from __future__ import annotations

import numpy as np
import pytest

from engines import registry
from engines.prng import Rng
from ordo_agents import MASK, flatten
from ordo_agents.games import ENCODINGS
from service.codecs import CODECS
from tests.agents.playing import GAMES, cases, observation_of

SEEDS = (1, 2, 3)
MOST_STEPS = 20_000


def states(game: str, seats: int, seed: int):  # type: ignore[no-untyped-def]
    """Every state of a seeded random playout, with the seats to act in it."""
    engine = registry.get(game)
    state = engine.new_game(seats, seed, engine.default_options())
    rng = Rng(seed)
    for _ in range(MOST_STEPS):
        to_act = engine.seats_to_act(state)
        yield state, to_act
        if not to_act:
            return
        seat = rng.choice(to_act)
        state = engine.apply(state, seat, rng.choice(engine.legal_actions(state, seat))).state
    pytest.fail("the playout did not end")


@pytest.mark.parametrize(("game", "seats"), cases())
class TestActions:
    """The action encoding over whole seeded games."""

    def test_the_mask_is_the_legal_actions(self, game: str, seats: int) -> None:
        """At every step the mask's indices decode to the seat's legal actions, one index each,
        and every legal action encodes to an index the mask allows."""
        engine, encoding = registry.get(game), ENCODINGS[game]
        for seed in SEEDS:
            for state, to_act in states(game, seats, seed):
                for seat in range(seats):
                    view = engine.view(state, seat)
                    legal = engine.legal_actions(state, seat)
                    assert (seat in to_act) == bool(legal)
                    mask = encoding.mask(legal, view)
                    indices = np.flatnonzero(mask)
                    assert len(indices) == len(legal)
                    decoded = [encoding.action_of(int(index), view, seat) for index in indices]
                    assert sorted(map(repr, decoded)) == sorted(map(repr, legal))
                    for action in legal:
                        assert mask[encoding.action_index(action, view)] == 1

    def test_actions_cross_the_wire_unchanged(self, game: str, seats: int) -> None:
        """Every legal action's message is the server codec's, and reads back as the action."""
        engine, encoding, codec = registry.get(game), ENCODINGS[game], CODECS[game]
        for state, to_act in states(game, seats, SEEDS[0]):
            for seat in to_act:
                for action in engine.legal_actions(state, seat):
                    message = encoding.action_to_wire(action)
                    assert message == codec.encode_action(action)
                    assert encoding.action_from_wire(message) == action


@pytest.mark.parametrize(("game", "seats"), cases())
class TestObservations:
    """Observations over whole seeded games."""

    def test_observations_lie_in_their_space(self, game: str, seats: int) -> None:
        """Every seat's observation at every step is in the observation space, part by part."""
        engine = registry.get(game)
        space = ENCODINGS[game].observation_space(seats, engine.default_options())
        for state, _ in states(game, seats, SEEDS[0]):
            for seat in range(seats):
                observation = observation_of(game, state, seat)
                assert space.contains(observation), [
                    name for name, part in observation.items() if part not in space[name]
                ]

    def test_the_wire_view_reads_back_as_the_engine_view(self, game: str, seats: int) -> None:
        """The view the server sends for a seat (its codec's) reads back as the engine's view,
        equal in every field: the observation over gRPC is the observation in-process."""
        engine, encoding, codec = registry.get(game), ENCODINGS[game], CODECS[game]
        for state, _ in states(game, seats, SEEDS[0]):
            for seat in range(seats):
                view = engine.view(state, seat)
                assert encoding.view_from_wire(codec.encode_view(view)) == view

    def test_flatten_keeps_every_part_but_the_mask(self, game: str, seats: int) -> None:
        """flatten gives one float vector as long as the parts, the mask left out."""
        engine = registry.get(game)
        state = engine.new_game(seats, 1, engine.default_options())
        observation = observation_of(game, state, 0)
        vector = flatten(observation)
        assert vector.dtype == np.float32
        assert len(vector) == sum(part.size for name, part in observation.items() if name != MASK)


class TestAllGames:
    """What holds of every encoding."""

    def test_each_encoding_is_filed_under_its_game(self) -> None:
        """An encoding's game id is the key it is found by (tests/test_game_lists.py checks
        that the keys are the registered games)."""
        assert all(encoding.game_id == game for game, encoding in ENCODINGS.items())

    @pytest.mark.parametrize("game", GAMES)
    def test_an_index_out_of_range_names_no_action(self, game: str) -> None:
        """Indices below 0 and from the action count on are refused with ValueError."""
        engine, encoding = registry.get(game), ENCODINGS[game]
        state = engine.new_game(engine.info.min_seats, 1, engine.default_options())
        view = engine.view(state, 0)
        for index in (-1, encoding.action_count, 2**40):
            with pytest.raises(ValueError, match=r"no .* action has index"):
                encoding.action_of(index, view, 0)
