"""Per game: ways to corrupt a valid state that its validation must catch.

Each entry maps a name to a function from a valid engine state (a few actions into a game with
the fewest seats) to a state the rules could not have produced. The conformance suite sends each one
through every driver and expects INVALID_ARGUMENT; a registered game without entries fails it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from engines.sequence_numbers.rules import Sequence

Corruption = Callable[[Any], Any]


def _swap_hand_and_deck_card(state: Any) -> Any:
    hand = state.hands[0]
    return replace(state, hands=((*hand[:-1], state.deck[0]), *state.hands[1:]))


SIX_NIMMT: dict[str, Corruption] = {
    "card_in_two_places": lambda s: replace(s, deck=(s.hands[0][0], *s.deck[1:])),
    "card_missing": lambda s: replace(s, deck=s.deck[1:]),
    "card_out_of_range": lambda s: replace(s, deck=(105, *s.deck[1:])),
    "card_in_hand_twice": _swap_hand_and_deck_card,
    "hand_too_large": lambda s: replace(
        s, hands=(tuple(sorted((*s.hands[0], s.deck[0]))), *s.hands[1:]), deck=s.deck[1:]
    ),
    "five_rows": lambda s: replace(s, rows=(*s.rows, (s.deck[0],)), deck=s.deck[1:]),
    "row_not_ascending": lambda s: replace(
        s,
        rows=(
            (s.rows[0][-1], *s.deck[:1]) if s.deck[0] < s.rows[0][-1] else (s.deck[0], 0),
            *s.rows[1:],
        ),
    ),
    "penalty_below_taken": lambda s: replace(
        s, taken=((s.deck[0], *s.taken[0]), *s.taken[1:]), deck=s.deck[1:]
    ),
    "revealed_before_all_selected": lambda s: replace(s, revealed=True),
    "wrong_seat_count_of_penalties": lambda s: replace(s, penalties=s.penalties[1:]),
    "penalty_above_the_hands_before": lambda s: replace(
        s, penalties=(s.penalties[0] + 2**32 - 2, *s.penalties[1:])
    ),
    "hand_number_at_its_limit": lambda s: replace(s, hand_number=2**32 - 1),
}

SEQUENCE_NUMBERS: dict[str, Corruption] = {
    "card_in_two_places": lambda s: replace(s, deck=(s.hands[0][0], *s.deck[1:])),
    "card_missing": lambda s: replace(s, deck=s.deck[1:]),
    "card_out_of_range": lambda s: replace(s, deck=(100, *s.deck[1:])),
    "chip_on_a_corner": lambda s: replace(s, chips=(0, *s.chips[1:])),
    "chip_of_no_team": lambda s: replace(s, chips=(*s.chips[:44], 7, *s.chips[45:])),
    "sequence_not_in_a_line": lambda s: replace(
        s, sequences=(Sequence(0, (0, 1, 2, 3, 14)),), chips=(-1, 0, 0, 0, *s.chips[4:])
    ),
    "hand_too_large": lambda s: replace(
        s, hands=(tuple(sorted((*s.hands[0], s.deck[0]))), *s.hands[1:]), deck=s.deck[1:]
    ),
}


def _with_first_question_ranks(state: Any, ranks: tuple[int, ...]) -> Any:
    return replace(
        state, questions=(replace(state.questions[0], ranks=ranks), *state.questions[1:])
    )


FORA_DE_ORDEM: dict[str, Corruption] = {
    "card_in_two_places": lambda s: replace(
        s, decks=((s.hands[0][0], *s.decks[0][1:]), *s.decks[1:])
    ),
    "card_missing": lambda s: replace(s, decks=(s.decks[0][1:], *s.decks[1:])),
    "card_out_of_range": lambda s: replace(s, decks=((999, *s.decks[0][1:]), *s.decks[1:])),
    "another_seats_card_in_hand": lambda s: replace(
        s, hands=(s.hands[1], s.hands[0], *s.hands[2:])
    ),
    "hand_too_large": lambda s: replace(
        s,
        hands=(tuple(sorted((*s.hands[0], s.decks[0][0]))), *s.hands[1:]),
        decks=(s.decks[0][1:], *s.decks[1:]),
    ),
    "ranks_not_covering_1_to_5": lambda s: _with_first_question_ranks(s, (1, 2, 3, 4, 6)),
    "tie_not_skipping_its_places": lambda s: _with_first_question_ranks(s, (1, 1, 2, 3, 4)),
    "question_missing": lambda s: replace(s, questions=s.questions[:-1]),
}


def _placed_cards(state: Any) -> list[int]:
    """Every card in a display or a discard pile, ascending."""
    cards = [card for display in state.displays for row in display for card in row]
    cards.extend(card for discard in state.discards for card in discard)
    return sorted(cards)


def _displays_of_seat_0(state: Any, rows: tuple[tuple[int, ...], ...]) -> Any:
    """The state with every placed card moved into seat 0's display as ``rows``."""
    seats = len(state.hands)
    return replace(
        state,
        displays=(rows, *((),) * (seats - 1)),
        discards=((),) * seats,
        abandoned=(0,) * seats,
    )


def _row_against_its_direction(state: Any) -> Any:
    low, second, third, *rest = _placed_cards(state)
    return _displays_of_seat_0(state, ((low, third, second, *rest),))


def _four_rows(state: Any) -> Any:
    cards = _placed_cards(state)
    return _displays_of_seat_0(state, (*((card,) for card in cards[:3]), tuple(cards[3:])))


UP_OR_DOWN: dict[str, Corruption] = {
    "card_in_two_places": lambda s: replace(s, face_down=(s.circle[0], *s.face_down[1:])),
    "card_missing": lambda s: replace(s, face_down=s.face_down[1:]),
    "card_out_of_range": lambda s: replace(s, face_down=(127, *s.face_down[1:])),
    "circle_out_of_order": lambda s: replace(s, circle=s.circle[::-1]),
    "row_against_its_direction": _row_against_its_direction,
    "four_rows": _four_rows,
    "hand_too_large": lambda s: replace(
        s,
        hands=(tuple(sorted((*s.hands[0], s.face_down[0]))), *s.hands[1:]),
        face_down=s.face_down[1:],
    ),
    "revision_ahead_of_turns": lambda s: replace(s, revision=s.revision + 1),
    "abandoned_rows_without_discards": lambda s: replace(
        s, abandoned=(len(s.discards[0]) + 1, *s.abandoned[1:])
    ),
    "wrong_seat_count_of_discards": lambda s: replace(s, discards=s.discards[1:]),
}

#: Every game's corruptions, by game id.
CORRUPTIONS: dict[str, dict[str, Corruption]] = {
    "six_nimmt": SIX_NIMMT,
    "sequence_numbers": SEQUENCE_NUMBERS,
    "up_or_down": UP_OR_DOWN,
    "fora_de_ordem": FORA_DE_ORDEM,
}
