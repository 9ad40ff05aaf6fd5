"""The codecs: between the wire's bytes and the engines' values.

- one module per game (``six_nimmt`` …) translating its messages, listed in ``CODECS``;
- ``base``: the codec protocol and the helpers the game codecs share;
- ``wire``: protocol-buffers framing, for responses put together from parts already serialized.
"""

from __future__ import annotations

from service.codecs.base import Codec
from service.codecs.fora_de_ordem import CODEC as FORA_DE_ORDEM
from service.codecs.sequence_numbers import CODEC as SEQUENCE_NUMBERS
from service.codecs.six_nimmt import CODEC as SIX_NIMMT
from service.codecs.up_or_down import CODEC as UP_OR_DOWN

#: The codec of every game, by id.
CODECS: dict[str, Codec] = {
    codec.game_id: codec
    for codec in (
        SIX_NIMMT,
        SEQUENCE_NUMBERS,
        UP_OR_DOWN,
        FORA_DE_ORDEM,
    )
}
