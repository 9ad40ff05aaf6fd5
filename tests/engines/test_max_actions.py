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


class TestExactBounds:
    """Each game's bound is the one its engine derives (engine.py says how): not looser, so a
    runaway record stops early, and not tighter, so no real game is refused."""

    @pytest.mark.parametrize(
        ("game", "seats", "bound"),
        [
            ("fora_de_ordem", 2, 36),  # rounds x plays per round x seats
            ("fora_de_ordem", 6, 108),
            ("sequence_numbers", 2, 1800),  # three actions a turn, for the turn limit
            ("sequence_numbers", 6, 1800),
            ("six_nimmt", 2, 5240),  # 2 x (66 - 1) + 1 hands of 10 turns, two actions a seat
            ("six_nimmt", 10, 130_200),
            ("up_or_down", 2, 36),  # one action a turn, each moving a card out of play
            ("up_or_down", 6, 90),
        ],
    )
    def test_the_bound_under_the_default_options(self, game: str, seats: int, bound: int) -> None:
        """The bound of a game with the default options and the fewest or the most seats."""
        engine = registry.ENGINES[game]
        assert engine.max_actions(engine.new_game(seats, 1, engine.default_options())) == bound
