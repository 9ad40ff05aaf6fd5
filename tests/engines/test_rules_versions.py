"""Each game's rules version, pinned: raising one is a deliberate act, not a side effect.

A state carries the rules version that produced it, and a server refuses a state of another
version. A version raised by mistake would refuse every state that backends hold; one left
unraised after a change of the rules would answer old states differently. So the versions are
written here: a change to one comes with new golden digests (``python -m tests.service.golden``)
and new recorded games, in the same change.
"""

from __future__ import annotations

import pytest

from engines import registry

RULES_VERSIONS = {"fora_de_ordem": 2, "sequence_numbers": 2, "six_nimmt": 1, "up_or_down": 1}


class TestRulesVersions:
    """Every game's rules version is the one written here."""

    def test_every_game_is_pinned(self) -> None:
        """Every registered game has its rules version written here, and no other game does."""
        assert set(RULES_VERSIONS) == set(registry.ENGINES)

    @pytest.mark.parametrize("game", sorted(RULES_VERSIONS))
    def test_the_game_announces_its_version(self, game: str) -> None:
        """The game's info (what ListGames shows) carries the pinned rules version."""
        assert registry.get(game).info.rules_version == RULES_VERSIONS[game]

    @pytest.mark.parametrize("game", sorted(RULES_VERSIONS))
    def test_a_new_game_carries_the_version(self, game: str) -> None:
        """A new game's state is stamped with the pinned rules version and validates under it."""
        engine = registry.get(game)
        state = engine.new_game(engine.info.min_seats, 1, engine.default_options())
        assert state.rules_version == RULES_VERSIONS[game]
        engine.validate(state)
