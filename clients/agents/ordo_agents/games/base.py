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
from collections.abc import Collection, Mapping, Sequence
from enum import Enum
from functools import lru_cache
from typing import Any, Generic, TypeVar

import numpy as np
from google.protobuf.message import Message
from gymnasium import spaces

V = TypeVar("V")
A = TypeVar("A")
Opt = TypeVar("Opt")
E = TypeVar("E", bound=Enum)

Observation = dict[str, np.ndarray]
PART = np.int16  # every observation part is of 16-bit integers
MASK_TYPE = np.int8
MASK = "action_mask"  # the key of the legal actions in every observation
LAYOUTS_KEPT = 256  # per game: one a seat count and option set played


def box(low: int, high: int, *shape: int) -> spaces.Box:
    """A part of whole numbers from ``low`` to ``high``."""
    return spaces.Box(low, high, shape, PART)


def flags(*shape: int) -> spaces.Box:
    """A part of 0 and 1."""
    return spaces.Box(0, 1, shape, PART)


def rotated(values: Sequence[Any], seat: int) -> list[Any]:
    """Per-seat values from ``seat``'s place at the table: its own first, then the seats after
    it in turn order."""
    return [*values[seat:], *values[:seat]]


class Layout:
    """Where each part of an observation lies in one buffer: the parts in the order of
    ``fields``, the parts an encoder writes whole (``dense``) first, then the parts of flags it
    sets one by one. An observation is that buffer's parts, each a view of it, so that one
    observation costs one buffer and two writes."""

    def __init__(self, fields: Mapping[str, spaces.Box], sparse: Collection[str]) -> None:
        self.start: dict[str, int] = {}
        self.parts: list[tuple[str, int, int, tuple[int, ...] | None]] = []
        self.dense = -1  # the size of the dense parts: where the first part of flags starts
        at = 0
        for name, space in fields.items():
            if name in sparse and self.dense < 0:
                self.dense = at
            elif name not in sparse and self.dense >= 0:
                raise ValueError(f"the dense part {name} comes after a part of flags")
            size = int(np.prod(space.shape))
            self.start[name] = at
            shape = space.shape if len(space.shape) > 1 else None
            self.parts.append((name, at, at + size, shape))
            at += size
        self.size = at
        if self.dense < 0:
            self.dense = at

    def observation(self, dense: Sequence[int], ones: Sequence[int]) -> Observation:
        """The observation whose dense parts hold ``dense``, in order, and whose flags are set
        at ``ones`` (indices in the buffer)."""
        buffer = np.zeros(self.size, PART)
        buffer[: len(dense)] = dense
        if ones:
            buffer[ones] = 1
        return {
            name: buffer[start:stop] if shape is None else buffer[start:stop].reshape(shape)
            for name, start, stop, shape in self.parts
        }


def enum_from_wire(descriptor: Any, number: int, kind: type[E]) -> E:
    """The engine's enum member of a wire enum value: the member named as the value without its
    enum's prefix (``SIX_NIMMT_TOO_LOW_RULE_CHOOSE_ROW`` is ``CHOOSE_ROW``)."""
    enum_type = descriptor.enum_type
    prefix = enum_type.values[0].name.removesuffix("UNSPECIFIED")
    return kind[enum_type.values_by_number[number].name.removeprefix(prefix)]


def enum_to_wire(enum_type: Any, member: Enum) -> Any:
    """The wire enum value of an engine enum member: the value named as the member, with the
    enum's prefix."""
    prefix = enum_type.DESCRIPTOR.values[0].name.removesuffix("UNSPECIFIED")
    return enum_type.Value(prefix + member.name)


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
    sparse: tuple[str, ...] = ()  # the parts of flags, which follow the parts written whole

    # --------------------------------------------------------------- observations
    @abstractmethod
    def fields(self, seats: int, options: Any) -> dict[str, spaces.Box]:
        """The parts of an observation (the action mask aside), by name, in buffer order."""

    @lru_cache(maxsize=LAYOUTS_KEPT)  # noqa: B019 - the encodings live as long as the program
    def layout(self, seats: int, options: Any) -> Layout:
        """Where the parts of an observation lie, at ``seats`` seats with ``options``."""
        return Layout(self.fields(seats, options), self.sparse)

    @abstractmethod
    def observe(self, view: V, seat: int) -> Observation:
        """The observation parts of ``seat``'s view; per-seat values start from ``seat``."""

    def observation_space(self, seats: int, options: Any) -> spaces.Dict:
        """The observation space: the parts, and the action mask."""
        parts: dict[str, spaces.Space[Any]] = dict(self.fields(seats, options))
        parts[MASK] = spaces.Box(0, 1, (self.action_count,), MASK_TYPE)
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
        mask = np.zeros(self.action_count, MASK_TYPE)
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
