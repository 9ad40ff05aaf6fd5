"""The generator state every game carries: any 64-bit value, and nothing else, is one."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from engines import registry
from engines.errors import InvalidStateError

GAMES = sorted(registry.ENGINES)


def new_state(game: str) -> Any:
    """A new game of ``game`` with its fewest seats and its default options."""
    engine = registry.get(game)
    return engine.new_game(engine.info.min_seats, 7, engine.default_options())


@pytest.mark.parametrize("game", GAMES)
class TestGeneratorStates:
    """Validation takes any 64-bit generator state and refuses any other."""

    @pytest.mark.parametrize("rng_state", [0, 2**64 - 1], ids=["lowest", "highest"])
    def test_every_64_bit_value_is_accepted(self, game: str, rng_state: int) -> None:
        """The lowest and the highest 64-bit values are generator states."""
        state = dataclasses.replace(new_state(game), rng_state=rng_state)
        registry.get(game).validate(state)

    @pytest.mark.parametrize("rng_state", [-1, 2**64], ids=["negative", "65_bits"])
    def test_other_values_are_refused(self, game: str, rng_state: int) -> None:
        """A negative value or one of 65 bits is refused."""
        state = dataclasses.replace(new_state(game), rng_state=rng_state)
        with pytest.raises(InvalidStateError, match="64-bit"):
            registry.get(game).validate(state)
