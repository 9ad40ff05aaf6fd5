"""The rules of Up or Down? (docs/rules/up_or_down.md): value types, the deal, the turn, scoring,
scoring (the
check of a state sent back is ``engines.up_or_down.check``).

Every function here is pure; ``engines.up_or_down.engine`` wraps them in the engine protocol.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass
from enum import Enum
from typing import TypeVar

from engines.base import Event
from engines.errors import IllegalActionError
from engines.notation import field_text, row_text, seat_text
from engines.prng import Rng
from engines.up_or_down.data import (
    BLOCK,
    CARD_COLOURS,
    COLOUR_INDEX,
    HIGHEST_CARD,
    LONG_HIGHEST,
    SHORT_HIGHEST,
    Colour,
    Length,
)

T = TypeVar("T")

RULES_VERSION = 1
GAME_ID = "up_or_down"
MIN_SEATS, MAX_SEATS = 2, 6
HAND_SIZE = 3  # cards dealt to each seat; a turn's draw refills the hand while the piles last
CIRCLE_SIZE = 6  # cards revealed into the circle; a turn adds one and takes one
MAX_ROWS = 3  # rows in a display
NO_CARD = 0  # no card shown: an empty face-up pile, or a face-down draw in a public event
BEYOND_ANY_CARD = HIGHEST_CARD + 1  # a bound above every card: a rising row accepts up to it


class Neighbour(Enum):
    """Which card next to the played card is taken, going around the circle.

    Rule 1: a card lower than the lowest or higher than the highest sits between the highest and
    the lowest, so in either case ``LOWER`` takes the highest card and ``HIGHER`` the lowest.
    """

    LOWER = "LOWER"  # the next lower card, or the highest when the played card went past an end
    HIGHER = "HIGHER"  # the next higher card, or the lowest when the played card went past an end


class Placement(Enum):
    """Where the taken card goes in the display."""

    EXTEND = "EXTEND"  # at the end of an existing row, continuing its direction
    NEW_ROW = "NEW_ROW"  # as the first card of a new row (only with fewer than 3 rows)
    ABANDON = "ABANDON"  # the row goes to the discard pile; the card restarts it in its place


#: How a turn's text names its placement: ``extend row 1``, ``start row 2``, ``abandon row 1``.
PLACEMENT_VERBS = {
    Placement.EXTEND: "extend",
    Placement.NEW_ROW: "start",
    Placement.ABANDON: "abandon",
}


class Draw(Enum):
    """Which pile the turn draws from."""

    FACE_UP = "FACE_UP"
    FACE_DOWN = "FACE_DOWN"
    NONE = "NONE"  # only when both piles are empty


class DiscardScoring(Enum):
    """Option ``discard_scoring``: what the discard pile scores."""

    PER_CARD = "PER_CARD"  # 1 point per discarded card (the seed)
    PER_ROW = "PER_ROW"  # 1 point per abandoned row (the reading of one rules summary)


@dataclass(frozen=True, slots=True)
class Options:
    """The variant settings of a game."""

    length: Length = Length.SHORT
    discard_scoring: DiscardScoring = DiscardScoring.PER_CARD


@dataclass(frozen=True, slots=True)
class Turn:
    """One whole turn: play ``card`` into the circle, take a neighbour, place it, draw.

    ``row`` is the row extended, abandoned (and restarted) or started; a new row's index is the
    number of rows the display had.
    """

    card: int
    take: Neighbour
    placement: Placement
    row: int
    draw: Draw

    def __str__(self) -> str:
        return (
            f"play {self.card}, take {self.take.value.lower()}, "
            f"{PLACEMENT_VERBS[self.placement]} {row_text(self.row)}, "
            f"draw {self.draw.value.lower().replace('_', '-')}"
        )


Action = Turn  # one action is one whole turn


Row = tuple[int, ...]  # cards in the order placed
Display = tuple[Row, ...]


@dataclass(frozen=True, slots=True)
class State:
    """The whole state of a game; ``hands``, ``discards``, ``face_down``, ``face_up`` below its
    top and ``rng_state`` are hidden.

    One action is one whole turn, so ``revision`` is also the number of turns played and seat
    ``revision % seats`` is to act.
    """

    rules_version: int
    revision: int
    options: Options
    circle: tuple[int, ...]  # ascending; wraps from the highest card to the lowest
    hands: tuple[tuple[int, ...], ...]  # hidden: each ascending
    displays: tuple[Display, ...]  # per seat: up to 3 rows
    discards: tuple[tuple[int, ...], ...]  # hidden faces: each seat's discard pile, ascending
    abandoned: tuple[int, ...]  # per seat: rows abandoned so far
    face_down: tuple[int, ...]  # hidden: top card first
    face_up: tuple[int, ...]  # top card first; only the top is visible
    rng_state: int  # hidden


@dataclass(frozen=True, slots=True)
class View:
    """What one viewer sees: no other seat's hand, no discarded face, no pile order below the
    face-up top, no generator."""

    options: Options
    circle: tuple[int, ...]
    hand: tuple[int, ...]  # the viewer's own hand; empty for a spectator
    hand_sizes: tuple[int, ...]
    displays: tuple[Display, ...]
    discard_sizes: tuple[int, ...]
    abandoned: tuple[int, ...]
    face_down_size: int
    face_up_size: int
    face_up_top: int  # NO_CARD when the face-up pile is empty
    card_colours: tuple[Colour, ...]  # the colour of card c is entry c - 1, for the cards in play
    scores: tuple[int, ...]  # what each seat would score if the game ended now


# Events, each public unless addressed to one seat.
@dataclass(frozen=True, slots=True)
class TurnPlayed:
    """A seat's whole turn; ``drawn`` is NO_CARD for a face-down draw or no draw."""

    seat: int
    card: int
    taken: int
    placement: Placement
    row: int
    discarded: int  # cards the abandoned row sent to the discard pile (0 unless ABANDON)
    draw: Draw
    drawn: int
    face_up_top: int  # the face-up pile's top card after the turn, NO_CARD when empty


@dataclass(frozen=True, slots=True)
class CardDrawn:
    """The card a seat drew from the face-down pile, addressed to that seat alone."""

    seat: int
    card: int


@dataclass(frozen=True, slots=True)
class GameScored:
    """Every hand is empty: the final scores."""

    scores: tuple[int, ...]


# A face-down draw is an event for the drawing seat alone, one of a few hundred values: each is
# built once and shared, as most turns end with one.
PRIVATE_DRAWS: tuple[tuple[Event, ...], ...] = tuple(
    tuple(Event(CardDrawn(seat, card), (seat,)) for card in range(HIGHEST_CARD + 1))
    for seat in range(MAX_SEATS)
)


# Which piles a turn may draw from: both, one of them, or none when both are empty.
DRAW_CHOICES: tuple[tuple[Draw, ...], ...] = (
    (Draw.FACE_UP, Draw.FACE_DOWN),
    (Draw.FACE_UP,),
    (Draw.FACE_DOWN,),
    (Draw.NONE,),
)
BOTH_PILES, ONLY_FACE_UP, ONLY_FACE_DOWN, NO_DRAW = range(len(DRAW_CHOICES))


TurnTable = tuple[tuple[tuple[tuple[tuple[Turn, ...], ...], ...], ...], ...]


def _turns(card: int, take: Neighbour, placement: Placement, rows: range) -> tuple[Turn, ...]:
    """The turns with these parts, by row, then by pile."""
    return tuple(Turn(card, take, placement, row, draw) for row in rows for draw in Draw)


def _turn_tables() -> tuple[TurnTable, TurnTable]:
    """Every possible turn, built once, so that listing legal actions allocates no action.

    ``EXTENDS[card][take][row][choice]`` holds the turns extending that row, one per pile of the
    draw choice; ``TAILS[card][take][rows][choice]`` holds, for a display of that many rows, the
    turn starting a new row (while fewer than 3) followed by the turns abandoning each row.
    """

    def by_choice(turns: tuple[Turn, ...]) -> tuple[tuple[Turn, ...], ...]:
        return tuple(tuple(t for t in turns if t.draw in choice) for choice in DRAW_CHOICES)

    extends = tuple(
        tuple(
            tuple(
                by_choice(_turns(card, take, Placement.EXTEND, range(row, row + 1)))
                for row in range(MAX_ROWS)
            )
            for take in Neighbour
        )
        for card in range(HIGHEST_CARD + 1)
    )
    tails = tuple(
        tuple(
            tuple(
                by_choice(
                    _turns(card, take, Placement.NEW_ROW, range(rows, min(rows + 1, MAX_ROWS)))
                    + _turns(card, take, Placement.ABANDON, range(rows))
                )
                for rows in range(MAX_ROWS + 1)
            )
            for take in Neighbour
        )
        for card in range(HIGHEST_CARD + 1)
    )
    return extends, tails


EXTENDS, TAILS = _turn_tables()


#: The colours of cards 1..highest, for every card set a game can play with.
COLOURS_IN_PLAY: dict[int, tuple[Colour, ...]] = {
    highest: tuple(colour for colour in CARD_COLOURS[1 : highest + 1] if colour is not None)
    for highest in {*SHORT_HIGHEST, *LONG_HIGHEST} - {0}
}


def highest_card(options: Options, seats: int) -> int:
    """The highest card in play: the card set is 1..highest (option ``length``)."""
    return (SHORT_HIGHEST if options.length is Length.SHORT else LONG_HIGHEST)[seats]


def total_turns(options: Options, seats: int) -> int:
    """Turns in a whole game: every card but the final circle ends in a display or discard."""
    return highest_card(options, seats) - CIRCLE_SIZE


def initial_pile_cards(options: Options, seats: int) -> int:
    """Cards in the two piles after the deal."""
    return highest_card(options, seats) - HAND_SIZE * seats - CIRCLE_SIZE


def neighbours(circle: tuple[int, ...], card: int) -> tuple[int, int]:
    """The cards next lower and next higher around the circle for a card played into it.

    A card lower than the lowest or higher than the highest goes between the highest and the
    lowest: its lower neighbour is then the highest card and its higher neighbour the lowest.
    """
    index = bisect_left(circle, card)
    return circle[index - 1], circle[index % len(circle)]


def accepts(row: Row, card: int) -> bool:
    """Whether a row can be extended by ``card``: a row of one card accepts any card; a longer
    row only a card that continues the direction its second card fixed."""
    if len(row) == 1:
        return True
    return (card > row[-1]) == (row[1] > row[0])


def colour_counts(row: Row) -> list[int]:
    """How many cards of each colour the row holds, by ``COLOUR_INDEX``."""
    counts = [0] * BLOCK
    for card in row:
        counts[COLOUR_INDEX[card]] += 1
    return counts


def row_score(row: Row) -> int:
    """The cards in the row times the cards of its most common colour."""
    return len(row) * max(colour_counts(row))


def seat_score(display: Display, discard: tuple[int, ...], abandoned: int, options: Options) -> int:
    """A seat's score: every row, plus the discard pile per option ``discard_scoring``."""
    rows = sum(row_score(row) for row in display)
    if options.discard_scoring is DiscardScoring.PER_ROW:
        return rows + abandoned
    return rows + len(discard)


def scores(state: State) -> tuple[int, ...]:
    """Every seat's score as the table stands."""
    options = state.options
    return tuple(
        seat_score(display, discard, abandoned, options)
        for display, discard, abandoned in zip(
            state.displays, state.discards, state.abandoned, strict=True
        )
    )


def is_finished(state: State) -> bool:
    """Whether the game is over: every hand is empty, which happens only after both piles ran
    out (a turn draws while a pile has cards)."""
    return not any(state.hands)


def deal(seats: int, rng: Rng, options: Options) -> State:
    """Shuffle the card set, deal 3 cards to each seat, reveal 6 into the circle, and split the
    rest into the face-down pile (the larger half) and the face-up pile."""
    cards = rng.shuffle(range(1, highest_card(options, seats) + 1))
    hands = tuple(
        tuple(sorted(cards[seat * HAND_SIZE : (seat + 1) * HAND_SIZE])) for seat in range(seats)
    )
    dealt = HAND_SIZE * seats
    circle = tuple(sorted(cards[dealt : dealt + CIRCLE_SIZE]))
    rest = cards[dealt + CIRCLE_SIZE :]
    face_down_count = (len(rest) + 1) // 2  # the larger half
    return State(
        rules_version=RULES_VERSION,
        revision=0,
        options=options,
        circle=circle,
        hands=hands,
        displays=((),) * seats,
        discards=((),) * seats,
        abandoned=(0,) * seats,
        face_down=rest[:face_down_count],
        face_up=rest[face_down_count:],
        rng_state=rng.state,
    )


def legal_turns(state: State, seat: int) -> tuple[Turn, ...]:
    """Every legal turn of the seat to act: by card, neighbour, placement, row, then pile."""
    if state.face_up:
        choice = BOTH_PILES if state.face_down else ONLY_FACE_UP
    else:
        choice = ONLY_FACE_DOWN if state.face_down else NO_DRAW
    rows = state.displays[seat]
    # Each row accepts the cards strictly between two bounds: a row of one card any card, a
    # rising row a card above its last, a falling row a card below its last.
    bounds = [
        (r, NO_CARD, BEYOND_ANY_CARD)
        if len(row) == 1
        else (r, row[-1], BEYOND_ANY_CARD)
        if row[1] > row[0]
        else (r, NO_CARD, row[-1])
        for r, row in enumerate(rows)
    ]
    row_count = len(rows)
    circle = state.circle
    turns: list[Turn] = []
    add = turns.extend
    for card in state.hands[seat]:
        lower, higher = neighbours(circle, card)
        by_take = EXTENDS[card]
        tails = TAILS[card]
        for take, taken in ((0, lower), (1, higher)):
            extends = by_take[take]
            for r, low, high in bounds:
                if low < taken < high:
                    add(extends[r][choice])
            add(tails[take][row_count][choice])
    return tuple(turns)


def play(state: State, seat: int, turn: Turn) -> tuple[State, tuple[Event, ...]]:
    """Apply the seat's whole turn, checking every part; raises ``IllegalActionError``."""
    if not isinstance(turn, Turn):
        raise IllegalActionError(f"not an Up or Down? action: {turn!r}", "MALFORMED_ACTION")
    card = turn.card
    hand = state.hands[seat]
    if card not in hand:
        raise IllegalActionError(
            f"card {card} is not in {seat_text(seat)}'s hand", "CARD_NOT_IN_HAND"
        )
    # 1. The card goes into the circle at its place; 2. a neighbour is taken.
    lower, higher = neighbours(state.circle, card)
    if turn.take is Neighbour.LOWER:
        taken = lower
    elif turn.take is Neighbour.HIGHER:
        taken = higher
    else:
        raise IllegalActionError("take the lower or the higher neighbour", "MALFORMED_ACTION")
    new_circle = sorted((*(c for c in state.circle if c != taken), card))
    # 3. The taken card goes into the display; 4. a card is drawn.
    rows, discarded = _place(state.displays[seat], taken, turn, seat)
    drawn, face_down, face_up = _draw(state, turn.draw)
    new_hand = [c for c in hand if c != card]
    if drawn != NO_CARD:
        new_hand.append(drawn)
        new_hand.sort()
    discards, abandoned = state.discards, state.abandoned
    if discarded:
        discards = _replace_at(discards, seat, tuple(sorted(discards[seat] + discarded)))
        abandoned = _replace_at(abandoned, seat, abandoned[seat] + 1)
    new_state = State(
        state.rules_version,
        state.revision + 1,
        state.options,
        tuple(new_circle),
        _replace_at(state.hands, seat, tuple(new_hand)),
        _replace_at(state.displays, seat, rows),
        discards,
        abandoned,
        face_down,
        face_up,
        state.rng_state,
    )
    face_down_draw = turn.draw is Draw.FACE_DOWN
    played = TurnPlayed(
        seat,
        card,
        taken,
        turn.placement,
        turn.row,
        len(discarded),
        turn.draw,
        NO_CARD if face_down_draw else drawn,
        face_up[0] if face_up else NO_CARD,
    )
    if face_down_draw:
        events: tuple[Event, ...] = (Event(played), PRIVATE_DRAWS[seat][drawn])
    else:
        events = (Event(played),)
    if is_finished(new_state):
        events = (*events, Event(GameScored(scores(new_state))))
    return new_state, events


def _place(rows: Display, taken: int, turn: Turn, seat: int) -> tuple[Display, Row]:
    """Step 3: the display after the taken card is placed, and the cards it discarded."""
    r = turn.row
    placement = turn.placement
    if placement is Placement.EXTEND:
        if not 0 <= r < len(rows):
            raise IllegalActionError(_no_row(seat, r, rows), "NO_SUCH_ROW")
        if not accepts(rows[r], taken):
            raise IllegalActionError(
                f"card {taken} does not continue the direction of {row_text(r)}",
                "BREAKS_DIRECTION",
            )
        return _replace_at(rows, r, (*rows[r], taken)), ()
    if placement is Placement.NEW_ROW:
        if len(rows) >= MAX_ROWS:
            raise IllegalActionError(
                f"a display holds at most {MAX_ROWS} rows: extend or abandon one", "TOO_MANY_ROWS"
            )
        if r != len(rows):
            raise IllegalActionError(
                f"a new row is {row_text(len(rows))}, {field_text('row', len(rows))} on the wire, "
                f"not {field_text('row', r)}",
                "NEW_ROW_INDEX_MISMATCH",
            )
        return (*rows, (taken,)), ()
    if placement is Placement.ABANDON:
        if not 0 <= r < len(rows):
            raise IllegalActionError(_no_row(seat, r, rows), "NO_SUCH_ROW")
        # The row goes face down to the discard pile; the taken card restarts it.
        return _replace_at(rows, r, (taken,)), rows[r]
    raise IllegalActionError("place the card: extend, new row or abandon", "MALFORMED_ACTION")


def _draw(state: State, draw: Draw) -> tuple[int, tuple[int, ...], tuple[int, ...]]:
    """Step 4: the card drawn (NO_CARD for none) and the face-down and face-up piles after."""
    face_down, face_up = state.face_down, state.face_up
    if draw is Draw.FACE_UP:
        if not face_up:
            raise IllegalActionError("the face-up pile is empty", "PILE_EMPTY")
        return face_up[0], face_down, face_up[1:]
    if draw is Draw.FACE_DOWN:
        if not face_down:
            raise IllegalActionError("the face-down pile is empty", "PILE_EMPTY")
        return face_down[0], face_down[1:], face_up
    if draw is Draw.NONE:
        if face_up or face_down:
            raise IllegalActionError("a pile still has cards: draw one", "MUST_DRAW")
        return NO_CARD, face_down, face_up
    raise IllegalActionError("choose a pile to draw from", "MALFORMED_ACTION")


def _no_row(seat: int, row: int, rows: Display) -> str:
    """The message of a turn whose ``row`` names no row of the seat's display."""
    count = "1 row" if len(rows) == 1 else f"{len(rows)} rows"
    return f"{field_text('row', row)} names no row: {seat_text(seat)}'s display has {count}"


def _replace_at(items: tuple[T, ...], index: int, value: T) -> tuple[T, ...]:
    return (*items[:index], value, *items[index + 1 :])
