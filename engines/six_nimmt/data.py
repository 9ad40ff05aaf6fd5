"""The 6 nimmt! cards: 1..104 and the zero card, and the bullheads each bears
(docs/rules/six_nimmt.md)."""

from __future__ import annotations

HIGHEST_CARD = 104  # cards 1..104
ZERO_CARD = 0  # the zero-card variant's card


def _bullheads(card: int) -> int:
    """Penalty points of a card: the first matching rule of docs/rules/six_nimmt.md wins."""
    if card == ZERO_CARD:
        return 0
    if card == 55:
        return 7
    if card % 11 == 0:
        return 5
    if card % 10 == 0:
        return 3
    if card % 5 == 0:
        return 2
    return 1


def card_text(card: int) -> str:
    """A card for people: its number, ``37``, and ``the zero card`` for 0."""
    return "the zero card" if card == ZERO_CARD else str(card)


BULLHEADS: tuple[int, ...] = tuple(_bullheads(card) for card in range(HIGHEST_CARD + 1))
