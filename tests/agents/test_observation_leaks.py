"""Observations never hold what their seat may not see: re-deal everything the seat cannot see
(the other hands, pending selections, the deck, hidden ranks) and its observation, action mask
included, stays the same, byte for byte. The states are those an environment plays through."""

from __future__ import annotations

import pytest

from engines import registry
from engines.prng import Rng
from ordo_agents import OrdoEnv
from tests.agents.playing import cases, observation_of, play, same

SEEDS = (1, 2)
REDEALS = (11, 12)  # re-deal seeds per state
BOTS = "random"


@pytest.mark.parametrize(("game", "seats"), cases())
class TestRedeal:
    """The re-deal test of tests/conformance, on observations."""

    def test_observations_do_not_change_when_hidden_cards_are_redealt(
        self, game: str, seats: int
    ) -> None:
        """At every step of seeded games, for every seat, two re-deals leave its observation as
        it was; the environment's own observation of the seat to act is that one too."""
        engine = registry.get(game)
        env = OrdoEnv(game, seats)
        for seed in SEEDS:
            for step, (agent, observation) in enumerate(play(env, seed, chooser=seed)):
                state = env.table.backend.state  # type: ignore[attr-defined]
                seat = env.seat_of[agent]
                assert same(observation, observation_of(game, state, seat))
                for other in range(seats):
                    before = observation_of(game, state, other)
                    for redeal in REDEALS:
                        hidden = engine.redeal(state, other, Rng(redeal + step))
                        assert same(observation_of(game, hidden, other), before), (
                            f"seat {other}'s observation leaks at step {step}"
                        )

    def test_observations_with_bots_do_not_leak(self, game: str, seats: int) -> None:
        """The same with every seat but the first played by bots inside the environment."""
        engine = registry.get(game)
        env = OrdoEnv(game, seats, bots=dict.fromkeys(range(1, seats), BOTS))
        for step, (_, observation) in enumerate(play(env, SEEDS[0])):
            state = env.table.backend.state  # type: ignore[attr-defined]
            for redeal in REDEALS:
                hidden = engine.redeal(state, 0, Rng(redeal + step))
                assert same(observation_of(game, hidden, 0), observation)
