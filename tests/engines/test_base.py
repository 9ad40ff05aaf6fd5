"""The shared engine helpers: ``slot_init`` builds the same frozen values, only faster; ``quoted``
cuts a caller's text in an error message."""

from __future__ import annotations

import dataclasses
import inspect
import pickle
from dataclasses import dataclass

import pytest

from engines.base import slot_init
from engines.errors import QUOTED_CHARACTERS, quoted


@dataclass(frozen=True, slots=True)
class Plain:
    """A frozen, slotted dataclass as ``dataclass`` writes it."""

    seat: int
    cards: tuple[int, ...]
    name: str


@slot_init
@dataclass(frozen=True, slots=True)
class Fast:
    """The same fields, with the ``__init__`` of ``slot_init``."""

    seat: int
    cards: tuple[int, ...]
    name: str


class TestSlotInit:
    """``slot_init`` changes how a value is built, never what it is."""

    def test_the_fields_are_stored(self) -> None:
        """Positional and keyword arguments land in their fields."""
        assert dataclasses.astuple(Fast(1, (2, 3), "a")) == (1, (2, 3), "a")
        assert Fast(name="a", cards=(2, 3), seat=1) == Fast(1, (2, 3), "a")

    def test_the_signature_is_the_dataclass_one(self) -> None:
        """Same parameters, order and annotations as the dataclass's own __init__."""
        assert inspect.signature(Fast) == inspect.signature(Plain)
        assert Fast.__init__.__qualname__ == "Fast.__init__"

    def test_missing_and_unknown_arguments_are_refused(self) -> None:
        """Calls the dataclass refuses are refused with the same message."""
        with pytest.raises(TypeError, match=r"__init__\(\) missing 1 required positional"):
            Fast(1, ())  # type: ignore[call-arg]
        with pytest.raises(TypeError, match="unexpected keyword argument 'other'"):
            Fast(1, (), "a", other=2)  # type: ignore[call-arg]

    def test_the_value_stays_frozen(self) -> None:
        """Fields can be neither assigned nor deleted."""
        value = Fast(1, (), "a")
        with pytest.raises(dataclasses.FrozenInstanceError):
            value.seat = 2  # type: ignore[misc]
        with pytest.raises(dataclasses.FrozenInstanceError):
            del value.seat

    def test_equality_hash_replace_and_pickle_work_as_before(self) -> None:
        """The dataclass machinery around the value is untouched."""
        value = Fast(1, (2,), "a")
        assert value == Fast(1, (2,), "a")
        assert hash(value) == hash(Fast(1, (2,), "a"))
        assert dataclasses.replace(value, seat=3) == Fast(3, (2,), "a")
        assert pickle.loads(pickle.dumps(value)) == value
        assert repr(value) == "Fast(seat=1, cards=(2,), name='a')"

    def test_only_slotted_dataclasses_of_required_fields(self) -> None:
        """Defaults, __post_init__ or a missing __slots__ would change what __init__ does."""

        @dataclass(frozen=True, slots=True)
        class WithDefault:
            seat: int = 0

        @dataclass(frozen=True)
        class WithoutSlots:
            seat: int

        @dataclass(frozen=True, slots=True)
        class WithPostInit:
            seat: int

            def __post_init__(self) -> None:
                pass

        for cls in (WithDefault, WithoutSlots, WithPostInit):
            with pytest.raises(TypeError, match="not a slotted dataclass of required fields"):
                slot_init(cls)


class TestQuoted:
    """A caller's text quoted in an error message."""

    def test_short_text_is_quoted_whole(self) -> None:
        """Text up to the limit is quoted as it is."""
        assert quoted("heuristic") == "'heuristic'"

    def test_long_text_is_cut_and_its_length_told(self) -> None:
        """Longer text keeps its first characters and says how long it was."""
        text = quoted("x" * 50_000)
        assert text == f"{'x' * QUOTED_CHARACTERS!r}… (50,000 characters)"
