"""SplitMix64: the small, fully specified generator whose state lives inside every game state.

Reference: Steele, Lea and Flood, "Fast splittable pseudorandom number generators" (2014), the
``splitmix64`` finaliser as published by Vigna. The whole generator state is one unsigned 64-bit
integer, so a game state stores it as a ``uint64`` and the same seed gives the same game on any
machine. ``below`` draws without modulo bias by rejection; ``shuffle`` is Fisher–Yates from the
last index down. Golden vectors in the tests pin all three.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

T = TypeVar("T")

MASK64 = (1 << 64) - 1
GOLDEN_GAMMA = 0x9E3779B97F4A7C15  # the state increment of SplitMix64
MIX_1 = 0xBF58476D1CE4E5B9
MIX_2 = 0x94D049BB133111EB


class Rng:
    """A SplitMix64 generator; read ``state`` back after drawing to store it in the next state."""

    __slots__ = ("state",)

    def __init__(self, state: int) -> None:
        self.state = state & MASK64

    def next_u64(self) -> int:
        """Return the next 64-bit output and advance the state."""
        self.state = z = (self.state + GOLDEN_GAMMA) & MASK64
        z = ((z ^ (z >> 30)) * MIX_1) & MASK64
        z = ((z ^ (z >> 27)) * MIX_2) & MASK64
        return z ^ (z >> 31)

    def below(self, bound: int) -> int:
        """Return a uniform integer in ``[0, bound)``; ``bound`` must be in 1..2**64."""
        if not 0 < bound <= 1 << 64:
            raise ValueError(f"bound out of range: {bound}")
        # Reject the top partial block of 2**64 so every residue is equally likely.
        limit = (1 << 64) - (1 << 64) % bound
        while True:
            value = self.next_u64()
            if value < limit:
                return value % bound

    def shuffle(self, items: Sequence[T]) -> tuple[T, ...]:
        """Return the items in a uniformly random order (Fisher–Yates, last index first)."""
        out = list(items)
        for i in range(len(out) - 1, 0, -1):
            j = self.below(i + 1)
            out[i], out[j] = out[j], out[i]
        return tuple(out)

    def choice(self, items: Sequence[T]) -> T:
        """Return one of the items, uniformly."""
        return items[self.below(len(items))]


def derive_seed(*parts: int) -> int:
    """Mix integers into one 64-bit seed (used for bot choices made from a state's contents)."""
    rng = Rng(0)
    for part in parts:
        rng.state ^= part & MASK64
        rng.next_u64()
    return rng.next_u64()
