"""What the environment tests share: the games and seat counts they play, seeded random agents,
and the observation of a seat in any state, as the environments make it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from engines import registry
from ordo_agents import MASK, OrdoEnv
from ordo_agents.games import ENCODINGS
from ordo_agents.games.base import Observation

GAMES = sorted(registry.ENGINES)


def seat_counts(game: str) -> tuple[int, ...]:
    """The fewest and the most seats of a game."""
    info = registry.get(game).info
    return tuple(sorted({info.min_seats, info.max_seats}))


def cases() -> list[Any]:
    """(game, seats) for every game at its fewest and its most seats."""
    return [
        pytest.param(game, seats, id=f"{game}-{seats}seats")
        for game in GAMES
        for seats in seat_counts(game)
    ]


def random_action(observation: Observation, rng: np.random.Generator) -> int:
    """A uniformly random legal action of an observation."""
    return int(rng.choice(np.flatnonzero(observation[MASK])))


def play(env: OrdoEnv, seed: int, chooser: int = 0) -> Iterator[tuple[str, Observation]]:
    """Play a game of ``env`` from ``seed`` with random legal actions (drawn from ``chooser``),
    yielding each agent to act and its observation before its move."""
    rng = np.random.default_rng(chooser)
    env.reset(seed=seed)
    for agent in env.agent_iter():
        observation, _, terminated, _, _ = env.last()
        if terminated:
            env.step(None)
            continue
        yield agent, observation
        env.step(random_action(observation, rng))


def observation_of(game: str, state: Any, seat: int) -> Observation:
    """The observation the environments make of ``seat`` in ``state``: the encoder's over the
    seat's view, and the mask of its legal actions."""
    engine, encoding = registry.get(game), ENCODINGS[game]
    view = engine.view(state, seat)
    observation = encoding.observe(view, seat)
    observation[MASK] = encoding.mask(engine.legal_actions(state, seat), view)
    return observation


def same(first: Observation, second: Observation) -> bool:
    """Whether two observations hold the same parts, of the same types and values."""
    return first.keys() == second.keys() and all(
        first[name].dtype == second[name].dtype and np.array_equal(first[name], second[name])
        for name in first
    )
