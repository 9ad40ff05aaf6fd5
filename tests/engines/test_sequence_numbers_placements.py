"""The heuristic's worth of a chip on each free cell (``bots.Placements``) against a plain
reference: the same number on every cell a play can target, over positions of seeded heuristic
games at 2, 3, 4 and 6 seats."""

from __future__ import annotations

import pytest

from engines.prng import Rng
from engines.sequence_numbers import ENGINE
from engines.sequence_numbers.bots import ATTACK, BLOCK, Placements, heuristic
from engines.sequence_numbers.rules import (
    IS_CORNER,
    MAX_SHARED,
    NO_CHIP,
    PLUS_CARDS,
    USUAL_TEAMS,
    WINDOWS_THROUGH,
    Options,
    SequenceOverlap,
    State,
    apply,
    counts_as_new,
    is_finished,
)

GAMES = 5  # seeded games per setting
STRIDE = 2  # positions checked: every second turn of each game, and its last


def reference_value(
    chips: tuple[int, ...], team: int, cell: int, own: list[tuple[int, ...]], most: int
) -> int:
    """A chip of ``team`` on ``cell``, window by window through the cell: an open window's
    ``ATTACK`` by the cells the team holds, if it may count beside ``own``; a window that one
    other team is filling and the team is not, its ``BLOCK`` by the cells that team holds."""
    value = 0
    for window in WINDOWS_THROUGH[cell]:
        corners = mine = theirs = 0
        other = NO_CHIP
        mixed = False
        for x in window:
            if x == cell:
                continue
            if IS_CORNER[x]:
                corners += 1
                continue
            chip = chips[x]
            if chip == NO_CHIP:
                continue
            if chip == team:
                mine += 1
            elif other in (NO_CHIP, chip):
                other = chip
                theirs += 1
            else:
                mixed = True
        if other == NO_CHIP:
            if counts_as_new(window, own, most):
                value += ATTACK[mine + corners]
        elif not mixed and mine == 0:
            value += BLOCK[theirs + corners]
    return value


def positions(seats: int, options: Options, seed: int) -> list[State]:
    """Every ``STRIDE``-th state of a game the heuristic plays at every seat, and its last."""
    state = ENGINE.new_game(seats, seed, options)
    seen = []
    while not is_finished(state):
        if state.turn % STRIDE == 0:
            seen.append(state)
        seat = state.turn % seats
        state = apply(state, seat, heuristic(state, seat, Rng(0)))[0]
    seen.append(state)
    return seen


@pytest.mark.parametrize(
    ("seats", "teams", "overlap"),
    [
        (2, USUAL_TEAMS, SequenceOverlap.ONE_CELL),
        (3, USUAL_TEAMS, SequenceOverlap.ONE_CELL),
        (4, USUAL_TEAMS, SequenceOverlap.ONE_CELL),
        (4, USUAL_TEAMS, SequenceOverlap.ANY),
        (6, 2, SequenceOverlap.ONE_CELL),
        (6, 3, SequenceOverlap.ANY),
    ],
)
def test_placements_equal_the_reference_on_every_free_cell(
    seats: int, teams: int, overlap: SequenceOverlap
) -> None:
    """For every team, on every free cell (each a PLUS card's target), in every position checked:
    each cell asked in a shuffled order, then each again."""
    options = Options(teams=teams, sequence_overlap=overlap)
    most = MAX_SHARED[overlap]
    checked = with_plus = with_sequence = 0
    for seed in range(1, GAMES + 1):
        for state in positions(seats, options, seed):
            chips = state.chips
            free = [c for c in range(len(chips)) if chips[c] == NO_CHIP and not IS_CORNER[c]]
            with_plus += any(card in PLUS_CARDS for hand in state.hands for card in hand)
            for team in range(state.options.teams):
                own = [s.cells for s in state.sequences if s.team == team]
                with_sequence += bool(own)
                placements = Placements(chips, team, own, most)
                order = list(Rng(seed * 1_000 + state.turn).shuffle(free))
                for cell in order + free:
                    assert placements.value(cell) == reference_value(chips, team, cell, own, most)
                    checked += 1
    # The positions cover hands holding PLUS cards and teams beside their own sequences.
    assert checked > 0
    assert with_plus > 0
    assert with_sequence > 0
