"""One game at a time, as every environment plays it: the seats agents play and the bots that
play the others, the observations and action masks, the moves and the rewards.

A move is a seat's action index; after it, the bots play every move until a seat that an agent
plays is to act (the lowest seat to act moves first: in 6 nimmt!, where every seat selects at
once, the seats select in seat order, which no selection can reveal to another). A bot moves as
``SuggestAction`` with a seed taken from the game's seed, the state's revision and its seat, so
the same seed gives the same game on either backend.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces

from engines import registry
from engines.prng import derive_seed
from ordo.client import Client
from ordo_agents.backends import Backend, InProcess, Remote
from ordo_agents.games import ENCODINGS
from ordo_agents.games.base import MASK, Observation
from ordo_agents.options import Options, engine_options

SCORE, WIN, SHAPED = "score", "win", "shaped"
#: The info key of a step whose action the mask did not allow: it moved nothing.
ILLEGAL = "illegal_action"
REWARDS = (SCORE, WIN, SHAPED)
SEED_LIMIT = 2**64  # seeds are those of NewGame: 64 bits
#: The game seed that env seed 0 deals: NewGame reads 0 as "choose a seed", and an environment's
#: every seed names one game.
ZERO_SEED = SEED_LIMIT - 1


def agent_name(seat: int) -> str:
    """The agent that plays a seat."""
    return f"seat_{seat}"


class Seeds:
    """The game seeds of successive resets: a reset's own seed, else the next one drawn from
    the generator the last seed started (from the system's entropy before any)."""

    def __init__(self) -> None:
        self.rng: np.random.Generator | None = None

    def next(self, seed: int | None) -> int:
        """The game seed of a reset with ``seed``."""
        if seed is not None:
            if not 0 <= seed < SEED_LIMIT:
                raise ValueError(f"a seed is 0..2**64 - 1, not {seed}")
            self.rng = np.random.default_rng(seed)
            return seed or ZERO_SEED
        if self.rng is None:
            self.rng = np.random.default_rng()
        return int(self.rng.integers(1, SEED_LIMIT, dtype=np.uint64))


class Table:
    """A game of ``game`` at ``seats`` seats (the fewest when None), with ``options`` (names and
    values as ``ListGames`` gives them), the seats in ``bots`` played by those policies
    (``random``, ``heuristic``, ``search`` within ``search_iterations``, 0 for the game's
    default budget), the others by agents. ``server`` plays it on an Ordo server (a target such
    as ``"localhost:50051"``, or a ``Client``) instead of in this process. ``reward`` is
    ``score``, ``win`` or ``shaped`` (docs/agents.md)."""

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
    ) -> None:
        engine = registry.get(game)
        self.info = engine.info
        seats = self.info.min_seats if seats is None else seats
        if seats not in self.info.seat_counts:
            counts = ", ".join(map(str, self.info.seat_counts))
            raise ValueError(f"{self.info.title} takes {counts} seats, not {seats}")
        self.seats = seats
        self.bots = dict(bots or {})
        for seat, policy in self.bots.items():
            if not 0 <= seat < seats or policy not in engine.policies:
                raise ValueError(
                    f"bot seat {seat} with policy {policy!r}: seats are 0..{seats - 1}, "
                    f"policies {', '.join(sorted(engine.policies))}"
                )
        self.agent_seats = tuple(seat for seat in range(seats) if seat not in self.bots)
        if not self.agent_seats:
            raise ValueError("every seat is a bot: an environment needs a seat for an agent")
        if reward not in REWARDS:
            raise ValueError(f"reward is one of {', '.join(REWARDS)}, not {reward!r}")
        if search_iterations < 0:
            raise ValueError("search_iterations is at least 0")
        self.reward = reward
        self.search_iterations = search_iterations
        self.encoding = ENCODINGS[game]
        self.sign = -1.0 if self.encoding.lower_is_better else 1.0
        options = dict(options or {})
        self.engine_options = engine_options(engine, options)
        self.backend: Backend
        if server is None:
            self.backend = InProcess(game, options)
        elif isinstance(server, str):
            self.backend = Remote(game, options, Client(server), owned=True)
        else:
            self.backend = Remote(game, options, server, owned=False)
        self.seed = 0
        self._running: tuple[int, ...] = ()
        self._to_act: tuple[int, ...] = ()
        self._views: dict[int, Any] = {}
        self._legal: dict[int, tuple[Any, ...]] = {}
        self._masks: dict[int, np.ndarray] = {}
        self._observations: dict[int, Observation] = {}

    def observation_space(self) -> spaces.Dict:
        """A new observation space of the game at its seats."""
        return self.encoding.observation_space(self.seats, self.engine_options)

    def action_space(self) -> spaces.Discrete:
        """A new action space of the game."""
        return spaces.Discrete(self.encoding.action_count)

    # --------------------------------------------------------------- the game
    def deal(self, seed: int) -> None:
        """Deal the game of ``seed`` (as NewGame does) and play the bots' first moves."""
        self.seed = seed
        self.backend.deal(self.seats, seed)
        self._moved()
        if self.reward == SHAPED:
            self._running = self.running_scores()
        self.play_bots()

    @property
    def finished(self) -> bool:
        """Whether the game is over."""
        return not self._to_act

    def seats_to_act(self) -> tuple[int, ...]:
        """The seats to act now; after ``deal`` and ``act`` the lowest one is an agent's."""
        return self._to_act

    def allows(self, seat: int, index: int) -> bool:
        """Whether the seat's mask allows the action ``index`` now."""
        mask = self.mask(seat)
        return 0 <= index < len(mask) and bool(mask[index])

    def act(self, seat: int, index: int) -> list[float]:
        """Play the action ``index`` for the agent's ``seat``, then the bots' moves; return
        each seat's reward. Raises ``ValueError`` for an action the seat may not take now."""
        if not self.allows(seat, index):
            raise ValueError(f"action {index} is not legal for seat {seat} now")
        action = self.encoding.action_of(index, self.view(seat), seat)
        self.backend.apply(seat, action)
        self._moved()
        self.play_bots()
        return self.rewards()

    def play_bots(self) -> None:
        """Play the bots' moves while the lowest seat to act is a bot's."""
        backend = self.backend
        while True:
            to_act = self._to_act = backend.seats_to_act()
            if not to_act:
                return
            seat = to_act[0]
            policy = self.bots.get(seat)
            if policy is None:
                return
            seed = derive_seed(self.seed, backend.revision, seat) or 1
            backend.play_bot(seat, policy, seed, self.search_iterations)
            self._moved()

    def rewards(self) -> list[float]:
        """Each seat's reward for the moves since the last call (``deal``'s bot moves count
        with the first move's)."""
        if self.reward == SHAPED:
            before, self._running = self._running, self.running_scores()
            return [
                self.sign * (now - then) for now, then in zip(self._running, before, strict=True)
            ]
        result = None if self._to_act else self.backend.result()
        if result is None:
            return [0.0] * self.seats
        if self.reward == WIN:
            return [float(seat in result.winners) for seat in range(self.seats)]
        return [self.sign * score for score in result.scores]

    def running_scores(self) -> tuple[int, ...]:
        """Every seat's score as the table stands (public: read from an agent's view)."""
        return self.encoding.running_scores(self.view(self.agent_seats[0]))

    # --------------------------------------------------------------- what a seat sees
    def _moved(self) -> None:
        """The state changed: forget what the seats saw of the one before."""
        self._views.clear()
        self._legal.clear()
        self._masks.clear()
        self._observations.clear()

    def view(self, seat: int) -> Any:
        """The seat's view of the state (the engine's ``View``)."""
        view = self._views.get(seat)
        if view is None:
            view = self._views[seat] = self.backend.view(seat)
        return view

    def legal_actions(self, seat: int) -> tuple[Any, ...]:
        """The seat's legal actions now, in the engine's order."""
        legal = self._legal.get(seat)
        if legal is None:
            legal = self._legal[seat] = self.backend.legal_actions(seat)
        return legal

    def mask(self, seat: int) -> np.ndarray:
        """The seat's action mask now: 1 at the index of each legal action."""
        mask = self._masks.get(seat)
        if mask is None:
            mask = self.encoding.mask(self.legal_actions(seat), self.view(seat))
            self._masks[seat] = mask
        return mask

    def observe(self, seat: int) -> Observation:
        """The seat's observation now, its action mask included."""
        observation = self._observations.get(seat)
        if observation is None:
            observation = self.encoding.observe(self.view(seat), seat)
            observation[MASK] = self.mask(seat)
            self._observations[seat] = observation
        return observation

    def close(self) -> None:
        """Let go of the backend."""
        self.backend.close()
