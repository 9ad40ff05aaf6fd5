"""The 6 nimmt! bots: the heuristic's choices in set situations, and its strength in many games."""

from __future__ import annotations

import statistics
from dataclasses import replace

import pytest

from engines.prng import Rng
from engines.six_nimmt import ENGINE, Options, State
from engines.six_nimmt.data import ZERO_CARD
from engines.six_nimmt.rules import HAND_SIZE, NO_SELECTION, ChooseRow, EndRule, Select
from tests.engines.test_six_nimmt import ZERO, build

ONE_HAND = Options(end=EndRule.FIXED_HANDS, hands=1)
SEATS = 4
GAMES = 1000
MIN_MARGIN = 5.0  # bullheads per game the heuristic must save over a random seat, at worst
SAFETY = 4  # standard errors the measured margin must clear MIN_MARGIN by


def heuristic(state: State, seat: int) -> object:
    """The heuristic bot's action for the seat."""
    return ENGINE.suggest(state, seat, "heuristic", Rng(seat))


class TestHeuristicChoices:
    """The heuristic avoids rows it would take and uses what it may see only."""

    def test_it_avoids_a_sure_sixth_card(self) -> None:
        """It does not play a card sure to be the 6th of a row when a safe card exists."""
        state = build([[1, 2, 3, 4, 5], [20], [30], [40]], [[6, 21], [90, 91]], options=ONE_HAND)
        assert heuristic(state, 0) == Select(21)

    def test_it_prefers_the_card_closest_to_its_row(self) -> None:
        """Between two safe cards it plays the one that fits its row more tightly."""
        state = build([[10], [20], [30], [40]], [[41, 60], [90, 91]], options=ONE_HAND)
        assert heuristic(state, 0) == Select(41)

    def test_it_takes_the_cheapest_row_under_rule_4(self) -> None:
        """When its card is lower than every row it takes the row with the fewest bullheads."""
        state = build([[55], [60], [71, 72], [80]], [[3, 90], [91, 92]], options=ONE_HAND)
        for seat, card in ((0, 3), (1, 91)):
            state = ENGINE.apply(state, seat, Select(card)).state
        assert heuristic(state, 0) == ChooseRow(2)

    def test_it_plays_the_zero_card_when_every_card_takes_a_row(self) -> None:
        """With every card sure to take a row it plays its zero card."""
        rows = [[1, 2, 3, 4, 5], [11, 12, 13, 14, 15], [21, 22, 23, 24, 25], [31, 32, 33, 34, 35]]
        options = replace(ONE_HAND, zero_card=True)
        state = build(rows, [[6, 16], [90, 91]], options=options)
        assert heuristic(state, 0) == Select(ZERO_CARD)

    def test_it_keeps_the_zero_card_when_a_card_is_safe(self) -> None:
        """With a safe card in hand it keeps its zero card."""
        options = replace(ONE_HAND, zero_card=True)
        state = build([[10], [20], [30], [40]], [[41, 60], [90, 91]], options=options)
        assert heuristic(state, 0) == Select(41)

    @pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
    def test_it_uses_only_what_its_seat_sees(self, seed: int) -> None:
        """Re-dealing what the seat cannot see never changes the heuristic's choice."""
        state = ENGINE.new_game(SEATS, seed, Options(zero_card=True))
        rng = Rng(seed)
        for _ in range(HAND_SIZE // 2 * SEATS):
            seat = ENGINE.seats_to_act(state)[0]
            if state.selections[seat] == NO_SELECTION and not state.revealed:
                action = heuristic(state, seat)
                for redeal_seed in range(3):
                    redealt = ENGINE.redeal(state, seat, Rng(redeal_seed))
                    assert heuristic(redealt, seat) == action
            action = ENGINE.suggest(state, seat, "random", rng)
            state = ENGINE.apply(state, seat, action).state

    def test_its_actions_are_legal_through_whole_games(self) -> None:
        """Four heuristic seats play whole games with every option, always legally."""
        for options in (Options(zero_card=True), Options(tactical_deck=True, threshold=30)):
            state = ENGINE.new_game(SEATS, 9, options)
            while not ENGINE.status(state).finished:
                seat = ENGINE.seats_to_act(state)[0]
                action = heuristic(state, seat)
                assert action in ENGINE.legal_actions(state, seat)
                state = ENGINE.apply(state, seat, action).state

    def test_it_plays_the_zero_card_at_a_cost_of_exactly_one_bullhead(self) -> None:
        """Every card is sure to take a row of one bullhead (Rule 4, nothing unseen below it): an
        expected cost of exactly 1 is enough to play the zero card."""
        state = build([[51], [62], [73], [84]], [[1, 2], [90, 91]], options=ZERO)
        assert heuristic(state, 0) == Select(ZERO_CARD)

    def test_it_counts_the_risk_when_the_others_can_just_fill_the_row(self) -> None:
        """With one other seat, a card after a row of 4 takes it if that seat's card falls in
        between: it plays a card on the row of 3 instead, which the one other card cannot fill."""
        state = build([[10, 11, 12, 13], [30, 31, 32], [95], [96]], [[20, 90], [97, 98]])
        assert heuristic(state, 0) == Select(90)

    def test_taken_cards_are_seen(self) -> None:
        """Cards already taken cannot be played by the others: a gap that they fill is safe."""
        state = build(
            [[10, 11, 12, 13], [30, 31, 32], [95], [96]],
            [[20, 90], [97, 98]],
            taken=[[], [14, 15, 16, 17, 18, 19]],
        )
        assert heuristic(state, 0) == Select(20)


@pytest.mark.slow
class TestHeuristicStrength:
    """Over many games the heuristic takes far fewer bullheads than random play."""

    def test_heuristic_beats_random_seats(self) -> None:
        """One heuristic seat (rotating) against three random seats, 1,000 one-hand games."""
        margins = []
        heuristic_totals, random_totals = [], []
        for game in range(GAMES):
            hero = game % SEATS  # rotate the heuristic's seat against any seat bias
            state = ENGINE.new_game(SEATS, 10_000 + game, ONE_HAND)
            rng = Rng(game)
            while not ENGINE.status(state).finished:
                seat = ENGINE.seats_to_act(state)[0]
                policy = "heuristic" if seat == hero else "random"
                state = ENGINE.apply(state, seat, ENGINE.suggest(state, seat, policy, rng)).state
            others = [total for seat, total in enumerate(state.penalties) if seat != hero]
            heuristic_totals.append(state.penalties[hero])
            random_totals.extend(others)
            margins.append(statistics.mean(others) - state.penalties[hero])
        margin = statistics.mean(margins)
        error = statistics.stdev(margins) / len(margins) ** 0.5
        print(
            f"\n6 nimmt! heuristic vs random, {GAMES} games of one hand, {SEATS} seats: "
            f"heuristic {statistics.mean(heuristic_totals):.2f}, "
            f"random {statistics.mean(random_totals):.2f} bullheads per seat; "
            f"margin {margin:.2f} ± {error:.2f} (one standard error)"
        )
        assert margin - SAFETY * error > MIN_MARGIN
