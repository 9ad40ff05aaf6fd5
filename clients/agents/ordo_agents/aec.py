"""The AEC environment (``pettingzoo.AECEnv``) of every game: the agents act one at a time, the
agent to act being the lowest seat to act that an agent plays.

Agents are named ``seat_N`` after the seat they play; the seats given to bots are played inside
the environment and have no agent. The game's own score comes as each agent's reward when the
game ends (``reward="score"``, the default), every agent then terminates, and no game is ever
truncated: every game ends within a bound its rules guarantee. An action the agent's mask does
not allow moves nothing: the same agent is to act again, with ``infos[agent]["illegal_action"]``
set.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from ordo.client import Client
from ordo_agents.games.base import Observation
from ordo_agents.options import Options
from ordo_agents.table import ILLEGAL, SCORE, Seeds, Table, agent_name

RENDER_MODES = ["ansi"]
RENDER_FPS = 1  # a text of the table per move: no frame rate to keep


def table_text(table: Table) -> str:
    """The table for people: the game, its revision, who is to act, the scores once over."""
    backend = table.backend
    head = f"{table.info.title}, {table.seats} seats, seed {table.seed}, move {backend.revision}"
    result = backend.result()
    if result is None:
        to_act = ", ".join(agent_name(seat) for seat in backend.seats_to_act())
        return f"{head}: {to_act} to act"
    return f"{head}: over, scores {list(result.scores)}, winners {list(result.winners)}"


class OrdoEnv(AECEnv[str, Observation, int]):  # type: ignore[misc]
    """A game as an AEC environment; the arguments are ``ordo_agents.table.Table``'s, and
    ``render_mode`` ``"ansi"`` or None."""

    metadata: dict[str, Any] = {  # noqa: RUF012
        "render_modes": RENDER_MODES,
        "render_fps": RENDER_FPS,
        "is_parallelizable": False,
    }

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
        super().__init__()
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

    def render(self) -> str | None:
        """The table as text (``render_mode="ansi"``)."""
        return table_text(self.table) if self.render_mode == "ansi" else None

    def close(self) -> None:
        """Close the backend (a remote one's client, when the environment opened it)."""
        self.table.close()
