"""Sequence Numbers rules: values, the turn, sequences and the consistency check
(docs/rules/sequence_numbers.md).

The board and the deck come from ``data`` (fixed, versioned data). Cells are numbered row by
row, ``cell = row × 10 + column``; cards by their id in the tables (0..95 equation cards in result
order, then the PLUS and MINUS cards).
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable
from dataclasses import dataclass, replace
from enum import Enum
from functools import lru_cache
from itertools import chain, compress

from engines.base import Event
from engines.errors import (
    IllegalActionError,
    InvalidOptionsError,
    InvalidSeatsError,
    InvalidStateError,
    MalformedActionError,
)
from engines.prng import MASK64, Rng
from engines.sequence_numbers import data

# States name cells by position and cards by id in the tables: a new data.TABLES_VERSION
# needs a new RULES_VERSION too, so that states dealt on the old tables are refused.
RULES_VERSION = 2
GAME_ID = "sequence_numbers"
MIN_SEATS, MAX_SEATS = 2, 6
INDIVIDUAL_MAX_SEATS = 3  # 2 or 3 seats play individually; more seats play in teams
# Seat counts and the team counts they allow, the usual one first: 5 seats cannot form teams of
# equal size, so 5 is absent; 6 seats play as 2 teams of 3 or 3 teams of 2.
TEAM_CHOICES: dict[int, tuple[int, ...]] = {2: (2,), 3: (3,), 4: (2,), 6: (2, 3)}
USUAL_TEAMS = 0  # the ``teams`` option value that picks the usual team count for the seats
TEAM_COUNTS = tuple(sorted({teams for choices in TEAM_CHOICES.values() for teams in choices}))
HAND_SIZE_INDIVIDUAL = 5  # cards in hand with 2–3 seats
HAND_SIZE_TEAMS = 4  # cards in hand with 4–6 seats
SEQUENCES_INDIVIDUAL = 1  # sequences a seat needs to win with 2–3 seats
SEQUENCES_TEAMS = 2  # sequences a team needs to win with 4–6 seats
SEQUENCE_LENGTH = 5  # a sequence is five cells in a straight line
TURN_LIMIT = 600  # [decision] after this many turns without a winner the game is a draw
NO_CHIP = -1  # an empty cell (corners always hold NO_CHIP: they are free spaces)
NO_CELL = -1  # no chip awaits its seat's choice of five
HIDDEN_CARD = -1  # the card of a draw, in the event everyone sees

BOARD_SIZE = data.BOARD_SIZE
CELLS = BOARD_SIZE * BOARD_SIZE
DECK_SIZE = data.DECK_SIZE
EQUATION_COUNT = len(data.EQUATIONS)  # card ids below this are equation cards
PLUS_CARDS = frozenset(data.PLUS_CARDS)
MINUS_CARDS = frozenset(data.MINUS_CARDS)

#: The number on each cell, row by row; ``data.FREE`` on the four corners.
NUMBERS: tuple[int, ...] = tuple(number for row in data.BOARD for number in row)
#: Whether each cell is a corner (a free space: every team's chip, nobody places on it).
IS_CORNER: tuple[bool, ...] = tuple(number == data.FREE for number in NUMBERS)
CORNERS: tuple[int, ...] = tuple(cell for cell in range(CELLS) if IS_CORNER[cell])
ALL_CARDS: list[int] = list(range(DECK_SIZE))
#: The result of each equation card, by card id.
RESULTS: tuple[int, ...] = tuple(card[4] for card in data.EQUATIONS)
#: The two cells showing each equation card's result, by card id.
CARD_CELLS: tuple[tuple[int, ...], ...] = tuple(
    tuple(cell for cell in range(CELLS) if NUMBERS[cell] == result) for result in RESULTS
)
#: Line directions in scan order: row, column, diagonal down-right, diagonal down-left.
DIRECTIONS: tuple[tuple[int, int], ...] = ((0, 1), (1, 0), (1, 1), (1, -1))


def _full_lines() -> tuple[tuple[int, ...], ...]:
    """Every maximal straight line of at least five cells, in the order of DIRECTIONS."""
    lines: list[tuple[int, ...]] = []
    for d_row, d_col in DIRECTIONS:
        for row in range(BOARD_SIZE):
            for col in range(BOARD_SIZE):
                before = (row - d_row, col - d_col)
                if 0 <= before[0] < BOARD_SIZE and 0 <= before[1] < BOARD_SIZE:
                    continue  # not the first cell of its line
                line = []
                r, c = row, col
                while 0 <= r < BOARD_SIZE and 0 <= c < BOARD_SIZE:
                    line.append(r * BOARD_SIZE + c)
                    r, c = r + d_row, c + d_col
                if len(line) >= SEQUENCE_LENGTH:
                    lines.append(tuple(line))
    return tuple(lines)


LINES = _full_lines()


def _reach(cell: int) -> tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]:
    """Per line of five or more through ``cell``, in the order of DIRECTIONS: the cells up to
    four steps back (towards the line's beginning, nearest first) and up to four steps ahead."""
    reach = []
    for line in LINES:
        if cell in line:
            index = line.index(cell)
            backward = line[max(0, index - SEQUENCE_LENGTH + 1) : index][::-1]
            reach.append((backward, line[index + 1 : index + SEQUENCE_LENGTH]))
    return tuple(reach)


REACH = tuple(_reach(cell) for cell in range(CELLS))
#: Every window of five cells in a straight line, each in line order.
WINDOWS: tuple[tuple[int, ...], ...] = tuple(
    line[start : start + SEQUENCE_LENGTH]
    for line in LINES
    for start in range(len(line) - SEQUENCE_LENGTH + 1)
)
WINDOW_SET = frozenset(WINDOWS)
#: Per cell: the windows that contain it.
WINDOWS_THROUGH: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(window for window in WINDOWS if cell in window) for cell in range(CELLS)
)
# Board masks find the windows every team fills at once: an int whose byte ``cell`` has bit
# ``team`` set where that team holds the cell (every team's bit on a corner), so that a shift by
# ``k × step`` bytes brings each cell k steps back along a direction.
CELL_BITS = 8  # bits per cell in a board mask: a byte, so the mask is built from the chips' bytes
MAX_TEAMS = TEAM_COUNTS[-1]
ALL_TEAMS = (1 << MAX_TEAMS) - 1  # a corner counts as a chip of every team
CORNER_MASK = sum(ALL_TEAMS << (CELL_BITS * cell) for cell in CORNERS)
#: A bytes.translate table from a chip as a signed byte (NO_CHIP is 0xFF) to its team's bit.
TEAM_BIT = bytes(1 << value if value < MAX_TEAMS else 0 for value in range(256))


def _window_starts() -> tuple[tuple[int, int], ...]:
    """Per direction, in the order of DIRECTIONS: the step between two cells of a window along
    it, and the mask of the cells where a window in that direction starts."""
    starts: dict[int, int] = {}
    for window in WINDOWS:
        step = window[1] - window[0]
        starts[step] = starts.get(step, 0) | ALL_TEAMS << (CELL_BITS * window[0])
    return tuple(starts.items())


WINDOW_STARTS = _window_starts()


class CardKind(Enum):
    """What a card does when played."""

    EQUATION = "EQUATION"  # a chip on a free cell showing its result
    PLUS = "PLUS"  # a chip on any free non-corner cell
    MINUS = "MINUS"  # removes an unlocked chip of another team


def card_kind(card: int) -> CardKind:
    """The kind of a card id."""
    if card < EQUATION_COUNT:
        return CardKind.EQUATION
    return CardKind.PLUS if card in PLUS_CARDS else CardKind.MINUS


def card_text(card: int) -> str:
    """A card for people: ``17 + 9 = 26``, ``PLUS`` or ``MINUS``."""
    if card < EQUATION_COUNT:
        _, operator, left, right, result = data.EQUATIONS[card]
        return f"{left} {operator} {right} = {result}"
    return card_kind(card).value


def cell_text(cell: int) -> str:
    """A cell for people: ``r3c5`` (0-based row and column)."""
    return f"r{cell // BOARD_SIZE}c{cell % BOARD_SIZE}"


# --------------------------------------------------------------------- values
class SequenceOverlap(Enum):
    """How many cells a team's new sequence may share with each of its earlier ones."""

    ONE_CELL = "ONE_CELL"  # one cell, as in classic Sequence
    ANY = "ANY"  # any chips of the earlier one, as long as it is not the same five


#: Per option value: the most cells a new sequence shares with each earlier one of its team.
MAX_SHARED: dict[SequenceOverlap, int] = {
    SequenceOverlap.ONE_CELL: 1,
    SequenceOverlap.ANY: SEQUENCE_LENGTH - 1,
}


@dataclass(frozen=True, slots=True)
class Options:
    """The variant settings of a game."""

    teams: int = USUAL_TEAMS  # 2 or 3 with 6 seats; USUAL_TEAMS picks the usual split
    sequence_overlap: SequenceOverlap = SequenceOverlap.ONE_CELL


@dataclass(frozen=True, slots=True)
class Exchange:
    """Step 1: discard a dead equation card (both its cells taken) and draw a replacement."""

    card: int

    def __str__(self) -> str:
        return f"exchange dead card {card_text(self.card)}"


@dataclass(frozen=True, slots=True)
class Play:
    """Step 2: play a card; an equation or PLUS card places a chip on ``cell``, a MINUS card
    removes the chip on ``cell``."""

    card: int
    cell: int

    def __str__(self) -> str:
        return f"play {card_text(self.card)} on {cell_text(self.cell)}"


@dataclass(frozen=True, slots=True)
class Discard:
    """[decision] With no playable card at all: discard a card and draw, ending the turn."""

    card: int

    def __str__(self) -> str:
        return f"discard {card_text(self.card)}"


@dataclass(frozen=True, slots=True)
class ChooseSequence:
    """After a play that completed fives excluding one another: lock the five on ``cells``
    (in line order), one of the choices the seat is offered."""

    cells: tuple[int, ...]

    def __str__(self) -> str:
        return f"lock the sequence {' '.join(map(cell_text, self.cells))}"


Action = Exchange | Play | Discard | ChooseSequence

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


@dataclass(frozen=True, slots=True)
class Sequence:
    """A completed, locked sequence: five cells in line order, each the team's chip or a corner."""

    team: int
    cells: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class State:
    """The whole state of a game; ``hands``, ``deck`` and ``rng_state`` are hidden."""

    rules_version: int
    revision: int
    options: Options  # ``teams`` is always resolved to the number of teams
    chips: tuple[int, ...]  # per cell: the team whose chip is there, or NO_CHIP
    sequences: tuple[Sequence, ...]  # in the order they were completed
    hands: tuple[tuple[int, ...], ...]  # hidden: each ascending
    discards: tuple[tuple[int, ...], ...]  # per seat, face up, the top card last
    deck: tuple[int, ...]  # hidden: the draw deck, top card first; never empty
    turn: int  # turns completed; the seat to act is ``turn % seats``
    exchanged: bool  # the seat to act already exchanged a dead card this turn
    rng_state: int  # hidden
    # The cell of the chip just placed whose fives exclude one another: its seat, still to act,
    # chooses the five to lock. NO_CELL when no choice is pending.
    pending_cell: int = NO_CELL


@dataclass(frozen=True, slots=True)
class SequenceChoice:
    """A seat must choose the five its chip on ``cell`` locks: each of ``choices`` (in line
    order, in scan order) passes through the cell and shares too much with another to lock both.
    Public, as an event when the choice arises and in every view while it is pending."""

    seat: int
    team: int
    cell: int
    choices: tuple[tuple[int, ...], ...]


@dataclass(frozen=True, slots=True)
class View:
    """What one viewer sees: the table, every discard pile and hand size, its own hand."""

    options: Options
    numbers: tuple[int, ...]  # the board layout, row by row (FREE on the corners)
    chips: tuple[int, ...]
    sequences: tuple[Sequence, ...]
    hand: tuple[int, ...]  # empty for a spectator
    hand_sizes: tuple[int, ...]
    discards: tuple[tuple[int, ...], ...]
    deck_size: int
    turn: int
    exchanged: bool
    sequences_to_win: int
    choice: SequenceChoice | None  # the choice of five the seat to act must make, if any


# Events, each public unless addressed to one seat.
@dataclass(frozen=True, slots=True)
class DeadCardExchanged:
    """A seat discarded a dead card to draw a replacement."""

    seat: int
    card: int


@dataclass(frozen=True, slots=True)
class CardDrawn:
    """A seat drew a card; ``card`` is HIDDEN_CARD in the public event."""

    seat: int
    card: int


@dataclass(frozen=True, slots=True)
class ChipPlaced:
    """A seat played an equation or PLUS card and placed its team's chip."""

    seat: int
    team: int
    card: int
    cell: int


@dataclass(frozen=True, slots=True)
class ChipRemoved:
    """A seat played a MINUS card and removed another team's chip."""

    seat: int
    card: int
    cell: int
    team: int  # the team whose chip was removed


@dataclass(frozen=True, slots=True)
class CardDiscarded:
    """A seat with no playable card discarded one."""

    seat: int
    card: int


@dataclass(frozen=True, slots=True)
class SequenceCompleted:
    """A team completed a sequence, now locked."""

    team: int
    cells: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class DeckReshuffled:
    """The draw deck ran out: every discard pile was shuffled into a new deck of ``size`` cards."""

    size: int


@dataclass(frozen=True, slots=True)
class TeamWon:
    """A team has the sequences it needs and wins."""

    team: int
    seats: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class TurnLimitReached:
    """The turn limit passed without a winner: the game is a draw."""

    turns: int


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


# --------------------------------------------------------------------- setup
def resolve_teams(seats: int, options: Options) -> int:
    """The number of teams for ``seats``; raises on 5 seats or a team count they cannot form."""
    choices = TEAM_CHOICES.get(seats)
    if choices is None:
        *most, last = (str(n) for n in TEAM_CHOICES)
        raise InvalidSeatsError(
            f"Sequence Numbers cannot seat {seats} players in teams of equal size: "
            f"play with {', '.join(most)} or {last} seats",
            seats=str(seats),
        )
    if options.teams == USUAL_TEAMS:
        return choices[0]
    if options.teams not in choices:
        raise InvalidOptionsError(
            f"{seats} seats play as {' or '.join(str(n) for n in choices)} teams, "
            f"not {options.teams}",
            "TEAMS_NOT_ALLOWED",
            option="teams",
        )
    return options.teams


def hand_size(seats: int) -> int:
    """Cards in each hand: 5 with 2–3 seats, 4 with 4–6."""
    return HAND_SIZE_INDIVIDUAL if seats <= INDIVIDUAL_MAX_SEATS else HAND_SIZE_TEAMS


def sequences_to_win(seats: int) -> int:
    """Sequences a team needs: one with 2–3 seats, two with 4–6."""
    return SEQUENCES_INDIVIDUAL if seats <= INDIVIDUAL_MAX_SEATS else SEQUENCES_TEAMS


def team_seats(seats: int, teams: int, team: int) -> tuple[int, ...]:
    """The seats of a team: seating alternates, seat ``i`` is on team ``i mod teams``."""
    return tuple(range(team, seats, teams))


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


# --------------------------------------------------------------------- queries
def winning_team(state: State) -> int | None:
    """The team that has the sequences it needs, if any."""
    return _winner(state.sequences, len(state.hands), state.options.teams)


def is_finished(state: State) -> bool:
    """A team has won, or [decision] the turn limit is reached. A play that awaits its seat's
    choice of five is not over: the game ends once every sequence it completes is locked."""
    if state.turn >= TURN_LIMIT:
        return True
    return state.pending_cell == NO_CELL and winning_team(state) is not None


def sequence_counts(sequences: Iterable[Sequence], teams: int) -> list[int]:
    """The number of sequences of each team."""
    counts = [0] * teams
    for sequence in sequences:
        counts[sequence.team] += 1
    return counts


def _winner(sequences: tuple[Sequence, ...], seats: int, teams: int) -> int | None:
    needed = sequences_to_win(seats)
    if len(sequences) < needed:
        return None
    for team, count in enumerate(sequence_counts(sequences, teams)):
        if count >= needed:
            return team
    return None


def counts_as_new(window: tuple[int, ...], own: Iterable[tuple[int, ...]], most: int) -> bool:
    """Whether a full window is a new sequence beside the team's sequences ``own``: it shares at
    most ``most`` cells with each of them (``MAX_SHARED`` of the ``sequence_overlap`` option)."""
    cells = set(window)
    return all(len(cells.intersection(other)) <= most for other in own)


def full_windows(chips: tuple[int, ...]) -> list[tuple[int, tuple[int, ...]]]:
    """Every window of five cells that are each one team's chip or a corner, as (team, window),
    by direction; ``chips`` holds only NO_CHIP and teams 0..MAX_TEAMS - 1."""
    board = array("b", chips).tobytes().translate(TEAM_BIT)
    held = CORNER_MASK | int.from_bytes(board, "little")
    found = []
    for step, starts in WINDOW_STARTS:
        # Bit ``team`` of byte ``cell`` stays set when the team holds the five cells from
        # ``cell`` along the direction.
        runs = starts & held
        for k in range(1, SEQUENCE_LENGTH):
            runs &= held >> (CELL_BITS * k * step)
        while runs:
            start, team = divmod((runs & -runs).bit_length() - 1, CELL_BITS)
            runs &= runs - 1
            found.append((team, tuple(range(start, start + SEQUENCE_LENGTH * step, step))))
    return found


def locked_cells(sequences: Iterable[Sequence]) -> set[int]:
    """Cells in a completed sequence: their chips can no longer be removed."""
    return {cell for sequence in sequences for cell in sequence.cells}


def is_dead(chips: tuple[int, ...], card: int) -> bool:
    """An equation card is dead when both cells showing its result hold a chip."""
    first, second = CARD_CELLS[card]
    return chips[first] != NO_CHIP and chips[second] != NO_CHIP


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


def completed_fives(
    chips: tuple[int, ...], team: int, cell: int, own: list[tuple[int, ...]], most: int
) -> list[tuple[int, ...]]:
    """The fives through ``cell`` that are new sequences of ``team`` beside its sequences
    ``own`` (see ``counts_as_new``), in scan order.

    Scan order: the lines through the cell in the order of DIRECTIONS (row, column, diagonal
    down-right, diagonal down-left); along each line, windows of five from the one that starts
    nearest the line's beginning (top, or left for rows). Each cell of a five is the team's chip
    or a corner.
    """
    found: list[tuple[int, ...]] = []
    for backward, forward in REACH[cell]:
        back = 0
        for x in backward:
            if chips[x] != team and not IS_CORNER[x]:
                break
            back += 1
        ahead = 0
        for x in forward:
            if chips[x] != team and not IS_CORNER[x]:
                break
            ahead += 1
        length = back + 1 + ahead
        if length < SEQUENCE_LENGTH:
            continue
        run = (*backward[:back][::-1], cell, *forward[:ahead])
        for start in range(length - SEQUENCE_LENGTH + 1):
            window = run[start : start + SEQUENCE_LENGTH]
            if counts_as_new(window, own, most):
                found.append(window)
    return found


def _excludes(first: tuple[int, ...], second: tuple[int, ...], most: int) -> bool:
    """Whether two fives share too many cells for both to be sequences of one team."""
    return len(set(first).intersection(second)) > most


def _lock_fives(
    state: State, team: int, cell: int, chips: tuple[int, ...], sequences: tuple[Sequence, ...]
) -> tuple[tuple[Sequence, ...], list[Event], tuple[tuple[int, ...], ...]]:
    """Lock the fives the chip on ``cell`` completes that exclude no other (every choice keeps
    them), in scan order; return the sequences, their events, and the fives left for the seat to
    choose from: none, or two or more that each exclude another."""
    most = MAX_SHARED[state.options.sequence_overlap]
    own = [sequence.cells for sequence in sequences if sequence.team == team]
    found = completed_fives(chips, team, cell, own, most)
    events: list[Event] = []
    choices: list[tuple[int, ...]] = []
    for window in found:
        if any(other is not window and _excludes(window, other, most) for other in found):
            choices.append(window)
        else:
            sequences = (*sequences, Sequence(team, window))
            events.append(Event(SequenceCompleted(team, window)))
    return sequences, events, tuple(choices)


def pending_choice(state: State) -> SequenceChoice | None:
    """The choice of five the seat to act must make before its turn goes on, if any."""
    cell = state.pending_cell
    if cell == NO_CELL:
        return None
    seat = state.turn % len(state.hands)
    team = seat % state.options.teams
    own = [sequence.cells for sequence in state.sequences if sequence.team == team]
    most = MAX_SHARED[state.options.sequence_overlap]
    return SequenceChoice(
        seat, team, cell, tuple(completed_fives(state.chips, team, cell, own, most))
    )


# --------------------------------------------------------------------- the turn
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
        raise IllegalActionError(f"card {card} is not in seat {seat}'s hand", "CARD_NOT_IN_HAND")
    index = hand.index(card)
    return hand[:index] + hand[index + 1 :]


def _play(state: State, seat: int, card: int, cell: int) -> tuple[State, tuple[Event, ...]]:
    hand = _take_from_hand(state.hands[seat], card, seat)
    if not 0 <= cell < CELLS:
        raise IllegalActionError(f"cell must be 0..{CELLS - 1}, not {cell}", "NO_SUCH_CELL")
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
        sequences, locked, choices = _lock_fives(state, team, cell, chips, sequences)
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
        offered = " or ".join("-".join(map(cell_text, five)) for five in choice.choices)
        raise IllegalActionError(
            f"not one of the fives on offer: {offered}", "NOT_A_SEQUENCE_CHOICE"
        )
    team = choice.team
    sequences = (*state.sequences, Sequence(team, cells))
    events = [Event(SequenceCompleted(team, cells))]
    sequences, locked, choices = _lock_fives(state, team, choice.cell, state.chips, sequences)
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
        winner = _winner(sequences, seats, teams)
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


# --------------------------------------------------------------------- consistency
def validate(state: State) -> None:
    """Reject any state the rules could not have produced (linear in its size)."""
    seats = len(state.hands)
    if seats not in TEAM_CHOICES:
        raise InvalidStateError(f"a game has 2, 3, 4 or 6 seats, not {seats}")
    teams = state.options.teams
    if teams not in TEAM_CHOICES[seats]:
        raise InvalidStateError(f"{seats} seats cannot play as {teams} teams")
    if len(state.discards) != seats:
        raise InvalidStateError(f"discards must have one pile per seat ({seats})")
    if not 0 <= state.rng_state <= MASK64:
        raise InvalidStateError("the generator state is not a 64-bit value")
    if not 0 <= state.turn <= TURN_LIMIT:
        raise InvalidStateError(f"the turn must be 0..{TURN_LIMIT}, not {state.turn}")
    pending = state.pending_cell != NO_CELL
    if pending and state.turn == TURN_LIMIT:
        raise InvalidStateError("a choice of five is pending after the turn limit")
    _validate_board(state, seats, teams)
    if pending:
        _validate_choice_cell(state, seats, teams)
    winner = _validate_sequences(state, seats, teams)
    finished = (winner is not None and not pending) or state.turn == TURN_LIMIT
    if finished and state.exchanged:
        raise InvalidStateError("a dead card was exchanged in a finished game")
    _validate_cards(state, seats, winner)
    if pending:
        _validate_choice(state, seats, teams)
    # The revision counts the actions: a play or a discard ends each turn, after at most one
    # dead-card exchange; a play that awaits its choice of five counts, and each choice of five
    # locks one of the sequences.
    fewest = _plays(state) + state.exchanged
    most = fewest + state.turn + len(state.sequences)
    if not fewest <= state.revision <= most:
        raise InvalidStateError(
            f"the revision {state.revision} does not follow from the turns played: "
            f"{fewest}..{most} actions"
        )


def _plays(state: State) -> int:
    """The plays made: the completed turns, and the play that awaits its choice of five."""
    return state.turn + (state.pending_cell != NO_CELL)


def _turns_played(state: State, seat: int) -> int:
    """The turns ``seat`` has played (the one awaiting a choice of five included): seats play in
    order from seat 0."""
    seats = len(state.hands)
    plays = _plays(state)
    return plays // seats + (seat < plays % seats)


def _validate_board(state: State, seats: int, teams: int) -> None:
    chips = state.chips
    if len(chips) != CELLS:
        raise InvalidStateError(f"the board has {CELLS} cells, not {len(chips)}")
    for corner in CORNERS:
        if chips[corner] != NO_CHIP:
            raise InvalidStateError(f"a chip on corner {cell_text(corner)}: corners are free")
    placed = [chips.count(team) for team in range(teams)]
    if sum(placed) + chips.count(NO_CHIP) != CELLS:
        raise InvalidStateError(f"a cell holds neither NO_CHIP nor a chip of teams 0..{teams - 1}")
    # A team places at most one chip per turn its seats have played.
    for team, count in enumerate(placed):
        turns = sum(_turns_played(state, seat) for seat in team_seats(seats, teams, team))
        if count > turns:
            raise InvalidStateError(
                f"team {team} has {count} chips after only {turns} of its turns"
            )


def _validate_sequences(state: State, seats: int, teams: int) -> int | None:
    """Check the locked sequences against the board; return the winning team, if any."""
    chips = state.chips
    most = MAX_SHARED[state.options.sequence_overlap]
    by_team: list[list[tuple[int, ...]]] = [[] for _ in range(teams)]
    for sequence in state.sequences:
        team, cells = sequence.team, sequence.cells
        if not 0 <= team < teams:
            raise InvalidStateError(f"a sequence of team {team}, but there are {teams} teams")
        if cells not in WINDOW_SET:
            raise InvalidStateError("a locked sequence is not five cells in a straight line")
        if any(chips[cell] != team and not IS_CORNER[cell] for cell in cells):
            raise InvalidStateError("a locked sequence holds a cell that is not its team's")
        if not counts_as_new(cells, by_team[team], most):
            raise InvalidStateError(
                "two sequences of a team share more cells than sequence_overlap "
                f"{state.options.sequence_overlap.value} allows"
            )
        by_team[team].append(cells)
    # The placement that completes five in a line locks them, unless they share more cells than
    # the option allows with one of the team's sequences: chips only leave the board while
    # unlocked. The fives through a chip awaiting its seat's choice are still unlocked.
    pending = state.pending_cell
    choosing = state.turn % seats % teams
    for team, window in full_windows(chips):
        if pending in window and team == choosing:
            continue
        if counts_as_new(window, by_team[team], most):
            raise InvalidStateError(
                f"five cells of team {team} in a line from {cell_text(window[0])} are not a "
                "locked sequence"
            )
    counts = sequence_counts(state.sequences, teams)
    needed = sequences_to_win(seats)
    winners = [team for team, count in enumerate(counts) if count >= needed]
    if not winners:
        return None
    if len(winners) > 1:
        raise InvalidStateError("more than one team has the sequences to win")
    winner = winners[0]
    plays = _plays(state)
    if plays == 0:
        raise InvalidStateError("a team won before any turn was played")
    # The winning play ends the game at once (once its seat has chosen its fives): it was the
    # last play, and the sequences it completed are the last ones, all of the winner's.
    if (plays - 1) % seats % teams != winner:
        raise InvalidStateError(f"team {winner} won but did not make the last play")
    last_run = 0
    for sequence in reversed(state.sequences):
        if sequence.team != winner:
            break
        last_run += 1
    if counts[winner] - last_run >= needed:
        raise InvalidStateError(f"a sequence was completed after its win by team {winner}")
    return winner


def _validate_cards(state: State, seats: int, winner: int | None) -> None:
    """Check the hands, the discard piles and the deck."""
    # Every hand is full, except that a winning play ends the game before its seat draws, and
    # a play awaiting its choice of five has not drawn yet.
    size = hand_size(seats)
    to_act = state.turn % seats
    pending = state.pending_cell != NO_CELL
    last_seat = (_plays(state) - 1) % seats
    short = winner is not None or pending
    for seat, hand in enumerate(state.hands):
        expected = size - 1 if short and seat == last_seat else size
        if len(hand) != expected:
            raise InvalidStateError(f"seat {seat} holds {len(hand)} cards, not {expected}")
        if list(hand) != sorted(hand):
            raise InvalidStateError("a hand must be in ascending order")
    # A turn puts at most two cards on the seat's pile: an exchanged dead card and the play.
    for seat, pile in enumerate(state.discards):
        most = 2 * _turns_played(state, seat) + (state.exchanged and seat == to_act)
        if len(pile) > most:
            raise InvalidStateError(f"seat {seat}'s discard pile holds more than {most} cards")
    if not state.deck:
        raise InvalidStateError("the draw deck is empty: it is reshuffled as it runs out")
    # Card conservation: every card is in exactly one hand, discard pile or the deck.
    located = [*chain.from_iterable(state.hands), *chain.from_iterable(state.discards)]
    located.extend(state.deck)
    if sorted(located) != ALL_CARDS:
        raise InvalidStateError(
            "the cards do not add up: a card is missing, in two places or foreign"
        )
    if state.exchanged:
        # The exchanged card tops the seat's pile (under the card played, while a choice of five
        # is pending), unless its replacement was the last card of the deck: then every pile was
        # reshuffled. Either way the card was dead, and still is.
        pile = state.discards[to_act][: -1 if pending else None]
        if pile:
            if pile[-1] >= EQUATION_COUNT or not is_dead(state.chips, pile[-1]):
                raise InvalidStateError("the exchanged card on top of the discard pile is not dead")
        elif any(other for seat, other in enumerate(state.discards) if seat != to_act):
            raise InvalidStateError("a seat that exchanged has an empty pile without a reshuffle")
        elif not any(is_dead(state.chips, card) for card in range(EQUATION_COUNT)):
            raise InvalidStateError("a dead card was exchanged, but there is no dead card")


def _validate_choice_cell(state: State, seats: int, teams: int) -> None:
    """Check that a pending choice of five is on a chip of the seat to act's team."""
    cell = state.pending_cell
    if not 0 <= cell < CELLS or IS_CORNER[cell]:
        raise InvalidStateError(f"a choice of five is pending on cell {cell}, not a cell of a chip")
    team = state.turn % seats % teams
    if state.chips[cell] != team:
        raise InvalidStateError(
            f"a choice of five is pending on {cell_text(cell)}, which holds no chip of team {team}"
        )


def _validate_choice(state: State, seats: int, teams: int) -> None:
    """Check a pending choice of five: the card that placed the chip on top of the seat's pile,
    and fives through the chip that each exclude another."""
    cell = state.pending_cell
    seat = state.turn % seats
    pile = state.discards[seat]
    card = pile[-1] if pile else NO_CHIP
    if not (card in PLUS_CARDS or (0 <= card < EQUATION_COUNT and cell in CARD_CELLS[card])):
        raise InvalidStateError(
            f"the card on top of seat {seat}'s pile did not place the chip on {cell_text(cell)}"
        )
    choice = pending_choice(state)
    most = MAX_SHARED[state.options.sequence_overlap]
    choices = choice.choices if choice is not None else ()
    if len(choices) < 2 or any(
        not any(other is not five and _excludes(five, other, most) for other in choices)
        for five in choices
    ):
        raise InvalidStateError(
            f"a choice of five is pending on {cell_text(cell)}, but its fives do not exclude "
            "one another: they would have been locked"
        )
