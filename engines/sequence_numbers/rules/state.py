"""The values of Sequence Numbers: seats and teams, options, actions, the state, the view and the
events (docs/rules/sequence_numbers.md)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from engines.errors import InvalidOptionsError, InvalidSeatsError
from engines.sequence_numbers.rules.board import SEQUENCE_LENGTH, cell_text
from engines.sequence_numbers.rules.cards import card_text

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
TURN_LIMIT = 600  # [decision] after this many turns without a winner the game is a draw
NO_CELL = -1  # no chip awaits its seat's choice of five
HIDDEN_CARD = -1  # the card of a draw, in the event everyone sees


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


# --------------------------------------------------------------------- seats and teams
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
