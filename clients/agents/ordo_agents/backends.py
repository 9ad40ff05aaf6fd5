"""Where a game is played: by the engine in this process (``InProcess``), or by an Ordo server
over gRPC through the Python client (``Remote``). Both deal from the seed as ``NewGame`` does and
speak in the engine's values (its actions and views), so an environment plays the same game,
observes the same observations and gets the same rewards on either.

The remote backend holds the game's full state as the server returns it (plain or sealed) and
calls for every seat, as a trusted game server does: ``NewGame``, ``ListLegalActions``,
``GetView``, and ``ApplyAction`` with a seat's action or a bot's move.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from engines import registry
from engines.prng import Rng
from engines.search import Budget
from ordo.client import Client
from ordo.v1 import common_pb2 as common
from ordo_agents.games import ENCODINGS
from ordo_agents.options import Options, engine_options, wire_options

SPECTATOR_EVENTS = common.Viewer(spectator=True)  # the events a remote move asks back: public


@dataclass(frozen=True, slots=True)
class Result:
    """A finished game's scores (one per seat, in the game's own unit) and winners."""

    scores: tuple[int, ...]
    winners: tuple[int, ...]


class Backend(Protocol):
    """A game being played, one state at a time."""

    @property
    def revision(self) -> int:
        """The number of actions applied since the deal."""

    def deal(self, seats: int, seed: int) -> None:
        """Deal a new game, as ``NewGame`` with this seed deals it."""

    def seats_to_act(self) -> tuple[int, ...]:
        """The seats whose action is awaited, ascending; none once the game is over."""

    def result(self) -> Result | None:
        """The outcome of a finished game, None while it goes on."""

    def legal_actions(self, seat: int) -> tuple[Any, ...]:
        """The seat's legal actions, in the engine's order (none when it is not to act)."""

    def view(self, seat: int) -> Any:
        """What the seat may see: the engine's view."""

    def apply(self, seat: int, action: Any) -> None:
        """Apply a seat's action."""

    def play_bot(self, seat: int, policy: str, seed: int, iterations: int) -> None:
        """Apply the move the bot ``policy`` chooses for the seat, from the seed (``search``
        within ``iterations``, 0 for the game's default budget)."""

    def close(self) -> None:
        """Let go of what the backend holds."""


class InProcess:
    """The game's engine, in this process."""

    def __init__(self, game_id: str, options: Options) -> None:
        self.engine = registry.get(game_id)
        self.options = engine_options(self.engine, options)
        self.state: Any = None

    @property
    def revision(self) -> int:
        return int(self.state.revision)

    def deal(self, seats: int, seed: int) -> None:
        self.state = self.engine.new_game(seats, seed, self.options)

    def seats_to_act(self) -> tuple[int, ...]:
        return self.engine.seats_to_act(self.state)

    def result(self) -> Result | None:
        outcome = self.engine.outcome(self.state)
        return None if outcome is None else Result(outcome.scores, outcome.winners)

    def legal_actions(self, seat: int) -> tuple[Any, ...]:
        return self.engine.legal_actions(self.state, seat)

    def view(self, seat: int) -> Any:
        return self.engine.view(self.state, seat)

    def apply(self, seat: int, action: Any) -> None:
        self.state = self.engine.apply(self.state, seat, action).state

    def play_bot(self, seat: int, policy: str, seed: int, iterations: int) -> None:
        budget = Budget(iterations) if iterations else None
        action = self.engine.suggest(self.state, seat, policy, Rng(seed), budget)
        self.apply(seat, action)

    def close(self) -> None:
        self.state = None


class Remote:
    """The game on an Ordo server, through ``client``; ``owned``: closed with the backend."""

    def __init__(self, game_id: str, options: Options, client: Client, owned: bool) -> None:
        self.game_id = game_id
        self.encoding = ENCODINGS[game_id]
        self.options = wire_options(registry.get(game_id), options)
        self.client = client
        self.owned = owned
        self.state = common.GameState()
        self.status = common.GameStatus()

    @property
    def revision(self) -> int:
        return self.state.revision

    def deal(self, seats: int, seed: int) -> None:
        dealt = self.client.new_game(self.options, seats, seed)
        self.state, self.status = dealt.state, dealt.status

    def seats_to_act(self) -> tuple[int, ...]:
        return tuple(self.status.seats_to_act)

    def result(self) -> Result | None:
        if not self.status.finished:
            return None
        outcome = self.status.outcome
        return Result(tuple(outcome.scores), tuple(outcome.winners))

    def legal_actions(self, seat: int) -> tuple[Any, ...]:
        listed = self.client.list_legal_actions(self.state, seat).actions
        decode = self.encoding.action_from_wire
        return tuple(decode(getattr(action, self.game_id)) for action in listed)

    def view(self, seat: int) -> Any:
        view = self.client.get_view(self.state, seat).view
        return self.encoding.view_from_wire(getattr(view, self.game_id))

    def apply(self, seat: int, action: Any) -> None:
        message = common.Action(seat=seat)
        getattr(message, self.game_id).CopyFrom(self.encoding.action_to_wire(action))
        applied = self.client.apply_action(self.state, message, viewer=SPECTATOR_EVENTS)
        self.state, self.status = applied.state, applied.status

    def play_bot(self, seat: int, policy: str, seed: int, iterations: int) -> None:
        applied = self.client.play_bot(
            self.state, seat, policy, seed, search_iterations=iterations, viewer=SPECTATOR_EVENTS
        )
        self.state, self.status = applied.state, applied.status

    def close(self) -> None:
        if self.owned:
            self.client.close()
