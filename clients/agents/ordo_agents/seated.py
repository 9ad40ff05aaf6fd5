"""What the AEC and Parallel environments share: the table of the game, an agent for each seat
no bot plays, their spaces, the seeds of their resets, rendering and closing.

Agents are named ``seat_N`` after the seat they play; the seats given to bots are played inside
the environment and have no agent.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from gymnasium import spaces

from ordo.client import Client
from ordo_agents.options import Options
from ordo_agents.table import SCORE, Seeds, Table, agent_name

RENDER_MODES = ["ansi"]
RENDER_FPS = 1  # a text of the table per move: no frame rate to keep


def check_render_mode(render_mode: str | None) -> None:
    """Raise ``ValueError`` for a render mode the environments do not have."""
    if render_mode is not None and render_mode not in RENDER_MODES:
        raise ValueError(f"render_mode is one of {RENDER_MODES} or None, not {render_mode!r}")


def table_text(table: Table) -> str:
    """The table for people: the game, its revision, who is to act, the scores once over."""
    backend = table.backend
    head = f"{table.info.title}, {table.seats} seats, seed {table.seed}, move {backend.revision}"
    result = backend.result()
    if result is None:
        to_act = ", ".join(agent_name(seat) for seat in backend.seats_to_act())
        return f"{head}: {to_act} to act"
    return f"{head}: over, scores {list(result.scores)}, winners {list(result.winners)}"


class Seated:
    """A game with an agent at each seat no bot plays; the arguments are
    ``ordo_agents.table.Table``'s, and ``render_mode`` ``"ansi"`` or None. With
    ``simultaneous_only``, a game played turn by turn is refused."""

    metadata: dict[str, Any] = {"render_modes": RENDER_MODES, "render_fps": RENDER_FPS}  # noqa: RUF012
    simultaneous_only: ClassVar[bool] = False

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
        check_render_mode(render_mode)
        self.table = Table(
            game,
            seats,
            options=options,
            bots=bots,
            server=server,
            reward=reward,
            search_iterations=search_iterations,
        )
        if self.simultaneous_only and not self.table.info.simultaneous:
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
        """The agent's observation space (the same object at every call)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        """The agent's action space (the same object at every call)."""
        return self.action_spaces[agent]

    def render(self) -> str | None:
        """The table as text (``render_mode="ansi"``)."""
        return table_text(self.table) if self.render_mode == "ansi" else None

    def close(self) -> None:
        """Close the backend (a remote one's client, when the environment opened it)."""
        self.table.close()
