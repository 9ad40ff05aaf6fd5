"""The Parallel environment (``pettingzoo.ParallelEnv``) of the games whose seats move at once
(6 nimmt!'s selections): each step takes an action from every agent that is to act.

Every live agent gets an observation at each step; the agents that are not to act (all but one
while a Rule 4 row choice is pending) have an action mask of zeros, and their actions, if given,
are ignored. An action its agent's mask does not allow moves nothing
(``infos[agent]["illegal_action"]``): that agent is still to act at the next step. The seats act
in seat order, the bots among them included, as in the AEC environment: the same seed and
actions give the same game in both.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv

from ordo.client import Client
from ordo_agents.aec import RENDER_FPS, RENDER_MODES, table_text
from ordo_agents.games.base import Observation
from ordo_agents.options import Options
from ordo_agents.table import ILLEGAL, SCORE, Seeds, Table, agent_name

Step = tuple[
    dict[str, Observation],
    dict[str, float],
    dict[str, bool],
    dict[str, bool],
    dict[str, dict[str, Any]],
]


class OrdoParallelEnv(ParallelEnv[str, Observation, int]):  # type: ignore[misc]
    """A game whose seats move at once as a Parallel environment; the arguments are those of
    ``ordo_agents.aec.OrdoEnv``."""

    metadata: dict[str, Any] = {"render_modes": RENDER_MODES, "render_fps": RENDER_FPS}  # noqa: RUF012

    def __init__(
        self,
        game: str,
        seats: int | None = None,
        *,
        options: Options | None = None,
        bots: Mapping[int, str] | None = None,
        server: str | Client | None = None,
        reward: str = SCORE,
        search_iterations: int = 0,
        render_mode: str | None = None,
    ) -> None:
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode is one of {RENDER_MODES} or None, not {render_mode!r}")
        self.table = Table(
            game,
            seats,
            options=options,
            bots=bots,
            server=server,
            reward=reward,
            search_iterations=search_iterations,
        )
        if not self.table.info.simultaneous:
            self.table.close()
            raise ValueError(
                f"{self.table.info.title} is played turn by turn: use its AEC environment"
            )
        self.render_mode = render_mode
        self.metadata = {**self.metadata, "name": f"ordo_{game}_v0"}
        self.seat_of = {agent_name(seat): seat for seat in self.table.agent_seats}
        self.possible_agents = list(self.seat_of)
        self.agents: list[str] = []
        self.observation_spaces = {
            agent: self.table.observation_space() for agent in self.possible_agents
        }
        self.action_spaces = {agent: self.table.action_space() for agent in self.possible_agents}
        self.seeds = Seeds()

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Observation], dict[str, dict[str, Any]]]:
        """Deal a new game, as ``OrdoEnv.reset`` does; every agent's first observation."""
        self.table.deal(self.seeds.next(seed))
        self.agents = self.possible_agents[:]
        return self._observations(), {agent: {} for agent in self.agents}

    def step(self, actions: Mapping[str, int | np.integer[Any]]) -> Step:
        """Play the action of every agent to act, in seat order (the bots' moves between)."""
        table = self.table
        totals = [0.0] * table.seats
        infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        for seat in [seat for seat in table.seats_to_act() if seat not in table.bots]:
            if seat not in table.seats_to_act():
                continue
            agent = agent_name(seat)
            if agent not in actions:
                raise ValueError(f"{agent} is to act: give it an action")
            if not table.allows(seat, int(actions[agent])):
                infos[agent][ILLEGAL] = True
                continue
            for index, reward in enumerate(table.act(seat, int(actions[agent]))):
                totals[index] += reward
        finished = table.finished
        observations = self._observations()
        rewards = {agent: totals[self.seat_of[agent]] for agent in self.agents}
        terminations = dict.fromkeys(self.agents, finished)
        truncations = dict.fromkeys(self.agents, False)
        if finished:
            self.agents = []
        return observations, rewards, terminations, truncations, infos

    def _observations(self) -> dict[str, Observation]:
        return {agent: self.table.observe(self.seat_of[agent]) for agent in self.agents}

    def render(self) -> str | None:
        """The table as text (``render_mode="ansi"``)."""
        return table_text(self.table) if self.render_mode == "ansi" else None

    def close(self) -> None:
        """Close the backend (a remote one's client, when the environment opened it)."""
        self.table.close()
