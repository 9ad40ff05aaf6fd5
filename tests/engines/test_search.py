"""The search bot: the shared flat Monte-Carlo loop and every game's sampler."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest

from engines import registry
from engines.prng import Rng
from engines.search import SEARCH_POLICY, Budget, search

GAMES = sorted(registry.ENGINES)
STEPS_BETWEEN_CHECKS = 5


@dataclass
class Toy:
    """A searcher over three actions whose rewards are fixed: it counts the worlds it samples."""

    rewards: dict[str, float]
    default_iterations: int = 4
    worlds: list[int] = field(default_factory=list)

    def candidates(self, state: str, seat: int) -> Sequence[str]:
        return list(self.rewards)

    def sample(self, state: str, seat: int, rng: Rng) -> int:
        world = rng.below(1000)
        self.worlds.append(world)
        return world

    def rollout(self, world: int, seat: int, action: str, rng: Rng) -> float:
        return self.rewards[action]


class TestSearchLoop:
    """The shared loop: worlds, means, ties, the budget."""

    def test_the_best_mean_reward_wins(self) -> None:
        """The candidate with the highest mean reward is chosen."""
        toy = Toy({"a": 1.0, "b": 3.0, "c": 2.0})
        assert search(toy, "state", 0, Rng(1), Budget(5)) == "b"

    def test_ties_go_to_the_candidate_ranked_first(self) -> None:
        """Equal means choose the game's first-ranked candidate."""
        toy = Toy({"a": 1.0, "b": 2.0, "c": 2.0})
        assert search(toy, "state", 0, Rng(1), Budget(5)) == "b"

    def test_iterations_are_worlds(self) -> None:
        """A budget of n iterations samples exactly n worlds."""
        toy = Toy({"a": 1.0, "b": 2.0})
        search(toy, "state", 0, Rng(1), Budget(7))
        assert len(toy.worlds) == 7

    def test_a_time_cap_still_finishes_a_world(self) -> None:
        """A time cap stops after the world that passes it, so at least one is sampled."""
        toy = Toy({"a": 1.0, "b": 2.0})
        search(toy, "state", 0, Rng(1), Budget(1_000_000, time_ms=1))
        assert 1 <= len(toy.worlds) < 1_000_000

    def test_a_single_candidate_needs_no_world(self) -> None:
        """With one candidate the search answers at once."""
        toy = Toy({"only": 0.0})
        assert search(toy, "state", 0, Rng(1), Budget(5)) == "only"
        assert toy.worlds == []

    def test_the_same_seed_samples_the_same_worlds(self) -> None:
        """The worlds come from the caller's generator alone."""
        first, second = Toy({"a": 1.0, "b": 2.0}), Toy({"a": 1.0, "b": 2.0})
        search(first, "state", 0, Rng(9), Budget(5))
        search(second, "state", 0, Rng(9), Budget(5))
        assert first.worlds == second.worlds


def states(game: str, seats: int, seed: int) -> Iterator[Any]:
    """Every few states of a random playout, each with the seats to act."""
    engine = registry.get(game)
    rng = Rng(seed)
    state = engine.new_game(seats, seed, engine.default_options())
    step = 0
    while not engine.status(state).finished:
        seat = rng.choice(engine.seats_to_act(state))
        if step % STEPS_BETWEEN_CHECKS == 0:
            yield state
        state = engine.apply(state, seat, rng.choice(engine.legal_actions(state, seat))).state
        step += 1


def cases() -> list[Any]:
    return [
        pytest.param(game, seats, id=f"{game}-{seats}seats")
        for game in GAMES
        for seats in sorted({registry.get(game).info.min_seats, registry.get(game).info.max_seats})
    ]


def world_state(world: Any) -> Any:
    """The state of a sampled world (a game may sample a state with more beside it)."""
    return world[0] if isinstance(world, tuple) else getattr(world, "state", world)


class TestSamplers:
    """Every game's sampler deals what its seat cannot see, from its view alone."""

    @pytest.mark.parametrize(("game", "seats"), cases())
    def test_a_sampled_world_looks_the_same_to_its_seat(self, game: str, seats: int) -> None:
        """The seat's view of a sampled world is its view of the state, and the world is a
        state the rules could have produced."""
        engine = registry.get(game)
        info = engine.search_info
        assert info is not None
        for state in states(game, seats, 3):
            for seat in engine.seats_to_act(state):
                world = world_state(info.searcher.sample(state, seat, Rng(5)))
                engine.validate(world)
                assert engine.view(world, seat) == engine.view(state, seat)

    @pytest.mark.parametrize(("game", "seats"), cases())
    def test_a_sample_depends_on_the_view_alone(self, game: str, seats: int) -> None:
        """Re-dealing what the seat cannot see changes nothing the sampler draws."""
        engine = registry.get(game)
        info = engine.search_info
        assert info is not None
        for state in states(game, seats, 4):
            for seat in engine.seats_to_act(state):
                redealt = engine.redeal(state, seat, Rng(state.revision + 1))
                sampled = info.searcher.sample(state, seat, Rng(6))
                assert info.searcher.sample(redealt, seat, Rng(6)) == sampled

    @pytest.mark.parametrize(("game", "seats"), cases())
    def test_the_sampled_hidden_cards_vary(self, game: str, seats: int) -> None:
        """Two seeds deal two different worlds: the sampler does draw."""
        engine = registry.get(game)
        info = engine.search_info
        assert info is not None
        state = engine.new_game(seats, 8, engine.default_options())
        seat = engine.seats_to_act(state)[0]
        first = world_state(info.searcher.sample(state, seat, Rng(1)))
        second = world_state(info.searcher.sample(state, seat, Rng(2)))
        assert first != second


class TestPolicy:
    """The policy as every game lists and runs it."""

    @pytest.mark.parametrize("game", GAMES)
    def test_every_game_lists_search(self, game: str) -> None:
        """``search`` is a policy of every game, with a description and a default budget."""
        engine = registry.get(game)
        assert SEARCH_POLICY in engine.policies
        info = engine.search_info
        assert info is not None
        assert info.searcher.default_iterations > 0
        assert engine.describe_policy(SEARCH_POLICY) == info.description

    @pytest.mark.parametrize("game", GAMES)
    def test_the_same_request_gets_the_same_move(self, game: str) -> None:
        """With the same state, seed and budget the move is the same."""
        engine = registry.get(game)
        state = engine.new_game(engine.info.min_seats, 5, engine.default_options())
        seat = engine.seats_to_act(state)[0]
        first = engine.suggest(state, seat, SEARCH_POLICY, Rng(3), Budget(3))
        assert engine.suggest(state, seat, SEARCH_POLICY, Rng(3), Budget(3)) == first
        assert first in engine.legal_actions(state, seat)
