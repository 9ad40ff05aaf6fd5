"""The Up or Down? heuristic bot against the random bot over 1,000 seeded games."""

from __future__ import annotations

import math
import statistics

import pytest

from engines.prng import Rng
from engines.up_or_down import ENGINE, Options

GAMES = 1000
SEATS = 2  # the fastest setting: 36 turns a game
MIN_MARGIN = 10.0  # points per game the heuristic must beat random by, at the low bound
Z = 6.0  # standard errors below the mean margin for the low bound


def _margin(seed: int) -> int:
    """Play one game with the heuristic in seat ``seed % 2`` and return its score minus the
    random seat's."""
    heuristic_seat = seed % SEATS
    state = ENGINE.new_game(SEATS, seed, Options())
    rng = Rng(seed)
    while seats := ENGINE.seats_to_act(state):
        seat = seats[0]
        policy = "heuristic" if seat == heuristic_seat else "random"
        state = ENGINE.apply(state, seat, ENGINE.suggest(state, seat, policy, rng)).state
    outcome = ENGINE.outcome(state)
    assert outcome is not None
    return outcome.scores[heuristic_seat] - outcome.scores[1 - heuristic_seat]


@pytest.mark.slow
def test_heuristic_beats_random() -> None:
    """Over 1,000 games the heuristic outscores random by a statistically safe margin."""
    margins = [_margin(seed) for seed in range(1, GAMES + 1)]
    mean = statistics.fmean(margins)
    error = statistics.stdev(margins) / math.sqrt(GAMES)
    wins = sum(margin > 0 for margin in margins)
    print(
        f"heuristic vs random over {GAMES} games: mean margin {mean:.2f} points "
        f"(standard error {error:.2f}), heuristic ahead in {wins} games"
    )
    assert mean - Z * error > MIN_MARGIN
