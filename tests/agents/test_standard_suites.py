"""The field's own checks pass for every game at its fewest and its most seats: PettingZoo's API,
seed and parallel tests, and Gymnasium's environment checker."""

from __future__ import annotations

import warnings
from collections.abc import Iterator

import gymnasium
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, seed_test

import ordo_agents
from engines import registry
from tests.agents.playing import cases

CYCLES = 200  # moves per agent the suites play: several whole games of the short ones
#: What the suites say of any environment whose observation is a Dict of named parts, and at the
#: end of a game (where no action is legal): advice, not failures.
EXPECTED_WARNINGS = (
    "Observation is not a NumPy array",
    "Observation space for each agent probably should be",
    "Action mask numpy array is all zeros",
)


@pytest.fixture(autouse=True)
def quiet_advice() -> Iterator[None]:
    """Let the suites' advice on Dict observations pass; any other warning fails the test."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for text in EXPECTED_WARNINGS:
            warnings.filterwarnings("ignore", message=text)
        yield


@pytest.mark.parametrize(("game", "seats"), cases())
class TestPettingZoo:
    """PettingZoo's tests of the AEC environment."""

    def test_api(self, game: str, seats: int) -> None:
        """pettingzoo.test.api_test passes."""
        api_test(ordo_agents.env(game, seats), num_cycles=CYCLES)

    def test_seed(self, game: str, seats: int) -> None:
        """pettingzoo.test.seed_test: two environments reset with one seed play alike."""
        seed_test(lambda: ordo_agents.env(game, seats), num_cycles=CYCLES)

    def test_api_with_bots(self, game: str, seats: int) -> None:
        """api_test passes with every seat but the last played by bots inside the environment."""
        bots = dict.fromkeys(range(seats - 1), "random")
        api_test(ordo_agents.env(game, seats, bots=bots), num_cycles=CYCLES)


@pytest.mark.parametrize(
    ("game", "seats"),
    [case for case in cases() if registry.get(case.values[0]).info.simultaneous],
)
class TestParallel:
    """PettingZoo's tests of the Parallel environment, for the games whose seats move at once."""

    def test_parallel_api(self, game: str, seats: int) -> None:
        """pettingzoo.test.parallel_api_test passes."""
        parallel_api_test(ordo_agents.parallel_env(game, seats), num_cycles=CYCLES)

    def test_parallel_seed(self, game: str, seats: int) -> None:
        """pettingzoo.test.parallel_seed_test passes."""
        parallel_seed_test(lambda: ordo_agents.parallel_env(game, seats), num_cycles=CYCLES)


@pytest.mark.parametrize(("game", "seats"), cases())
class TestGymnasium:
    """Gymnasium's checker of the single-agent environment, made by gymnasium.make."""

    def test_check_env(self, game: str, seats: int) -> None:
        """gymnasium.utils.env_checker.check_env passes, render modes included."""
        env = gymnasium.make(f"ordo/{game}-v0", seats=seats, render_mode="ansi")
        check_env(env.unwrapped, skip_render_check=False)
        env.close()
