"""The ``heuristic`` bot of Up or Down?: a one-turn look-ahead over the seat's own display.

It sees only what its seat may see (its hand, the circle, every display, the face-up top), so it
needs no re-deal. Each legal turn is valued by the display it leaves: the points its rows score
now, plus the points they may still gain. A row's prospect grows with its length and its most
common colour (extending a long single-colour row pays the most) and with the room left in its
direction (a row of one card is open both ways; a big jump closes a row early), and it fades as
the seat's remaining turns run out. Abandoning therefore wins only when the row it throws away
is worth less than the one it restarts plus the discard points. The draw takes the face-up card
when it would extend one of the seat's rows in its majority colour, the face-down card otherwise.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engines.up_or_down.data import BLOCK, COLOUR_INDEX
from engines.up_or_down.rules import (
    DiscardScoring,
    Display,
    Draw,
    Neighbour,
    Placement,
    Row,
    State,
    Turn,
    accepts,
    colour_counts,
    highest_card,
    legal_turns,
    neighbours,
    total_turns,
)

if TYPE_CHECKING:
    from engines.prng import Rng

PROSPECT_WEIGHT = 3.0  # future cards a fully open row is expected to take, as a share of its gain
HORIZON_TURNS = 6  # own turns ahead within which a row's prospects still count in full
MIN_MAJORITY_FOR_FACE_UP = 2  # a row colour worth chasing with the face-up card


def heuristic(state: State, seat: int, rng: Rng) -> Turn:
    """The best turn by the value of the display it leaves, then the preferred pile."""
    del rng  # the choice is deterministic: ties go to the first turn in the legal order
    seats = len(state.hands)
    highest = highest_card(state.options, seats)
    own_turns_left = (total_turns(state.options, seats) - state.revision - 1) // seats
    horizon = PROSPECT_WEIGHT * min(own_turns_left, HORIZON_TURNS) / HORIZON_TURNS
    per_row = state.options.discard_scoring is DiscardScoring.PER_ROW
    rows = state.displays[seat]
    preferred = _preferred_draw(state, rows)
    best: Turn | None = None
    best_value = float("-inf")
    for turn in legal_turns(state, seat):
        if preferred is not None and turn.draw is not preferred:
            continue
        value = _after_value(
            rows, _taken(state, turn), turn, highest=highest, horizon=horizon, per_row=per_row
        )
        if value > best_value:
            best, best_value = turn, value
    if best is None:
        raise ValueError("the seat to act always has a legal turn")
    return best


def _taken(state: State, turn: Turn) -> int:
    lower, higher = neighbours(state.circle, turn.card)
    return lower if turn.take is Neighbour.LOWER else higher


def _after_value(
    rows: Display, taken: int, turn: Turn, *, highest: int, horizon: float, per_row: bool
) -> float:
    """The value of the display after the turn: rows' points and prospects, plus discards."""
    r = turn.row
    if turn.placement is Placement.EXTEND:
        changed: Display = (*rows[:r], (*rows[r], taken), *rows[r + 1 :])
        discard_points = 0
    elif turn.placement is Placement.NEW_ROW:
        changed = (*rows, (taken,))
        discard_points = 0
    else:
        changed = (*rows[:r], (taken,), *rows[r + 1 :])
        discard_points = 1 if per_row else len(rows[r])
    return discard_points + sum(_row_value(row, highest, horizon) for row in changed)


def _row_value(row: Row, highest: int, horizon: float) -> float:
    """A row's points now plus what it may still gain."""
    length, majority = len(row), max(colour_counts(row))
    if length == 1:
        room = 1.0
    elif row[1] > row[0]:
        room = (highest - row[-1]) / highest
    else:
        room = (row[-1] - 1) / highest
    # The next card adds ``majority`` points, or length + majority + 1 in the majority colour.
    gain = majority + (length + majority + 1) / BLOCK
    return length * majority + room * gain * horizon


def _preferred_draw(state: State, rows: Display) -> Draw | None:
    """The pile to draw from, or None when only one choice exists."""
    if not (state.face_up and state.face_down):
        return None
    top = state.face_up[0]
    for row in rows:
        counts = colour_counts(row)
        majority = max(counts)
        if (
            majority >= MIN_MAJORITY_FOR_FACE_UP
            and counts[COLOUR_INDEX[top]] == majority
            and accepts(row, top)
        ):
            return Draw.FACE_UP
    return Draw.FACE_DOWN
