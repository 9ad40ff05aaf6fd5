"""The protocol every game engine offers, and the value types it speaks in.

An engine is a plain object with pure methods over frozen states: ``new_game`` deals, ``validate``
rejects states the rules could not have produced, ``seats_to_act`` (``is_to_act`` for one seat) and
``legal_actions`` say who may do what, ``apply`` returns a new state with the events that happened,
``view`` redacts a state for one viewer and ``outcome`` scores a finished game. ``GameEngine``
implements the checks every game shares (rules version, seat range, turn order, finished games) so
that a game module writes only its rules in the ``_``-prefixed hooks.
"""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from engines.errors import (
    GAME_FINISHED,
    NOT_SEATS_TURN,
    QUOTED_CHARACTERS,
    IllegalActionError,
    InvalidSeatError,
    InvalidSeatsError,
    InvalidStateError,
    UnknownPolicyError,
    UnsupportedRulesVersionError,
    quoted,
)
from engines.notation import field_text, seat_text
from engines.prng import Rng
from engines.search import SEARCH_POLICY, Budget, SearchInfo, search

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

STATUSES_KEPT = 1024  # statuses of games in progress, one per set of seats to act (10 seats)
MAX_REVISION = 2**64 - 1  # revisions are 64-bit: a state at the last one can take no action

#: A viewer is a seat number, or ``None`` for a spectator.
Viewer = int | None
SPECTATOR: Viewer = None


class GameStateLike(Protocol):
    """What every game state carries besides its rules."""

    @property
    def rules_version(self) -> int:
        """The rules version the state was produced under."""

    @property
    def revision(self) -> int:
        """The number of actions applied since the deal."""


S = TypeVar("S", bound=GameStateLike)
A = TypeVar("A")
Opt = TypeVar("Opt")
V = TypeVar("V")
D = TypeVar("D", bound="DataclassInstance")


def slot_init(cls: type[D]) -> type[D]:
    """Give a frozen, slotted dataclass an ``__init__`` that stores each field in its slot directly.

    The ``__init__`` that ``dataclass(frozen=True)`` writes has to get past the class's own
    ``__setattr__``, which refuses every assignment, so it stores each field through
    ``object.__setattr__``: a slot-wrapper call, with its argument tuple and an attribute lookup,
    per field. For a value of many fields built on every action, a game state, that is the
    dearest part of the action. This ``__init__`` takes the same arguments and stores them through
    the slots' own descriptors, which costs less (docs/performance.md, "What keeps the work
    small"). The instances are the same, as frozen as ever. For slotted dataclasses whose fields
    are all required ``__init__`` arguments, without ``__post_init__``.
    """
    fields = dataclasses.fields(cls)
    if (
        "__slots__" not in vars(cls)
        or hasattr(cls, "__post_init__")
        or not fields
        or any(
            not field.init
            or field.default is not dataclasses.MISSING
            or field.default_factory is not dataclasses.MISSING
            for field in fields
        )
    ):
        raise TypeError(f"{cls.__name__} is not a slotted dataclass of required fields")
    names = [field.name for field in fields]
    # The new function's globals: each field's slot setter, named as no field can be.
    namespace: dict[str, Any] = {f"__slot_{name}": getattr(cls, name).__set__ for name in names}
    namespace["__name__"] = cls.__module__
    source = f"def __init__(self, {', '.join(names)}):\n" + "".join(
        f"    __slot_{name}(self, {name})\n" for name in names
    )
    exec(source, namespace)
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__annotations__ = dict(cls.__init__.__annotations__)
    cls.__init__ = init  # type: ignore[method-assign]
    return cls


@dataclass(frozen=True, slots=True)
class Outcome:
    """The result of a finished game."""

    scores: tuple[int, ...]  # one per seat, in the game's own unit
    # Ascending; every member of a winning team; all seats tied for the win; empty when the
    # game ends without a winner (a draw).
    winners: tuple[int, ...]
    lower_is_better: bool
    termination: str  # a stable UPPER_SNAKE word, e.g. PENALTY_THRESHOLD


@dataclass(frozen=True, slots=True)
class Status:
    """Who is to act, and the outcome once the game is over."""

    seats_to_act: tuple[int, ...]
    finished: bool
    outcome: Outcome | None


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened; ``audience`` is the seats allowed to see it, ``None`` for all."""

    body: Any
    audience: tuple[int, ...] | None = None


@dataclass(frozen=True, slots=True)
class Transition(Generic[S]):
    """The state after an action and the events that led to it, in order."""

    state: S
    events: tuple[Event, ...]


@dataclass(frozen=True, slots=True)
class OptionInfo:
    """One option of a game, for ListGames."""

    name: str
    description: str
    default: str
    allowed: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class GameInfo:
    """What a game is: id, title, seat counts, options and bot policies."""

    id: str
    title: str
    min_seats: int
    max_seats: int
    simultaneous: bool
    rules_version: int
    options: tuple[OptionInfo, ...]
    # Every seat count a game may have, ascending: every count from min_seats to max_seats
    # unless a game lists fewer (its ``_new_game`` refuses the others, with its reason).
    seat_counts: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if not self.seat_counts:
            object.__setattr__(
                self, "seat_counts", tuple(range(self.min_seats, self.max_seats + 1))
            )
        counts = self.seat_counts
        if list(counts) != sorted(set(counts)) or (counts[0], counts[-1]) != (
            self.min_seats,
            self.max_seats,
        ):
            raise ValueError(f"{self.id}: seat counts {counts} do not run from min to max seats")


Policy = Callable[[S, int, Rng], A]

#: What the policies every game has do (``search`` describes itself: ``SearchInfo``).
POLICY_DESCRIPTIONS = {
    "random": "a uniformly chosen legal action",
    "heuristic": "a rule-based player that reads only its seat's view: fast, never searches",
}


@lru_cache(maxsize=STATUSES_KEPT)
def _in_progress(seats_to_act: tuple[int, ...]) -> Status:
    """The status of a game that goes on: a value, and the same few recur call after call."""
    return Status(seats_to_act, False, None)


def random_policy(engine: GameEngine[S, A, Opt, V], state: S, seat: int, rng: Rng) -> A:
    """The ``random`` bot: a uniformly chosen legal action."""
    return rng.choice(engine.legal_actions(state, seat))


class GameEngine(ABC, Generic[S, A, Opt, V]):
    """The engine protocol with the checks every game shares; games fill in the ``_`` hooks."""

    info: GameInfo

    # ----------------------------------------------------------------- the protocol
    @abstractmethod
    def default_options(self) -> Opt:
        """Return the options a game gets when the caller sets none."""

    def new_game(self, seats: int, seed: int, options: Opt) -> S:
        """Deal a new game; raises ``InvalidSeatsError`` or ``InvalidOptionsError``."""
        if not self.info.min_seats <= seats <= self.info.max_seats:
            raise InvalidSeatsError(
                f"{self.info.title} takes {self.info.min_seats} to {self.info.max_seats} seats, "
                f"not {seats}",
                seats=str(seats),
            )
        return self._new_game(seats, Rng(seed), options)

    def validate(self, state: S) -> None:
        """Raise ``InvalidStateError`` unless the rules could have produced ``state``."""
        self.check_rules_version(state.rules_version)
        if not 0 <= state.revision < MAX_REVISION:
            raise InvalidStateError(f"the revision is out of range (0..{MAX_REVISION - 1})")
        self._validate(state)

    def check_rules_version(self, rules_version: int) -> None:
        """Raise ``UnsupportedRulesVersionError`` unless ``rules_version`` is this server's."""
        if rules_version != self.info.rules_version:
            raise UnsupportedRulesVersionError(
                f"the state was produced under rules version {rules_version}; this server "
                f"runs {self.info.id} rules version {self.info.rules_version}",
                state_version=str(rules_version),
                server_version=str(self.info.rules_version),
            )

    @abstractmethod
    def seats(self, state: S) -> int:
        """Return the number of seats in the game."""

    @abstractmethod
    def max_actions(self, state: S) -> int:
        """Return the most actions a whole game dealt with ``state``'s seats and options can
        take, from the deal to its end: a bound the rules guarantee, not a typical length."""

    @abstractmethod
    def seats_to_act(self, state: S) -> tuple[int, ...]:
        """Return the seats whose action is awaited now, ascending (empty when finished)."""

    @abstractmethod
    def outcome(self, state: S) -> Outcome | None:
        """Return the outcome of a finished game, ``None`` while it goes on."""

    def status(self, state: S) -> Status:
        """Return who is to act and, once finished, the outcome."""
        outcome = self.outcome(state)
        if outcome is not None:
            return Status((), True, outcome)
        return _in_progress(self.seats_to_act(state))

    def is_to_act(self, state: S, seat: int) -> bool:
        """Return whether ``seat`` is among ``seats_to_act``; a game may answer it faster."""
        return seat in self.seats_to_act(state)

    def legal_actions(self, state: S, seat: int) -> tuple[A, ...]:
        """Return every legal action of ``seat`` now, in a stable order (empty if not to act)."""
        self.check_seat(state, seat)
        if not self.is_to_act(state, seat):
            return ()
        return self._legal_actions(state, seat)

    def apply(self, state: S, seat: int, action: A) -> Transition[S]:
        """Apply ``seat``'s action; raises ``IllegalActionError`` and leaves ``state`` as it was."""
        self._check_turn(state, seat)
        new_state, events = self._apply(state, seat, action)
        return Transition(new_state, events)

    def view(self, state: S, viewer: Viewer) -> V:
        """Return what ``viewer`` (a seat, or ``None`` for a spectator) may see of ``state``;
        raises ``InvalidSeatError`` for a seat the game does not have."""
        if viewer is not None:
            self.check_seat(state, viewer)
        return self._view(state, viewer)

    @abstractmethod
    def redeal(self, state: S, seat: int, rng: Rng) -> S:
        """Return a state that ``seat`` cannot tell from ``state``: what it cannot see re-dealt.

        Bots sample the hidden information with it, and the tests check that a seat's view does
        not change under it.
        """

    @property
    def policies(self) -> Mapping[str, Policy[S, A]]:
        """The bot policies by name; every game has ``random`` and ``heuristic``, and ``search``
        when it has a searcher (with its default budget)."""
        policies: dict[str, Policy[S, A]] = {
            "random": self._random_policy,
            "heuristic": self._heuristic,
        }
        if self.search_info is not None:
            policies[SEARCH_POLICY] = self._search
        return policies

    @property
    def search_info(self) -> SearchInfo[S, A] | None:
        """The game's ``search`` bot (``engines.search``), or ``None`` for a game without one."""
        return None

    def describe_policy(self, policy: str) -> str:
        """What the bot ``policy`` (one of ``policies``) does, for people."""
        if policy == SEARCH_POLICY and self.search_info is not None:
            return self.search_info.description
        return POLICY_DESCRIPTIONS.get(policy, "")

    def suggest(
        self, state: S, seat: int, policy: str, rng: Rng, budget: Budget | None = None
    ) -> A:
        """Return the action the bot ``policy`` chooses for ``seat``, which must be to act.
        ``budget`` bounds the ``search`` policy (its default when ``None``); the other policies
        ignore it."""
        if policy == SEARCH_POLICY and budget is not None and self.search_info is not None:
            self._check_turn(state, seat)
            return search(self.search_info.searcher, state, seat, rng, budget)
        chooser = self.policies.get(policy)
        if chooser is None:
            raise UnknownPolicyError(
                f"no bot policy {quoted(policy)} for {self.info.id}; "
                f"choose one of {', '.join(sorted(self.policies))}",
                policy=policy[:QUOTED_CHARACTERS],
            )
        self._check_turn(state, seat)
        return chooser(state, seat, rng)

    # ----------------------------------------------------------------- shared helpers
    def check_seat(self, state: S, seat: int) -> None:
        """Raise ``InvalidSeatError`` unless ``seat`` is a seat of this game."""
        if not 0 <= seat < self.seats(state):
            raise InvalidSeatError(
                f"{field_text('seat', seat)} names no seat: the wire numbers this game's seats "
                f"0 to {self.seats(state) - 1}",
                seat=str(seat),
            )

    def _check_turn(self, state: S, seat: int) -> None:
        """Raise unless ``seat`` is a seat of this game and is to act now. A finished game has no
        seat to act, so the outcome is only looked at when the seat is not to act."""
        self.check_seat(state, seat)
        if not self.is_to_act(state, seat):
            if self.outcome(state) is not None:
                raise IllegalActionError("the game is over", GAME_FINISHED)
            raise IllegalActionError(f"{seat_text(seat)} is not to act now", NOT_SEATS_TURN)

    def _random_policy(self, state: S, seat: int, rng: Rng) -> A:
        return random_policy(self, state, seat, rng)

    def _search(self, state: S, seat: int, rng: Rng) -> A:
        info = self.search_info
        if info is None:
            raise TypeError(f"{self.info.id} has no search bot")
        return search(info.searcher, state, seat, rng, Budget(info.searcher.default_iterations))

    # ----------------------------------------------------------------- the game's hooks
    @abstractmethod
    def _new_game(self, seats: int, rng: Rng, options: Opt) -> S:
        """Deal a game; the seat count is already checked."""

    @abstractmethod
    def _validate(self, state: S) -> None:
        """Check the game-specific consistency of a state (rules version already checked)."""

    @abstractmethod
    def _legal_actions(self, state: S, seat: int) -> tuple[A, ...]:
        """List the legal actions of a seat that is to act."""

    @abstractmethod
    def _apply(self, state: S, seat: int, action: A) -> tuple[S, tuple[Event, ...]]:
        """Apply an action of a seat that is to act; the new state's revision is one more."""

    @abstractmethod
    def _view(self, state: S, viewer: Viewer) -> V:
        """Redact a state for a seat of the game (already checked) or a spectator (``None``)."""

    @abstractmethod
    def _heuristic(self, state: S, seat: int, rng: Rng) -> A:
        """The ``heuristic`` bot: a sensible rule-based player."""
