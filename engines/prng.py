"""SplitMix64: the small, fully specified generator whose state lives inside every game state.

Reference: Steele, Lea and Flood, "Fast splittable pseudorandom number generators" (2014), the
``splitmix64`` finaliser as published by Vigna. The whole generator state is one unsigned 64-bit
integer, so a game state stores it as a ``uint64`` and the same seed gives the same game on any
machine. ``below`` draws without modulo bias by rejection; ``shuffle`` is Fisher–Yates from the
last index down. Golden vectors in the tests pin all three.

A shuffle needs one output per item, and on Python integers each output costs about fifteen
bignum operations. ``outputs`` computes many at once: the states of the next steps are lanes of
one long integer, 128 bits apart, and each operation of the finaliser works on every lane at once
(a product of two 64-bit values fits in its lane, and the bits a right shift moves into the lane
below are masked off). The outputs are the very ones ``next_u64`` would return, one at a time.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from functools import lru_cache
from typing import TypeVar

T = TypeVar("T")

SPAN = 1 << 64  # the number of 64-bit values
MASK64 = SPAN - 1
GOLDEN_GAMMA = 0x9E3779B97F4A7C15  # the state increment of SplitMix64
MIX_1 = 0xBF58476D1CE4E5B9
MIX_2 = 0x94D049BB133111EB
LANE_BITS = 128  # ``outputs``: a 64-bit value and room for its product by a 64-bit constant
LANE_SIZES_KEPT = 64  # ``outputs``: lane constants kept for this many batch sizes


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

    def outputs(self, count: int) -> list[int]:
        """Return the next ``count`` outputs, as ``count`` calls of ``next_u64`` would, and advance
        the state as far: computed side by side in the lanes of one integer."""
        if count <= 0:
            return []
        ones, steps, mask = _lanes(count)
        z = (self.state * ones + steps) & mask  # lane k: the state after k + 1 steps
        self.state = (self.state + count * GOLDEN_GAMMA) & MASK64
        z = (((z ^ (z >> 30)) & mask) * MIX_1) & mask
        z = (((z ^ (z >> 27)) & mask) * MIX_2) & mask
        z = (z ^ (z >> 31)) & mask
        lanes = struct.unpack(f"<{2 * count}Q", z.to_bytes(LANE_BITS // 8 * count, "little"))
        return list(lanes[::2])  # each lane's low 64 bits; the high ones are zero

    def below(self, bound: int) -> int:
        """Return a uniform integer in ``[0, bound)``; ``bound`` must be in 1..2**64."""
        if not 0 < bound <= SPAN:
            raise ValueError(f"bound out of range: {bound}")
        # Reject the top partial block of 2**64 so every residue is equally likely.
        limit = SPAN - SPAN % bound
        while True:
            value = self.next_u64()
            if value < limit:
                return value % bound

    def shuffle(self, items: Sequence[T]) -> tuple[T, ...]:
        """Return the items in a uniformly random order (Fisher–Yates, last index first)."""
        out = list(items)
        start = self.state
        draws = self.outputs(len(out) - 1)
        # ``below(i + 1)`` rejects only outputs from 2**64 − i on: below that line, the draws
        # are these outputs modulo i + 1. Over it (a chance of about n² in 2**64), draw one by one.
        if draws and max(draws) >= SPAN - len(out):
            self.state = start
            for i in range(len(out) - 1, 0, -1):
                j = self.below(i + 1)
                out[i], out[j] = out[j], out[i]
            return tuple(out)
        for i, value in zip(range(len(out) - 1, 0, -1), draws, strict=True):
            j = value % (i + 1)
            out[i], out[j] = out[j], out[i]
        return tuple(out)

    def choice(self, items: Sequence[T]) -> T:
        """Return one of the items, uniformly."""
        return items[self.below(len(items))]


@lru_cache(maxsize=LANE_SIZES_KEPT)
def _lanes(count: int) -> tuple[int, int, int]:
    """For ``count`` lanes of ``LANE_BITS`` bits: a 1 in every lane, k + 1 steps of the state in
    lane k, and a 64-bit mask in every lane."""
    ones = sum(1 << (LANE_BITS * lane) for lane in range(count))
    ramp = sum((lane + 1) << (LANE_BITS * lane) for lane in range(count))
    return ones, GOLDEN_GAMMA * ramp, MASK64 * ones


def derive_seed(*parts: int) -> int:
    """Mix integers into one 64-bit seed (used for bot choices made from a state's contents)."""
    rng = Rng(0)
    for part in parts:
        rng.state ^= part & MASK64
        rng.next_u64()
    return rng.next_u64()
