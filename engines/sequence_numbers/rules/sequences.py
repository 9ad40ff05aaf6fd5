"""Sequences of Sequence Numbers: fives in a line, which are new, which lock at once and which
await their seat's choice, and who has won (docs/rules/sequence_numbers.md)."""

from __future__ import annotations

from array import array
from collections.abc import Iterable

from engines.base import Event
from engines.sequence_numbers.rules.board import (
    CORNERS,
    IS_CORNER,
    REACH,
    SEQUENCE_LENGTH,
    WINDOWS,
)
from engines.sequence_numbers.rules.state import (
    MAX_SHARED,
    NO_CELL,
    TEAM_COUNTS,
    TURN_LIMIT,
    Sequence,
    SequenceChoice,
    SequenceCompleted,
    State,
    sequences_to_win,
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


def winning_team(state: State) -> int | None:
    """The team that has the sequences it needs, if any."""
    return winner_of(state.sequences, len(state.hands), state.options.teams)


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


def winner_of(sequences: tuple[Sequence, ...], seats: int, teams: int) -> int | None:
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


def excludes(first: tuple[int, ...], second: tuple[int, ...], most: int) -> bool:
    """Whether two fives share too many cells for both to be sequences of one team."""
    return len(set(first).intersection(second)) > most


def lock_fives(
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
        if any(other is not window and excludes(window, other, most) for other in found):
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
