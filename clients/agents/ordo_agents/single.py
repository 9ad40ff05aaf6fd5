"""The Gymnasium single-agent environment of every game: one seat is the agent's, bots play every
other seat.

``opponents`` names the bots' policy (``random``, ``heuristic`` or ``search``), one for all of
them, or maps each other seat to its own. ``action_masks()`` gives the mask as booleans, as the
maskable learners (sb3-contrib's ``MaskablePPO``) ask for it; the observation carries it too. A
step with an action the mask does not allow moves nothing (``info["illegal_action"]``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gymnasium
import numpy as np

from engines import registry
from ordo.client import Client
from ordo_agents.games.base import MASK, Observation
from ordo_agents.options import Options
from ordo_agents.seated import RENDER_FPS, RENDER_MODES, check_render_mode, table_text
from ordo_agents.table import ILLEGAL, SCORE, Seeds, Table

HEURISTIC = "heuristic"


class OrdoGymEnv(gymnasium.Env[dict[str, Any], np.int64]):
    """``seat`` of a game against bots, as a Gymnasium environment; the other arguments are
    those of ``ordo_agents.aec.OrdoEnv``."""

    metadata: dict[str, Any] = {"render_modes": RENDER_MODES, "render_fps": RENDER_FPS}  # noqa: RUF012

    def __init__(
        self,
        game: str,
        seats: int | None = None,
        *,
        seat: int = 0,
        opponents: str | Mapping[int, str] = HEURISTIC,
        options: Options | None = None,
        server: str | Client | None = None,
        reward: str = SCORE,
        search_iterations: int = 0,
        render_mode: str | None = None,
    ) -> None:
        check_render_mode(render_mode)
        count = registry.get(game).info.min_seats if seats is None else seats
        if isinstance(opponents, str):
            bots = {other: opponents for other in range(count) if other != seat}
        else:
            bots = dict(opponents)
        if seat in bots or set(bots) != set(range(count)) - {seat}:
            raise ValueError(f"opponents must name a policy for every seat but seat {seat}")
        self.table = Table(
            game,
            count,
            options=options,
            bots=bots,
            server=server,
            reward=reward,
            search_iterations=search_iterations,
        )
        self.seat = seat
        self.render_mode = render_mode
        self.observation_space = self.table.observation_space()
        self.action_space = self.table.action_space()
        self.seeds = Seeds()

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Observation, dict[str, Any]]:
        """Deal a new game, as ``OrdoEnv.reset`` does, and play the bots until the seat is to
        act; its first observation."""
        super().reset(seed=seed)
        self.table.deal(self.seeds.next(seed))
        return self.table.observe(self.seat), {}

    def step(
        self, action: int | np.integer[Any]
    ) -> tuple[Observation, float, bool, bool, dict[str, Any]]:
        """Play the seat's action and the bots' moves until it is to act again or the game is
        over. An action the mask does not allow moves nothing: the same observation comes
        back, with no reward and ``info["illegal_action"]`` set."""
        index = int(action)
        if not self.table.allows(self.seat, index):
            unchanged = {name: part.copy() for name, part in self.table.observe(self.seat).items()}
            return unchanged, 0.0, False, False, {ILLEGAL: True}
        reward = self.table.act(self.seat, index)[self.seat]
        return self.table.observe(self.seat), reward, self.table.finished, False, {}

    def action_masks(self) -> np.ndarray:
        """The seat's legal actions now, as booleans."""
        return self.table.observe(self.seat)[MASK].astype(bool)

    def render(self) -> str | None:
        """The table as text (``render_mode="ansi"``)."""
        return table_text(self.table) if self.render_mode == "ansi" else None

    def close(self) -> None:
        """Close the backend (a remote one's client, when the environment opened it)."""
        self.table.close()
