"""The rules of 6 nimmt! (docs/rules/six_nimmt.md): value types, the deal, the turn (Rules 1–4),
the end of a hand and of the game, the check.

Every function here is pure; ``engines.six_nimmt.engine`` wraps them in the engine protocol.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from functools import cache
from typing import TypeVar

from engines.base import Event, slot_init
from engines.errors import IllegalActionError, InvalidOptionsError
from engines.notation import row_text, seat_text
from engines.prng import Rng
from engines.six_nimmt.data import BULLHEADS, HIGHEST_CARD, ZERO_CARD, card_text

T = TypeVar("T")

RULES_VERSION = 1
GAME_ID = "six_nimmt"
MIN_SEATS, MAX_SEATS = 2, 10
MAX_HAND_NUMBER = 2**32 - 1  # hand numbers are 32-bit: a state at the last one deals no more
HAND_SIZE = 10  # cards dealt to each seat; a hand lasts this many turns
ROW_COUNT = 4  # rows on the table, each started by one card
ROW_LIMIT = 5  # Rule 3: the 6th card takes the row
NO_SELECTION = -1  # a seat that has not selected this turn
DEFAULT_THRESHOLD = 66
MAX_THRESHOLD = 1000
MAX_HANDS = 100


class TooLowRule(Enum):
    """What happens to a card lower than the last card of every row (Rule 4)."""

    CHOOSE_ROW = "CHOOSE_ROW"
    TAKE_CHEAPEST_ROW = "TAKE_CHEAPEST_ROW"


class EndRule(Enum):
    """When the game ends."""

    PENALTY_THRESHOLD = "PENALTY_THRESHOLD"
    FIXED_HANDS = "FIXED_HANDS"


@dataclass(frozen=True, slots=True)
class Options:
    """The variant settings of a game."""

    too_low_rule: TooLowRule = TooLowRule.CHOOSE_ROW
    end: EndRule = EndRule.PENALTY_THRESHOLD
    threshold: int = DEFAULT_THRESHOLD  # with PENALTY_THRESHOLD
    hands: int = 1  # with FIXED_HANDS
    tactical_deck: bool = False  # only cards 1..(10 × seats + 4)
    zero_card: bool = False


@dataclass(frozen=True, slots=True)
class Select:
    """Select a card from hand for this turn (``ZERO_CARD`` for the zero card)."""

    card: int

    def __str__(self) -> str:
        return f"select {card_text(self.card)}"


@dataclass(frozen=True, slots=True)
class ChooseRow:
    """Rule 4: take the row with this index while a row choice is pending."""

    row: int

    def __str__(self) -> str:
        return f"take {row_text(self.row)}"


Action = Select | ChooseRow

# Every action, built once: legal_actions hands these out instead of new objects.
SELECTS: tuple[Select, ...] = tuple(Select(card) for card in range(HIGHEST_CARD + 1))
CHOOSE_ROWS: tuple[ChooseRow, ...] = tuple(ChooseRow(row) for row in range(ROW_COUNT))


@slot_init  # built on every action
@dataclass(frozen=True, slots=True)
class State:
    """The whole state of a game; ``hands``, unrevealed ``selections``, ``deck`` and ``rng_state``
    are hidden."""

    rules_version: int
    revision: int
    options: Options
    rows: tuple[tuple[int, ...], ...]
    hands: tuple[tuple[int, ...], ...]  # hidden: each ascending
    selections: tuple[int, ...]  # hidden until revealed; NO_SELECTION or a card
    revealed: bool
    placed: int  # revealed number cards already placed, in ascending order
    penalties: tuple[int, ...]  # totals over the game
    taken: tuple[tuple[int, ...], ...]  # cards taken this hand, each ascending
    zero_card_used_in_hand: tuple[int, ...]  # 0 while unused
    hand_number: int
    turn: int  # turns completed in this hand
    deck: tuple[int, ...]  # hidden: undealt cards of this hand
    discarded: tuple[int, ...]  # cards left in hand at the end of the last hand
    rng_state: int  # hidden


@dataclass(frozen=True, slots=True)
class View:
    """What one viewer sees: no other seat's hand or selection, no deck, no generator."""

    options: Options
    rows: tuple[tuple[int, ...], ...]
    hand: tuple[int, ...]
    selected: tuple[bool, ...]
    revealed: tuple[int, ...]  # NO_SELECTION before the reveal
    own_selection: int
    penalties: tuple[int, ...]
    taken: tuple[tuple[int, ...], ...]
    zero_card_available: tuple[bool, ...]
    hand_number: int
    turn: int
    hand_sizes: tuple[int, ...]  # the zero card counts while its seat holds it


# Events, each public unless addressed to one seat.
@dataclass(frozen=True, slots=True)
class CardSelected:
    """A seat selected its card; ``card`` is NO_SELECTION in the public event."""

    seat: int
    card: int


@dataclass(frozen=True, slots=True)
class CardsRevealed:
    """Every seat's selection of the turn, revealed."""

    cards: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class CardPlaced:
    """A card went to the end of a row."""

    seat: int
    card: int
    row: int


@dataclass(frozen=True, slots=True)
class RowTaken:
    """A seat took a row's cards and their bullheads."""

    seat: int
    row: int
    cards: tuple[int, ...]
    bullheads: int


@dataclass(frozen=True, slots=True)
class RowChoiceRequired:
    """Rule 4: a seat must choose the row its card replaces."""

    seat: int
    card: int


@dataclass(frozen=True, slots=True)
class HandEnded:
    """A hand ended with these totals."""

    hand_number: int
    penalties: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class HandDealt:
    """A new hand was dealt; ``rows`` are the four starting cards."""

    hand_number: int
    rows: tuple[int, ...]


# Events are values: the few that recur, turn after turn, are built once and shared.
@cache
def _selected_events(seat: int, card: int) -> tuple[Event, Event]:
    """A seat's selection: the public event, which hides the card, then the one only that seat
    sees."""
    return Event(CardSelected(seat, NO_SELECTION)), Event(CardSelected(seat, card), (seat,))


@cache
def _placed_event(seat: int, card: int, row: int) -> Event:
    """A card placed at the end of a row."""
    return Event(CardPlaced(seat, card, row))


def highest_card(options: Options, seats: int) -> int:
    """The highest card in play: 104, or 10 × seats + 4 with the tactical deck."""
    return HAND_SIZE * seats + ROW_COUNT if options.tactical_deck else HIGHEST_CARD


def card_set(options: Options, seats: int) -> tuple[int, ...]:
    """The cards in play: 1..104, or 1..(10 × seats + 4) with the tactical deck."""
    return tuple(range(1, highest_card(options, seats) + 1))


def row_bullheads(row: tuple[int, ...]) -> int:
    """The bullheads of a row's cards."""
    return sum(map(BULLHEADS.__getitem__, row))


def target_row(rows: Sequence[tuple[int, ...]], card: int) -> int | None:
    """Rules 1–2: the row whose last card is closest below ``card``; None if every row is
    higher (Rule 4)."""
    best, best_end = None, 0
    for index, row in enumerate(rows):
        end = row[-1]
        if best_end < end < card:
            best, best_end = index, end
    return best


def cheapest_row(rows: Sequence[tuple[int, ...]]) -> int:
    """TAKE_CHEAPEST_ROW: fewest bullheads, then fewest cards, then the lowest index."""
    return min(range(len(rows)), key=lambda i: (row_bullheads(rows[i]), len(rows[i]), i))


def check_options(options: Options) -> None:
    if not 1 <= options.threshold <= MAX_THRESHOLD:
        raise InvalidOptionsError(
            f"threshold must be 1..{MAX_THRESHOLD}, not {options.threshold}", option="threshold"
        )
    if not 1 <= options.hands <= MAX_HANDS:
        raise InvalidOptionsError(
            f"hands must be 1..{MAX_HANDS}, not {options.hands}", option="hands"
        )


def deal(
    options: Options, seats: int, rng: Rng
) -> tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...], tuple[int, ...]]:
    """Shuffle the card set, deal 10 cards to each seat, then 4 cards to start the rows."""
    cards = rng.shuffle(card_set(options, seats))
    hands = tuple(
        tuple(sorted(cards[seat * HAND_SIZE : (seat + 1) * HAND_SIZE])) for seat in range(seats)
    )
    dealt = seats * HAND_SIZE
    rows = tuple((card,) for card in cards[dealt : dealt + ROW_COUNT])
    return rows, hands, cards[dealt + ROW_COUNT :]


def reveal_order(selections: tuple[int, ...]) -> list[tuple[int, int]]:
    """The revealed number cards as (card, seat), ascending: the order of placement."""
    order = [(card, seat) for seat, card in enumerate(selections) if card > ZERO_CARD]
    order.sort()
    return order


def select(state: State, seat: int, card: int) -> tuple[State, tuple[Event, ...]]:
    if state.revealed:
        raise IllegalActionError("a row choice is pending: choose a row", "ROW_CHOICE_PENDING")
    hand = state.hands[seat]
    if card == ZERO_CARD:
        if not state.options.zero_card:
            raise IllegalActionError("this game has no zero card", "ZERO_CARD_NOT_IN_GAME")
        if state.zero_card_used_in_hand[seat]:
            raise IllegalActionError("the zero card was already played", "ZERO_CARD_USED")
    elif card in hand:
        at = hand.index(card)
        hand = hand[:at] + hand[at + 1 :]
    else:
        raise IllegalActionError(
            f"card {card} is not in {seat_text(seat)}'s hand", "CARD_NOT_IN_HAND"
        )
    hands = _replace_at(state.hands, seat, hand)
    selections = _replace_at(state.selections, seat, card)
    selected = _selected_events(seat, card)
    if NO_SELECTION in selections:
        waiting = State(
            rules_version=state.rules_version,
            revision=state.revision + 1,
            options=state.options,
            rows=state.rows,
            hands=hands,
            selections=selections,
            revealed=False,
            placed=0,
            penalties=state.penalties,
            taken=state.taken,
            zero_card_used_in_hand=state.zero_card_used_in_hand,
            hand_number=state.hand_number,
            turn=state.turn,
            deck=state.deck,
            discarded=state.discarded,
            rng_state=state.rng_state,
        )
        return waiting, selected
    # The last seat selected: reveal every card (a zero card is used from now on), then place
    # them.
    zero_used = state.zero_card_used_in_hand
    if ZERO_CARD in selections:
        zero_used = tuple(
            state.hand_number if card == ZERO_CARD else used
            for card, used in zip(selections, zero_used, strict=True)
        )
    events = [*selected, Event(CardsRevealed(selections))]
    return resolve(state, hands, selections, zero_used, 0, events, None)


def resolve(
    state: State,
    hands: tuple[tuple[int, ...], ...],
    selections: tuple[int, ...],
    zero_used: tuple[int, ...],
    placed: int,
    events: list[Event],
    chosen_row: int | None,
) -> tuple[State, tuple[Event, ...]]:
    """Place the revealed cards from the ``placed``-th on, in ascending order (Rules 1–4); the
    hands, selections and zero cards used are those of the turn being resolved."""
    rows = list(state.rows)
    penalties, taken = state.penalties, state.taken
    order = reveal_order(selections)
    for index in range(placed, len(order)):
        card, seat = order[index]
        row = target_row(rows, card)
        if row is None:  # Rule 4: lower than every row
            if chosen_row is not None:
                row, chosen_row = chosen_row, None
            elif state.options.too_low_rule is TooLowRule.TAKE_CHEAPEST_ROW:
                row = cheapest_row(rows)
            else:
                events.append(Event(RowChoiceRequired(seat, card)))
                pending = State(
                    rules_version=state.rules_version,
                    revision=state.revision + 1,
                    options=state.options,
                    rows=tuple(rows),
                    hands=hands,
                    selections=selections,
                    revealed=True,
                    placed=index,
                    penalties=penalties,
                    taken=taken,
                    zero_card_used_in_hand=zero_used,
                    hand_number=state.hand_number,
                    turn=state.turn,
                    deck=state.deck,
                    discarded=state.discarded,
                    rng_state=state.rng_state,
                )
                return pending, tuple(events)
            takes = True
        else:
            takes = len(rows[row]) == ROW_LIMIT  # Rule 3: the 6th card takes the row
        if takes:
            cards = rows[row]
            bullheads = row_bullheads(cards)
            penalties = _replace_at(penalties, seat, penalties[seat] + bullheads)
            taken = _replace_at(taken, seat, tuple(sorted(taken[seat] + cards)))
            events.append(Event(RowTaken(seat, row, cards, bullheads)))
            rows[row] = (card,)
        else:
            rows[row] += (card,)
        events.append(_placed_event(seat, card, row))
    return _end_turn(state, hands, zero_used, tuple(rows), penalties, taken, events)


def _end_turn(
    state: State,
    hands: tuple[tuple[int, ...], ...],
    zero_used: tuple[int, ...],
    rows: tuple[tuple[int, ...], ...],
    penalties: tuple[int, ...],
    taken: tuple[tuple[int, ...], ...],
    events: list[Event],
) -> tuple[State, tuple[Event, ...]]:
    """Every revealed card is placed: the next turn, the next hand, or the end of the game."""
    seats = len(hands)
    options = state.options
    deck, discarded, rng_state = state.deck, state.discarded, state.rng_state
    hand_number, turns_done = state.hand_number, state.turn + 1
    if turns_done == HAND_SIZE:
        # End of hand: a number card left by a zero-card seat is discarded without penalty.
        events.append(Event(HandEnded(hand_number, penalties)))
        if options.end is EndRule.PENALTY_THRESHOLD:
            over = max(penalties) >= options.threshold
        else:
            over = hand_number >= options.hands
        if over:
            discarded = tuple(sorted(card for hand in hands for card in hand))
            hands = ((),) * seats
        else:
            rng = Rng(rng_state)
            rows, hands, deck = deal(options, seats, rng)
            rng_state = rng.state
            hand_number += 1
            turns_done = 0
            taken = ((),) * seats
            discarded = ()
            events.append(Event(HandDealt(hand_number, tuple(row[0] for row in rows))))
    new = State(
        rules_version=state.rules_version,
        revision=state.revision + 1,
        options=options,
        rows=rows,
        hands=hands,
        selections=(NO_SELECTION,) * seats,
        revealed=False,
        placed=0,
        penalties=penalties,
        taken=taken,
        zero_card_used_in_hand=zero_used,
        hand_number=hand_number,
        turn=turns_done,
        deck=deck,
        discarded=discarded,
        rng_state=rng_state,
    )
    return new, tuple(events)


def holds_zero_card(state: State, seat: int) -> bool:
    """Whether the seat still holds its zero card: neither played in an earlier turn nor
    selected in this one, in a game that is not over."""
    return (
        state.options.zero_card
        and state.turn < HAND_SIZE
        and state.zero_card_used_in_hand[seat] == 0
        and state.selections[seat] != ZERO_CARD
    )


def _replace_at(items: tuple[T, ...], index: int, value: T) -> tuple[T, ...]:
    changed = list(items)
    changed[index] = value
    return tuple(changed)
