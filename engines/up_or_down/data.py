"""The fixed data of Up or Down?: the colour of every card and the card set per seat count.

docs/rules/up_or_down.md [decision: the real colour table is not public]: each block of six
consecutive numbers (1-6, 7-12, ..., 121-126) holds one card of each of the six colours, so every
colour has 21 cards and every cut-down deck stays balanced. The table below was drawn once (a
shuffle of the six colours per block) and is checked in; it never changes within a rules version,
and the tests pin its invariants.
"""

from __future__ import annotations

from enum import Enum


class Colour(Enum):
    """The six card colours, in the order docs/rules/up_or_down.md names them."""

    YELLOW = "Y"
    BLUE = "B"
    RED = "R"
    GREEN = "G"
    PURPLE = "P"
    ORANGE = "O"


class Length(Enum):
    """Option ``length``: which card set a seat count plays with."""

    SHORT = "SHORT"
    LONG = "LONG"


HIGHEST_CARD = 126  # cards 1..126, every number unique
BLOCK = 6  # each block of six consecutive numbers holds every colour once

# The colours of cards 1..126, one string per block of six: letter k of block b is the colour of
# card 6b + k + 1 (Y yellow, B blue, R red, G green, P purple, O orange).
COLOUR_BLOCKS: tuple[str, ...] = (
    "BPYGRO", "GBOYRP", "BORYGP", "BRPOGY", "YOGPBR", "BRGPYO", "YROBGP",
    "PGBRYO", "PYROBG", "ORYBGP", "BROGPY", "RPYBGO", "OBRGPY", "PROGBY",
    "RYOPGB", "YBGOPR", "GBRPOY", "YOPRGB", "YBROPG", "RYGOBP", "RPYGBO",
)  # fmt: skip

#: The colour of each card: ``CARD_COLOURS[card]`` for cards 1..126 (index 0 holds no card).
CARD_COLOURS: tuple[Colour | None, ...] = (
    None,
    *(Colour(letter) for block in COLOUR_BLOCKS for letter in block),
)

#: Option ``length``: the highest card in play (the set is 1..highest), indexed by seat count.
SHORT_HIGHEST: tuple[int, ...] = (0, 0, 42, 60, 78, 96, 96)  # the seed's table (the default)
LONG_HIGHEST: tuple[int, ...] = (0, 0, 54, 78, 102, 126, 126)

#: The colour of each card as a small number (its position in ``Colour``), for fast counting.
COLOUR_INDEX: tuple[int, ...] = (
    -1,
    *(list(Colour).index(Colour(letter)) for block in COLOUR_BLOCKS for letter in block),
)
