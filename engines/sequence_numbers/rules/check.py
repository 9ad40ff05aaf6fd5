"""The consistency check of Sequence Numbers: a state received from outside is refused unless the
rules could have produced it (docs/rules/sequence_numbers.md)."""

from __future__ import annotations

from itertools import chain

from engines.errors import InvalidStateError
from engines.notation import field_text, seat_text, team_text
from engines.prng import MASK64
from engines.sequence_numbers.rules.board import (
    CELLS,
    CORNERS,
    IS_CORNER,
    NO_CHIP,
    WINDOW_SET,
    cell_text,
)
from engines.sequence_numbers.rules.cards import (
    ALL_CARDS,
    CARD_CELLS,
    EQUATION_COUNT,
    PLUS_CARDS,
    is_dead,
)
from engines.sequence_numbers.rules.sequences import (
    counts_as_new,
    excludes,
    full_windows,
    pending_choice,
    sequence_counts,
)
from engines.sequence_numbers.rules.state import (
    MAX_SHARED,
    NO_CELL,
    TEAM_CHOICES,
    TURN_LIMIT,
    State,
    hand_size,
    sequences_to_win,
    team_seats,
)


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
        _validate_choice(state, seats)
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
        raise InvalidStateError(
            f"a chip is neither NO_CHIP nor a team's: the wire numbers the teams 0 to {teams - 1}"
        )
    # A team places at most one chip per turn its seats have played.
    for team, count in enumerate(placed):
        turns = sum(_turns_played(state, seat) for seat in team_seats(seats, teams, team))
        if count > turns:
            raise InvalidStateError(
                f"{team_text(team)} has {count} chips after only {turns} of its turns"
            )


def _validate_sequences(state: State, seats: int, teams: int) -> int | None:
    """Check the locked sequences against the board; return the winning team, if any."""
    chips = state.chips
    most = MAX_SHARED[state.options.sequence_overlap]
    by_team: list[list[tuple[int, ...]]] = [[] for _ in range(teams)]
    for sequence in state.sequences:
        team, cells = sequence.team, sequence.cells
        if not 0 <= team < teams:
            raise InvalidStateError(
                f"a sequence of {field_text('team', team)}, but there are {teams} teams"
            )
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
                f"five cells of {team_text(team)} in a line from {cell_text(window[0])} are not a "
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
    # last play, and the sequences it completed are the last ones, all of the winner's. A play
    # awaiting its choice of five is the last play, and the sequences it locked are the ones
    # through its chip: when the team's others already win, the game ended before that play.
    won_before = (
        pending != NO_CELL
        and counts[winner] - sum(pending in sequence.cells for sequence in state.sequences)
        >= needed
    )
    if (plays - 1) % seats % teams != winner or won_before:
        raise InvalidStateError(f"{team_text(winner)} won but did not make the last play")
    last_run = 0
    for sequence in reversed(state.sequences):
        if sequence.team != winner:
            break
        last_run += 1
    if counts[winner] - last_run >= needed:
        raise InvalidStateError(f"a sequence was completed after its win by {team_text(winner)}")
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
            raise InvalidStateError(f"{seat_text(seat)} holds {len(hand)} cards, not {expected}")
        if list(hand) != sorted(hand):
            raise InvalidStateError("a hand must be in ascending order")
    # A turn puts at most two cards on the seat's pile: an exchanged dead card and the play.
    for seat, pile in enumerate(state.discards):
        most = 2 * _turns_played(state, seat) + (state.exchanged and seat == to_act)
        if len(pile) > most:
            raise InvalidStateError(
                f"{seat_text(seat)}'s discard pile holds more than {most} cards"
            )
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
        raise InvalidStateError(
            f"a choice of five is pending on {field_text('pending_cell', cell)}, "
            "not a cell of a chip"
        )
    team = state.turn % seats % teams
    if state.chips[cell] != team:
        raise InvalidStateError(
            f"a choice of five is pending on {cell_text(cell)}, which holds no chip of "
            f"{team_text(team)}"
        )


def _validate_choice(state: State, seats: int) -> None:
    """Check a pending choice of five: the card that placed the chip on top of the seat's pile,
    and fives through the chip that each exclude another."""
    cell = state.pending_cell
    seat = state.turn % seats
    pile = state.discards[seat]
    card = pile[-1] if pile else NO_CHIP
    if not (card in PLUS_CARDS or (0 <= card < EQUATION_COUNT and cell in CARD_CELLS[card])):
        raise InvalidStateError(
            f"the card on top of {seat_text(seat)}'s pile did not place the chip on "
            f"{cell_text(cell)}"
        )
    choice = pending_choice(state)
    most = MAX_SHARED[state.options.sequence_overlap]
    choices = choice.choices if choice is not None else ()
    if len(choices) < 2 or any(
        not any(other is not five and excludes(five, other, most) for other in choices)
        for five in choices
    ):
        raise InvalidStateError(
            f"a choice of five is pending on {cell_text(cell)}, but its fives do not exclude "
            "one another: they would have been locked"
        )
