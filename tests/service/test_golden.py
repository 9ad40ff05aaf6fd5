"""The answers along seeded playouts match the stored digests (see ``tests.service.golden``)."""

from __future__ import annotations

import pytest

from tests.service import golden


def test_every_case_has_a_digest() -> None:
    """The golden file holds a digest for every game and seat count played, and no other."""
    assert set(golden.stored()) == {golden.case_id(*case) for case in golden.cases()}


@pytest.mark.parametrize(("game", "seats", "sealed"), golden.cases())
def test_the_answers_are_those_of_the_golden_playout(game: str, seats: int, sealed: bool) -> None:
    """The same seed and actions give the same bytes as when the digest was written, with plain
    states and with states sealed under the test key."""
    expected = golden.stored()[golden.case_id(game, seats, sealed)]
    assert golden.digest(game, seats, sealed) == expected, (
        f"the answers along the seeded {game} game with {seats} seats changed; if that is "
        "intended, raise the game's rules version and run `python -m tests.service.golden`"
    )
