"""The Fora de Ordem heuristic bot against the random bot, over 1,000 seeded games."""

from __future__ import annotations

import statistics

import pytest

from engines.fora_de_ordem import ENGINE
from engines.prng import Rng

GAMES = 1000
SEATS = 2  # the fastest table: one heuristic seat against one random seat
MIN_MARGIN = 8.0  # bombs per game the heuristic must save; it measures about 17
SAFETY_Z = 6.0  # the margin must also stand this many standard errors above zero


def _play(seed: int, heuristic_seat: int) -> tuple[int, ...]:
    """Play one game, the heuristic at ``heuristic_seat`` and random elsewhere; return bombs."""
    state = ENGINE.new_game(SEATS, seed, ENGINE.default_options())
    rng = Rng(seed)
    policies = ENGINE.policies
    while to_act := ENGINE.seats_to_act(state):
        seat = to_act[0]
        policy = policies["heuristic" if seat == heuristic_seat else "random"]
        state = ENGINE.apply(state, seat, policy(state, seat, rng)).state
    outcome = ENGINE.outcome(state)
    assert outcome is not None
    return outcome.scores


@pytest.mark.slow
def test_heuristic_takes_clearly_fewer_bombs_than_random() -> None:
    """Over 1,000 seeded games, alternating seats, the heuristic saves many bombs per game."""
    margins = []
    for game in range(GAMES):
        heuristic_seat = game % SEATS
        scores = _play(game + 1, heuristic_seat)
        margins.append(scores[1 - heuristic_seat] - scores[heuristic_seat])
    margin = statistics.mean(margins)
    error = statistics.stdev(margins) / GAMES**0.5
    print(f"heuristic margin over random: {margin:.2f} bombs per game (standard error {error:.2f})")
    assert margin >= MIN_MARGIN
    assert margin / error >= SAFETY_Z
