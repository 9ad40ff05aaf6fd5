"""The Up or Down? heuristic bot: its choices in set situations, and against the random bot over
1,000 seeded games."""

from __future__ import annotations

import math
import statistics

import pytest

from engines.prng import Rng
from engines.up_or_down import ENGINE, Options, State
from engines.up_or_down.data import CARD_COLOURS, Colour
from engines.up_or_down.rules import DiscardScoring, Turn
from tests.engines.test_up_or_down import (
    ABANDON,
    EXTEND,
    FACE_DOWN,
    FACE_UP,
    LOWER,
    NONE,
    arrange,
)

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


class TestHeuristic:
    """The heuristic bot's choices (see ``engines.up_or_down.bots``)."""

    @staticmethod
    def _suggest(state: State) -> Turn:
        return ENGINE.suggest(state, 0, "heuristic", Rng(0))

    def test_ties_go_to_the_first_legal_turn(self) -> None:
        """With no row yet every turn starts a row of one card, all worth the same: the bot
        plays the first of them in the legal order, drawing face down."""
        state = arrange()
        first = next(t for t in ENGINE.legal_actions(state, 0) if t.draw is FACE_DOWN)
        assert self._suggest(state) == first

    def test_face_up_draw_for_a_row_of_two_of_its_colour(self) -> None:
        """The face-up card is drawn when it extends a row holding 2 cards of its colour."""
        state = arrange(displays={0: ((3, 16),)}, face_up=(37,))  # all three yellow
        assert {CARD_COLOURS[card] for card in (3, 16, 37)} == {Colour.YELLOW}
        assert self._suggest(state).draw is FACE_UP

    def test_face_down_draw_when_the_row_cannot_take_the_face_up_card(self) -> None:
        """A face-up card of the row's colour is left when the row's direction refuses it."""
        state = arrange(displays={0: ((24, 16),)}, face_up=(37,))  # all three yellow, falling
        assert {CARD_COLOURS[card] for card in (16, 24, 37)} == {Colour.YELLOW}
        assert self._suggest(state).draw is FACE_DOWN

    def test_per_card_abandons_the_row_its_discards_pay_back(self) -> None:
        """With PER_CARD an abandoned row scores a point per card: the bot gives up the closed
        6-card row of six colours (6 points, all returned as discards) rather than a closed row
        of 2 greens (4 points, 2 returned)."""
        rows = ((41, 40, 39, 38, 37, 2), (27, 4), (24, 16, 3))
        assert len({CARD_COLOURS[card] for card in rows[0]}) == 6
        assert {CARD_COLOURS[card] for card in rows[1]} == {Colour.GREEN}
        turn = self._suggest(arrange(displays={0: rows}, hand=(5, 8, 22)))
        assert (turn.placement, turn.row) == (ABANDON, 0)

    def test_a_falling_row_values_the_room_below_it(self) -> None:
        """Near the end (PER_ROW), the bot extends its open falling row with 35 rather than 10:
        a falling row's room is what is left below its last card."""
        state = arrange(
            displays={0: ((42, 39), (31, 40), (34, 41))},
            hand=(5, 22),
            hands={1: (1, 2)},
            face_up=(),
            face_down=(),
            options=Options(discard_scoring=DiscardScoring.PER_ROW),
        )
        assert self._suggest(state) == Turn(5, LOWER, EXTEND, 0, NONE)
