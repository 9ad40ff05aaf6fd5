"""The AEC environment (``pettingzoo.AECEnv``) of every game: the agents act one at a time, the
agent to act being the lowest seat to act that an agent plays.

The game's own score comes as each agent's reward when the
game ends (``reward="score"``, the default), every agent then terminates, and no game is ever
truncated: every game ends within a bound its rules guarantee. An action the agent's mask does
not allow moves nothing: the same agent is to act again, with ``infos[agent]["illegal_action"]``
set.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pettingzoo import AECEnv

from ordo_agents.games.base import Observation
from ordo_agents.seated import Seated
from ordo_agents.table import ILLEGAL, agent_name


class OrdoEnv(Seated, AECEnv[str, Observation, int]):  # type: ignore[misc]
    """A game as an AEC environment; the arguments are ``ordo_agents.seated.Seated``'s."""

    metadata: dict[str, Any] = {**Seated.metadata, "is_parallelizable": False}  # noqa: RUF012

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Deal a new game: the one ``NewGame`` deals with ``seed`` (seed 0 aside, see
        ``ordo_agents.table.ZERO_SEED``). ``options`` is not read: a game's options are the
        environment's."""
        self.table.deal(self.seeds.next(seed))
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self._select()

    def observe(self, agent: str) -> Observation:
        return self.table.observe(self.seat_of[agent])

    def step(self, action: int | np.integer[Any] | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} is to act: give it an action")
        self._cumulative_rewards[agent] = 0.0
        seat = self.seat_of[agent]
        if not self.table.allows(seat, int(action)):
            self._clear_rewards()
            self.infos[agent] = {ILLEGAL: True}
            return
        self.infos[agent] = {}
        rewards = self.table.act(seat, int(action))
        for name in self.agents:
            self.rewards[name] = rewards[self.seat_of[name]]
        self._select()
        self._accumulate_rewards()

    def _select(self) -> None:
        """Select the agent to act, or terminate every agent once the game is over."""
        to_act = self.table.seats_to_act()
        if to_act:
            self.agent_selection = agent_name(to_act[0])
            return
        for name in self.agents:
            self.terminations[name] = True
        self.agent_selection = self.agents[0]
