"""The check of a 6 nimmt! state sent back (docs/rules/six_nimmt.md): every state the rules could
not have produced is refused, in time linear in its size, one part of the state after another."""

from __future__ import annotations

from functools import cache
from itertools import chain
from operator import lt

from engines.errors import InvalidOptionsError, InvalidStateError
from engines.notation import seat_text
from engines.prng import MASK64
from engines.six_nimmt.data import BULLHEADS, ZERO_CARD
from engines.six_nimmt.rules import (
    HAND_SIZE,
    MAX_HAND_NUMBER,
    MAX_SEATS,
    MIN_SEATS,
    NO_SELECTION,
    ROW_COUNT,
    ROW_LIMIT,
    EndRule,
    State,
    TooLowRule,
    check_options,
    highest_card,
    reveal_order,
    target_row,
)


def validate(state: State) -> None:
    """Reject any state the rules could not have produced (linear in its size)."""
    _check_shape(state)
    _check_seats(state)
    in_flight = _in_flight(state)
    _check_cards(state, in_flight)
    earlier = _check_totals(state)
    _check_end(state)
    _check_rows_taken(state, earlier)
    _check_revision(state)


def _check_shape(state: State) -> None:
    """The seats, one entry per seat in each list, the options, the generator, the hand and
    turn, the rows."""
    seats = len(state.hands)
    if not MIN_SEATS <= seats <= MAX_SEATS:
        raise InvalidStateError(f"a game has {MIN_SEATS}..{MAX_SEATS} seats, not {seats}")
    for name, entries in (
        ("selections", state.selections),
        ("penalties", state.penalties),
        ("taken", state.taken),
        ("zero_card_used_in_hand", state.zero_card_used_in_hand),
    ):
        if len(entries) != seats:
            raise InvalidStateError(f"{name} must have one entry per seat ({seats})")
    try:
        check_options(state.options)
    except InvalidOptionsError as error:
        raise InvalidStateError(f"bad options in the state: {error.message}") from None
    if not 0 <= state.rng_state <= MASK64:
        raise InvalidStateError("the generator state is not a 64-bit value")
    if not 1 <= state.hand_number < MAX_HAND_NUMBER or not 0 <= state.turn <= HAND_SIZE:
        raise InvalidStateError("hand number or turn out of range")
    if len(state.rows) != ROW_COUNT:
        raise InvalidStateError(f"there must be {ROW_COUNT} rows")
    for row in state.rows:
        if not 1 <= len(row) <= ROW_LIMIT:
            raise InvalidStateError(f"a row holds 1..{ROW_LIMIT} cards")
        if not _ascending(row):
            raise InvalidStateError("a row's cards must ascend (Rule 1)")
    if state.placed < 0:
        raise InvalidStateError("the count of placed cards is negative")


def _check_seats(state: State) -> None:
    """One pass over the seats: zero card use, selections and hand sizes."""
    hand_number, turn, revealed = state.hand_number, state.turn, state.revealed
    zero = state.options.zero_card
    finished = turn == HAND_SIZE
    for seat, (card, used, hand) in enumerate(
        zip(state.selections, state.zero_card_used_in_hand, state.hands, strict=True)
    ):
        if not 0 <= used <= hand_number or (used and not zero):
            raise InvalidStateError("zero card use out of range")
        # The zero card is recorded as used when it is revealed: a pending one is still unused.
        if card == ZERO_CARD and not (zero and used == (hand_number if revealed else 0)):
            raise InvalidStateError("a zero card selection that the rules do not allow")
        if card < NO_SELECTION:
            raise InvalidStateError("a selection out of range")
        if not _ascending(hand):
            raise InvalidStateError("a hand must be ascending without repeats")
        # Hand sizes follow from the turn: one number card leaves the hand per turn, except the
        # turn in which the seat played its zero card.
        zero_turn_done = used == hand_number and card != ZERO_CARD
        expected = HAND_SIZE - turn - (card > ZERO_CARD) + zero_turn_done
        if not finished and len(hand) != expected:
            raise InvalidStateError(f"{seat_text(seat)} holds {len(hand)} cards, not {expected}")


def _in_flight(state: State) -> list[int]:
    """The cards selected and not yet placed, once the reveal and the selections are known to
    agree with the turn."""
    finished = state.turn == HAND_SIZE
    if state.revealed:
        order = reveal_order(state.selections)
        if NO_SELECTION in state.selections:
            raise InvalidStateError("selections are revealed before every seat selected")
        if not state.placed < len(order):
            raise InvalidStateError("a revealed turn with nothing left to place")
        # Only the lowest card can be lower than every row: each card placed ends a row, and
        # the next card, higher, can follow it.
        if state.placed:
            raise InvalidStateError("a row choice is pending for a card other than the lowest")
        card = order[0][0]
        if (
            state.options.too_low_rule is not TooLowRule.CHOOSE_ROW
            or target_row(state.rows, card) is not None
        ):
            raise InvalidStateError("a turn stopped while no row choice is pending")
        in_flight = [card for card, _ in order]
    else:
        if state.placed:
            raise InvalidStateError("cards are placed before the reveal")
        if not finished and NO_SELECTION not in state.selections:
            raise InvalidStateError("every seat selected but the cards are not revealed")
        in_flight = [card for card in state.selections if card > ZERO_CARD]
    seats = len(state.hands)
    if finished and (state.selections.count(NO_SELECTION) != seats or any(state.hands)):
        raise InvalidStateError("a finished game has no hands or selections")
    return in_flight


def _check_cards(state: State, in_flight: list[int]) -> None:
    """Card conservation: every card of the set is in exactly one place. As many cards as the
    set holds, and each of them: then none is repeated or missing."""
    located = [
        *chain.from_iterable(state.rows),
        *chain.from_iterable(state.hands),
        *chain.from_iterable(state.taken),
        *state.deck,
        *state.discarded,
        *in_flight,
    ]
    highest = highest_card(state.options, len(state.hands))
    if len(located) != highest or set(located) != _cards_up_to(highest):
        raise InvalidStateError("the cards do not add up: a card is missing, repeated or foreign")


def _check_totals(state: State) -> int:
    """The totals, once every taken card is known to be a card of the set. The total at the
    start of this hand: nothing before the first hand, under PENALTY_THRESHOLD below the
    threshold, or the game would have ended after that hand, and at most every bullhead of the
    set in each hand before this one. Returns the bullheads of the hands before this one."""
    options, hand_number = state.options, state.hand_number
    threshold = options.threshold if options.end is EndRule.PENALTY_THRESHOLD else None
    highest = highest_card(options, len(state.hands))
    most_before = (hand_number - 1) * sum(BULLHEADS[1 : highest + 1])
    all_before = 0
    for seat, (total, taken) in enumerate(zip(state.penalties, state.taken, strict=True)):
        if not _ascending(taken):
            raise InvalidStateError(f"{seat_text(seat)}'s taken cards must be ascending")
        before_hand = total - sum(map(BULLHEADS.__getitem__, taken))
        all_before += before_hand
        if before_hand < 0:
            raise InvalidStateError(f"{seat_text(seat)}'s total is below the bullheads it took")
        if before_hand > most_before:
            raise InvalidStateError(
                f"{seat_text(seat)}'s total is more than the bullheads of the hands before this one"
            )
        if threshold is not None and before_hand >= threshold:
            raise InvalidStateError("a hand was dealt after a total reached the threshold")
    return all_before


def _check_end(state: State) -> None:
    """The discards, and the end of the game as its end rule says."""
    options, finished = state.options, state.turn == HAND_SIZE
    threshold = options.threshold if options.end is EndRule.PENALTY_THRESHOLD else None
    if state.discarded and not finished:
        raise InvalidStateError("cards are discarded while the hand goes on")
    if finished:
        if threshold is not None and max(state.penalties) < threshold:
            raise InvalidStateError("the game ended before any total reached the threshold")
        if options.end is EndRule.FIXED_HANDS and state.hand_number != options.hands:
            raise InvalidStateError("the game ended before its last hand")
    elif options.end is EndRule.FIXED_HANDS and state.hand_number > options.hands:
        raise InvalidStateError("more hands than the game has")


def _check_rows_taken(state: State, earlier: int) -> None:
    """Every hand takes a row: its turns place at least 18 number cards (two seats, one zero
    card each), and the rows take 16 before a sixth card or a card lower than every row takes
    one. Every card bears a bullhead or more: the hands before this one gave ``earlier``
    bullheads, at least one each."""
    if earlier < state.hand_number - 1:
        raise InvalidStateError(
            f"the totals hold {earlier} bullheads from {state.hand_number - 1} earlier hands, "
            "each of which took a row"
        )


def _check_revision(state: State) -> None:
    """The revision counts the actions: every seat's selection in each turn, and a row choice
    in at most one of its placements (only the lowest card can be lower than every row)."""
    seats = len(state.hands)
    turns = (state.hand_number - 1) * HAND_SIZE + state.turn
    fewest = turns * seats + seats - state.selections.count(NO_SELECTION)
    choices = turns if state.options.too_low_rule is TooLowRule.CHOOSE_ROW else 0
    if not fewest <= state.revision <= fewest + choices:
        raise InvalidStateError(
            f"the revision {state.revision} does not follow from the turns played: "
            f"{fewest}..{fewest + choices} actions"
        )


@cache
def _cards_up_to(highest: int) -> frozenset[int]:
    """The cards 1..highest, as a set (the card sets of a server's games are few)."""
    return frozenset(range(1, highest + 1))


def _ascending(cards: tuple[int, ...]) -> bool:
    """Whether each card is higher than the one before it (no repeats)."""
    return all(map(lt, cards, cards[1:]))
