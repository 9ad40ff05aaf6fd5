"""Per game: ways to corrupt a valid state that its validation must catch.

Each entry maps a name to a ``Corruption``: a function from a valid engine state (``STEPS_PER_SEAT``
actions a seat into a game with the fewest seats) to a state the rules could not have produced,
and the message of the check that must catch it. The conformance suite sends each one through
every driver and expects INVALID_ARGUMENT, and checks in-process that the named check is the
one that refuses it (a corruption that broke a count as well could pass for the wrong reason);
a registered game without entries fails it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any, NamedTuple

from engines.sequence_numbers.rules import Sequence
from engines.six_nimmt.rules import row_bullheads

#: The actions each seat has played in the state a corruption starts from.
STEPS_PER_SEAT = 4


class Corruption(NamedTuple):
    """A way to corrupt a state, and the check that must refuse the result."""

    corrupt: Callable[[Any], Any]
    refused_by: str  # a regular expression found in the message of that check


def _swap_hand_and_deck_card(state: Any) -> Any:
    hand = state.hands[0]
    return replace(state, hands=((*hand[:-1], state.deck[0]), *state.hands[1:]))


CARDS_DO_NOT_ADD_UP = "the cards do not add up"
REVISION_DOES_NOT_FOLLOW = "the revision .* does not follow from the turns played"
#: A revision the rules cannot reach: 0 after plays, the last but one of 64 bits (the state an
#: action makes from it would be at the last, which no state may have), 2^63.
UNREACHABLE_REVISIONS = {
    "revision_zero_after_plays": 0,
    "revision_before_the_last": 2**64 - 2,
    "revision_of_2_to_the_63": 2**63,
}


def _unreachable_revisions() -> dict[str, Corruption]:
    """The corruptions that set a revision the rules cannot reach."""
    return {
        name: Corruption(
            lambda s, revision=revision: replace(s, revision=revision), REVISION_DOES_NOT_FOLLOW
        )
        for name, revision in UNREACHABLE_REVISIONS.items()
    }


def _six_nimmt_taken_out_of_order(state: Any) -> Any:
    """Seat 0 takes two cards of the deck more (its total with them), its pile descending."""
    cards = tuple(sorted((*state.taken[0], *state.deck[:2]), reverse=True))
    return replace(
        state,
        taken=(cards, *state.taken[1:]),
        penalties=(state.penalties[0] + row_bullheads(state.deck[:2]), *state.penalties[1:]),
        deck=state.deck[2:],
    )


SIX_NIMMT: dict[str, Corruption] = {
    "card_in_two_places": Corruption(
        lambda s: replace(s, deck=(s.hands[0][0], *s.deck[1:])), CARDS_DO_NOT_ADD_UP
    ),
    "card_missing": Corruption(lambda s: replace(s, deck=s.deck[1:]), CARDS_DO_NOT_ADD_UP),
    "card_out_of_range": Corruption(
        lambda s: replace(s, deck=(105, *s.deck[1:])), CARDS_DO_NOT_ADD_UP
    ),
    "card_in_hand_twice": Corruption(_swap_hand_and_deck_card, "ascending without repeats"),
    "hand_too_large": Corruption(
        lambda s: replace(
            s, hands=(tuple(sorted((*s.hands[0], s.deck[0]))), *s.hands[1:]), deck=s.deck[1:]
        ),
        r"seat 1 holds \d+ cards, not \d+",
    ),
    "five_rows": Corruption(
        lambda s: replace(s, rows=(*s.rows, (s.deck[0],)), deck=s.deck[1:]), "there must be 4 rows"
    ),
    "row_not_ascending": Corruption(
        lambda s: replace(
            s,
            rows=(
                (s.rows[0][-1], *s.deck[:1]) if s.deck[0] < s.rows[0][-1] else (s.deck[0], 0),
                *s.rows[1:],
            ),
        ),
        r"a row's cards must ascend",
    ),
    "penalty_below_taken": Corruption(
        lambda s: replace(
            s, taken=(tuple(sorted((s.deck[0], *s.taken[0]))), *s.taken[1:]), deck=s.deck[1:]
        ),
        "total is below the bullheads it took",
    ),
    # Plain states over the wire carry these: a zero card used in a game without one, and
    # used in a hand that is not dealt yet.
    "zero_card_used_without_the_option": Corruption(
        lambda s: replace(s, zero_card_used_in_hand=(1, *s.zero_card_used_in_hand[1:])),
        "zero card use out of range",
    ),
    "zero_card_used_in_a_later_hand": Corruption(
        lambda s: replace(
            s,
            options=replace(s.options, zero_card=True),
            zero_card_used_in_hand=(s.hand_number + 1, *s.zero_card_used_in_hand[1:]),
        ),
        "zero card use out of range",
    ),
    "revealed_before_all_selected": Corruption(
        lambda s: replace(s, revealed=True), "revealed before every seat selected"
    ),
    "wrong_seat_count_of_penalties": Corruption(
        lambda s: replace(s, penalties=s.penalties[1:]), "one entry per seat"
    ),
    "penalty_above_the_hands_before": Corruption(
        lambda s: replace(s, penalties=(2**32 - 1, *s.penalties[1:])),
        "more than the bullheads of the hands before",
    ),
    "hand_number_at_its_limit": Corruption(
        lambda s: replace(s, hand_number=2**32 - 1), "hand number or turn out of range"
    ),
    "taken_pile_out_of_order": Corruption(
        _six_nimmt_taken_out_of_order, "seat 1's taken cards must be ascending"
    ),
    "hand_number_raised_without_penalties": Corruption(
        lambda s: replace(s, hand_number=s.hand_number + 1), "each of which took a row"
    ),
    "revision_one_more_than_every_action": Corruption(
        # Every selection and a row choice in each turn: one more is beyond reach.
        lambda s: replace(s, revision=s.turn * (len(s.hands) + 1) + len(s.hands) + 1),
        REVISION_DOES_NOT_FOLLOW,
    ),
    **_unreachable_revisions(),
}

SEQUENCE_NUMBERS: dict[str, Corruption] = {
    "card_in_two_places": Corruption(
        lambda s: replace(s, deck=(s.hands[0][0], *s.deck[1:])), CARDS_DO_NOT_ADD_UP
    ),
    "card_missing": Corruption(lambda s: replace(s, deck=s.deck[1:]), CARDS_DO_NOT_ADD_UP),
    "card_out_of_range": Corruption(
        lambda s: replace(s, deck=(100, *s.deck[1:])), CARDS_DO_NOT_ADD_UP
    ),
    "chip_on_a_corner": Corruption(
        lambda s: replace(s, chips=(0, *s.chips[1:])), "corners are free"
    ),
    "chip_of_no_team": Corruption(
        lambda s: replace(s, chips=(*s.chips[:44], 7, *s.chips[45:])),
        "neither NO_CHIP nor a team's",
    ),
    "sequence_not_in_a_line": Corruption(
        lambda s: replace(s, sequences=(Sequence(0, (0, 1, 2, 3, 14)),)),
        "not five cells in a straight line",
    ),
    "hand_too_large": Corruption(
        lambda s: replace(
            s, hands=(tuple(sorted((*s.hands[0], s.deck[0]))), *s.hands[1:]), deck=s.deck[1:]
        ),
        r"seat 1 holds \d+ cards, not \d+",
    ),
    "choice_pending_on_a_corner": Corruption(
        lambda s: replace(s, pending_cell=9), "pending on pending_cell=9, not a cell of a chip"
    ),
    "choice_pending_on_an_empty_cell": Corruption(
        lambda s: replace(s, pending_cell=s.chips.index(-1, 1)), "which holds no chip of team"
    ),
    "revision_beyond_the_actions_of_the_turns": Corruption(
        lambda s: replace(s, revision=2 * s.turn + s.exchanged + len(s.sequences) + 1),
        REVISION_DOES_NOT_FOLLOW,
    ),
    **_unreachable_revisions(),
}


def _with_first_question_ranks(state: Any, ranks: tuple[int, ...]) -> Any:
    return replace(
        state, questions=(replace(state.questions[0], ranks=ranks), *state.questions[1:])
    )


RANKS_DO_NOT_COVER = r"the ranks \(.*\) do not cover 1\.\.5"

FORA_DE_ORDEM: dict[str, Corruption] = {
    "card_in_two_places": Corruption(
        lambda s: replace(s, decks=((s.hands[0][0], *s.decks[0][1:]), *s.decks[1:])),
        r"card \d+ is in two places",
    ),
    "card_missing": Corruption(
        lambda s: replace(s, decks=(s.decks[0][1:], *s.decks[1:])),
        r"seat 1's deck has \d+ cards, not \d+",
    ),
    "card_out_of_range": Corruption(
        lambda s: replace(s, decks=((999, *s.decks[0][1:]), *s.decks[1:])),
        "holds a card of another seat, or of none",
    ),
    "another_seats_card_in_hand": Corruption(
        lambda s: replace(s, hands=(s.hands[1], s.hands[0], *s.hands[2:])),
        "holds a card of another seat, or of none",
    ),
    "hand_too_large": Corruption(
        lambda s: replace(
            s,
            hands=(tuple(sorted((*s.hands[0], s.decks[0][0]))), *s.hands[1:]),
            decks=(s.decks[0][1:], *s.decks[1:]),
        ),
        r"seat 1 holds \d+ cards, not \d+",
    ),
    "ranks_not_covering_1_to_5": Corruption(
        lambda s: _with_first_question_ranks(s, (1, 2, 3, 4, 6)), RANKS_DO_NOT_COVER
    ),
    "tie_not_skipping_its_places": Corruption(
        lambda s: _with_first_question_ranks(s, (1, 1, 2, 3, 4)), RANKS_DO_NOT_COVER
    ),
    "question_missing": Corruption(
        lambda s: replace(s, questions=s.questions[:-1]), r"holds \d+ questions for \d+ rounds"
    ),
    "revision_one_more_than_the_plays": Corruption(
        lambda s: replace(s, revision=s.revision + 1), REVISION_DOES_NOT_FOLLOW
    ),
    **_unreachable_revisions(),
}


def _seat_0_rows(state: Any, rows_of: Callable[[list[int]], tuple[tuple[int, ...], ...]]) -> Any:
    """The state with the cards seat 0 placed (in its display or discard pile), ascending, laid
    out as ``rows_of`` gives them in its display: every count still adds up."""
    cards = sorted((*(card for row in state.displays[0] for card in row), *state.discards[0]))
    return replace(
        state,
        displays=(rows_of(cards), *state.displays[1:]),
        discards=((), *state.discards[1:]),
        abandoned=(0, *state.abandoned[1:]),
    )


def _seat_1_card_in_seat_0_hand(state: Any) -> Any:
    first, *rest = state.hands[1]
    return replace(
        state, hands=(tuple(sorted((*state.hands[0], first))), tuple(rest), *state.hands[2:])
    )


UP_OR_DOWN: dict[str, Corruption] = {
    "card_in_two_places": Corruption(
        lambda s: replace(s, face_down=(s.circle[0], *s.face_down[1:])), CARDS_DO_NOT_ADD_UP
    ),
    # Every place holds as many cards as the turns played say: a card taken away from one
    # leaves that count short.
    "card_missing": Corruption(
        lambda s: replace(s, face_down=s.face_down[1:]), "the piles do not hold the cards left"
    ),
    "card_out_of_range": Corruption(
        lambda s: replace(s, face_down=(127, *s.face_down[1:])), CARDS_DO_NOT_ADD_UP
    ),
    "circle_out_of_order": Corruption(
        lambda s: replace(s, circle=s.circle[::-1]), "the circle holds 6 cards in ascending order"
    ),
    "row_against_its_direction": Corruption(
        lambda s: _seat_0_rows(s, lambda c: ((c[0], c[2], c[1], *c[3:]),)),
        "breaks the direction its second card fixed",
    ),
    "four_rows": Corruption(
        lambda s: _seat_0_rows(s, lambda c: (*((card,) for card in c[:3]), tuple(c[3:]))),
        "display has more than 3 rows",
    ),
    "hand_too_large": Corruption(_seat_1_card_in_seat_0_hand, r"seat 1 holds \d+ cards, not \d+"),
    "revision_ahead_of_turns": Corruption(
        lambda s: replace(s, revision=s.revision + 1),
        r"display and discard pile hold \d+ cards after its \d+ turns",
    ),
    "abandoned_rows_without_discards": Corruption(
        lambda s: replace(s, abandoned=(len(s.discards[0]) + 1, *s.abandoned[1:])),
        "abandoned rows do not match its discards",
    ),
    "wrong_seat_count_of_discards": Corruption(
        lambda s: replace(s, discards=s.discards[1:]), "one entry per seat"
    ),
}


#: Every game's corruptions, by game id.
CORRUPTIONS: dict[str, dict[str, Corruption]] = {
    "six_nimmt": SIX_NIMMT,
    "sequence_numbers": SEQUENCE_NUMBERS,
    "up_or_down": UP_OR_DOWN,
    "fora_de_ordem": FORA_DE_ORDEM,
}
