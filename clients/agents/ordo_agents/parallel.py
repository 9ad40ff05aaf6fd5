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
from pettingzoo import ParallelEnv

from ordo_agents.games.base import Observation
from ordo_agents.seated import Seated
from ordo_agents.table import ILLEGAL, agent_name

Step = tuple[
    dict[str, Observation],
    dict[str, float],
    dict[str, bool],
    dict[str, bool],
    dict[str, dict[str, Any]],
]


class OrdoParallelEnv(Seated, ParallelEnv[str, Observation, int]):  # type: ignore[misc]
    """A game whose seats move at once as a Parallel environment; the arguments are
    ``ordo_agents.seated.Seated``'s (a game played turn by turn is refused)."""

    simultaneous_only = True

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
