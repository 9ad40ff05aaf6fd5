"""The data of Fora de Ordem: the player deck composition and the question cards.

The deck composition (docs/rules/fora_de_ordem.md) is a table of rows, so that it can be replaced
when the real composition is known; every seat's deck is the same 19 cards in its own colour. A
player card is an int id, ``seat * DECK_SIZE + position``, and the per-id tables below say what
each id is.

The question bank is ``questions.json`` in this package, loaded once at import. Each entry has an
id, a topic, a source note, the rank set of each of its 5 items and, per language, a category and
the 5 items. A ``Question`` keeps the ranks as a standard competition ranking (tied items share
the best rank of the tie: 1, 2, 2, 4, 5), from which each item's rank set follows; bank cards are
checked with the same rules as custom question cards.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import Enum
from importlib import resources
from itertools import chain
from typing import Any

from engines.notation import ordinal_text

# ------------------------------------------------------------------------- items and ranks
ITEMS = 5  # a question card has 5 items, one per side of the board
RANKS = tuple(range(1, ITEMS + 1))  # the ranks 1..5 of the category's order
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


# [decision] docs/rules/fora_de_ordem.md: the real composition is not public; this table reproduces
# every figure of the seed's example. Each row: the ranks named (or a special kind), and the bombs
# of each copy.
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


def deck_of(seat: int) -> tuple[int, ...]:
    """The card ids of a seat's deck, in composition order."""
    return tuple(range(seat * DECK_SIZE, (seat + 1) * DECK_SIZE))


def card_label(card: int) -> str:
    """What a card names, as people read it: ``2nd/3rd``, ``previous is correct``."""
    face = FACES[card]
    if face.kind is CardKind.PREVIOUS_CORRECT:
        return "previous is correct"
    if face.kind is CardKind.PREVIOUS_WRONG:
        return "previous is wrong"
    return "/".join(map(ordinal_text, face.ranks))


def card_text(card: int) -> str:
    """A card for people, with its bombs: ``2nd/3rd [3b]``, ``previous is correct [3b]``."""
    return f"{card_label(card)} [{BOMBS[card]}b]"


# ------------------------------------------------------------------------- question cards
class Language(Enum):
    """The language of the built-in question bank."""

    PT_BR = "PT_BR"
    EN = "EN"


BANK_KEYS = {Language.PT_BR: "pt_br", Language.EN: "en"}  # the texts' keys in questions.json


@dataclass(frozen=True, slots=True)
class Question:
    """A question card: a category, its 5 items and the rank of each item."""

    id: str
    category: str
    items: tuple[str, ...]
    ranks: tuple[int, ...]  # per item: a standard competition ranking, e.g. (1, 2, 2, 4, 5)


def question_problem(question: Question) -> str | None:
    """Say what is wrong with a question card, or ``None`` if the rules accept it."""
    if not question.category.strip():
        return "the category is empty"
    if len(question.items) != ITEMS:
        return f"it has {len(question.items)} items, not {ITEMS}"
    if not all(map(str.strip, question.items)):
        return "an item is empty"
    if len(set(question.items)) != ITEMS:
        return "two items are the same"
    if max(len(question.id), len(question.category), *map(len, question.items)) > MAX_TEXT_LENGTH:
        return f"a text is longer than {MAX_TEXT_LENGTH} characters"
    return ranking_problem(question.ranks)


def ranking_problem(ranks: tuple[int, ...]) -> str | None:
    """Say why ``ranks`` is not a ranking of 5 items, or ``None``.

    Items that tie share the best rank of the tie and the next rank skips the tied places, so in
    ascending order each rank either repeats the one before it or equals its place: (1, 2, 2, 4, 5)
    gives the two tied items the rank set {2, 3}, and every ranking covers 1..5.
    """
    if len(ranks) != ITEMS:
        return f"it has {len(ranks)} ranks, not {ITEMS}"
    previous = 0  # no rank: the first rank must be 1
    for place, rank in enumerate(sorted(ranks), start=1):
        if rank != place and (place == 1 or rank != previous):
            shown = ", ".join(map(str, ranks))
            return (
                f"the ranks ({shown}) do not cover 1..{ITEMS}: in order, each rank must repeat "
                "the one before it (a tie) or equal its place"
            )
        previous = rank
    return None


def rank_set(ranks: tuple[int, ...], item: int) -> tuple[int, ...]:
    """The ranks an item holds: a tie of k items at rank r holds r..r+k-1."""
    rank = ranks[item]
    return tuple(range(rank, rank + ranks.count(rank)))


def item_mask(ranks: tuple[int, ...], item: int) -> int:
    """The bit mask of an item's rank set (bit r for rank r)."""
    rank = ranks[item]
    return ((1 << ranks.count(rank)) - 1) << rank


def _load_bank() -> dict[Language, tuple[Question, ...]]:
    """Read ``questions.json`` into one tuple of cards per language, checking every card.

    The file gives each item its rank set; a card keeps the lowest rank of each set, and the sets
    must be exactly the ones that ranking implies.
    """
    text = resources.files(__package__).joinpath("questions.json").read_text(encoding="utf-8")
    entries: list[dict[str, Any]] = json.loads(text)["questions"]
    bank: dict[Language, tuple[Question, ...]] = {}
    for language, key in BANK_KEYS.items():
        cards = []
        for entry in entries:
            sets = [tuple(ranks) for ranks in entry["ranks"]]
            card = Question(
                id=entry["id"],
                category=entry[key]["category"],
                items=tuple(entry[key]["items"]),
                ranks=tuple(min(ranks, default=0) for ranks in sets),
            )
            problem = question_problem(card)
            if problem is None and sets != [rank_set(card.ranks, i) for i in range(ITEMS)]:
                problem = "its rank sets are not the sets of a ranking"
            if problem is not None:
                raise ValueError(f"question bank card {card.id} ({key}): {problem}")
            cards.append(card)
        bank[language] = tuple(cards)
    return bank


#: The built-in question bank, per language, in file order.
BANK: dict[Language, tuple[Question, ...]] = _load_bank()
#: Every card of the built-in bank, in any language: each was checked when the bank was loaded.
BANK_CARDS: frozenset[Question] = frozenset(chain.from_iterable(BANK.values()))
