"""6 nimmt! (Wolfgang Kramer, Amigo 1994): docs/rules/six_nimmt.md, seed "6 Fuori!".

Kind: 2–10 seats, chance (the deal of each hand), hidden information (hands), simultaneous
moves. Each turn every seat secretly selects a card (``Select``); when the last seat has
selected, the cards are revealed and placed in ascending order by Rules 1–4. A card lower than
every row (Rule 4) makes its seat the only seat to act until it takes a row (``ChooseRow``).

Decisions (docs/rules/six_nimmt.md):
- ``too_low_rule`` TAKE_CHEAPEST_ROW [decision]: the seed's "Ricorda" line as an automatic rule —
  the row with the fewest bullheads, then the fewest cards, then the lowest index.
- Zero card [decision]: with ``zero_card`` each seat holds a 0 card for the whole game and may
  select it once instead of a number card; it is revealed, never placed, and discarded. The hand
  still ends after 10 turns; the number card then left in that seat's hand is discarded without
  penalty. A seat's public hand size counts its zero card while it holds it, as at the table: a
  pending zero card then cannot be told from a number card by the hand sizes.
- ``end`` PENALTY_THRESHOLD (default 66) ends the game after the hand in which a total reaches the
  threshold, never mid-hand; FIXED_HANDS after a number of hands. Winners: every lowest total.
- Every hand re-deals the whole card set from the state's generator. The selections of a turn
  stay in the state while it is resolved (they are public once revealed); ``placed`` counts how
  many of them, in ascending order, are already on the table.

Bots: ``random`` picks any legal action. ``heuristic`` sees only what its seat may see; it selects
the card with the fewest expected bullheads this turn, the others' cards modelled as drawn from
the cards it has not seen (a closed form, no sampling), plus a share of the danger of the row the
card joins; it plays its zero card when even its best card is expected to cost a bullhead, and
under Rule 4 it takes the cheapest row.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum
from functools import cache
from itertools import chain
from math import comb
from operator import lt
from typing import TypeVar

from engines.base import (
    Event,
    GameEngine,
    GameInfo,
    OptionInfo,
    Outcome,
    Viewer,
    slot_init,
)
from engines.errors import (
    IllegalActionError,
    InvalidOptionsError,
    InvalidStateError,
    MalformedActionError,
)
from engines.prng import MASK64, Rng
from engines.search import SearchInfo

T = TypeVar("T")

RULES_VERSION = 1
GAME_ID = "six_nimmt"
MIN_SEATS, MAX_SEATS = 2, 10
HIGHEST_CARD = 104  # cards 1..104
MAX_HAND_NUMBER = 2**32 - 1  # hand numbers are 32-bit: a state at the last one deals no more
HAND_SIZE = 10  # cards dealt to each seat; a hand lasts this many turns
ROW_COUNT = 4  # rows on the table, each started by one card
ROW_LIMIT = 5  # Rule 3: the 6th card takes the row
ZERO_CARD = 0  # the zero-card variant's card
NO_SELECTION = -1  # a seat that has not selected this turn
DEFAULT_THRESHOLD = 66
MAX_THRESHOLD = 1000
MAX_HANDS = 100
# The heuristic bot.
DANGER_WEIGHT = 0.25  # the share of a row's danger added to a card's expected bullheads
ZERO_CARD_COST = 1.0  # expected bullheads of the best card from which the bot plays its 0 card


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


BULLHEADS: tuple[int, ...] = tuple(_bullheads(card) for card in range(HIGHEST_CARD + 1))


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
        return f"select {self.card}"


@dataclass(frozen=True, slots=True)
class ChooseRow:
    """Rule 4: take the row with this index while a row choice is pending."""

    row: int

    def __str__(self) -> str:
        return f"take row {self.row}"


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


def _check_options(options: Options) -> None:
    if not 1 <= options.threshold <= MAX_THRESHOLD:
        raise InvalidOptionsError(
            f"threshold must be 1..{MAX_THRESHOLD}, not {options.threshold}", option="threshold"
        )
    if not 1 <= options.hands <= MAX_HANDS:
        raise InvalidOptionsError(
            f"hands must be 1..{MAX_HANDS}, not {options.hands}", option="hands"
        )


class SixNimmt(GameEngine[State, Action, Options, View]):
    """The 6 nimmt! engine."""

    info = GameInfo(
        id=GAME_ID,
        title="6 nimmt!",
        min_seats=MIN_SEATS,
        max_seats=MAX_SEATS,
        simultaneous=True,
        rules_version=RULES_VERSION,
        options=(
            OptionInfo(
                "too_low_rule",
                "what happens to a card lower than every row: the seat chooses the row, or the "
                "cheapest row is taken automatically",
                "CHOOSE_ROW",
                tuple(rule.value for rule in TooLowRule),
            ),
            OptionInfo(
                "end",
                "when the game ends: after the hand in which a total reaches the threshold, or "
                "after a fixed number of hands",
                "PENALTY_THRESHOLD",
                tuple(rule.value for rule in EndRule),
            ),
            OptionInfo("threshold", "total bullheads that end the game (1..1000)", "66"),
            OptionInfo("hands", "number of hands with FIXED_HANDS (1..100)", "1"),
            OptionInfo("tactical_deck", "use only cards 1..(10 × seats + 4)", "false"),
            OptionInfo("zero_card", "each seat may play a 0 card once per game", "false"),
        ),
    )

    def default_options(self) -> Options:
        return Options()

    def seats(self, state: State) -> int:
        return len(state.hands)

    def seats_to_act(self, state: State) -> tuple[int, ...]:
        if state.turn == HAND_SIZE:
            return ()
        if state.revealed:  # Rule 4 choice pending: only that seat acts
            return (_reveal_order(state.selections)[state.placed][1],)
        return tuple([seat for seat, card in enumerate(state.selections) if card == NO_SELECTION])

    def is_to_act(self, state: State, seat: int) -> bool:
        if state.turn == HAND_SIZE:
            return False
        if state.revealed:
            return _reveal_order(state.selections)[state.placed][1] == seat
        return state.selections[seat] == NO_SELECTION

    def outcome(self, state: State) -> Outcome | None:
        if state.turn != HAND_SIZE:
            return None
        best = min(state.penalties)
        return Outcome(
            scores=state.penalties,
            winners=tuple(seat for seat, total in enumerate(state.penalties) if total == best),
            lower_is_better=True,
            termination=state.options.end.value,
        )

    @property
    def search_info(self) -> SearchInfo[State, Action]:
        from engines.six_nimmt_search import SEARCH  # noqa: PLC0415 - it imports this module

        return SEARCH

    def redeal(self, state: State, seat: int, rng: Rng) -> State:
        """Re-deal the other seats' hands, their pending selections and the deck. A pending
        selection of a seat whose zero card is unused becomes the zero card with the chance a
        uniformly random choice among its cards and the zero card would give it."""
        self.check_seat(state, seat)
        others = [s for s in range(len(state.hands)) if s != seat]
        pending = (
            [] if state.revealed else [s for s in others if state.selections[s] != NO_SELECTION]
        )
        pool = list(state.deck)
        for s in others:
            pool.extend(state.hands[s])
        pool.extend(state.selections[s] for s in pending if state.selections[s] > ZERO_CARD)
        shuffled = list(rng.shuffle(pool))
        sizes = [len(hand) for hand in state.hands]
        selections = list(state.selections)
        for s in pending:
            sizes[s] += state.selections[s] > ZERO_CARD  # the number cards it chose from
            zero_held = state.options.zero_card and state.zero_card_used_in_hand[s] == 0
            if zero_held and rng.below(sizes[s] + 1) == 0:
                selections[s] = ZERO_CARD
            else:
                selections[s] = shuffled.pop()
                sizes[s] -= 1
        hands = list(state.hands)
        for s in others:
            hands[s] = tuple(sorted(shuffled[: sizes[s]]))
            del shuffled[: sizes[s]]
        return dataclasses.replace(
            state,
            hands=tuple(hands),
            selections=tuple(selections),
            deck=tuple(shuffled),
            rng_state=rng.next_u64(),
        )

    # ----------------------------------------------------------------- hooks
    def _view(self, state: State, viewer: Viewer) -> View:
        seats = len(state.hands)
        return View(
            options=state.options,
            rows=state.rows,
            hand=state.hands[viewer] if viewer is not None else (),
            selected=tuple(card != NO_SELECTION for card in state.selections),
            revealed=state.selections if state.revealed else (NO_SELECTION,) * seats,
            own_selection=state.selections[viewer] if viewer is not None else NO_SELECTION,
            penalties=state.penalties,
            taken=state.taken,
            zero_card_available=tuple(
                state.options.zero_card and used == 0 for used in state.zero_card_used_in_hand
            ),
            hand_number=state.hand_number,
            turn=state.turn,
            hand_sizes=tuple(
                len(hand) + _holds_zero_card(state, seat) for seat, hand in enumerate(state.hands)
            ),
        )

    def _new_game(self, seats: int, rng: Rng, options: Options) -> State:
        _check_options(options)
        rows, hands, deck = _deal(options, seats, rng)
        return State(
            rules_version=RULES_VERSION,
            revision=0,
            options=options,
            rows=rows,
            hands=hands,
            selections=(NO_SELECTION,) * seats,
            revealed=False,
            placed=0,
            penalties=(0,) * seats,
            taken=((),) * seats,
            zero_card_used_in_hand=(0,) * seats,
            hand_number=1,
            turn=0,
            deck=deck,
            discarded=(),
            rng_state=rng.state,
        )

    def _legal_actions(self, state: State, seat: int) -> tuple[Action, ...]:
        if state.revealed:
            return CHOOSE_ROWS
        selects = tuple(map(SELECTS.__getitem__, state.hands[seat]))
        if state.options.zero_card and state.zero_card_used_in_hand[seat] == 0:
            return (SELECTS[ZERO_CARD], *selects)
        return selects

    def _apply(self, state: State, seat: int, action: Action) -> tuple[State, tuple[Event, ...]]:
        if isinstance(action, Select):
            return _select(state, seat, action.card)
        if isinstance(action, ChooseRow):
            if not state.revealed:
                raise IllegalActionError("no row choice is pending", "NO_ROW_CHOICE_PENDING")
            if not 0 <= action.row < ROW_COUNT:
                raise IllegalActionError(
                    f"row must be 0..{ROW_COUNT - 1}, not {action.row}", "NO_SUCH_ROW"
                )
            return _resolve(
                state,
                state.hands,
                state.selections,
                state.zero_card_used_in_hand,
                state.placed,
                [],
                action.row,
            )
        raise MalformedActionError(f"not a 6 nimmt! action: {action!r}")

    def _heuristic(self, state: State, seat: int, rng: Rng) -> Action:
        if state.revealed:
            return ChooseRow(cheapest_row(state.rows))
        return _heuristic_select(state, seat)

    def _validate(self, state: State) -> None:
        _validate(state)


# --------------------------------------------------------------------- rules
def _deal(
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


def _reveal_order(selections: tuple[int, ...]) -> list[tuple[int, int]]:
    """The revealed number cards as (card, seat), ascending: the order of placement."""
    order = [(card, seat) for seat, card in enumerate(selections) if card > ZERO_CARD]
    order.sort()
    return order


def _select(state: State, seat: int, card: int) -> tuple[State, tuple[Event, ...]]:
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
        raise IllegalActionError(f"card {card} is not in seat {seat}'s hand", "CARD_NOT_IN_HAND")
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
    return _resolve(state, hands, selections, zero_used, 0, events, None)


def _resolve(
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
    order = _reveal_order(selections)
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
            rows, hands, deck = _deal(options, seats, rng)
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


def _heuristic_select(state: State, seat: int) -> Select:
    """Select the card with the lowest score: its expected bullheads this turn plus a share of
    the danger of the row it joins (see ``_card_scores``); the zero card when even the best card
    is expected to cost ``ZERO_CARD_COST`` bullheads or more."""
    scores = _card_scores(state, seat)
    _, _, card, cost = min(scores)
    if (
        state.options.zero_card
        and state.zero_card_used_in_hand[seat] == 0
        and cost >= ZERO_CARD_COST
    ):
        return Select(ZERO_CARD)
    return Select(card)


def _card_scores(state: State, seat: int) -> list[tuple[float, int, int, float]]:
    """(score, gap, card, expected bullheads) of each card in the seat's hand.

    Only what the seat may see is used: its hand, the rows and the taken cards. The others' cards
    this turn are modelled as drawn without replacement from the cards the seat has not seen, so
    the number of them below a card is hypergeometric:
    - Rule 4: the card takes the cheapest row unless another card is lower still (that card
      starts a row, and ours follows it).
    - Rules 1–3: the card is the 6th of its row, and takes it, exactly when the others put
      5 − len(row) cards between the row's end and it.
    The danger of the row (how full it gets, times its bullheads) breaks the many near-ties
    between safe cards toward rows that stay short; then the smallest gap wins.
    """
    rows = state.rows
    seats = len(state.hands)
    seen = {card for row in rows for card in row}
    seen.update(state.hands[seat])
    seen.update(card for taken in state.taken for card in taken)
    # below[c], bulls_below[c]: unseen cards lower than c, and their bullheads.
    below = [0] * (HIGHEST_CARD + 2)
    bulls_below = [0] * (HIGHEST_CARD + 2)
    highest = highest_card(state.options, seats)
    for card in range(1, HIGHEST_CARD + 1):
        unseen = card <= highest and card not in seen
        below[card + 1] = below[card] + unseen
        bulls_below[card + 1] = bulls_below[card] + BULLHEADS[card] * unseen
    pool, others = below[HIGHEST_CARD + 1], seats - 1
    draws = max(1, comb(pool, others))
    cheapest = min(row_bullheads(row) for row in rows)
    scores = []
    for card in state.hands[seat]:
        row = target_row(rows, card)
        if row is None:  # Rule 4, unless another card is lower still
            cost = comb(pool - below[card], others) / draws * cheapest
            danger, gap = float(cheapest), HIGHEST_CARD
        else:
            end, bullheads = rows[row][-1], row_bullheads(rows[row])
            need = ROW_LIMIT - len(rows[row])  # others' cards that make ours the 6th
            between = below[card] - below[end + 1]
            cost = 0.0
            if need <= others:
                taken = comb(between, need) * comb(pool - between, others - need) / draws
                gap_bulls = bulls_below[card] - bulls_below[end + 1]
                cost = taken * (bullheads + need * gap_bulls / max(1, between))
            expected = others * between / max(1, pool)
            fill = 1.0 if need == 0 else min(1.0, expected / need)
            danger, gap = fill * (bullheads + 1), card - end
        scores.append((cost + DANGER_WEIGHT * danger, gap, card, cost))
    return scores


def _holds_zero_card(state: State, seat: int) -> bool:
    """Whether the seat still holds its zero card: neither played in an earlier turn nor
    selected in this one, in a game that is not over."""
    return (
        state.options.zero_card
        and state.turn < HAND_SIZE
        and state.zero_card_used_in_hand[seat] == 0
        and state.selections[seat] != ZERO_CARD
    )


@cache
def _cards_up_to(highest: int) -> frozenset[int]:
    """The cards 1..highest, as a set (the card sets of a server's games are few)."""
    return frozenset(range(1, highest + 1))


def _replace_at(items: tuple[T, ...], index: int, value: T) -> tuple[T, ...]:
    changed = list(items)
    changed[index] = value
    return tuple(changed)


def _ascending(cards: tuple[int, ...]) -> bool:
    """Whether each card is higher than the one before it (no repeats)."""
    return all(map(lt, cards, cards[1:]))


def _validate(state: State) -> None:
    """Reject any state the rules could not have produced (linear in its size)."""
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
    options = state.options
    try:
        _check_options(options)
    except InvalidOptionsError as error:
        raise InvalidStateError(f"bad options in the state: {error.message}") from None
    if not 0 <= state.rng_state <= MASK64:
        raise InvalidStateError("the generator state is not a 64-bit value")
    hand_number, turn, revealed = state.hand_number, state.turn, state.revealed
    if not 1 <= hand_number < MAX_HAND_NUMBER or not 0 <= turn <= HAND_SIZE:
        raise InvalidStateError("hand number or turn out of range")
    if len(state.rows) != ROW_COUNT:
        raise InvalidStateError(f"there must be {ROW_COUNT} rows")
    for row in state.rows:
        if not 1 <= len(row) <= ROW_LIMIT:
            raise InvalidStateError(f"a row holds 1..{ROW_LIMIT} cards")
        if not _ascending(row):
            raise InvalidStateError("a row's cards must ascend (Rule 1)")
    finished = turn == HAND_SIZE
    zero = options.zero_card
    threshold = options.threshold if options.end is EndRule.PENALTY_THRESHOLD else None
    if state.placed < 0:
        raise InvalidStateError("the count of placed cards is negative")
    # One pass over the seats: zero card use, selections and hand sizes.
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
            raise InvalidStateError(f"seat {seat} holds {len(hand)} cards, not {expected}")
    if revealed:
        order = _reveal_order(state.selections)
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
            options.too_low_rule is not TooLowRule.CHOOSE_ROW
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
    if finished and (state.selections.count(NO_SELECTION) != seats or any(state.hands)):
        raise InvalidStateError("a finished game has no hands or selections")
    # Card conservation: every card of the set is in exactly one place.
    # As many cards as the set holds, and each of them: then none is repeated or missing.
    located = [
        *chain.from_iterable(state.rows),
        *chain.from_iterable(state.hands),
        *chain.from_iterable(state.taken),
        *state.deck,
        *state.discarded,
        *in_flight,
    ]
    highest = highest_card(options, seats)
    if len(located) != highest or set(located) != _cards_up_to(highest):
        raise InvalidStateError("the cards do not add up: a card is missing, repeated or foreign")
    # Totals, now that every taken card is known to be a card of the set. The total at the
    # start of this hand: nothing before the first hand, under PENALTY_THRESHOLD below the
    # threshold, or the game would have ended after that hand, and at most every bullhead of
    # the set in each hand before this one.
    most_before = (hand_number - 1) * sum(BULLHEADS[1 : highest + 1])
    all_before = 0
    for seat, (total, taken) in enumerate(zip(state.penalties, state.taken, strict=True)):
        if not _ascending(taken):
            raise InvalidStateError(f"seat {seat}'s taken cards must be ascending")
        before_hand = total - sum(map(BULLHEADS.__getitem__, taken))
        all_before += before_hand
        if before_hand < 0:
            raise InvalidStateError(f"seat {seat}'s total is below the bullheads it took")
        if before_hand > most_before:
            raise InvalidStateError(
                f"seat {seat}'s total is more than the bullheads of the hands before this one"
            )
        if threshold is not None and before_hand >= threshold:
            raise InvalidStateError("a hand was dealt after a total reached the threshold")
    if state.discarded and not finished:
        raise InvalidStateError("cards are discarded while the hand goes on")
    if finished:
        if threshold is not None and max(state.penalties) < threshold:
            raise InvalidStateError("the game ended before any total reached the threshold")
        if options.end is EndRule.FIXED_HANDS and hand_number != options.hands:
            raise InvalidStateError("the game ended before its last hand")
    elif options.end is EndRule.FIXED_HANDS and hand_number > options.hands:
        raise InvalidStateError("more hands than the game has")
    # Every hand takes a row: its turns place at least 18 number cards (two seats, one zero
    # card each), and the rows take 16 before a sixth card or a card lower than every row
    # takes one. Every card bears a bullhead or more.
    if all_before < hand_number - 1:
        raise InvalidStateError(
            f"the totals hold {all_before} bullheads from {hand_number - 1} earlier hands, each "
            "of which took a row"
        )
    # The revision counts the actions: every seat's selection in each turn, and a row choice
    # in at most one of its placements (only the lowest card can be lower than every row).
    turns = (hand_number - 1) * HAND_SIZE + turn
    fewest = turns * seats + seats - state.selections.count(NO_SELECTION)
    choices = turns if options.too_low_rule is TooLowRule.CHOOSE_ROW else 0
    if not fewest <= state.revision <= fewest + choices:
        raise InvalidStateError(
            f"the revision {state.revision} does not follow from the turns played: "
            f"{fewest}..{fewest + choices} actions"
        )


ENGINE = SixNimmt()
