"""The turn of Sequence Numbers: the deal, the legal actions, and each action applied (an exchange,
a play, a discard, a choice of five), then the draw (docs/rules/sequence_numbers.md)."""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache
from itertools import compress

from engines.base import Event
from engines.errors import IllegalActionError, MalformedActionError
from engines.notation import field_text, seat_text
from engines.prng import Rng
from engines.sequence_numbers.rules.board import CELLS, IS_CORNER, NO_CHIP, cell_text
from engines.sequence_numbers.rules.cards import (
    CARD_CELLS,
    DECK_SIZE,
    EQUATION_COUNT,
    MINUS_CARDS,
    PLUS_CARDS,
    RESULTS,
    card_text,
    is_dead,
)
from engines.sequence_numbers.rules.sequences import (
    lock_fives,
    locked_cells,
    pending_choice,
    winner_of,
)
from engines.sequence_numbers.rules.state import (
    HIDDEN_CARD,
    MAX_SEATS,
    NO_CELL,
    RULES_VERSION,
    TEAM_COUNTS,
    TURN_LIMIT,
    Action,
    CardDiscarded,
    CardDrawn,
    ChipPlaced,
    ChipRemoved,
    ChooseSequence,
    DeadCardExchanged,
    DeckReshuffled,
    Discard,
    Exchange,
    Options,
    Play,
    Sequence,
    SequenceChoice,
    SequenceCompleted,
    State,
    TeamWon,
    TurnLimitReached,
    hand_size,
    team_seats,
)

# Actions are immutable values, so each possible one is built once and shared.
EQUATION_PLAYS: tuple[tuple[Play, ...], ...] = tuple(
    tuple(Play(card, cell) for cell in CARD_CELLS[card]) for card in range(EQUATION_COUNT)
)
#: Per PLUS or MINUS card id: its play on each cell, None on the corners (no chip goes there).
SPECIAL_PLAYS: dict[int, tuple[Play | None, ...]] = {
    card: tuple(None if IS_CORNER[cell] else Play(card, cell) for cell in range(CELLS))
    for card in (*sorted(PLUS_CARDS), *sorted(MINUS_CARDS))
}
EXCHANGES: tuple[Exchange, ...] = tuple(Exchange(card) for card in range(DECK_SIZE))
DISCARDS: tuple[Discard, ...] = tuple(Discard(card) for card in range(DECK_SIZE))

#: Per team count and team: the other teams, whose chips a MINUS card may remove.
OTHER_TEAMS: dict[int, tuple[frozenset[int], ...]] = {
    teams: tuple(frozenset(range(teams)) - {team} for team in range(teams)) for teams in TEAM_COUNTS
}

# The draw events are immutable values too: everyone learns that a seat drew, only the seat
# learns the card. Built once per seat and card, as a draw ends almost every action.
PUBLIC_DRAWS: tuple[Event, ...] = tuple(
    Event(CardDrawn(seat, HIDDEN_CARD)) for seat in range(MAX_SEATS)
)
PRIVATE_DRAWS: tuple[tuple[Event, ...], ...] = tuple(
    tuple(Event(CardDrawn(seat, card), (seat,)) for card in range(DECK_SIZE))
    for seat in range(MAX_SEATS)
)

PLACEMENTS_KEPT = 4096  # chip placements shared, of the few thousand a board allows


@lru_cache(maxsize=PLACEMENTS_KEPT)
def _placed_event(seat: int, team: int, card: int, cell: int) -> Event:
    """A chip placed: an event of nearly every turn, built once per value and shared."""
    return Event(ChipPlaced(seat, team, card, cell))


def deal(seats: int, options: Options, rng: Rng) -> State:
    """Shuffle the deck and deal a hand to each seat; the rest is the draw deck. ``options``
    has its team count resolved."""
    cards = rng.shuffle(range(DECK_SIZE))
    size = hand_size(seats)
    hands = tuple(tuple(sorted(cards[seat * size : (seat + 1) * size])) for seat in range(seats))
    return State(
        rules_version=RULES_VERSION,
        revision=0,
        options=options,
        chips=(NO_CHIP,) * CELLS,
        sequences=(),
        hands=hands,
        discards=((),) * seats,
        deck=cards[seats * size :],
        turn=0,
        exchanged=False,
        rng_state=rng.state,
    )


def plays(state: State, seat: int) -> list[Play]:
    """Every card play open to ``seat`` now, by card then cell."""
    chips = state.chips
    out: list[Play] = []
    for card in state.hands[seat]:
        if card < EQUATION_COUNT:
            first, second = CARD_CELLS[card]
            on_first, on_second = EQUATION_PLAYS[card]
            if chips[first] == NO_CHIP:
                out.append(on_first)
            if chips[second] == NO_CHIP:
                out.append(on_second)
        elif card in PLUS_CARDS:
            # Any free cell; the corners, always free, have no play (None) to select.
            out.extend(filter(None, compress(SPECIAL_PLAYS[card], map(NO_CHIP.__eq__, chips))))
        else:
            teams = state.options.teams
            others = OTHER_TEAMS[teams][seat % teams]
            targets = compress(SPECIAL_PLAYS[card], map(others.__contains__, chips))
            if state.sequences:
                locked = locked_cells(state.sequences)
                out.extend(play for play in targets if play is not None and play.cell not in locked)
            else:
                out.extend(filter(None, targets))
    return out


def legal_actions(state: State, seat: int) -> tuple[Action, ...]:
    """Exchanges of dead cards (once per turn), then plays; discards only when nothing plays.
    While a choice of five is pending, only its choices, in scan order."""
    choice = pending_choice(state)
    if choice is not None:
        return tuple(ChooseSequence(cells) for cells in choice.choices)
    hand = state.hands[seat]
    actions: list[Action] = []
    if not state.exchanged:
        chips = state.chips
        actions.extend(
            EXCHANGES[card] for card in hand if card < EQUATION_COUNT and is_dead(chips, card)
        )
    playable = plays(state, seat)
    if playable:
        actions.extend(playable)
    else:
        actions.extend(DISCARDS[card] for card in hand)
    return tuple(actions)


def apply(state: State, seat: int, action: Action) -> tuple[State, tuple[Event, ...]]:
    """Apply an action of the seat to act (turn order and the end already checked)."""
    if not isinstance(action, (Play, Exchange, Discard, ChooseSequence)):
        raise MalformedActionError(f"not a Sequence Numbers action: {action!r}")
    if isinstance(action, ChooseSequence):
        return _choose(state, seat, action.cells)
    if state.pending_cell != NO_CELL:
        raise IllegalActionError(
            f"the chip on {cell_text(state.pending_cell)} completed fives that exclude one "
            "another: choose the one to lock first",
            "SEQUENCE_CHOICE_PENDING",
        )
    if isinstance(action, Play):
        return _play(state, seat, action.card, action.cell)
    if isinstance(action, Exchange):
        return _exchange(state, seat, action.card)
    return _discard(state, seat, action.card)


def _take_from_hand(hand: tuple[int, ...], card: int, seat: int) -> tuple[int, ...]:
    if card not in hand:
        named = f"{card_text(card)} ({field_text('card', card)})" if 0 <= card < DECK_SIZE else ""
        raise IllegalActionError(
            f"{named or field_text('card', card)} is not in {seat_text(seat)}'s hand",
            "CARD_NOT_IN_HAND",
        )
    index = hand.index(card)
    return hand[:index] + hand[index + 1 :]


def _play(state: State, seat: int, card: int, cell: int) -> tuple[State, tuple[Event, ...]]:
    hand = _take_from_hand(state.hands[seat], card, seat)
    if not 0 <= cell < CELLS:
        raise IllegalActionError(
            f"{field_text('play.cell', cell)} names no cell: the wire numbers them "
            f"0 to {CELLS - 1}",
            "NO_SUCH_CELL",
        )
    chips = state.chips
    team = seat % state.options.teams
    occupant = chips[cell]
    events: list[Event] = []
    sequences = state.sequences
    if IS_CORNER[cell]:  # a free space, every team's chip: no card places or removes one there
        raise IllegalActionError("no card is played on a corner: it is a free space", "CORNER_CELL")
    if card in MINUS_CARDS:
        if occupant == NO_CHIP:
            raise IllegalActionError(f"no chip on {cell_text(cell)} to remove", "NO_CHIP_TO_REMOVE")
        if occupant == team:
            raise IllegalActionError("a MINUS card removes another team's chip", "OWN_CHIP")
        if cell in locked_cells(sequences):
            raise IllegalActionError(
                f"the chip on {cell_text(cell)} is in a completed sequence", "CHIP_LOCKED"
            )
        chips = (*chips[:cell], NO_CHIP, *chips[cell + 1 :])
        events.append(Event(ChipRemoved(seat, card, cell, occupant)))
    else:
        if card < EQUATION_COUNT and cell not in CARD_CELLS[card]:
            raise IllegalActionError(
                f"{cell_text(cell)} does not show {RESULTS[card]}, the result of {card_text(card)}",
                "WRONG_NUMBER",
            )
        if occupant != NO_CHIP:
            raise IllegalActionError(f"{cell_text(cell)} already holds a chip", "CELL_OCCUPIED")
        chips = (*chips[:cell], team, *chips[cell + 1 :])
        events.append(_placed_event(seat, team, card, cell))
        sequences, locked, choices = lock_fives(state, team, cell, chips, sequences)
        events.extend(locked)
        if choices:
            discards = _push(state.discards, seat, card)
            return _await_choice(
                state, seat, cell, hand, chips, sequences, discards, events, choices
            )
    discards = _push(state.discards, seat, card)
    return _end_turn(state, seat, hand, chips, sequences, discards, events)


def _await_choice(
    state: State,
    seat: int,
    cell: int,
    hand: tuple[int, ...],
    chips: tuple[int, ...],
    sequences: tuple[Sequence, ...],
    discards: tuple[tuple[int, ...], ...],
    events: list[Event],
    choices: tuple[tuple[int, ...], ...],
) -> tuple[State, tuple[Event, ...]]:
    """The play completed fives that exclude one another: the seat stays to act, before its
    draw, and chooses the five to lock."""
    team = seat % state.options.teams
    events.append(Event(SequenceChoice(seat, team, cell, choices)))
    new = replace(
        state,
        revision=state.revision + 1,
        chips=chips,
        sequences=sequences,
        hands=_replace_at(state.hands, seat, hand),
        discards=discards,
        pending_cell=cell,
    )
    return new, tuple(events)


def _choose(state: State, seat: int, cells: tuple[int, ...]) -> tuple[State, tuple[Event, ...]]:
    choice = pending_choice(state)
    if choice is None:
        raise IllegalActionError(
            "no choice of five is pending: a sequence is chosen only after a play that "
            "completes fives excluding one another",
            "NO_SEQUENCE_CHOICE_PENDING",
        )
    cells = tuple(cells)
    if cells not in choice.choices:
        offered = " or ".join(" ".join(map(cell_text, five)) for five in choice.choices)
        raise IllegalActionError(
            f"not one of the fives on offer: {offered}", "NOT_A_SEQUENCE_CHOICE"
        )
    team = choice.team
    sequences = (*state.sequences, Sequence(team, cells))
    events = [Event(SequenceCompleted(team, cells))]
    sequences, locked, choices = lock_fives(state, team, choice.cell, state.chips, sequences)
    events.extend(locked)
    hand, discards = state.hands[seat], state.discards
    if choices:
        return _await_choice(
            state, seat, choice.cell, hand, state.chips, sequences, discards, events, choices
        )
    return _end_turn(state, seat, hand, state.chips, sequences, discards, events)


def _exchange(state: State, seat: int, card: int) -> tuple[State, tuple[Event, ...]]:
    if state.exchanged:
        raise IllegalActionError(
            "only one dead card may be exchanged per turn", "ALREADY_EXCHANGED"
        )
    hand = _take_from_hand(state.hands[seat], card, seat)
    if card >= EQUATION_COUNT or not is_dead(state.chips, card):
        raise IllegalActionError(
            f"{card_text(card)} is not dead: a cell showing its result is free", "CARD_NOT_DEAD"
        )
    events: list[Event] = [Event(DeadCardExchanged(seat, card))]
    discards = _push(state.discards, seat, card)
    hand, deck, discards, rng_state = _draw(state, seat, hand, discards, events)
    new = State(
        rules_version=state.rules_version,
        revision=state.revision + 1,
        options=state.options,
        chips=state.chips,
        sequences=state.sequences,
        hands=_replace_at(state.hands, seat, hand),
        discards=discards,
        deck=deck,
        turn=state.turn,
        exchanged=True,
        rng_state=rng_state,
    )
    return new, tuple(events)


def _discard(state: State, seat: int, card: int) -> tuple[State, tuple[Event, ...]]:
    hand = _take_from_hand(state.hands[seat], card, seat)
    if plays(state, seat):
        raise IllegalActionError(
            "a card can be played: discarding is only for a hand with no playable card",
            "PLAYABLE_CARD_IN_HAND",
        )
    events: list[Event] = [Event(CardDiscarded(seat, card))]
    discards = _push(state.discards, seat, card)
    return _end_turn(state, seat, hand, state.chips, state.sequences, discards, events)


def _end_turn(
    state: State,
    seat: int,
    hand: tuple[int, ...],
    chips: tuple[int, ...],
    sequences: tuple[Sequence, ...],
    discards: tuple[tuple[int, ...], ...],
    events: list[Event],
) -> tuple[State, tuple[Event, ...]]:
    """Draw (step 3) and pass the turn, unless the play won the game at once."""
    deck, rng_state = state.deck, state.rng_state
    turn = state.turn + 1
    seats = len(state.hands)
    teams = state.options.teams
    winner = None
    if len(sequences) > len(state.sequences):
        winner = winner_of(sequences, seats, teams)
    if winner is None:
        hand, deck, discards, rng_state = _draw(state, seat, hand, discards, events)
    else:
        events.append(Event(TeamWon(winner, team_seats(seats, teams, winner))))
    if winner is None and turn >= TURN_LIMIT:
        events.append(Event(TurnLimitReached(turn)))
    new = State(
        rules_version=state.rules_version,
        revision=state.revision + 1,
        options=state.options,
        chips=chips,
        sequences=sequences,
        hands=_replace_at(state.hands, seat, hand),
        discards=discards,
        deck=deck,
        turn=turn,
        exchanged=False,
        rng_state=rng_state,
    )
    return new, tuple(events)


def _draw(
    state: State,
    seat: int,
    hand: tuple[int, ...],
    discards: tuple[tuple[int, ...], ...],
    events: list[Event],
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[tuple[int, ...], ...], int]:
    """Draw the top card; when that empties the deck, every discard pile (the card just played
    included) is shuffled into a new deck at once, so the deck is never empty between turns."""
    deck = state.deck
    card = deck[0]
    deck = deck[1:]
    hand = tuple(sorted((*hand, card)))
    events.append(PUBLIC_DRAWS[seat])
    events.append(PRIVATE_DRAWS[seat][card])
    rng_state = state.rng_state
    if not deck:
        rng = Rng(rng_state)
        deck = rng.shuffle([c for pile in discards for c in pile])
        discards = ((),) * len(discards)
        rng_state = rng.state
        events.append(Event(DeckReshuffled(len(deck))))
    return hand, deck, discards, rng_state


def _push(
    discards: tuple[tuple[int, ...], ...], seat: int, card: int
) -> tuple[tuple[int, ...], ...]:
    return _replace_at(discards, seat, (*discards[seat], card))


def _replace_at(
    items: tuple[tuple[int, ...], ...], index: int, value: tuple[int, ...]
) -> tuple[tuple[int, ...], ...]:
    return (*items[:index], value, *items[index + 1 :])
