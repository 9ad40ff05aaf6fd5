"""The registered games, found by id in a plain table (no game names anywhere else)."""

from __future__ import annotations

from typing import Any

from engines.base import GameEngine
from engines.errors import UnknownGameError
from engines.fora_de_ordem import ENGINE as FORA_DE_ORDEM
from engines.sequence_numbers import ENGINE as SEQUENCE_NUMBERS
from engines.six_nimmt import ENGINE as SIX_NIMMT
from engines.up_or_down import ENGINE as UP_OR_DOWN

AnyEngine = GameEngine[Any, Any, Any, Any]

#: Every game the server runs, by id.
ENGINES: dict[str, AnyEngine] = {
    engine.info.id: engine
    for engine in (
        SIX_NIMMT,
        SEQUENCE_NUMBERS,
        UP_OR_DOWN,
        FORA_DE_ORDEM,
    )
}


def get(game_id: str) -> AnyEngine:
    """Return the engine of ``game_id``; raises ``UnknownGameError`` for an unknown id."""
    try:
        return ENGINES[game_id]
    except KeyError:
        raise UnknownGameError(
            f"unknown game {game_id!r}; this server runs {', '.join(sorted(ENGINES))}",
            game=game_id,
        ) from None
