"""Invariants of the Fora de Ordem question bank data file (docs/rules/fora_de_ordem.md)."""

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

QUESTIONS_PATH = (
    Path(__file__).resolve().parents[2] / "engines" / "fora_de_ordem" / "questions.json"
)
MIN_CARDS = 106  # the product ships 106 cards; the bank has at least as many
ITEMS_PER_CARD = 5  # every question card has 5 item sides
ALL_RANKS = frozenset(range(1, ITEMS_PER_CARD + 1))
LANGUAGES = ("pt_br", "en")  # every card is in Brazilian Portuguese and English
TOPICS = frozenset(
    {
        "geography",
        "science",
        "history",
        "nature",
        "sport",
        "culture",
        "everyday",
        "space",
        "body",
        "technology",
    }
)
MIN_DISTINCT_TOPICS = 7  # the bank spreads over most topics
ID_PATTERN = re.compile(r"^q\d{3,}$")

Card = dict[str, Any]


def _load_bank() -> dict[str, Any]:
    """The parsed questions.json document."""
    with QUESTIONS_PATH.open(encoding="utf-8") as handle:
        document: dict[str, Any] = json.load(handle)
    return document


BANK = _load_bank()
CARDS: list[Card] = BANK["questions"]


def _card_id(card: Card) -> str:
    """The card's id, used to name parametrized cases."""
    return str(card["id"])


def _normalise(text: str) -> str:
    """Case- and whitespace-insensitive form of a category or item."""
    return " ".join(text.casefold().split())


def _first_ranks(card: Card) -> list[int]:
    """The lowest rank of each item, in the order the items are listed."""
    return [min(ranks) for ranks in card["ranks"]]


each_card = pytest.mark.parametrize("card", CARDS, ids=_card_id)


class TestQuestionBank:
    """The shipped question bank: format, ranks and variety."""

    def test_document_has_version_1_and_a_question_list(self) -> None:
        """The document is an object with version 1 and a list of questions."""
        assert BANK["version"] == 1
        assert isinstance(CARDS, list)

    def test_bank_has_at_least_106_cards(self) -> None:
        """The bank holds at least as many cards as the product's 106."""
        assert len(CARDS) >= MIN_CARDS

    def test_ids_are_unique_and_well_formed(self) -> None:
        """Every id looks like q001 and no id is used twice."""
        ids = [card["id"] for card in CARDS]
        assert all(isinstance(card_id, str) and ID_PATTERN.match(card_id) for card_id in ids)
        assert [card_id for card_id, count in Counter(ids).items() if count > 1] == []

    @each_card
    def test_topic_is_an_allowed_topic(self, card: Card) -> None:
        """Each card's topic is one of the ten known topics."""
        assert card["topic"] in TOPICS

    def test_bank_uses_at_least_7_topics(self) -> None:
        """The cards spread over at least seven distinct topics."""
        assert len({card["topic"] for card in CARDS}) >= MIN_DISTINCT_TOPICS

    @each_card
    def test_source_note_is_present(self, card: Card) -> None:
        """Each card names its source and values in a non-empty note."""
        assert isinstance(card["source"], str)
        assert card["source"].strip()

    @pytest.mark.parametrize("language", LANGUAGES)
    @each_card
    def test_category_is_a_non_empty_string(self, card: Card, language: str) -> None:
        """Each language has a non-empty category text."""
        category = card[language]["category"]
        assert isinstance(category, str)
        assert category.strip()

    @pytest.mark.parametrize("language", LANGUAGES)
    @each_card
    def test_card_has_five_non_empty_items(self, card: Card, language: str) -> None:
        """Each language lists exactly five non-empty, already stripped items."""
        items = card[language]["items"]
        assert len(items) == ITEMS_PER_CARD
        assert all(isinstance(item, str) and item and item == item.strip() for item in items)

    @pytest.mark.parametrize("language", LANGUAGES)
    @each_card
    def test_items_within_a_card_are_distinct(self, card: Card, language: str) -> None:
        """No item appears twice on the same card, ignoring case and spacing."""
        items = [_normalise(item) for item in card[language]["items"]]
        assert len(set(items)) == ITEMS_PER_CARD

    @each_card
    def test_ranks_are_five_sorted_lists_within_1_to_5(self, card: Card) -> None:
        """ranks holds one non-empty sorted list of ranks 1..5 per item."""
        ranks = card["ranks"]
        assert len(ranks) == ITEMS_PER_CARD
        for item_ranks in ranks:
            assert item_ranks
            assert all(isinstance(rank, int) and rank in ALL_RANKS for rank in item_ranks)
            assert item_ranks == sorted(set(item_ranks))

    @each_card
    def test_union_of_ranks_is_1_to_5(self, card: Card) -> None:
        """Every rank 1..5 belongs to some item, and no other rank appears."""
        assert {rank for item_ranks in card["ranks"] for rank in item_ranks} == ALL_RANKS

    @each_card
    def test_each_rank_set_is_consecutive(self, card: Card) -> None:
        """A tie covers a run of consecutive ranks, e.g. [2, 3]."""
        for item_ranks in card["ranks"]:
            assert item_ranks == list(range(item_ranks[0], item_ranks[-1] + 1))

    @each_card
    def test_tied_items_share_one_rank_set_of_their_size(self, card: Card) -> None:
        """Items sharing a rank hold the same set, as many ranks as tied items."""
        rank_sets = [tuple(item_ranks) for item_ranks in card["ranks"]]
        holders = Counter(rank_sets)
        for rank_set, count in holders.items():
            assert len(rank_set) == count, rank_set
        for rank in ALL_RANKS:
            assert len({rank_set for rank_set in rank_sets if rank in rank_set}) == 1, rank

    @each_card
    def test_items_are_not_listed_in_rank_order(self, card: Card) -> None:
        """The items are shuffled: neither in rank order nor in reverse rank order."""
        first_ranks = _first_ranks(card)
        assert first_ranks != sorted(first_ranks)
        assert first_ranks != sorted(first_ranks, reverse=True)

    @pytest.mark.parametrize("language", LANGUAGES)
    def test_no_card_repeats_a_category_with_the_same_items(self, language: str) -> None:
        """No two cards share the same category and the same set of items."""
        keys = Counter(
            (
                _normalise(card[language]["category"]),
                frozenset(_normalise(item) for item in card[language]["items"]),
            )
            for card in CARDS
        )
        assert [key for key, count in keys.items() if count > 1] == []

    def test_ties_are_rare(self) -> None:
        """Only a handful of cards use ties; most cards have five distinct ranks."""
        tied_cards = [card["id"] for card in CARDS if any(len(r) > 1 for r in card["ranks"])]
        assert len(tied_cards) <= len(CARDS) // 10
