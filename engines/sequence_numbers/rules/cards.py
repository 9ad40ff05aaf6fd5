"""The Sequence Numbers cards: equation, PLUS and MINUS cards, and when one is dead
(docs/rules/sequence_numbers.md).

Cards are their id in ``data``: 0..95 the equation cards in result order, then the PLUS and MINUS
cards.
"""

from __future__ import annotations

from enum import Enum

from engines.sequence_numbers import data
from engines.sequence_numbers.rules.board import CELLS, NO_CHIP, NUMBERS

DECK_SIZE = data.DECK_SIZE
EQUATION_COUNT = len(data.EQUATIONS)  # card ids below this are equation cards
PLUS_CARDS = frozenset(data.PLUS_CARDS)
MINUS_CARDS = frozenset(data.MINUS_CARDS)
ALL_CARDS: list[int] = list(range(DECK_SIZE))
#: The result of each equation card, by card id.
RESULTS: tuple[int, ...] = tuple(card[4] for card in data.EQUATIONS)
#: The two cells showing each equation card's result, by card id.
CARD_CELLS: tuple[tuple[int, ...], ...] = tuple(
    tuple(cell for cell in range(CELLS) if NUMBERS[cell] == result) for result in RESULTS
)


class CardKind(Enum):
    """What a card does when played."""

    EQUATION = "EQUATION"  # a chip on a free cell showing its result
    PLUS = "PLUS"  # a chip on any free non-corner cell
    MINUS = "MINUS"  # removes an unlocked chip of another team


def card_kind(card: int) -> CardKind:
    """The kind of a card id."""
    if card < EQUATION_COUNT:
        return CardKind.EQUATION
    return CardKind.PLUS if card in PLUS_CARDS else CardKind.MINUS


def card_text(card: int) -> str:
    """A card for people: ``17 + 9 = 26``, ``PLUS`` or ``MINUS``."""
    if card < EQUATION_COUNT:
        _, operator, left, right, result = data.EQUATIONS[card]
        return f"{left} {operator} {right} = {result}"
    return card_kind(card).value


def is_dead(chips: tuple[int, ...], card: int) -> bool:
    """An equation card is dead when both cells showing its result hold a chip."""
    first, second = CARD_CELLS[card]
    return chips[first] != NO_CHIP and chips[second] != NO_CHIP
