"""What every game's encoding offers: its observation space and encoder over the engine's view,
its action encoding, its running scores, and the translation of its wire messages (a seat's
``GetView`` view, its actions) into the engine's values for the environments that play over gRPC.

One encoder per game reads the engine's ``View`` (``engine.view(state, seat)``), the very value
the server encodes for ``GetView``: an environment over gRPC turns the view it is given back into
that value (``view_from_wire``) and hands it to the same encoder, so both backends observe alike.
"""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from enum import Enum
from typing import Any, Generic, TypeVar

import numpy as np
from gymnasium import spaces
from google.protobuf.message import Message

V = TypeVar("V")
A = TypeVar("A")
Opt = TypeVar("Opt")
E = TypeVar("E", bound=Enum)

Observation = dict[str, np.ndarray]
Int8 = np.int8
Int16 = np.int16
Int32 = np.int32
MASK = "action_mask"  # the key of the legal actions in every observation


def box(low: int, high: int, shape: tuple[int, ...], dtype: type[np.signedinteger[Any]]) -> spaces.Box:
    """A box of whole numbers from ``low`` to ``high``."""
    return spaces.Box(low, high, shape, dtype)


def flags(*shape: int) -> spaces.Box:
    """A box of 0 and 1."""
    return spaces.Box(0, 1, shape, Int8)


def one_hot(size: int, members: Sequence[int]) -> np.ndarray:
    """``size`` flags, set at ``members``."""
    array = np.zeros(size, Int8)
    array[list(members)] = 1
    return array


def rotated(values: Sequence[Any], seat: int) -> Sequence[Any]:
    """Per-seat values from ``seat``'s place at the table: its own first, then the seats after
    it in turn order."""
    return [*values[seat:], *values[:seat]]


def enum_from_wire(descriptor: Any, number: int, kind: type[E]) -> E:
    """The engine's enum member of a wire enum value: the member named as the value without its
    enum's prefix (``SIX_NIMMT_TOO_LOW_RULE_CHOOSE_ROW`` is ``CHOOSE_ROW``)."""
    enum_type = descriptor.enum_type
    prefix = enum_type.values[0].name.removesuffix("UNSPECIFIED")
    return kind[enum_type.values_by_number[number].name.removeprefix(prefix)]


def enum_to_wire(enum_type: Any, member: Enum) -> int:
    """The wire enum value of an engine enum member: the value named as the member, with the
    enum's prefix."""
    prefix = enum_type.DESCRIPTOR.values[0].name.removesuffix("UNSPECIFIED")
    number: int = enum_type.Value(prefix + member.name)
    return number


def options_from_wire(msg: Message, kind: type[Opt]) -> Opt:
    """The engine's options of a view's options message: every field of the engine's options
    dataclass read from the field of the same name."""
    values: dict[str, Any] = {}
    for field in dataclasses.fields(kind):  # type: ignore[arg-type]
        descriptor = msg.DESCRIPTOR.fields_by_name[field.name]
        value = getattr(msg, field.name)
        if descriptor.enum_type is not None:
            value = enum_from_wire(descriptor, value, type(field.default))
        elif descriptor.is_repeated:
            if value:
                raise ValueError(f"a view's options carry no {field.name}")
            value = ()
        values[field.name] = value
    return kind(**values)


class GameEncoding(ABC, Generic[V, A]):
    """A game's spaces and encodings. ``action_count`` is the size of its ``Discrete`` action
    space: every action the game can ever have, each a fixed index (``action_index``)."""

    game_id: str
    action_count: int
    lower_is_better: bool  # the game's own score: True when fewer points are better

    # --------------------------------------------------------------- observations
    @abstractmethod
    def fields(self, seats: int, options: Any) -> dict[str, spaces.Box]:
        """The parts of an observation (the action mask aside), by name."""

    @abstractmethod
    def observe(self, view: V, seat: int) -> Observation:
        """The observation parts of ``seat``'s view; per-seat values start from ``seat``."""

    def observation_space(self, seats: int, options: Any) -> spaces.Dict:
        """The observation space: the parts, and the action mask."""
        parts: dict[str, spaces.Space[Any]] = dict(self.fields(seats, options))
        parts[MASK] = flags(self.action_count)
        return spaces.Dict(parts)

    # --------------------------------------------------------------- actions
    @abstractmethod
    def action_index(self, action: A, view: V) -> int:
        """The index of an engine action, for the seat whose view is ``view``."""

    @abstractmethod
    def action_of(self, index: int, view: V, seat: int) -> A:
        """The engine action of an index, for ``seat`` whose view is ``view``; raises
        ``ValueError`` when the index names no action there."""

    def mask(self, actions: Sequence[A], view: V) -> np.ndarray:
        """The action mask of a seat's legal actions."""
        mask = np.zeros(self.action_count, Int8)
        mask[[self.action_index(action, view) for action in actions]] = 1
        return mask

    # --------------------------------------------------------------- rewards
    @abstractmethod
    def running_scores(self, view: V) -> tuple[int, ...]:
        """Every seat's score as the table stands, in the game's own unit: public, and equal
        to the outcome's scores once the game is over."""

    # --------------------------------------------------------------- the wire
    @abstractmethod
    def view_from_wire(self, msg: Any) -> V:
        """The engine's view of a seat's view message (``GetView``)."""

    @abstractmethod
    def action_to_wire(self, action: A) -> Message:
        """The game's action message of an engine action."""

    @abstractmethod
    def action_from_wire(self, msg: Any) -> A:
        """The engine action of the game's action message (``ListLegalActions``)."""


def index_table(actions: Mapping[Any, int]) -> dict[Any, int]:
    """A lookup of actions to indices that refuses two actions on one index."""
    if len(set(actions.values())) != len(actions):
        raise ValueError("two actions share an index")
    return dict(actions)
