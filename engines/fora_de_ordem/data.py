"""The data of Fora de Ordem: the player deck composition and the question cards.

The deck composition (RULES.md §4) is a table of rows, so that it can be replaced when the real
composition is known; every seat's deck is the same 19 cards in its own colour. A player card is an
int id, ``seat * DECK_SIZE + position``, and the per-id tables below say what each id is.

The question bank is ``questions.json`` in this package, loaded once at import. Each entry has an
id, a topic, a source note, the rank set of each of its 5 items and, per language, a category and
the 5 items. The rank sets are validated here with the same rules as custom question cards.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import Enum
from importlib import resources
from typing import Any

# ------------------------------------------------------------------------- items and ranks
ITEMS = 5  # a question card has 5 items, one per side of the board
RANKS = tuple(range(1, ITEMS + 1))  # the ranks 1..5 of the category's order
ALL_RANKS_MASK = sum(1 << rank for rank in RANKS)  # bit r set for every rank r in 1..5
MAX_TEXT_LENGTH = 200  # the longest category, item or id a question card may carry


class CardKind(Enum):
    """How a player card is judged at the resolution of a round."""

    NUMBER = "NUMBER"  # correct when the item's rank is one of its numbers
    PREVIOUS_CORRECT = "PREVIOUS_CORRECT"  # correct when the card beneath it is correct
    PREVIOUS_WRONG = "PREVIOUS_WRONG"  # correct when the card beneath it is wrong


class Colour(Enum):
    """The colours of the player decks, in seat order (seat 0 is yellow)."""

    YELLOW = "YELLOW"
    PURPLE = "PURPLE"
    PINK = "PINK"
    BLUE = "BLUE"
    GREEN = "GREEN"
    ORANGE = "ORANGE"


COLOURS: tuple[Colour, ...] = tuple(Colour)  # one colour per seat: at most 6 seats


@dataclass(frozen=True, slots=True)
class CardFace:
    """What is printed on a player card."""

    kind: CardKind
    ranks: tuple[int, ...]  # the ranks a number card names, ascending; () for a special card
    bombs: int  # penalty points, 1..5


# [decision] RULES.md §4: the real composition is not public; this table reproduces every figure of
# the seed's example. Each row: the ranks named (or a special kind), and the bombs of each copy.
DECK_COMPOSITION: tuple[tuple[CardKind, tuple[int, ...], tuple[int, ...]], ...] = (
    (CardKind.NUMBER, (1,), (1, 2)),
    (CardKind.NUMBER, (2,), (2,)),
    (CardKind.NUMBER, (3,), (1, 2)),
    (CardKind.NUMBER, (4,), (2,)),
    (CardKind.NUMBER, (5,), (1, 2)),
    (CardKind.NUMBER, (1, 2), (3,)),
    (CardKind.NUMBER, (4, 5), (3,)),
    (CardKind.NUMBER, (2, 3), (3, 3)),
    (CardKind.NUMBER, (3, 4), (3, 3)),
    (CardKind.NUMBER, (1, 2, 3), (4,)),
    (CardKind.NUMBER, (2, 3, 4), (5,)),
    (CardKind.NUMBER, (3, 4, 5), (4,)),
    (CardKind.PREVIOUS_CORRECT, (), (3,)),
    (CardKind.PREVIOUS_WRONG, (), (3,)),
)

#: One seat's deck, in composition order: position ``i`` is card id ``seat * DECK_SIZE + i``.
DECK: tuple[CardFace, ...] = tuple(
    CardFace(kind, ranks, bombs) for kind, ranks, copies in DECK_COMPOSITION for bombs in copies
)
DECK_SIZE = len(DECK)  # 19 cards per seat
MAX_DECKS = len(COLOURS)  # one deck per colour
CARD_COUNT = DECK_SIZE * MAX_DECKS  # every card id of a 6-seat game

# Per card id (for every seat's deck): the face, owner, bombs, kind and the mask of the ranks named.
FACES: tuple[CardFace, ...] = DECK * MAX_DECKS
OWNER: tuple[int, ...] = tuple(card // DECK_SIZE for card in range(CARD_COUNT))
BOMBS: tuple[int, ...] = tuple(face.bombs for face in FACES)
KIND: tuple[CardKind, ...] = tuple(face.kind for face in FACES)
IS_SPECIAL: tuple[bool, ...] = tuple(face.kind is not CardKind.NUMBER for face in FACES)
RANK_MASK: tuple[int, ...] = tuple(sum(1 << rank for rank in face.ranks) for face in FACES)
ORDINALS = ("1st", "2nd", "3rd", "4th", "5th")


def deck_of(seat: int) -> tuple[int, ...]:
    """The card ids of a seat's deck, in composition order."""
    return tuple(range(seat * DECK_SIZE, (seat + 1) * DECK_SIZE))


def card_label(card: int) -> str:
    """A card as people name it: ``2nd/3rd``, ``previous is correct``."""
    face = FACES[card]
    if face.kind is CardKind.PREVIOUS_CORRECT:
        return "previous is correct"
    if face.kind is CardKind.PREVIOUS_WRONG:
        return "previous is wrong"
    return "/".join(ORDINALS[rank - 1] for rank in face.ranks)


# ------------------------------------------------------------------------- question cards
class Language(Enum):
    """The language of the built-in question bank."""

    PT_BR = "PT_BR"
    EN = "EN"


BANK_KEYS = {Language.PT_BR: "pt_br", Language.EN: "en"}  # the texts' keys in questions.json


@dataclass(frozen=True, slots=True)
class Question:
    """A question card: a category, its 5 items and the rank set of each item."""

    id: str
    category: str
    items: tuple[str, ...]
    ranks: tuple[tuple[int, ...], ...]  # per item, ascending; tied items share one set


def question_problem(question: Question) -> str | None:
    """Say what is wrong with a question card, or ``None`` if the rules accept it.

    Ranks: each item has a non-empty set of consecutive ranks in 1..5; items that tie share the
    same set, a set of k ranks is shared by exactly k items, and together they cover 1..5.
    """
    if not question.category.strip():
        return "the category is empty"
    if len(question.items) != ITEMS:
        return f"it has {len(question.items)} items, not {ITEMS}"
    if any(not item.strip() for item in question.items):
        return "an item is empty"
    if len(set(question.items)) != ITEMS:
        return "two items are the same"
    texts = (question.id, question.category, *question.items)
    if any(len(text) > MAX_TEXT_LENGTH for text in texts):
        return f"a text is longer than {MAX_TEXT_LENGTH} characters"
    if len(question.ranks) != ITEMS:
        return f"it has {len(question.ranks)} rank sets, not {ITEMS}"
    covered = 0
    for ranks in question.ranks:
        if not ranks:
            return "an item has no rank"
        if any(rank not in RANKS for rank in ranks):
            return f"a rank is outside {RANKS[0]}..{RANKS[-1]}"
        if list(ranks) != list(range(ranks[0], ranks[0] + len(ranks))):
            return "an item's ranks are not consecutive and ascending"
        if question.ranks.count(ranks) != len(ranks):
            return f"the tied ranks {list(ranks)} are not shared by exactly {len(ranks)} items"
        covered |= rank_mask(ranks)
    if covered != ALL_RANKS_MASK:
        missing = [rank for rank in RANKS if not covered >> rank & 1]
        return f"the ranks do not cover 1..{ITEMS} (missing {missing})"
    return None


def rank_mask(ranks: tuple[int, ...]) -> int:
    """The bit mask of a set of ranks (bit r for rank r)."""
    mask = 0
    for rank in ranks:
        mask |= 1 << rank
    return mask


def _load_bank() -> dict[Language, tuple[Question, ...]]:
    """Read ``questions.json`` into one tuple of cards per language, checking every card."""
    text = resources.files(__package__).joinpath("questions.json").read_text(encoding="utf-8")
    entries: list[dict[str, Any]] = json.loads(text)["questions"]
    bank: dict[Language, tuple[Question, ...]] = {}
    for language, key in BANK_KEYS.items():
        cards = []
        for entry in entries:
            card = Question(
                id=entry["id"],
                category=entry[key]["category"],
                items=tuple(entry[key]["items"]),
                ranks=tuple(tuple(ranks) for ranks in entry["ranks"]),
            )
            problem = question_problem(card)
            if problem is not None:
                raise ValueError(f"question bank card {card.id} ({key}): {problem}")
            cards.append(card)
        bank[language] = tuple(cards)
    return bank


#: The built-in question bank, per language, in file order.
BANK: dict[Language, tuple[Question, ...]] = _load_bank()
