"""The Fora de Ordem heuristic bot: its rules of thumb in set situations, and against the random bot
over 1,000 seeded games."""

from __future__ import annotations

import statistics

import pytest

from engines.fora_de_ordem import ENGINE, bots
from engines.fora_de_ordem.data import CardKind
from engines.prng import Rng
from tests.engines.test_fora_de_ordem import (
    CAVAQUINHO,
    PIANO,
    card,
    card_range,
    new_game,
    play_all,
    with_hand,
)

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


class TestHeuristic:
    """The rules of thumb of the heuristic bot in set situations."""

    def test_only_the_other_seats_cards_are_evidence(self) -> None:
        """A seat knows why it played its own cards: they tell it nothing about the ranks."""
        sides = ((card(0, (2,)),), (), (), (), ())
        assert bots.rank_beliefs(sides, 0) == [bots.UNIFORM] * 5
        seen_by_other = bots.rank_beliefs(sides, 1)
        assert seen_by_other[0][1] > bots.UNIFORM[1]

    def test_it_leaves_an_opponent_the_bombs_it_is_due(self) -> None:
        """Bombs the opponent takes count in its favour: it does not cover a side with a special
        that could only turn the opponent's bombs into its own."""
        # Cavaquinho: seat 0's 2nd/3rd/4th under seat 1's 1st. Seat 0 takes its 5 bombs if the
        # item is 1st; otherwise seat 1 takes 6 whatever is played on top. "Previous is wrong"
        # there changes one thing only: on a 1st, seat 1 would take all 9 instead.
        wide, high = card(0, (2, 3, 4)), card(0, (3, 4, 5))
        first, previous_wrong = card(1, (1,), bombs=1), card(1, kind=CardKind.PREVIOUS_WRONG)
        state = with_hand(new_game(seats=2), 0, [wide, high, *card_range(0, 2)])
        state = with_hand(state, 1, [first, card(1, (2,)), card(1, (5,), bombs=1), previous_wrong])
        plays = [(0, wide, CAVAQUINHO), (1, first, CAVAQUINHO), (0, high, PIANO)]
        state, _ = play_all(state, plays)
        for seed in range(5):
            action = ENGINE.suggest(state, 1, "heuristic", Rng(seed))
            assert action in ENGINE.legal_actions(state, 1)
            assert action.card != previous_wrong
