"""Scenario tests of the Fora de Ordem engine (docs/rules/fora_de_ordem.md), one rule per test."""

from __future__ import annotations

import dataclasses
from collections import Counter
from typing import TYPE_CHECKING, TypeVar

import pytest

from engines.errors import (
    IllegalActionError,
    InvalidOptionsError,
    InvalidSeatsError,
    InvalidStateError,
)
from engines.fora_de_ordem import ENGINE, Options, State, data, rules
from engines.fora_de_ordem.data import CardKind, Colour, Language, Question
from engines.fora_de_ordem.rules import Play
from engines.prng import Rng

if TYPE_CHECKING:
    from engines.base import Event

T = TypeVar("T")

SEED = 20240501

# The seed's worked example: "instruments with the most strings", items in board order.
HARP, CAVAQUINHO, PIANO, VIOLAO, MANDOLIN = range(5)
INSTRUMENTS = Question(
    id="strings",
    category="instruments with the most strings",
    items=("Harp", "Cavaquinho", "Piano", "Violão", "Mandolin"),
    ranks=(2, 5, 1, 4, 3),
)
# Filler cards for the other rounds: items A..E ranked in order.
FILLER = tuple(
    Question(f"filler-{n}", f"filler {n}", ("A", "B", "C", "D", "E"), (1, 2, 3, 4, 5))
    for n in range(1, 6)
)
# The seed's colours, as seats in the order they play in the example.
GREEN, PURPLE, YELLOW = 0, 1, 2


def new_game(seats: int = 3, starting_seat: int = 0) -> State:
    """A dealt game whose first round asks the instruments question, then the fillers."""
    options = Options(starting_seat=starting_seat, custom_questions=(INSTRUMENTS, *FILLER))
    state = ENGINE.new_game(seats, SEED, options)
    return dataclasses.replace(state, questions=(INSTRUMENTS, *FILLER))


def card(
    seat: int,
    ranks: tuple[int, ...] = (),
    kind: CardKind = CardKind.NUMBER,
    bombs: int = 0,
    copy: int = 0,
) -> int:
    """The id of a card of ``seat``'s deck by its face (``copy`` picks among identical faces)."""
    matches = [
        c
        for c in data.deck_of(seat)
        if data.FACES[c].kind is kind
        and data.FACES[c].ranks == ranks
        and (not bombs or data.FACES[c].bombs == bombs)
    ]
    return matches[copy]


def with_hand(state: State, seat: int, cards: list[int]) -> State:
    """Give ``seat`` these cards from its undrawn and held cards; the rest form its deck."""
    pool = state.hands[seat] + state.decks[seat]
    assert set(cards) <= set(pool)
    hand = tuple(sorted(cards))
    deck = tuple(c for c in pool if c not in cards)
    hands = list(state.hands)
    decks = list(state.decks)
    hands[seat], decks[seat] = hand, deck
    return dataclasses.replace(state, hands=tuple(hands), decks=tuple(decks))


def play_all(state: State, plays: list[tuple[int, int, int]]) -> tuple[State, list[Event]]:
    """Apply (seat, card, side) plays in order, validating every state; return all events."""
    events: list[Event] = []
    for seat, c, side in plays:
        transition = ENGINE.apply(state, seat, Play(c, side))
        state = transition.state
        ENGINE.validate(state)
        events.extend(transition.events)
    return state, events


def bodies(events: list[Event], kind: type[T]) -> list[T]:
    """The bodies of the events of one kind."""
    return [event.body for event in events if isinstance(event.body, kind)]


def worked_example() -> tuple[State, list[Event], dict[str, int]]:
    """Play the seed's example round; return the state, the events and the cards by name."""
    cards = {
        "green_5th": card(GREEN, (5,), bombs=1),
        "green_3rd_4th": card(GREEN, (3, 4)),
        "green_1st": card(GREEN, (1,), bombs=2),
        "green_spare": card(GREEN, (2,)),
        "purple_2nd_3rd_a": card(PURPLE, (2, 3), copy=0),
        "purple_2nd_3rd_b": card(PURPLE, (2, 3), copy=1),
        "purple_previous_correct": card(PURPLE, kind=CardKind.PREVIOUS_CORRECT),
        "purple_spare": card(PURPLE, (2,)),
        "yellow_1st": card(YELLOW, (1,), bombs=1),
        "yellow_1st_2nd_3rd": card(YELLOW, (1, 2, 3)),
        "yellow_4th": card(YELLOW, (4,)),
        "yellow_spare": card(YELLOW, (2,)),
    }
    state = new_game()
    for seat, colour in ((GREEN, "green"), (PURPLE, "purple"), (YELLOW, "yellow")):
        state = with_hand(state, seat, [c for name, c in cards.items() if name.startswith(colour)])
    ENGINE.validate(state)
    state, events = play_all(
        state,
        [
            (GREEN, cards["green_5th"], HARP),
            (PURPLE, cards["purple_2nd_3rd_a"], MANDOLIN),
            (YELLOW, cards["yellow_1st"], VIOLAO),
            (GREEN, cards["green_3rd_4th"], VIOLAO),
            (PURPLE, cards["purple_2nd_3rd_b"], HARP),
            (YELLOW, cards["yellow_1st_2nd_3rd"], PIANO),
            (GREEN, cards["green_1st"], CAVAQUINHO),
            (PURPLE, cards["purple_previous_correct"], PIANO),
            (YELLOW, cards["yellow_4th"], MANDOLIN),
        ],
    )
    return state, events, cards


class TestDecks:
    """The player decks: docs/rules/fora_de_ordem.md's composition table, one colour per seat."""

    def test_a_deck_has_19_cards_17_numbers_and_2_specials(self) -> None:
        """Each deck holds 19 cards: 17 number cards and one of each special."""
        kinds = Counter(face.kind for face in data.DECK)
        assert data.DECK_SIZE == 19
        assert kinds == {
            CardKind.NUMBER: 17,
            CardKind.PREVIOUS_CORRECT: 1,
            CardKind.PREVIOUS_WRONG: 1,
        }

    def test_composition_matches_the_rules_table(self) -> None:
        """Copies and bombs per card follow the table of docs/rules/fora_de_ordem.md."""
        faces = Counter((face.ranks, face.bombs) for face in data.DECK if face.ranks)
        assert faces == {
            ((1,), 1): 1, ((1,), 2): 1, ((2,), 2): 1, ((3,), 1): 1, ((3,), 2): 1,
            ((4,), 2): 1, ((5,), 1): 1, ((5,), 2): 1, ((1, 2), 3): 1, ((4, 5), 3): 1,
            ((2, 3), 3): 2, ((3, 4), 3): 2, ((1, 2, 3), 4): 1, ((2, 3, 4), 5): 1,
            ((3, 4, 5), 4): 1,
        }  # fmt: skip
        specials = [face.bombs for face in data.DECK if not face.ranks]
        assert specials == [3, 3]

    def test_a_deck_carries_50_bombs(self) -> None:
        """The composition adds up to 50 bombs per deck."""
        assert sum(face.bombs for face in data.DECK) == 50

    def test_each_seat_has_its_own_colour_and_identical_deck(self) -> None:
        """Seat i plays colour i; every seat's 19 cards have the same faces."""
        assert [colour.value for colour in data.COLOURS] == [
            "YELLOW", "PURPLE", "PINK", "BLUE", "GREEN", "ORANGE",
        ]  # fmt: skip
        for seat in range(rules.MAX_SEATS):
            assert [data.FACES[c] for c in data.deck_of(seat)] == list(data.DECK)
            assert {data.OWNER[c] for c in data.deck_of(seat)} == {seat}


class TestCardLabels:
    """Cards are named for people as the rules name them."""

    def test_each_kind_of_card_has_its_label(self) -> None:
        """A number card reads as its ranks; the specials read as what they say of the card
        beneath them."""
        labels = {data.FACES[card].kind: data.card_label(card) for card in data.deck_of(0)}
        assert labels[CardKind.PREVIOUS_CORRECT] == "previous is correct"
        assert labels[CardKind.PREVIOUS_WRONG] == "previous is wrong"
        numbers = {data.card_label(card) for card in data.deck_of(0) if data.FACES[card].ranks}
        assert {"1st", "2nd/3rd", "3rd/4th/5th"} <= numbers


class TestSetup:
    """Setup: 4 cards per seat, one question per round, the starting seat."""

    def test_each_seat_draws_4_from_its_own_shuffled_deck(self) -> None:
        """Every seat holds 4 of its own cards and 15 stay in its deck."""
        state = ENGINE.new_game(4, SEED, Options())
        for seat in range(4):
            assert len(state.hands[seat]) == rules.HAND_SIZE
            assert len(state.decks[seat]) == data.DECK_SIZE - rules.HAND_SIZE
            assert {data.OWNER[c] for c in state.hands[seat] + state.decks[seat]} == {seat}
        ENGINE.validate(state)

    def test_six_questions_are_set_aside_by_default(self) -> None:
        """The state holds one question per round (6), never the whole bank."""
        state = ENGINE.new_game(2, SEED, Options())
        assert len(state.questions) == rules.DEFAULT_ROUNDS == 6
        assert len({question.id for question in state.questions}) == 6

    def test_same_seed_gives_the_same_game(self) -> None:
        """The deal depends on the seed alone."""
        assert ENGINE.new_game(3, 7, Options()) == ENGINE.new_game(3, 7, Options())
        assert ENGINE.new_game(3, 7, Options()) != ENGINE.new_game(3, 8, Options())

    def test_language_picks_the_bank_texts_of_the_same_cards(self) -> None:
        """pt-BR (default) and English games from one seed ask the same cards in two languages."""
        portuguese = ENGINE.new_game(2, SEED, Options())
        english = ENGINE.new_game(2, SEED, Options(language=Language.EN))
        assert [q.id for q in portuguese.questions] == [q.id for q in english.questions]
        assert [q.ranks for q in portuguese.questions] == [q.ranks for q in english.questions]
        bank = {q.id: q for q in data.BANK[Language.EN]}
        assert all(bank[q.id] == q for q in english.questions)

    def test_custom_questions_replace_the_bank(self) -> None:
        """With custom_questions the rounds ask only those cards."""
        custom = (INSTRUMENTS, *FILLER)
        state = ENGINE.new_game(2, SEED, Options(custom_questions=custom))
        assert sorted(q.id for q in state.questions) == sorted(q.id for q in custom)
        assert state.options.custom_questions == ()

    def test_custom_questions_without_id_are_named_in_order(self) -> None:
        """A custom card without an id is named custom-N."""
        custom = tuple(dataclasses.replace(q, id="") for q in (INSTRUMENTS, *FILLER))
        state = ENGINE.new_game(2, SEED, Options(custom_questions=custom))
        assert sorted(q.id for q in state.questions) == [f"custom-{n}" for n in range(1, 7)]

    def test_the_starting_seat_option_starts_round_1(self) -> None:
        """starting_seat (the youngest player) is the first seat to act."""
        assert ENGINE.seats_to_act(ENGINE.new_game(4, SEED, Options())) == (0,)
        state = ENGINE.new_game(4, SEED, Options(starting_seat=2))
        assert ENGINE.seats_to_act(state) == (2,)


class TestOptions:
    """Options are checked; a bad one is an InvalidOptionsError with a reason."""

    @pytest.mark.parametrize("rounds", [0, 7])
    def test_rounds_outside_1_to_6_are_refused(self, rounds: int) -> None:
        """A deck of 19 cards lasts at most 6 rounds."""
        with pytest.raises(InvalidOptionsError) as caught:
            ENGINE.new_game(2, SEED, Options(rounds=rounds))
        assert caught.value.reason == "INVALID_OPTIONS"
        assert caught.value.metadata == {"option": "rounds"}

    def test_fewer_rounds_end_the_game_earlier(self) -> None:
        """rounds=2 keeps 2 questions and ends after the second round."""
        state = ENGINE.new_game(2, SEED, Options(rounds=2))
        assert len(state.questions) == 2
        rng = Rng(SEED)
        while ENGINE.seats_to_act(state):
            seat = ENGINE.seats_to_act(state)[0]
            state = ENGINE.apply(state, seat, rng.choice(ENGINE.legal_actions(state, seat))).state
        assert state.rounds_played == 2
        assert ENGINE.outcome(state) is not None

    def test_a_starting_seat_that_does_not_exist_is_refused(self) -> None:
        """starting_seat must be one of the game's seats."""
        with pytest.raises(InvalidOptionsError) as caught:
            ENGINE.new_game(3, SEED, Options(starting_seat=3))
        assert caught.value.metadata == {"option": "starting_seat"}

    def test_more_custom_questions_than_the_bound_are_refused(self) -> None:
        """A game carries at most MAX_CUSTOM_QUESTIONS custom cards: the bound itself is
        accepted, one more is refused, naming the option."""
        rules.check_custom_question_count(rules.MAX_CUSTOM_QUESTIONS)
        with pytest.raises(InvalidOptionsError) as caught:
            rules.check_custom_question_count(rules.MAX_CUSTOM_QUESTIONS + 1)
        assert caught.value.metadata == {"option": "custom_questions"}

    def test_too_few_custom_questions_are_refused(self) -> None:
        """Custom cards must cover every round; the error names the option."""
        with pytest.raises(InvalidOptionsError, match="too few") as caught:
            ENGINE.new_game(2, SEED, Options(custom_questions=FILLER))
        assert caught.value.metadata == {"option": "custom_questions"}

    def test_an_unknown_language_is_refused(self) -> None:
        """The language is one the bank has; the error names the option."""
        with pytest.raises(InvalidOptionsError, match="unknown language") as caught:
            ENGINE.new_game(2, SEED, Options(language="klingon"))  # type: ignore[arg-type]
        assert caught.value.metadata == {"option": "language"}

    @pytest.mark.parametrize(
        ("change", "problem"),
        [
            ({"items": ("A", "B", "C", "D")}, "4 items, not 5"),
            ({"items": ("A", "B", "", "D", "E")}, "an item is empty"),
            ({"category": " "}, "the category is empty"),
            ({"ranks": (1, 1, 2, 3, 4)}, "do not cover 1..5"),
            ({"ranks": (1, 2, 3, 4, 6)}, "do not cover 1..5"),
            ({"ranks": (0, 1, 2, 3, 4)}, "do not cover 1..5"),
            ({"ranks": (2, 2, 3, 4, 5)}, "do not cover 1..5"),
            ({"ranks": (0, 0, 3, 4, 5)}, "do not cover 1..5"),
            ({"ranks": (1, 2, 3, 4)}, "4 ranks, not 5"),
            ({"items": ("A", "B", "C", "D", "A")}, "two items are the same"),
            ({"ranks": (0, 2, 3, 4, 5)}, "do not cover 1..5"),
            ({"category": "x" * 201}, "longer than 200"),
            ({"items": ("A", "B", "C", "D", "x" * 201)}, "longer than 200"),
        ],
    )
    def test_a_bad_custom_question_is_refused_naming_card_and_problem(
        self, change: dict[str, object], problem: str
    ) -> None:
        """The error names the card (its number and id) and what is wrong with it."""
        bad = dataclasses.replace(FILLER[2], **change)
        custom = (INSTRUMENTS, FILLER[0], FILLER[1], bad, FILLER[3], FILLER[4])
        with pytest.raises(InvalidOptionsError) as caught:
            ENGINE.new_game(2, SEED, Options(custom_questions=custom))
        assert caught.value.reason == "INVALID_CUSTOM_QUESTION"
        assert "custom question 4 (id 'filler-3')" in caught.value.message
        assert problem in caught.value.message
        assert caught.value.metadata == {"option": "custom_questions", "question": "4"}

    def test_an_id_of_201_characters_is_refused(self) -> None:
        """The id counts among the texts of at most 200 characters."""
        bad = dataclasses.replace(FILLER[2], id="i" * 201)
        custom = (INSTRUMENTS, FILLER[0], FILLER[1], bad, FILLER[3], FILLER[4])
        with pytest.raises(InvalidOptionsError, match="longer than 200"):
            ENGINE.new_game(2, SEED, Options(custom_questions=custom))

    def test_a_text_of_200_characters_is_accepted(self) -> None:
        """200 characters is the longest category, item or id a card may carry, not too long."""
        longest = dataclasses.replace(FILLER[2], id="i" * 200, category="c" * 200)
        longest = dataclasses.replace(longest, items=("a" * 200, *longest.items[1:]))
        custom = (INSTRUMENTS, FILLER[0], FILLER[1], longest, FILLER[3], FILLER[4])
        ENGINE.validate(ENGINE.new_game(2, SEED, Options(custom_questions=custom)))

    @pytest.mark.parametrize("given_id", ["filler-1", "custom-2"])
    def test_two_custom_questions_with_one_id_are_refused(self, given_id: str) -> None:
        """Ids name the questions in views: two cards may not share one, given or made."""
        second = dataclasses.replace(FILLER[1], id="")  # named custom-2
        fourth = dataclasses.replace(FILLER[3], id=given_id)
        custom = (FILLER[0], second, INSTRUMENTS, fourth, FILLER[2], FILLER[4])
        with pytest.raises(InvalidOptionsError) as caught:
            ENGINE.new_game(2, SEED, Options(custom_questions=custom))
        assert caught.value.reason == "INVALID_CUSTOM_QUESTION"
        assert f"custom question 4 (id '{given_id}')" in caught.value.message
        assert "has the same id" in caught.value.message
        assert caught.value.metadata == {"option": "custom_questions", "question": "4"}

    def test_a_custom_question_without_an_id_is_named_and_kept(self) -> None:
        """A custom card without an id is named custom-N (N its place in the list, from 1) and
        keeps its category, items and ranks."""
        unnamed = dataclasses.replace(INSTRUMENTS, id="")
        custom = (*FILLER, unnamed)
        state = ENGINE.new_game(2, SEED, Options(custom_questions=custom))
        assert dataclasses.replace(unnamed, id="custom-6") in state.questions

    def test_ties_share_the_best_rank_and_hold_the_tied_places(self) -> None:
        """Ranks 1, 2, 2, 4, 5 give both tied items the rank set {2, 3}: a valid card."""
        tied = dataclasses.replace(FILLER[0], ranks=(1, 2, 2, 4, 5))
        assert data.question_problem(tied) is None
        assert [data.rank_set(tied.ranks, item) for item in range(5)] == [
            (1,), (2, 3), (2, 3), (4,), (5,),
        ]  # fmt: skip
        ENGINE.new_game(2, SEED, Options(custom_questions=(tied, *FILLER[1:], INSTRUMENTS)))


class TestSeats:
    """Fora de Ordem takes 2 to 6 seats."""

    @pytest.mark.parametrize("seats", [0, 1, 7])
    def test_seat_counts_out_of_range_are_refused(self, seats: int) -> None:
        """Fewer than 2 or more than 6 seats is an InvalidSeatsError."""
        with pytest.raises(InvalidSeatsError) as caught:
            ENGINE.new_game(seats, SEED, Options())
        assert caught.value.reason == "INVALID_SEAT_COUNT"

    @pytest.mark.parametrize("seats", range(2, 7))
    def test_every_seat_count_in_range_deals(self, seats: int) -> None:
        """2 to 6 seats deal a valid game."""
        ENGINE.validate(ENGINE.new_game(seats, SEED, Options()))


class TestTurns:
    """Playing: in seat order, one card on one of the 5 sides."""

    def test_play_goes_in_seat_order_from_the_starting_seat(self) -> None:
        """With starting seat 2 of 3, the order is 2, 0, 1, 2, ..."""
        state = new_game(starting_seat=2)
        order = []
        for _ in range(4):
            seat = ENGINE.seats_to_act(state)[0]
            order.append(seat)
            state = ENGINE.apply(state, seat, ENGINE.legal_actions(state, seat)[0]).state
        assert order == [2, 0, 1, 2]

    def test_a_seat_out_of_turn_is_refused(self) -> None:
        """Only the seat whose turn it is may play."""
        state = new_game()
        hand = state.hands[1]
        with pytest.raises(IllegalActionError) as caught:
            ENGINE.apply(state, 1, Play(hand[0], 0))
        assert caught.value.reason == "NOT_SEATS_TURN"

    def test_a_card_not_in_hand_is_refused(self) -> None:
        """A seat plays only cards from its own hand."""
        state = new_game()
        with pytest.raises(IllegalActionError) as caught:
            ENGINE.apply(state, 0, Play(state.decks[0][0], 0))
        assert caught.value.reason == "CARD_NOT_IN_HAND"
        with pytest.raises(IllegalActionError):
            ENGINE.apply(state, 0, Play(state.hands[1][0], 0))

    def test_a_side_outside_0_to_4_is_refused(self) -> None:
        """The board has 5 sides."""
        state = new_game()
        with pytest.raises(IllegalActionError) as caught:
            ENGINE.apply(state, 0, Play(state.hands[0][0], 5))
        assert caught.value.reason == "NO_SUCH_SIDE"

    def test_a_special_card_on_an_empty_side_is_refused(self) -> None:
        """Specials may only go on a side that already has a card."""
        special = card(0, kind=CardKind.PREVIOUS_WRONG)
        state = with_hand(new_game(), 0, [special, *card_range(0, 3)])
        with pytest.raises(IllegalActionError) as caught:
            ENGINE.apply(state, 0, Play(special, 0))
        assert caught.value.reason == "SPECIAL_ON_EMPTY_SIDE"
        assert Play(special, 0) not in ENGINE.legal_actions(state, 0)

    def test_a_special_card_goes_on_a_side_with_a_card(self) -> None:
        """Once a side has a card, a special may cover it, whoever owns it."""
        special = card(1, kind=CardKind.PREVIOUS_CORRECT)
        state = with_hand(new_game(), 1, [special, *card_range(1, 3)])
        state, _ = play_all(state, [(0, state.hands[0][0], PIANO)])
        legal = ENGINE.legal_actions(state, 1)
        assert Play(special, PIANO) in legal
        assert [p.side for p in legal if p.card == special] == [PIANO]
        state, _ = play_all(state, [(1, special, PIANO)])
        assert state.sides[PIANO][-1] == special

    def test_a_seat_may_cover_its_own_card(self) -> None:
        """Cards go on top of any cards already there, own cards included."""
        state = new_game(seats=2)
        first, second = state.hands[0][0], state.hands[0][1]
        state, _ = play_all(state, [(0, first, HARP), (1, state.hands[1][0], PIANO)])
        state, _ = play_all(state, [(0, second, HARP)])
        assert state.sides[HARP] == (first, second)

    def test_no_card_is_drawn_during_a_round(self) -> None:
        """Hands shrink by one card per play until the round ends."""
        state = new_game(seats=2)
        state, _ = play_all(state, [(0, state.hands[0][0], HARP)])
        assert len(state.hands[0]) == 3
        assert len(state.decks[0]) == 15

    def test_legal_actions_are_every_card_on_every_allowed_side(self) -> None:
        """4 number cards on an empty board give 20 plays; other seats have none."""
        numbers = card_range(0, 4)
        state = with_hand(new_game(), 0, numbers)
        legal = ENGINE.legal_actions(state, 0)
        assert len(legal) == 20
        assert set(legal) == {Play(c, side) for c in numbers for side in range(5)}
        assert ENGINE.legal_actions(state, 1) == ()


def card_range(seat: int, count: int) -> list[int]:
    """The first ``count`` number cards of a seat's deck."""
    return [c for c in data.deck_of(seat) if not data.IS_SPECIAL[c]][:count]


class TestWorkedExample:
    """docs/rules/fora_de_ordem.md's worked example, played as a whole round."""

    def test_verdicts_of_each_side(self) -> None:
        """Each side's cards are judged as in the seed's example."""
        _, events, cards = worked_example()
        sides = {body.side: body for body in bodies(events, rules.SideResolved)}
        assert sides[PIANO].cards == (cards["yellow_1st_2nd_3rd"], cards["purple_previous_correct"])
        assert sides[PIANO].correct == (True, True)
        assert sides[HARP].correct == (False, True)
        assert sides[VIOLAO].correct == (False, True)
        assert sides[MANDOLIN].correct == (True, False)
        assert sides[CAVAQUINHO].correct == (False,)

    def test_bombs_taken_on_each_side(self) -> None:
        """Harp 1 (Green), Violão 1 (Yellow), Mandolin 5 (Yellow), Cavaquinho 2 (Green), Piano 0."""
        _, events, _ = worked_example()
        taken = {body.side: (body.taker, body.bombs) for body in bodies(events, rules.SideResolved)}
        assert taken == {
            PIANO: (rules.NO_TAKER, 0),
            HARP: (GREEN, 1),
            VIOLAO: (YELLOW, 1),
            MANDOLIN: (YELLOW, 5),
            CAVAQUINHO: (GREEN, 2),
        }

    def test_the_wrong_card_takes_the_correct_card_beneath_it(self) -> None:
        """On Mandolin, Yellow's wrong 4th takes Purple's correct 2nd/3rd too."""
        state, _, cards = worked_example()
        assert cards["purple_2nd_3rd_a"] in state.score_piles[YELLOW]
        assert cards["yellow_4th"] in state.score_piles[YELLOW]

    def test_score_piles_and_discarded_cards(self) -> None:
        """Green 3 bombs, Purple 0, Yellow 6; four correct cards leave the game."""
        state, _, cards = worked_example()
        view = ENGINE.view(state, None)
        assert view.bombs == (3, 0, 6)
        assert state.score_piles[GREEN] == tuple(sorted((cards["green_5th"], cards["green_1st"])))
        assert state.discarded == tuple(
            sorted(
                cards[name]
                for name in (
                    "purple_2nd_3rd_b",
                    "yellow_1st_2nd_3rd",
                    "purple_previous_correct",
                    "green_3rd_4th",
                )
            )
        )

    def test_the_ranks_are_revealed_at_resolution(self) -> None:
        """The resolution reveals the back of the question card, publicly."""
        _, events, _ = worked_example()
        (revealed,) = [e for e in events if isinstance(e.body, rules.RanksRevealed)]
        assert revealed.audience is None
        assert revealed.body == rules.RanksRevealed(
            1, "strings", INSTRUMENTS.items, INSTRUMENTS.ranks
        )

    def test_hands_refill_to_4_and_the_start_passes_on(self) -> None:
        """After the round every seat holds 4 cards and seat 1 starts round 2."""
        state, events, _ = worked_example()
        assert [len(hand) for hand in state.hands] == [4, 4, 4]
        assert ENGINE.seats_to_act(state) == (PURPLE,)
        assert state.rounds_played == 1
        assert all(not side for side in state.sides)
        (started,) = bodies(events, rules.RoundStarted)
        assert started == rules.RoundStarted(2, PURPLE, "filler-1", "filler 1", FILLER[0].items)

    def test_the_refill_is_announced_for_the_next_round(self) -> None:
        """Everyone learns that each seat draws 3 cards before round 2."""
        _, events, _ = worked_example()
        assert bodies(events, rules.HandsRefilled) == [rules.HandsRefilled(2, 3)]


class TestResolution:
    """Resolution: bottom-up correctness with chained specials, the top-down sweep."""

    def test_previous_is_wrong_on_a_wrong_card_is_correct(self) -> None:
        """ "Previous is wrong" is correct exactly when the card beneath it is wrong."""
        wrong_number = card(0, (1,), bombs=1)
        previous_wrong = card(1, kind=CardKind.PREVIOUS_WRONG)
        assert rules.judge((wrong_number, previous_wrong), 1 << 3) == (False, True)
        assert rules.judge((wrong_number, previous_wrong), 1 << 1) == (True, False)

    def test_specials_chain_on_specials(self) -> None:
        """Each special judges the verdict of the special beneath it."""
        number = card(0, (2,))
        previous_wrong = card(1, kind=CardKind.PREVIOUS_WRONG)
        previous_correct = card(0, kind=CardKind.PREVIOUS_CORRECT)
        other_wrong = card(2, kind=CardKind.PREVIOUS_WRONG)
        stack = (number, previous_wrong, previous_correct, other_wrong)
        assert rules.judge(stack, 1 << 2) == (True, False, False, True)
        assert rules.judge(stack, 1 << 5) == (False, True, True, False)

    def test_chained_specials_in_a_played_round(self) -> None:
        """A wrong special on a chain takes the whole side; a correct top card is discarded."""
        state = new_game(seats=2)
        number = card(0, (1,), bombs=1)  # a 1st on Harp (2nd): wrong
        seat1_wrong = card(1, kind=CardKind.PREVIOUS_WRONG)  # on a wrong card: correct
        seat0_wrong = card(0, kind=CardKind.PREVIOUS_WRONG)  # on a correct card: wrong
        seat1_correct = card(1, kind=CardKind.PREVIOUS_CORRECT)  # on a wrong card: wrong
        state = with_hand(state, 0, [number, seat0_wrong, *card_range(0, 3)[1:3]])
        state = with_hand(state, 1, [seat1_wrong, seat1_correct, *card_range(1, 2)])
        state, events = play_all(
            state,
            [
                (0, number, HARP),
                (1, seat1_wrong, HARP),
                (0, seat0_wrong, HARP),
                (1, seat1_correct, HARP),
                (0, card_range(0, 3)[1], PIANO),
                (1, card_range(1, 1)[0], PIANO),
            ],
        )
        harp = next(b for b in bodies(events, rules.SideResolved) if b.side == HARP)
        assert harp.correct == (False, True, False, False)
        assert harp.taker == 1  # the top card is wrong: its owner takes the whole side
        assert harp.bombs == 1 + 3 + 3 + 3
        assert state.score_piles[1] == tuple(
            sorted((number, seat1_wrong, seat0_wrong, seat1_correct))
        )

    def test_all_correct_cards_are_discarded_from_the_game(self) -> None:
        """A side with only correct cards gives nobody bombs."""
        assert rules.top_wrong((True, True, True)) == -1
        assert rules.top_wrong((False, True, False, True)) == 2

    def test_a_number_card_on_a_tied_item_is_correct_for_either_rank(self) -> None:
        """Tied items share ranks {2, 3}: a 2nd and a 3rd are both correct there."""
        tied_mask = data.item_mask((1, 2, 2, 4, 5), 1)
        assert rules.judge((card(0, (2,)),), tied_mask) == (True,)
        assert rules.judge((card(0, (3,), bombs=1),), tied_mask) == (True,)
        assert rules.judge((card(0, (4,)),), tied_mask) == (False,)


def finished_game(hand_cards: dict[int, int], piles: dict[int, list[int]]) -> State:
    """A finished 2-seat, 1-round game with chosen last cards and score piles; every other played
    card is discarded."""
    state = ENGINE.new_game(2, SEED, Options(rounds=1))
    hands, decks, played = [], [], []
    for seat in range(2):
        pool = state.hands[seat] + state.decks[seat]
        others = [c for c in pool if c != hand_cards[seat] and c not in piles[0] + piles[1]]
        chosen = [c for c in piles[0] + piles[1] if data.OWNER[c] == seat]
        filler = others[: rules.PLAYS_PER_ROUND - len(chosen)]
        played.extend(filler)
        hands.append((hand_cards[seat],))
        decks.append(tuple(c for c in others if c not in filler))
    finished = dataclasses.replace(
        state,
        revision=2 * rules.PLAYS_PER_ROUND,  # every card of the round played
        rounds_played=1,
        hands=tuple(hands),
        decks=tuple(decks),
        score_piles=(tuple(sorted(piles[0])), tuple(sorted(piles[1]))),
        discarded=tuple(sorted(played)),
    )
    ENGINE.validate(finished)
    return finished


class TestOutcome:
    """The outcome: fewest bombs wins, then fewest bombs on the card left in hand."""

    def test_fewest_bombs_wins(self) -> None:
        """Scores are the bombs in each score pile; lower is better."""
        state = finished_game(
            {0: card(0, (2,)), 1: card(1, (2,))},
            {0: [card(0, (1, 2, 3))], 1: [card(1, (1,), bombs=1)]},
        )
        outcome = ENGINE.outcome(state)
        assert outcome is not None
        assert outcome.scores == (4, 1)
        assert outcome.winners == (1,)
        assert outcome.lower_is_better
        assert ENGINE.seats_to_act(state) == ()

    def test_a_tie_goes_to_fewest_bombs_in_hand(self) -> None:
        """Tied on bombs, the seat whose last card has fewer bombs wins."""
        state = finished_game(
            {0: card(0, (2, 3, 4)), 1: card(1, (5,), bombs=1)},
            {0: [card(0, (1, 2))], 1: [card(1, (4, 5))]},
        )
        outcome = ENGINE.outcome(state)
        assert outcome is not None
        assert outcome.scores == (3, 3)
        assert outcome.winners == (1,)

    def test_a_tie_on_both_counts_shares_the_win(self) -> None:
        """Tied on bombs and on the card in hand, every tied seat wins."""
        state = finished_game(
            {0: card(0, (2,)), 1: card(1, (4,))},
            {0: [card(0, (1, 2))], 1: [card(1, (4, 5))]},
        )
        outcome = ENGINE.outcome(state)
        assert outcome is not None
        assert outcome.winners == (0, 1)

    def test_a_finished_game_accepts_no_action(self) -> None:
        """No seat acts after the last round."""
        state = finished_game({0: card(0, (2,)), 1: card(1, (2,))}, {0: [], 1: []})
        with pytest.raises(IllegalActionError) as caught:
            ENGINE.apply(state, 0, Play(state.hands[0][0], 0))
        assert caught.value.reason == "GAME_FINISHED"

    def test_the_game_ends_after_6_rounds_with_one_card_in_hand(self) -> None:
        """A whole game lasts 6 rounds; the last cards are revealed in GameEnded."""
        state = ENGINE.new_game(3, SEED, Options())
        rng = Rng(1)
        events: list[Event] = []
        while ENGINE.seats_to_act(state):
            seat = ENGINE.seats_to_act(state)[0]
            transition = ENGINE.apply(state, seat, rng.choice(ENGINE.legal_actions(state, seat)))
            state = transition.state
            events.extend(transition.events)
        assert state.rounds_played == 6
        assert [len(hand) for hand in state.hands] == [1, 1, 1]
        assert all(not deck for deck in state.decks)
        (ended,) = [e for e in events if isinstance(e.body, rules.GameEnded)]
        outcome = ENGINE.outcome(state)
        assert outcome is not None
        assert ended.audience is None
        assert ended.body == rules.GameEnded(
            outcome.scores, tuple(hand[0] for hand in state.hands), outcome.winners
        )
        assert len(bodies(events, rules.RanksRevealed)) == 6


class TestVisibility:
    """Views and events: hands only to their seat; ranks only at resolution."""

    def test_a_seat_sees_its_own_hand_and_a_spectator_none(self) -> None:
        """The view holds the viewer's hand only."""
        state = new_game()
        assert ENGINE.view(state, 1).hand == state.hands[1]
        assert ENGINE.view(state, None).hand == ()

    def test_the_view_names_the_colour_of_each_seat(self) -> None:
        """Seat i plays colour i: a 3-seat game shows yellow, purple and pink only."""
        view = ENGINE.view(new_game(), None)
        assert view.colours == (Colour.YELLOW, Colour.PURPLE, Colour.PINK)

    def test_a_finished_game_shows_its_last_round(self) -> None:
        """Once the game is over the view stays on the last round: its number, question and
        starting seat."""
        state = finished_game({0: card(0, (2,)), 1: card(1, (2,))}, {0: [], 1: []})
        view = ENGINE.view(state, 0)
        assert (view.round, view.rounds_played) == (1, 1)
        assert view.round_starting_seat == 0
        assert view.question_id == state.questions[0].id

    def test_the_view_shows_the_question_but_not_its_ranks(self) -> None:
        """Category and items are public; the view has no ranks and no later questions."""
        view = ENGINE.view(new_game(), 0)
        assert (view.category, view.items) == (INSTRUMENTS.category, INSTRUMENTS.items)
        fields = {field.name for field in dataclasses.fields(view)}
        assert not fields & {"ranks", "questions", "decks", "hands", "rng_state"}

    def test_drawn_cards_are_told_only_to_their_seat(self) -> None:
        """CardsDrawn goes to its seat alone; HandsRefilled is public."""
        _, events, _ = worked_example()
        drawn = [e for e in events if isinstance(e.body, rules.CardsDrawn)]
        assert [e.audience for e in drawn] == [(0,), (1,), (2,)]
        assert all((e.body.seat,) == e.audience for e in drawn)
        public = [e for e in events if not isinstance(e.body, rules.CardsDrawn)]
        assert all(e.audience is None for e in public)

    def test_redeal_keeps_a_seats_view(self) -> None:
        """Re-dealing what a seat cannot see leaves its view unchanged and the state valid."""
        state, _, _ = worked_example()
        state, _ = play_all(state, [(1, state.hands[1][0], HARP)])
        for seat in range(3):
            other = ENGINE.redeal(state, seat, Rng(99))
            ENGINE.validate(other)
            assert ENGINE.view(other, seat) == ENGINE.view(state, seat)
            assert other.hands[seat] == state.hands[seat]

    def test_the_heuristic_uses_only_what_its_seat_sees(self) -> None:
        """The heuristic bot chooses the same play after its hidden information is re-dealt."""
        state = ENGINE.new_game(4, SEED, Options())
        rng = Rng(3)
        for _ in range(20):
            seat = ENGINE.seats_to_act(state)[0]
            choice = ENGINE.suggest(state, seat, "heuristic", Rng(7))
            for redeal_seed in range(3):
                redealt = ENGINE.redeal(state, seat, Rng(redeal_seed))
                assert ENGINE.suggest(redealt, seat, "heuristic", Rng(7)) == choice
            state = ENGINE.apply(state, seat, rng.choice(ENGINE.legal_actions(state, seat))).state

    def test_redeal_after_the_end_keeps_the_revealed_last_cards(self) -> None:
        """The cards left in hand are public once the game is over: a re-deal keeps them."""
        state = finished_game({0: card(0, (2,)), 1: card(1, (2,))}, {0: [], 1: []})
        for seed in range(5):
            other = ENGINE.redeal(state, 0, Rng(seed))
            ENGINE.validate(other)
            assert other.hands == state.hands

    def test_redeal_changes_what_the_seat_cannot_see(self) -> None:
        """Other hands, deck orders and unresolved ranks are re-dealt."""
        state = ENGINE.new_game(4, SEED, Options())
        other = ENGINE.redeal(state, 0, Rng(5))
        assert other.hands[1:] != state.hands[1:]
        assert other.decks != state.decks
        assert other.rng_state != state.rng_state


class TestValidation:
    """States the rules could not have produced are rejected."""

    def test_a_card_in_two_places_is_rejected(self) -> None:
        """A card both in a hand and on the board breaks card conservation."""
        state = new_game()
        state, _ = play_all(state, [(0, state.hands[0][0], HARP)])
        stolen = state.sides[HARP][0]
        decks = list(state.decks)
        decks[0] = (stolen, *decks[0][1:])
        with pytest.raises(InvalidStateError, match="two places"):
            ENGINE.validate(dataclasses.replace(state, decks=tuple(decks)))

    def test_a_rank_set_not_covering_1_to_5_is_rejected(self) -> None:
        """A question whose ranks miss a rank cannot be in a state."""
        state = new_game()
        broken = dataclasses.replace(INSTRUMENTS, ranks=(1, 2, 3, 4, 1))
        with pytest.raises(InvalidStateError, match="round 1"):
            ENGINE.validate(dataclasses.replace(state, questions=(broken, *state.questions[1:])))

    def test_a_missing_card_is_rejected(self) -> None:
        """Every card of every deck must be somewhere."""
        state, _, _ = worked_example()
        with pytest.raises(InvalidStateError, match="missing"):
            ENGINE.validate(dataclasses.replace(state, discarded=state.discarded[1:]))

    def test_a_foreign_card_in_a_hand_is_rejected(self) -> None:
        """A hand holds only its own seat's cards."""
        state = new_game()
        hands = list(state.hands)
        hands[0], hands[1] = hands[1], hands[0]
        with pytest.raises(InvalidStateError, match="a card of another seat"):
            ENGINE.validate(dataclasses.replace(state, hands=tuple(hands)))

    def test_a_special_at_the_bottom_of_a_side_is_rejected(self) -> None:
        """Specials never start a side."""
        special = card(0, kind=CardKind.PREVIOUS_CORRECT)
        state = with_hand(new_game(), 0, [special, *card_range(0, 3)])
        hands = list(state.hands)
        hands[0] = tuple(c for c in hands[0] if c != special)
        sides = ((special,), (), (), (), ())
        with pytest.raises(InvalidStateError, match="bottom"):
            ENGINE.validate(dataclasses.replace(state, hands=tuple(hands), sides=sides))

    def test_a_hand_of_the_wrong_size_is_rejected(self) -> None:
        """Hand sizes follow from the plays of the round."""
        state = new_game()
        hands = list(state.hands)
        decks = list(state.decks)
        hands[1], decks[1] = hands[1][:3], (hands[1][3], *decks[1])
        with pytest.raises(InvalidStateError, match="holds 3 cards"):
            ENGINE.validate(dataclasses.replace(state, hands=tuple(hands), decks=tuple(decks)))

    def test_custom_questions_inside_a_state_are_rejected(self) -> None:
        """A state carries its round questions, never a custom bank."""
        state = new_game()
        options = dataclasses.replace(state.options, custom_questions=FILLER)
        with pytest.raises(InvalidStateError):
            ENGINE.validate(dataclasses.replace(state, options=options))

    def test_a_missing_score_pile_is_rejected(self) -> None:
        """Every seat has a score pile, as it has a deck."""
        state = new_game()
        with pytest.raises(InvalidStateError, match="one entry per seat"):
            ENGINE.validate(dataclasses.replace(state, score_piles=state.score_piles[1:]))

    def test_a_bad_question_after_a_bank_card_is_rejected(self) -> None:
        """Every round's question is checked, not only those before the first bank card."""
        state = ENGINE.new_game(3, SEED, Options())
        assert state.questions[0] in data.BANK_CARDS
        broken = dataclasses.replace(INSTRUMENTS, id="broken", category=" ")
        questions = (state.questions[0], broken, *state.questions[2:])
        with pytest.raises(InvalidStateError, match="round 2"):
            ENGINE.validate(dataclasses.replace(state, questions=questions))

    def test_the_first_card_of_the_next_seats_deck_is_foreign(self) -> None:
        """A hand holds only its seat's cards: the card right after its deck's last is the next
        seat's first."""
        state, _, _ = worked_example()
        assert 38 in state.score_piles[YELLOW]  # purple's 19 cards are 19..37
        hands, piles = list(state.hands), list(state.score_piles)
        own = hands[PURPLE][1]
        hands[PURPLE] = tuple(sorted({*hands[PURPLE]} - {own} | {38}))
        piles[YELLOW] = tuple(sorted({*piles[YELLOW]} - {38} | {own}))
        moved = dataclasses.replace(state, hands=tuple(hands), score_piles=tuple(piles))
        with pytest.raises(InvalidStateError, match="a card of another seat"):
            ENGINE.validate(moved)

    def test_the_board_holds_the_cards_of_the_seats_that_played(self) -> None:
        """Mid-round the board holds as many cards of each seat as it has played this round."""
        state, _, _ = worked_example()
        seat = ENGINE.seats_to_act(state)[0]
        state = ENGINE.apply(state, seat, ENGINE.legal_actions(state, seat)[0]).state
        side = next(side for side, stack in enumerate(state.sides) if stack)
        played = state.sides[side][0]
        other = next(c for c in state.discarded if data.OWNER[c] != seat and not data.IS_SPECIAL[c])
        sides = list(state.sides)
        sides[side] = (other,)
        discarded = tuple(sorted({*state.discarded} - {other} | {played}))
        swapped = dataclasses.replace(state, sides=tuple(sides), discarded=discarded)
        with pytest.raises(InvalidStateError, match="do not match the seats' turns"):
            ENGINE.validate(swapped)

    def test_a_bad_generator_state_is_rejected(self) -> None:
        """The generator state is a 64-bit value."""
        with pytest.raises(InvalidStateError):
            ENGINE.validate(dataclasses.replace(new_game(), rng_state=-1))

    def test_cards_on_the_board_after_the_last_round_are_rejected(self) -> None:
        """The last round's resolution clears the board."""
        state = finished_game({0: card(0, (2,)), 1: card(1, (2,))}, {0: [], 1: []})
        moved = next(c for c in state.discarded if not data.IS_SPECIAL[c])
        corrupted = dataclasses.replace(
            state,
            discarded=tuple(c for c in state.discarded if c != moved),
            sides=((moved,), (), (), (), ()),
        )
        with pytest.raises(InvalidStateError, match="after the last round"):
            ENGINE.validate(corrupted)

    def test_a_full_round_left_unresolved_is_rejected(self) -> None:
        """The round's last card resolves the round in the same action."""
        state = with_hand(new_game(seats=2), 0, card_range(0, 4))
        state = with_hand(state, 1, card_range(1, 4))
        state, _ = play_all(
            state,
            [(seat, state.hands[seat][turn], turn) for turn in range(2) for seat in range(2)]
            + [(0, state.hands[0][2], 2)],
        )
        last = state.hands[1][0]
        corrupted = dataclasses.replace(
            state,
            hands=(state.hands[0], state.hands[1][1:]),
            sides=(*state.sides[:3], (last,), ()),
        )
        with pytest.raises(InvalidStateError, match="unresolved"):
            ENGINE.validate(corrupted)

    def test_more_rounds_played_than_the_game_has_are_rejected(self) -> None:
        """A game of 1 round is over after it: it cannot have played 2."""
        state = ENGINE.new_game(2, SEED, Options(rounds=1))
        with pytest.raises(InvalidStateError, match="rounds_played"):
            ENGINE.validate(dataclasses.replace(state, rounds_played=2))

    def test_a_wrong_question_count_is_rejected(self) -> None:
        """The state holds exactly one question per round."""
        state = new_game()
        with pytest.raises(InvalidStateError, match="questions for 6 rounds"):
            ENGINE.validate(dataclasses.replace(state, questions=state.questions[:5]))


class TestPlayouts:
    """Random playouts validate at every step and end after the last round."""

    @pytest.mark.parametrize("seats", range(2, 7))
    def test_random_playout_stays_valid_and_ends(self, seats: int) -> None:
        """Every reachable state validates; the game ends after 6 x 3 plays per seat."""
        state = ENGINE.new_game(seats, SEED + seats, Options())
        rng = Rng(seats)
        plays = 0
        while ENGINE.seats_to_act(state):
            seat = ENGINE.seats_to_act(state)[0]
            state = ENGINE.apply(state, seat, rng.choice(ENGINE.legal_actions(state, seat))).state
            ENGINE.validate(state)
            plays += 1
        assert plays == 6 * 3 * seats
        outcome = ENGINE.outcome(state)
        assert outcome is not None
        total = sum(data.BOMBS[c] for pile in state.score_piles for c in pile)
        assert sum(outcome.scores) == total
