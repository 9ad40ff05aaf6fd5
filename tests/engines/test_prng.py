"""SplitMix64 is pinned by golden vectors: the same seed gives the same game on any machine."""

from __future__ import annotations

from collections import Counter

import pytest

from engines.prng import GOLDEN_GAMMA, MASK64, MIX_1, MIX_2, SPAN, Rng, derive_seed


class TestGoldenVectors:
    """Outputs that must never change (a change re-deals every stored game)."""

    def test_reference_outputs_from_seed_zero(self) -> None:
        """The first outputs from state 0 match the published splitmix64 reference."""
        rng = Rng(0)
        assert [rng.next_u64() for _ in range(4)] == [
            0xE220A8397B1DCDAF,
            0x6E789E6AA1B965F4,
            0x06C45D188009454F,
            0xF88BB8A8724C81EC,
        ]

    def test_below_sequence(self) -> None:
        """Bounded draws from seed 42 are pinned."""
        rng = Rng(42)
        assert [rng.below(10) for _ in range(10)] == [3, 1, 8, 4, 0, 2, 5, 8, 5, 4]

    def test_shuffle_sequence(self) -> None:
        """A shuffle from seed 7 is pinned."""
        assert Rng(7).shuffle(range(10)) == (8, 1, 5, 9, 0, 4, 3, 2, 6, 7)

    def test_state_after_draws(self) -> None:
        """The stored state advances by the golden gamma per output."""
        rng = Rng(1234567)
        assert rng.next_u64() == 0x599ED017FB08FC85
        assert rng.state == (1234567 + 0x9E3779B97F4A7C15) & MASK64

    def test_derive_seed(self) -> None:
        """Seeds derived from integers are pinned."""
        assert derive_seed(1, 2, 3) == 17909611376780542444


class TestDraws:
    """Properties of the bounded draws and shuffles."""

    def test_below_stays_in_range(self) -> None:
        """below(n) is always in [0, n)."""
        rng = Rng(5)
        for bound in (1, 2, 3, 7, 104, 2**33 + 1):
            assert all(0 <= rng.below(bound) < bound for _ in range(200))

    @pytest.mark.parametrize("bound", [0, -1, 2**64 + 1])
    def test_below_rejects_bad_bounds(self, bound: int) -> None:
        """A bound outside 1..2**64 is an error."""
        with pytest.raises(ValueError, match="bound"):
            Rng(1).below(bound)

    def test_below_the_whole_span_is_the_next_output(self) -> None:
        """below(2**64), the widest bound, is the next 64-bit output itself."""
        assert Rng(7).below(SPAN) == Rng(7).next_u64()

    def test_below_is_roughly_uniform(self) -> None:
        """60,000 draws below 6 land within 3% of 10,000 per face."""
        rng = Rng(99)
        counts = Counter(rng.below(6) for _ in range(60_000))
        assert all(9_700 < counts[face] < 10_300 for face in range(6))

    def test_shuffle_is_a_permutation(self) -> None:
        """A shuffle keeps every item exactly once."""
        assert sorted(Rng(3).shuffle(range(104))) == list(range(104))

    def test_state_is_masked_to_64_bits(self) -> None:
        """A seed wider than 64 bits is reduced to its low 64 bits."""
        assert Rng(2**64 + 5).state == 5


def shuffle_draw_by_draw(rng: Rng, items: range) -> tuple[int, ...]:
    """Fisher–Yates from the last index down, one ``below`` per item, as ``shuffle`` must draw."""
    out = list(items)
    for i in range(len(out) - 1, 0, -1):
        j = rng.below(i + 1)
        out[i], out[j] = out[j], out[i]
    return tuple(out)


def state_before_output(output: int, steps: int) -> int:
    """The state from which the ``steps``-th output is ``output`` (the finaliser inverted)."""

    def unshift(value: int, shift: int) -> int:  # inverts value ^ (value >> shift)
        result = value
        for _ in range(64 // shift):
            result = value ^ (result >> shift)
        return result

    z = unshift(output, 31)
    z = unshift(z * pow(MIX_2, -1, SPAN) & MASK64, 27)
    z = unshift(z * pow(MIX_1, -1, SPAN) & MASK64, 30)
    return (z - steps * GOLDEN_GAMMA) & MASK64


class TestBatchedOutputs:
    """Shuffles draw their outputs side by side; they must be the outputs drawn one by one."""

    @pytest.mark.parametrize("count", [0, 1, 2, 3, 103, 300])
    @pytest.mark.parametrize("seed", [0, 1, 2024, MASK64])
    def test_outputs_are_the_next_outputs(self, seed: int, count: int) -> None:
        """outputs(n) returns what n calls of next_u64 return and leaves the same state."""
        one_by_one = Rng(seed)
        expected = [one_by_one.next_u64() for _ in range(count)]
        batched = Rng(seed)
        assert batched.outputs(count) == expected
        assert batched.state == one_by_one.state

    @pytest.mark.parametrize("size", [0, 1, 2, 10, 104, 127, 200])
    def test_shuffle_equals_the_draw_by_draw_shuffle(self, size: int) -> None:
        """A shuffle gives the same order and the same next state as one below() per item."""
        for seed in range(50):
            expected, rng = Rng(seed), Rng(seed)
            assert rng.shuffle(range(size)) == shuffle_draw_by_draw(expected, range(size))
            assert rng.state == expected.state

    def test_finaliser_inverse(self) -> None:
        """The test helper finds the state that yields a chosen output."""
        rng = Rng(state_before_output(0x0123456789ABCDEF, 3))
        assert [rng.next_u64() for _ in range(3)][-1] == 0x0123456789ABCDEF

    @pytest.mark.parametrize("draw", [0, 1, 5])
    def test_a_rejected_output_is_drawn_again(self, draw: int) -> None:
        """An output in the rejected top block makes the shuffle draw again, as below() does."""
        size = 10
        bound = size - draw  # the bound of that draw
        rejected = SPAN - 1  # in the top partial block of every bound that does not divide 2**64
        assert rejected >= SPAN - SPAN % bound
        seed = state_before_output(rejected, draw + 1)
        expected, rng = Rng(seed), Rng(seed)
        assert rng.shuffle(range(size)) == shuffle_draw_by_draw(expected, range(size))
        assert rng.state == expected.state
        assert rng.state == (seed + size * GOLDEN_GAMMA) & MASK64  # one output more than items
