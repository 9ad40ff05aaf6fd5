"""Each engine's ``max_actions`` bounds the games it deals: random and heuristic games of every
seat count end within it (a record longer than the bound is refused unplayed)."""

from __future__ import annotations

import pytest

from engines import registry
from engines.prng import Rng

SEEDS = (1, 2)


@pytest.mark.parametrize("game", sorted(registry.ENGINES))
class TestMaxActions:
    """``max_actions`` is a bound of whole games."""

    @pytest.mark.parametrize("policy", ["random", "heuristic"])
    def test_games_end_within_the_bound(self, game: str, policy: str) -> None:
        """A game played by bots to its end takes no more actions than the bound."""
        engine = registry.ENGINES[game]
        for seats in engine.info.seat_counts:
            for seed in SEEDS:
                state = engine.new_game(seats, seed, engine.default_options())
                bound = engine.max_actions(state)
                rng = Rng(seed)
                for _ in range(bound):
                    status = engine.status(state)
                    if status.finished:
                        break
                    seat = status.seats_to_act[0]
                    action = engine.suggest(state, seat, policy, rng)
                    state = engine.apply(state, seat, action).state
                assert engine.status(state).finished, (seats, seed, bound)

    def test_the_bound_is_a_whole_game_from_any_of_its_states(self, game: str) -> None:
        """The bound depends on the seats and options alone, not on how far the game is."""
        engine = registry.ENGINES[game]
        state = engine.new_game(engine.info.min_seats, 3, engine.default_options())
        bound = engine.max_actions(state)
        seat = engine.status(state).seats_to_act[0]
        later = engine.apply(state, seat, engine.legal_actions(state, seat)[0]).state
        assert engine.max_actions(later) == bound > 0
