"""Each game's encoding (``ordo_agents.games.base.GameEncoding``), by game id: its spaces, its
observation encoder and action encoding, and its wire translation. Each module's docstring
documents its game's encodings."""

from __future__ import annotations

from typing import Any

from ordo_agents.games.base import GameEncoding
from ordo_agents.games.fora_de_ordem import ENCODING as FORA_DE_ORDEM
from ordo_agents.games.sequence_numbers import ENCODING as SEQUENCE_NUMBERS
from ordo_agents.games.six_nimmt import ENCODING as SIX_NIMMT
from ordo_agents.games.up_or_down import ENCODING as UP_OR_DOWN

AnyEncoding = GameEncoding[Any, Any]

#: Every game's encoding, by game id.
ENCODINGS: dict[str, AnyEncoding] = {
    encoding.game_id: encoding
    for encoding in (SIX_NIMMT, SEQUENCE_NUMBERS, UP_OR_DOWN, FORA_DE_ORDEM)
}
