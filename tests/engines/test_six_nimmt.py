"""Scenario tests of the 6 nimmt! engine: one rule of docs/rules/six_nimmt.md per test."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import pytest

from engines.base import Event
from engines.errors import (
    IllegalActionError,
    InvalidOptionsError,
    InvalidSeatError,
    InvalidSeatsError,
    InvalidStateError,
    MalformedActionError,
    UnsupportedRulesVersionError,
)
from engines.prng import Rng
from engines.six_nimmt import ENGINE, Options, State
from engines.six_nimmt.data import BULLHEADS, HIGHEST_CARD, ZERO_CARD
from engines.six_nimmt.rules import (
    DEFAULT_THRESHOLD,
    HAND_SIZE,
    NO_SELECTION,
    CardPlaced,
    CardSelected,
    CardsRevealed,
    ChooseRow,
    EndRule,
    HandDealt,
    HandEnded,
    RowChoiceRequired,
    RowTaken,
    Select,
    TooLowRule,
    card_set,
    row_bullheads,
)

SEED = 2024
ONE_HAND = Options(end=EndRule.FIXED_HANDS, hands=1)
CHEAPEST = Options(too_low_rule=TooLowRule.TAKE_CHEAPEST_ROW, end=EndRule.FIXED_HANDS, hands=1)
ZERO = Options(zero_card=True, end=EndRule.FIXED_HANDS, hands=1)

Rows = Sequence[Sequence[int]]


def build(
    rows: Rows,
    hands: Sequence[Sequence[int]],
    *,
    options: Options = ONE_HAND,
    taken: Sequence[Sequence[int]] | None = None,
    penalties: Sequence[int] | None = None,
    selections: Sequence[int] | None = None,
    zero_used: Sequence[int] | None = None,
    hand_number: int = 1,
    turn: int | None = None,
) -> State:
    """A consistent state with these rows and hands; every other card of the set is in the deck.

    The turn follows from the first hand's size, and the totals from the taken cards and the
    earlier hands, unless given; ``selections`` are cards already selected (not in hand) this turn.
    """
    seats = len(hands)
    taken = taken or [()] * seats
    selections = selections or [NO_SELECTION] * seats
    in_play = {card for group in (*rows, *hands, *taken) for card in group}
    in_play.update(card for card in selections if card > ZERO_CARD)
    state = replace(
        ENGINE.new_game(seats, SEED, options),
        rows=tuple(tuple(row) for row in rows),
        hands=tuple(tuple(sorted(hand)) for hand in hands),
        taken=tuple(tuple(sorted(cards)) for cards in taken),
        penalties=tuple(penalties or earlier_hands(hand_number, taken)),
        selections=tuple(selections),
        zero_card_used_in_hand=tuple(zero_used or [0] * seats),
        hand_number=hand_number,
        turn=HAND_SIZE - len(hands[0]) if turn is None else turn,
        deck=tuple(card for card in card_set(options, seats) if card not in in_play),
    )
    # The fewest actions that lead here: each seat's selection in every turn played and this one.
    turns = (hand_number - 1) * HAND_SIZE + state.turn
    selected = seats - state.selections.count(NO_SELECTION)
    state = replace(state, revision=turns * seats + selected)
    ENGINE.validate(state)
    return state


#: Taken cards of a two-seat hand: a hand that ends has taken a row, or more.
TOOK_A_ROW = ((1,), ())


def earlier_hands(hand_number: int, taken: Sequence[Sequence[int]]) -> list[int]:
    """Totals of the cards taken this hand, seat 0's with a bullhead from each earlier hand (each
    took a row)."""
    totals = [row_bullheads(tuple(cards)) for cards in taken]
    totals[0] += hand_number - 1
    return totals


def zero_card_played_by_seat_0() -> State:
    """Two seats at turn 8 of a game with the zero card, seat 0 having played it this hand."""
    return build(
        [[10], [20], [30], [40]], [[11, 12, 90], [21, 91]], options=ZERO, zero_used=[1, 0], turn=8
    )


def select_all(state: State, cards: Sequence[int]) -> tuple[State, list[Event]]:
    """Every seat that is to act selects its card of ``cards`` (indexed by seat), in seat order."""
    events: list[Event] = []
    for seat in ENGINE.seats_to_act(state):
        transition = ENGINE.apply(state, seat, Select(cards[seat]))
        state = transition.state
        events.extend(transition.events)
    ENGINE.validate(state)
    return state, events


def bodies(events: Sequence[Event], kind: type) -> list[Any]:
    """The bodies of the events of one kind, in order."""
    return [event.body for event in events if isinstance(event.body, kind)]


def play_out(state: State, seed: int) -> tuple[State, list[Event]]:
    """Random legal actions until the game is over, validating every state on the way."""
    rng = Rng(seed)
    events: list[Event] = []
    while not ENGINE.status(state).finished:
        seat = ENGINE.seats_to_act(state)[0]
        transition = ENGINE.apply(state, seat, rng.choice(ENGINE.legal_actions(state, seat)))
        state = transition.state
        events.extend(transition.events)
        ENGINE.validate(state)
    return state, events


def reason(error: pytest.ExceptionInfo[Any]) -> str:
    """The stable reason of a rules error."""
    return str(error.value.reason)


class TestBullheads:
    """The penalty table: the first matching rule wins."""

    def test_card_55_has_seven(self) -> None:
        """55, a multiple of 11 that ends in 5, has 7 bullheads."""
        assert BULLHEADS[55] == 7

    @pytest.mark.parametrize("card", [11, 22, 33, 44, 66, 77, 88, 99])
    def test_other_multiples_of_eleven_have_five(self, card: int) -> None:
        """Multiples of 11 other than 55 have 5 bullheads."""
        assert BULLHEADS[card] == 5

    @pytest.mark.parametrize("card", [10, 20, 50, 100])
    def test_multiples_of_ten_have_three(self, card: int) -> None:
        """Multiples of 10 have 3 bullheads."""
        assert BULLHEADS[card] == 3

    @pytest.mark.parametrize("card", [5, 15, 45, 65, 95])
    def test_other_multiples_of_five_have_two(self, card: int) -> None:
        """Multiples of 5 that are not multiples of 10 or 11 have 2 bullheads."""
        assert BULLHEADS[card] == 2

    @pytest.mark.parametrize("card", [1, 2, 12, 54, 56, 98, 101, 104])
    def test_other_cards_have_one(self, card: int) -> None:
        """Every other card has 1 bullhead."""
        assert BULLHEADS[card] == 1

    def test_the_deck_totals_171(self) -> None:
        """The 104 cards total 171 bullheads."""
        assert sum(BULLHEADS[card] for card in range(1, HIGHEST_CARD + 1)) == 171


class TestDeal:
    """A hand deals 10 cards to each seat and starts 4 rows."""

    def test_each_seat_gets_ten_cards(self) -> None:
        """Every seat holds 10 distinct cards, ascending."""
        state = ENGINE.new_game(4, SEED, Options())
        assert [len(hand) for hand in state.hands] == [10] * 4
        assert all(list(hand) == sorted(set(hand)) for hand in state.hands)

    def test_four_rows_of_one_card(self) -> None:
        """The table starts with 4 rows of one card each."""
        state = ENGINE.new_game(4, SEED, Options())
        assert [len(row) for row in state.rows] == [1, 1, 1, 1]

    def test_undealt_cards_are_not_used(self) -> None:
        """The 104 − 44 undealt cards stay in the deck for the whole hand."""
        state = ENGINE.new_game(4, SEED, Options())
        dealt = {card for group in (*state.hands, *state.rows) for card in group}
        assert len(state.deck) == HIGHEST_CARD - 44
        assert dealt | set(state.deck) == set(range(1, HIGHEST_CARD + 1))
        state, _ = select_all(state, [hand[0] for hand in state.hands])
        assert state.deck == ENGINE.new_game(4, SEED, Options()).deck

    def test_same_seed_same_deal(self) -> None:
        """The same seed deals the same game."""
        assert ENGINE.new_game(4, SEED, Options()) == ENGINE.new_game(4, SEED, Options())

    def test_different_seeds_deal_differently(self) -> None:
        """Different seeds deal different hands."""
        assert ENGINE.new_game(4, 1, Options()).hands != ENGINE.new_game(4, 2, Options()).hands

    def test_a_new_game_starts_the_first_hand_at_zero(self) -> None:
        """A new game is in hand 1, turn 0, every total 0, nothing taken or selected."""
        state = ENGINE.new_game(3, SEED, Options())
        assert (state.hand_number, state.turn, state.penalties) == (1, 0, (0, 0, 0))
        assert state.taken == ((), (), ())
        assert state.selections == (NO_SELECTION,) * 3


class TestSimultaneousSelection:
    """Every seat selects a card in secret; nothing happens until the last one has."""

    def test_every_seat_is_to_act_at_the_start(self) -> None:
        """At the start of a turn every seat is to act."""
        assert ENGINE.seats_to_act(ENGINE.new_game(4, SEED, Options())) == (0, 1, 2, 3)

    def test_seats_that_selected_are_not_to_act(self) -> None:
        """seats_to_act lists every seat that has not selected yet."""
        state = ENGINE.new_game(4, SEED, Options())
        state = ENGINE.apply(state, 2, Select(state.hands[2][0])).state
        state = ENGINE.apply(state, 0, Select(state.hands[0][0])).state
        assert ENGINE.seats_to_act(state) == (1, 3)

    def test_a_seat_cannot_select_twice(self) -> None:
        """A seat that has selected is refused a second selection with NOT_SEATS_TURN."""
        state = ENGINE.new_game(4, SEED, Options())
        state = ENGINE.apply(state, 1, Select(state.hands[1][0])).state
        with pytest.raises(IllegalActionError) as error:
            ENGINE.apply(state, 1, Select(state.hands[1][0]))
        assert reason(error) == "NOT_SEATS_TURN"

    def test_a_seat_that_selected_has_no_legal_actions(self) -> None:
        """legal_actions is empty for a seat that has selected."""
        state = ENGINE.new_game(4, SEED, Options())
        state = ENGINE.apply(state, 1, Select(state.hands[1][0])).state
        assert ENGINE.legal_actions(state, 1) == ()

    def test_legal_actions_are_the_cards_in_hand(self) -> None:
        """A seat to act may select any card of its hand, and only those."""
        state = ENGINE.new_game(4, SEED, Options())
        assert ENGINE.legal_actions(state, 3) == tuple(Select(card) for card in state.hands[3])

    def test_the_public_event_hides_the_card(self) -> None:
        """The public CardSelected event names the seat, not the card."""
        state = ENGINE.new_game(4, SEED, Options())
        events = ENGINE.apply(state, 1, Select(state.hands[1][4])).events
        public = [event for event in events if event.audience is None]
        assert [event.body for event in public] == [CardSelected(1, NO_SELECTION)]

    def test_the_private_event_shows_the_card_to_its_seat(self) -> None:
        """The seat that selected gets an event with its card, addressed to it alone."""
        state = ENGINE.new_game(4, SEED, Options())
        card = state.hands[1][4]
        events = ENGINE.apply(state, 1, Select(card)).events
        private = [event for event in events if event.audience is not None]
        assert private == [Event(CardSelected(1, card), (1,))]

    def test_the_selected_card_leaves_the_hand(self) -> None:
        """The selected card is no longer in the seat's hand."""
        state = ENGINE.new_game(4, SEED, Options())
        card = state.hands[0][3]
        after = ENGINE.apply(state, 0, Select(card)).state
        assert card not in after.hands[0]
        assert after.selections[0] == card

    def test_nothing_is_placed_before_the_last_selection(self) -> None:
        """Until the last seat selects, the rows do not change and nothing is revealed."""
        state = ENGINE.new_game(4, SEED, Options())
        for seat in (0, 1, 2):
            transition = ENGINE.apply(state, seat, Select(state.hands[seat][0]))
            state = transition.state
            assert not bodies(transition.events, CardsRevealed)
        assert state.rows == ENGINE.new_game(4, SEED, Options()).rows
        assert not state.revealed


class TestRevealAndPlacement:
    """When the last seat selects, the cards are revealed and placed lowest first."""

    def test_the_last_selection_reveals_every_card(self) -> None:
        """The last selection reveals every seat's card, by seat."""
        state = build([[10], [20], [30], [40]], [[13, 90], [11, 91], [12, 92]])
        _, events = select_all(state, [13, 11, 12])
        assert bodies(events, CardsRevealed) == [CardsRevealed((13, 11, 12))]

    def test_cards_are_placed_in_ascending_order(self) -> None:
        """The revealed cards are placed from the lowest to the highest."""
        state = build([[10], [20], [30], [40]], [[41, 90], [21, 91], [31, 92], [11, 93]])
        _, events = select_all(state, [41, 21, 31, 11])
        assert [placed.card for placed in bodies(events, CardPlaced)] == [11, 21, 31, 41]

    def test_each_card_sees_the_rows_left_by_the_previous_one(self) -> None:
        """A card is placed against the rows as the lower cards of the turn left them."""
        state = build([[10], [20], [30], [40]], [[23, 90], [21, 91]])
        after, events = select_all(state, [23, 21])
        assert after.rows[1] == (20, 21, 23)
        assert bodies(events, CardPlaced) == [CardPlaced(1, 21, 1), CardPlaced(0, 23, 1)]

    def test_a_turn_ends_with_selections_cleared(self) -> None:
        """After the placement the turn counter advances and every seat is to act again."""
        state = build([[10], [20], [30], [40]], [[11, 90], [12, 91]])
        after, _ = select_all(state, [11, 12])
        assert after.turn == state.turn + 1
        assert after.selections == (NO_SELECTION, NO_SELECTION)
        assert ENGINE.seats_to_act(after) == (0, 1)


class TestPlacementRules:
    """Rules 1–3: where a card goes, and the 6th card."""

    def test_rule_1_a_card_goes_after_a_lower_end(self) -> None:
        """Rule 1: a card goes to a row whose last card is lower than it."""
        state = build([[10], [50], [60], [70]], [[45, 90], [91, 92]])
        after, _ = select_all(state, [45, 91])
        assert after.rows[0] == (10, 45)

    def test_rule_2_the_closest_lower_end_wins(self) -> None:
        """Rule 2: among the rows ending lower, the card goes to the one closest below it."""
        state = build([[10], [30], [20], [70]], [[35, 90], [1, 91]])
        after, _ = select_all(state, [35, 91])
        assert after.rows == ((10,), (30, 35), (20,), (70, 91))

    def test_rule_2_ignores_row_order(self) -> None:
        """Rule 2 compares the last cards, not the row indices."""
        state = build([[33], [10], [20], [30]], [[34, 90], [31, 91]])
        after, _ = select_all(state, [34, 31])
        assert after.rows == ((33, 34), (10,), (20,), (30, 31))

    def test_rule_3_the_fifth_card_is_placed_without_penalty(self) -> None:
        """A row of 4 cards takes a 5th card without any penalty."""
        state = build([[1, 2, 3, 4], [20], [30], [40]], [[5, 90], [41, 91]])
        after, events = select_all(state, [5, 41])
        assert after.rows[0] == (1, 2, 3, 4, 5)
        assert after.penalties == (0, 0)
        assert not bodies(events, RowTaken)

    def test_rule_3_the_sixth_card_takes_the_five(self) -> None:
        """Rule 3: the 6th card's seat takes the row's 5 cards and its card starts the row."""
        state = build([[1, 2, 3, 4, 5], [20], [30], [40]], [[41, 90], [6, 91]])
        after, events = select_all(state, [41, 6])
        assert after.rows[0] == (6,)
        assert after.taken[1] == (1, 2, 3, 4, 5)
        assert bodies(events, RowTaken) == [RowTaken(1, 0, (1, 2, 3, 4, 5), 6)]

    def test_rule_3_adds_the_bullheads_of_the_five(self) -> None:
        """Rule 3: the bullheads of the 5 taken cards are added to the seat's total."""
        state = build([[10, 11, 15, 22, 23], [30], [40], [50]], [[24, 90], [51, 91]])
        after, _ = select_all(state, [24, 51])
        assert after.penalties == (3 + 5 + 2 + 5 + 1, 0)


class TestRule4ChooseRow:
    """Rule 4 with CHOOSE_ROW: a card lower than every row waits for its seat's choice."""

    STATE = ((10, 11), (20,), (30, 33, 35), (40,))

    def pending(self) -> State:
        """Seat 1's 5 is lower than every row; seats 0 and 2 play 12 and 41."""
        state = build(self.STATE, [[12, 90], [5, 91], [41, 92]])
        return select_all(state, [12, 5, 41])[0]

    def test_a_card_lower_than_every_row_asks_for_a_choice(self) -> None:
        """The seat of a card lower than every row must choose a row."""
        state = build(self.STATE, [[12, 90], [5, 91], [41, 92]])
        _, events = select_all(state, [12, 5, 41])
        assert bodies(events, RowChoiceRequired) == [RowChoiceRequired(1, 5)]

    def test_only_the_choosing_seat_is_to_act(self) -> None:
        """While the choice is pending that seat is the only seat to act."""
        assert ENGINE.seats_to_act(self.pending()) == (1,)

    def test_its_legal_actions_are_the_four_rows(self) -> None:
        """The choosing seat may take any of the four rows."""
        assert ENGINE.legal_actions(self.pending(), 1) == tuple(ChooseRow(r) for r in range(4))

    def test_other_seats_have_no_legal_actions_meanwhile(self) -> None:
        """Every other seat has no legal action while the choice is pending."""
        assert ENGINE.legal_actions(self.pending(), 0) == ()

    def test_nothing_else_is_placed_until_the_choice(self) -> None:
        """No card of the turn is placed while the choice is pending."""
        state = self.pending()
        assert state.rows == self.STATE
        assert state.revealed
        assert state.placed == 0

    @pytest.mark.parametrize("row", [0, 1, 2, 3])
    def test_any_row_may_be_chosen(self, row: int) -> None:
        """The seat takes the chosen row and its card starts that row."""
        after = ENGINE.apply(self.pending(), 1, ChooseRow(row)).state
        assert after.taken[1] == self.STATE[row]
        assert after.rows[row][0] == 5

    @pytest.mark.parametrize("row", [0, 1, 2, 3])
    def test_the_chosen_row_bullheads_are_added(self, row: int) -> None:
        """The bullheads of the chosen row go to the seat's total."""
        after = ENGINE.apply(self.pending(), 1, ChooseRow(row)).state
        assert after.penalties[1] == row_bullheads(self.STATE[row])

    def test_the_other_cards_are_placed_after_the_choice(self) -> None:
        """After the choice the rest of the turn is placed in ascending order."""
        transition = ENGINE.apply(self.pending(), 1, ChooseRow(2))
        assert transition.state.rows == ((10, 11, 12), (20,), (5,), (40, 41))
        assert bodies(transition.events, RowTaken) == [RowTaken(1, 2, (30, 33, 35), 10)]
        placed = bodies(transition.events, CardPlaced)
        assert placed == [CardPlaced(1, 5, 2), CardPlaced(0, 12, 0), CardPlaced(2, 41, 3)]

    def test_only_the_lowest_card_can_trigger_rule_4(self) -> None:
        """A second card lower than every row goes after the lowest one, which started a row."""
        state = build([[50], [60], [70], [80]], [[3, 90], [7, 91]])
        state, _ = select_all(state, [3, 7])
        assert ENGINE.seats_to_act(state) == (0,)
        after = ENGINE.apply(state, 0, ChooseRow(1)).state
        assert after.rows == ((50,), (3, 7), (70,), (80,))
        assert after.penalties == (3, 0)

    def test_the_row_choice_is_announced_to_everyone(self) -> None:
        """The pending choice is public, like the revealed card that caused it."""
        state = build(self.STATE, [[12, 90], [5, 91], [41, 92]])
        _, events = select_all(state, [12, 5, 41])
        (required,) = [event for event in events if isinstance(event.body, RowChoiceRequired)]
        assert required.audience is None


class TestRule4TakeCheapestRow:
    """Rule 4 with TAKE_CHEAPEST_ROW [decision]: the cheapest row is taken automatically."""

    def test_no_choice_is_pending(self) -> None:
        """The turn resolves without waiting for a choice."""
        state = build([[20], [30], [40], [50]], [[5, 90], [21, 91]], options=CHEAPEST)
        after, events = select_all(state, [5, 21])
        assert not bodies(events, RowChoiceRequired)
        assert not after.revealed
        assert ENGINE.seats_to_act(after) == (0, 1)

    def test_the_row_with_fewest_bullheads_is_taken(self) -> None:
        """The row with the fewest bullheads is taken, whatever its length or index."""
        rows = [[55], [10], [31, 32, 33], [41, 42]]  # 7, 3, 7 and 2 bullheads
        state = build(rows, [[5, 90], [95, 91]], options=CHEAPEST)
        after, _ = select_all(state, [5, 95])
        assert after.taken[0] == (41, 42)
        assert after.rows[3] == (5,)

    def test_equal_bullheads_then_fewest_cards(self) -> None:
        """Among rows with equal bullheads, the one with fewer cards is taken."""
        state = build(
            [[21, 22], [31, 32, 34], [60], [71, 72, 73, 74]], [[5, 90], [95, 91]], options=CHEAPEST
        )  # 6, 3, 3, 4 bullheads: rows 1 and 2 tie, row 2 has 1 card
        after, _ = select_all(state, [5, 95])
        assert after.taken[0] == (60,)
        assert after.rows[2] == (5,)
        assert after.penalties == (3, 0)

    def test_fewer_cards_beat_a_lower_index(self) -> None:
        """Fewer cards come before the row index: a tied row with fewer cards wins at index 3."""
        rows = [[12, 13, 14], [55], [44], [20]]  # 3, 7, 5 and 3 bullheads
        state = build(rows, [[5, 90], [95, 91]], options=CHEAPEST)
        after, events = select_all(state, [5, 95])
        assert bodies(events, RowTaken) == [RowTaken(0, 3, (20,), 3)]
        assert after.rows == ((12, 13, 14), (55, 95), (44,), (5,))
        assert after.taken[0] == (20,)

    def test_equal_bullheads_and_cards_then_lowest_index(self) -> None:
        """Among rows with equal bullheads and cards, the lowest index is taken."""
        state = build([[44], [31, 32], [41, 42], [71, 72]], [[5, 90], [95, 91]], options=CHEAPEST)
        after, _ = select_all(state, [5, 95])  # rows 1, 2, 3 have 2 cards, 2 bullheads
        assert after.taken[0] == (31, 32)
        assert after.rows[1] == (5,)
        assert after.penalties == (2, 0)


class TestWorkedExample:
    """The three turns of docs/rules/six_nimmt.md with four seats and rows 12 | 37 | 43 | 58."""

    def test_the_worked_example(self) -> None:
        """Turns 14 15 44 61, then 21 26 30 36 (30 takes 6 bullheads), then 3 9 68 83."""
        state = build(
            [[12], [37], [43], [58]],
            [[14, 21, 3], [15, 26, 9], [44, 30, 68], [61, 36, 83]],
        )
        state, _ = select_all(state, [14, 15, 44, 61])
        assert state.rows == ((12, 14, 15), (37,), (43, 44), (58, 61))

        state, events = select_all(state, [21, 26, 30, 36])
        assert state.rows == ((30, 36), (37,), (43, 44), (58, 61))
        assert bodies(events, RowTaken) == [RowTaken(2, 0, (12, 14, 15, 21, 26), 6)]
        assert state.penalties == (0, 0, 6, 0)

        state, events = select_all(state, [3, 9, 68, 83])
        assert bodies(events, RowChoiceRequired) == [RowChoiceRequired(0, 3)]
        assert ENGINE.seats_to_act(state) == (0,)
        transition = ENGINE.apply(state, 0, ChooseRow(1))
        state = transition.state
        assert bodies(transition.events, RowTaken) == [RowTaken(0, 1, (37,), 1)]
        assert state.rows == ((30, 36), (3, 9), (43, 44), (58, 61, 68, 83))
        assert state.penalties == (1, 0, 6, 0)
        assert state.taken == ((37,), (), (12, 14, 15, 21, 26), ())


class TestEndOfHand:
    """A hand lasts 10 turns."""

    def test_a_hand_lasts_ten_turns(self) -> None:
        """The hand ends after the 10th turn, not before."""
        state = ENGINE.new_game(3, SEED, ONE_HAND)
        for turn in range(HAND_SIZE):
            assert not ENGINE.status(state).finished, f"ended after {turn} turns"
            state, _ = select_all(state, [hand[0] for hand in state.hands])
            if state.revealed:
                state = ENGINE.apply(state, ENGINE.seats_to_act(state)[0], ChooseRow(0)).state
        assert ENGINE.status(state).finished
        assert state.turn == HAND_SIZE

    def test_the_last_turn_reports_the_hand_totals(self) -> None:
        """The last turn of a hand emits HandEnded with the totals."""
        state = build(
            [[10], [20], [30], [40]],
            [[15], [25]],
            options=Options(),
            penalties=[3, 1],
            hand_number=2,
        )
        _, events = select_all(state, [15, 25])
        assert bodies(events, HandEnded) == [HandEnded(2, (3, 1))]

    def test_the_hand_totals_include_the_last_turn(self) -> None:
        """HandEnded carries the totals after the cards of the 10th turn are placed."""
        state = build(
            [[1, 2, 3, 4, 5], [20], [30], [40]],
            [[6], [41]],
            options=Options(),
            penalties=[3, 1],
            hand_number=2,
        )
        _, events = select_all(state, [6, 41])
        assert bodies(events, HandEnded) == [HandEnded(2, (3 + 6, 1))]

    def test_the_hand_goes_on_before_the_tenth_turn(self) -> None:
        """After the 9th turn nobody has ended anything."""
        state = build([[10], [20], [30], [40]], [[15, 16], [25, 26]])
        after, events = select_all(state, [15, 25])
        assert not bodies(events, HandEnded)
        assert after.turn == HAND_SIZE - 1


class TestPenaltyThreshold:
    """End PENALTY_THRESHOLD: the game ends after the hand in which a total reaches it."""

    def test_the_default_threshold_is_66(self) -> None:
        """A game without options ends at 66 bullheads."""
        options = Options()
        assert options.end is EndRule.PENALTY_THRESHOLD
        assert options.threshold == DEFAULT_THRESHOLD == 66

    def test_below_the_threshold_a_new_hand_is_dealt(self) -> None:
        """A hand whose totals stay below the threshold is followed by a new hand."""
        state = build(
            [[10], [20], [30], [40]],
            [[15], [25]],
            options=Options(),
            penalties=[64, 0],
            hand_number=2,
        )
        after, events = select_all(state, [15, 25])
        assert not ENGINE.status(after).finished
        assert after.hand_number == 3
        assert len(bodies(events, HandDealt)) == 1

    def test_reaching_the_threshold_ends_the_game_after_the_hand(self) -> None:
        """The hand in which a total reaches 66 is the last."""
        state = build(
            [[1, 2, 3, 4, 5], [20], [30], [40]],
            [[6], [41]],
            options=Options(),
            penalties=[60, 0],
            hand_number=2,
        )
        after, events = select_all(state, [6, 41])
        assert after.penalties == (66, 0)
        assert ENGINE.status(after).finished
        assert not bodies(events, HandDealt)

    def test_the_game_never_ends_mid_hand(self) -> None:
        """A total over the threshold before the 10th turn does not end the game."""
        state = build(
            [[1, 2, 3, 4, 5], [20], [30], [40]],
            [[6, 7], [41, 42]],
            options=Options(),
            penalties=[65, 0],
            hand_number=2,
        )
        after, _ = select_all(state, [6, 41])
        assert after.penalties == (71, 0)
        assert not ENGINE.status(after).finished
        assert ENGINE.seats_to_act(after) == (0, 1)

    def test_a_custom_threshold(self) -> None:
        """With threshold 10 the hand in which a total reaches 10 is the last."""
        options = Options(threshold=10)
        rows = [[1, 2, 3, 4, 5], [20], [30], [40]]
        below = build(rows, [[6], [41]], options=options, penalties=[3, 0], hand_number=2)
        assert not ENGINE.status(select_all(below, [6, 41])[0]).finished
        reached = build(rows, [[6], [41]], options=options, penalties=[4, 0], hand_number=2)
        assert ENGINE.status(select_all(reached, [6, 41])[0]).finished

    def test_a_whole_game_ends_with_a_total_at_the_threshold(self) -> None:
        """A random game played to the end has a total at or over the threshold."""
        state, _ = play_out(ENGINE.new_game(4, SEED, Options(threshold=20)), 3)
        assert max(state.penalties) >= 20
        assert ENGINE.outcome(state) is not None


class TestFixedHands:
    """End FIXED_HANDS: the game ends after a number of hands."""

    def test_one_hand(self) -> None:
        """With 1 hand the game ends after 10 turns."""
        state, events = play_out(ENGINE.new_game(4, SEED, ONE_HAND), 5)
        assert state.hand_number == 1
        assert len(bodies(events, HandEnded)) == 1
        assert not bodies(events, HandDealt)

    def test_three_hands(self) -> None:
        """With 3 hands the game deals twice more and ends after the third."""
        options = Options(end=EndRule.FIXED_HANDS, hands=3)
        state, events = play_out(ENGINE.new_game(4, SEED, options), 5)
        assert state.hand_number == 3
        assert [ended.hand_number for ended in bodies(events, HandEnded)] == [1, 2, 3]
        assert [dealt.hand_number for dealt in bodies(events, HandDealt)] == [2, 3]

    def test_fixed_hands_ignore_the_threshold(self) -> None:
        """With FIXED_HANDS a total over 66 does not end the game early."""
        options = Options(end=EndRule.FIXED_HANDS, hands=3)
        state = build(
            [[10], [20], [30], [40]],
            [[15], [25]],
            options=options,
            penalties=[90, 0],
            hand_number=2,
        )
        after, _ = select_all(state, [15, 25])
        assert not ENGINE.status(after).finished
        assert after.hand_number == 3


class TestNewHand:
    """A new hand re-deals the whole card set; totals carry over."""

    def test_a_new_hand_deals_ten_cards_and_four_rows(self) -> None:
        """The next hand deals 10 cards to each seat and 4 rows of one card."""
        state = build(
            [[10], [20], [30], [40]],
            [[15], [25]],
            options=Options(),
            penalties=[5, 2],
            taken=[[], []],
            hand_number=2,
        )
        after, events = select_all(state, [15, 25])
        assert [len(hand) for hand in after.hands] == [10, 10]
        assert [len(row) for row in after.rows] == [1, 1, 1, 1]
        assert bodies(events, HandDealt) == [HandDealt(3, tuple(row[0] for row in after.rows))]
        assert (after.turn, after.taken, after.penalties) == (0, ((), ()), (5, 2))

    def test_a_new_hand_uses_the_whole_card_set(self) -> None:
        """The re-deal uses all 104 cards again, the deck holding the undealt ones."""
        state = build([[10], [20], [30], [40]], [[15], [25]], options=Options(), taken=TOOK_A_ROW)
        after, _ = select_all(state, [15, 25])
        cards = {c for group in (*after.hands, *after.rows, after.deck) for c in group}
        assert cards == set(range(1, HIGHEST_CARD + 1))

    def test_the_re_deal_comes_from_the_state_generator(self) -> None:
        """Two states that differ only in their generator deal different next hands."""
        state = build([[10], [20], [30], [40]], [[15], [25]], options=Options(), taken=TOOK_A_ROW)
        first, _ = select_all(state, [15, 25])
        second, _ = select_all(replace(state, rng_state=state.rng_state ^ 1), [15, 25])
        assert first.hands != second.hands


class TestOutcome:
    """The winners are every seat with the lowest total."""

    def test_no_outcome_while_the_game_goes_on(self) -> None:
        """A game in progress has no outcome."""
        assert ENGINE.outcome(ENGINE.new_game(4, SEED, Options())) is None

    def test_the_lowest_total_wins(self) -> None:
        """The single lowest total wins; scores are the totals, lower is better."""
        state = build(
            [[10], [20], [30], [40]],
            [[15], [25], [35]],
            penalties=[3, 1, 2],
            taken=[[1, 2, 3], [4], [6, 7]],
        )
        outcome = ENGINE.outcome(select_all(state, [15, 25, 35])[0])
        assert outcome is not None
        assert (outcome.scores, outcome.winners) == ((3, 1, 2), (1,))
        assert outcome.lower_is_better
        assert outcome.termination == "FIXED_HANDS"

    def test_tied_lowest_totals_all_win(self) -> None:
        """Every seat with the lowest total wins."""
        state = build([[10], [20], [30], [40]], [[15], [25], [35]], taken=[[1], [4, 6], [7]])
        outcome = ENGINE.outcome(select_all(state, [15, 25, 35])[0])
        assert outcome is not None
        assert outcome.winners == (0, 2)


class TestTacticalDeck:
    """The tactical deck: only cards 1..(10 × seats + 4), so every card is in play."""

    def test_three_seats_use_34_cards(self) -> None:
        """With 3 seats the card set is 1..34."""
        assert card_set(Options(tactical_deck=True), 3) == tuple(range(1, 35))

    def test_every_card_is_in_play(self) -> None:
        """Every card of the set is dealt: the deck is empty."""
        state = ENGINE.new_game(3, SEED, Options(tactical_deck=True))
        dealt = sorted(card for group in (*state.hands, *state.rows) for card in group)
        assert dealt == list(range(1, 35))
        assert state.deck == ()

    def test_ten_seats_use_every_card(self) -> None:
        """With 10 seats the tactical deck is the whole 1..104."""
        assert card_set(Options(tactical_deck=True), 10) == tuple(range(1, HIGHEST_CARD + 1))

    def test_a_foreign_card_is_rejected(self) -> None:
        """A state holding a card above 10 × seats + 4 is inconsistent."""
        state = ENGINE.new_game(3, SEED, Options(tactical_deck=True))
        hand = (*state.hands[0][:-1], 35)
        with pytest.raises(InvalidStateError):
            ENGINE.validate(replace(state, hands=(hand, *state.hands[1:])))

    def test_a_tactical_game_plays_to_the_end(self) -> None:
        """A tactical game of two hands plays through, every card in play each hand."""
        options = Options(tactical_deck=True, end=EndRule.FIXED_HANDS, hands=2)
        state, _ = play_out(ENGINE.new_game(3, SEED, options), 8)
        assert state.hand_number == 2
        assert state.deck == ()


class TestZeroCard:
    """The zero card [decision]: once per game a seat may select 0 and place nothing."""

    ROWS = ((10,), (20,), (30,), (40,))

    def test_the_zero_card_is_a_legal_action(self) -> None:
        """With the option, selecting 0 is listed first among the legal actions."""
        state = ENGINE.new_game(3, SEED, ZERO)
        assert ENGINE.legal_actions(state, 0)[0] == Select(ZERO_CARD)

    def test_no_zero_card_without_the_option(self) -> None:
        """Without the option 0 is not listed and is refused with ZERO_CARD_NOT_IN_GAME."""
        state = ENGINE.new_game(3, SEED, Options())
        assert Select(ZERO_CARD) not in ENGINE.legal_actions(state, 0)
        with pytest.raises(IllegalActionError) as error:
            ENGINE.apply(state, 0, Select(ZERO_CARD))
        assert reason(error) == "ZERO_CARD_NOT_IN_GAME"

    def test_the_zero_card_is_revealed(self) -> None:
        """The zero card is revealed with the other selections."""
        state = build(self.ROWS, [[11, 90], [21, 91]], options=ZERO)
        _, events = select_all(state, [ZERO_CARD, 21])
        assert bodies(events, CardsRevealed) == [CardsRevealed((ZERO_CARD, 21))]

    def test_the_zero_card_is_never_placed(self) -> None:
        """The seat of the zero card places nothing this turn."""
        state = build(self.ROWS, [[11, 90], [21, 91]], options=ZERO)
        after, events = select_all(state, [ZERO_CARD, 21])
        assert [placed.seat for placed in bodies(events, CardPlaced)] == [1]
        assert after.rows == ((10,), (20, 21), (30,), (40,))

    def test_the_zero_card_keeps_the_number_cards(self) -> None:
        """Playing the zero card leaves every number card in hand."""
        state = build(self.ROWS, [[11, 90], [21, 91]], options=ZERO)
        after, _ = select_all(state, [ZERO_CARD, 21])
        assert after.hands[0] == (11, 90)
        assert after.zero_card_used_in_hand == (1, 0)

    def test_the_zero_card_is_refused_the_second_time(self) -> None:
        """A seat that played its zero card is refused it with ZERO_CARD_USED."""
        state = build(self.ROWS, [[11, 90, 92], [21, 91]], options=ZERO, zero_used=[1, 0], turn=8)
        assert Select(ZERO_CARD) not in ENGINE.legal_actions(state, 0)
        with pytest.raises(IllegalActionError) as error:
            ENGINE.apply(state, 0, Select(ZERO_CARD))
        assert reason(error) == "ZERO_CARD_USED"

    def test_the_zero_card_is_once_per_game(self) -> None:
        """A zero card played in an earlier hand stays used in the next hands."""
        options = replace(ZERO, hands=3)
        state = build(
            self.ROWS, [[11, 90], [21, 91]], options=options, zero_used=[1, 0], hand_number=2
        )
        with pytest.raises(IllegalActionError) as error:
            ENGINE.apply(state, 0, Select(ZERO_CARD))
        assert reason(error) == "ZERO_CARD_USED"

    def test_the_hand_still_ends_after_ten_turns(self) -> None:
        """A seat that played its zero card still ends the hand after the 10th turn."""
        state = build(self.ROWS, [[11, 90], [21, 91]], options=ZERO, turn=8)
        state, _ = select_all(state, [ZERO_CARD, 21])
        assert state.hands == ((11, 90), (91,))
        state, events = select_all(state, [11, 91])
        assert bodies(events, HandEnded)
        assert ENGINE.status(state).finished

    def test_the_leftover_card_is_discarded_without_penalty(self) -> None:
        """The number card left in hand at the end of the hand is discarded, costing nothing."""
        state = build(self.ROWS, [[11, 55], [21]], options=ZERO, zero_used=[1, 0], turn=9)
        after, _ = select_all(state, [11, 21])
        assert after.discarded == (55,)
        assert after.penalties == (0, 0)
        assert after.hands == ((), ())

    def test_the_zero_card_on_the_last_turn_discards_the_last_card(self) -> None:
        """A zero card on the 10th turn leaves the last number card to be discarded."""
        state = build(self.ROWS, [[55], [21]], options=ZERO)
        after, _ = select_all(state, [ZERO_CARD, 21])
        assert after.discarded == (55,)
        assert ENGINE.status(after).finished

    def test_the_leftover_card_is_shuffled_into_the_next_hand(self) -> None:
        """When another hand follows, the leftover card is dealt again with the whole set."""
        options = replace(ZERO, hands=2)
        state = build(
            self.ROWS, [[11, 55], [21]], options=options, zero_used=[1, 0], turn=9, taken=TOOK_A_ROW
        )
        after, _ = select_all(state, [11, 21])
        assert after.discarded == ()
        assert after.hand_number == 2
        assert after.zero_card_used_in_hand == (1, 0)

    def test_every_seat_may_play_the_zero_card_at_once(self) -> None:
        """When every seat plays its zero card the turn places nothing and still counts."""
        state = build(self.ROWS, [[11, 90], [21, 91]], options=ZERO)
        after, events = select_all(state, [ZERO_CARD, ZERO_CARD])
        assert after.rows == self.ROWS
        assert after.turn == state.turn + 1
        assert not bodies(events, CardPlaced)

    def test_a_pending_zero_card_looks_like_any_selection(self) -> None:
        """Before the reveal, others cannot tell a zero card from a number card."""
        state = ENGINE.new_game(3, SEED, ZERO)
        state = ENGINE.apply(state, 0, Select(ZERO_CARD)).state
        state = ENGINE.apply(state, 1, Select(state.hands[1][0])).state
        view = ENGINE.view(state, 2)
        assert view.hand_sizes[0] == view.hand_sizes[1]
        assert view.zero_card_available[0] == view.zero_card_available[1]
        assert view.selected[:2] == (True, True)
        assert view.revealed == (NO_SELECTION,) * 3

    def test_a_zero_card_in_a_later_hand_is_recorded_with_that_hand(self) -> None:
        """A zero card played in hand 2 is recorded as used in hand 2, its seat keeping its
        number cards."""
        options = replace(ZERO, hands=3)
        state = build(self.ROWS, [[11, 90], [21, 91]], options=options, hand_number=2)
        after, _ = select_all(state, [ZERO_CARD, 21])
        assert after.zero_card_used_in_hand == (2, 0)
        assert after.hands[0] == (11, 90)

    def test_a_finished_game_shows_no_card_in_hand(self) -> None:
        """Once the game is over an unplayed zero card no longer counts in the hand sizes."""
        state = build(self.ROWS, [[11], [21]], options=ZERO)
        after, _ = select_all(state, [11, 21])
        assert ENGINE.status(after).finished
        view = ENGINE.view(after, None)
        assert view.hand_sizes == (0, 0)


class TestSeatCounts:
    """2 to 10 seats."""

    def test_two_seats_play_a_whole_game(self) -> None:
        """A game of 2 seats plays to the end under the default threshold."""
        state, _ = play_out(ENGINE.new_game(2, SEED, Options()), 21)
        assert max(state.penalties) >= DEFAULT_THRESHOLD

    def test_ten_seats_deal_every_card(self) -> None:
        """With 10 seats 100 cards are dealt and 4 start the rows: the deck is empty."""
        state = ENGINE.new_game(10, SEED, Options())
        assert state.deck == ()
        assert ENGINE.seats_to_act(state) == tuple(range(10))

    def test_ten_seats_play_a_whole_game(self) -> None:
        """A game of 10 seats plays to the end."""
        state, _ = play_out(ENGINE.new_game(10, SEED, Options()), 22)
        assert ENGINE.outcome(state) is not None

    @pytest.mark.parametrize("seats", [0, 1, 11])
    def test_seat_counts_outside_2_to_10_are_rejected(self, seats: int) -> None:
        """A game of fewer than 2 or more than 10 seats is refused."""
        with pytest.raises(InvalidSeatsError):
            ENGINE.new_game(seats, SEED, Options())


class TestIllegalActions:
    """Every illegal action is refused with a stable reason."""

    def test_a_card_not_in_hand(self) -> None:
        """Another seat's card is refused with CARD_NOT_IN_HAND."""
        state = ENGINE.new_game(4, SEED, Options())
        with pytest.raises(IllegalActionError) as error:
            ENGINE.apply(state, 0, Select(state.hands[1][0]))
        assert reason(error) == "CARD_NOT_IN_HAND"

    @pytest.mark.parametrize("card", [-1, 105, 1000])
    def test_a_card_out_of_range(self, card: int) -> None:
        """A card outside the set is refused with CARD_NOT_IN_HAND."""
        with pytest.raises(IllegalActionError) as error:
            ENGINE.apply(ENGINE.new_game(4, SEED, Options()), 0, Select(card))
        assert reason(error) == "CARD_NOT_IN_HAND"

    def test_another_seat_while_a_row_choice_is_pending(self) -> None:
        """While a row choice is pending any other seat is refused with NOT_SEATS_TURN."""
        state = build([[50], [60], [70], [80]], [[3, 90], [91, 92]])
        state, _ = select_all(state, [3, 91])
        with pytest.raises(IllegalActionError) as error:
            ENGINE.apply(state, 1, ChooseRow(0))
        assert reason(error) == "NOT_SEATS_TURN"

    def test_a_selection_while_a_row_choice_is_pending(self) -> None:
        """The choosing seat is refused a selection with ROW_CHOICE_PENDING."""
        state = build([[50], [60], [70], [80]], [[3, 90], [91, 92]])
        state, _ = select_all(state, [3, 91])
        with pytest.raises(IllegalActionError) as error:
            ENGINE.apply(state, 0, Select(90))
        assert reason(error) == "ROW_CHOICE_PENDING"

    def test_a_row_choice_without_a_pending_choice(self) -> None:
        """A row choice outside Rule 4 is refused with NO_ROW_CHOICE_PENDING."""
        with pytest.raises(IllegalActionError) as error:
            ENGINE.apply(ENGINE.new_game(4, SEED, Options()), 0, ChooseRow(0))
        assert reason(error) == "NO_ROW_CHOICE_PENDING"

    @pytest.mark.parametrize("row", [-1, 4, 7])
    def test_a_row_that_does_not_exist(self, row: int) -> None:
        """A row index outside 0..3 is refused with NO_SUCH_ROW."""
        state = build([[50], [60], [70], [80]], [[3, 90], [91, 92]])
        state, _ = select_all(state, [3, 91])
        with pytest.raises(IllegalActionError) as error:
            ENGINE.apply(state, 0, ChooseRow(row))
        assert reason(error) == "NO_SUCH_ROW"

    def test_an_action_after_the_end(self) -> None:
        """Any action on a finished game is refused with GAME_FINISHED."""
        state, _ = play_out(ENGINE.new_game(2, SEED, ONE_HAND), 1)
        with pytest.raises(IllegalActionError) as error:
            ENGINE.apply(state, 0, Select(1))
        assert reason(error) == "GAME_FINISHED"

    def test_a_finished_game_has_no_seat_to_act(self) -> None:
        """A finished game has no seat to act and no legal actions."""
        state, _ = play_out(ENGINE.new_game(2, SEED, ONE_HAND), 1)
        assert ENGINE.status(state).seats_to_act == ()
        assert ENGINE.legal_actions(state, 0) == ()

    @pytest.mark.parametrize("seat", [-1, 4])
    def test_a_seat_that_does_not_exist(self, seat: int) -> None:
        """A seat outside the game is refused with INVALID_SEAT."""
        state = ENGINE.new_game(4, SEED, Options())
        with pytest.raises(InvalidSeatError) as error:
            ENGINE.apply(state, seat, Select(state.hands[0][0]))
        assert reason(error) == "INVALID_SEAT"

    def test_something_that_is_not_an_action(self) -> None:
        """A value that is no 6 nimmt! action is refused as malformed."""
        with pytest.raises(MalformedActionError):
            ENGINE.apply(ENGINE.new_game(4, SEED, Options()), 0, "select 3")  # type: ignore[arg-type]

    def test_a_refused_action_leaves_the_state_as_it_was(self) -> None:
        """After a refused action the state is equal to what it was."""
        state = ENGINE.new_game(4, SEED, Options())
        before = replace(state)
        with pytest.raises(IllegalActionError):
            ENGINE.apply(state, 0, Select(state.hands[1][0]))
        assert state == before


class TestOptions:
    """Options are checked when a game is dealt."""

    @pytest.mark.parametrize("threshold", [0, -5, 5000])
    def test_a_threshold_out_of_range(self, threshold: int) -> None:
        """A threshold outside 1..1000 is refused."""
        with pytest.raises(InvalidOptionsError) as error:
            ENGINE.new_game(4, SEED, Options(threshold=threshold))
        assert error.value.metadata == {"option": "threshold"}

    @pytest.mark.parametrize("hands", [0, 101])
    def test_a_hand_count_out_of_range(self, hands: int) -> None:
        """A number of hands outside 1..100 is refused, naming the option."""
        with pytest.raises(InvalidOptionsError) as error:
            ENGINE.new_game(4, SEED, Options(end=EndRule.FIXED_HANDS, hands=hands))
        assert error.value.metadata == {"option": "hands"}

    def test_the_bounds_are_accepted(self) -> None:
        """Threshold 1 and 1000 and 100 hands are accepted."""
        for options in (Options(threshold=1), Options(threshold=1000), Options(hands=100)):
            ENGINE.validate(ENGINE.new_game(4, SEED, options))

    def test_the_default_options(self) -> None:
        """The defaults are CHOOSE_ROW, PENALTY_THRESHOLD 66, no variant."""
        assert ENGINE.default_options() == Options(
            too_low_rule=TooLowRule.CHOOSE_ROW,
            end=EndRule.PENALTY_THRESHOLD,
            threshold=66,
            tactical_deck=False,
            zero_card=False,
        )


class TestRulesVersion:
    """A state is only accepted under the rules version that produced it."""

    def test_another_rules_version_is_refused(self) -> None:
        """A state of another rules version is refused with UNSUPPORTED_RULES_VERSION."""
        state = ENGINE.new_game(4, SEED, Options())
        with pytest.raises(UnsupportedRulesVersionError) as error:
            ENGINE.validate(replace(state, rules_version=state.rules_version + 1))
        assert reason(error) == "UNSUPPORTED_RULES_VERSION"


class TestViews:
    """A seat sees its own hand and selection only; a spectator sees no hand."""

    def selected(self) -> State:
        """Seats 0 and 2 of 3 have selected their lowest card."""
        state = ENGINE.new_game(3, SEED, Options())
        state = ENGINE.apply(state, 0, Select(state.hands[0][0])).state
        return ENGINE.apply(state, 2, Select(state.hands[2][0])).state

    def test_a_seat_sees_its_own_hand(self) -> None:
        """A seat's view holds its own hand."""
        state = ENGINE.new_game(3, SEED, Options())
        assert ENGINE.view(state, 1).hand == state.hands[1]

    def test_a_seat_sees_its_own_selection(self) -> None:
        """A seat's view shows the card it selected."""
        state = self.selected()
        assert ENGINE.view(state, 0).own_selection == state.selections[0]

    def test_a_seat_sees_only_that_others_selected(self) -> None:
        """Others' selections show as selected, never as cards."""
        state = self.selected()
        view = ENGINE.view(state, 1)
        assert view.selected == (True, False, True)
        assert view.own_selection == NO_SELECTION
        assert view.revealed == (NO_SELECTION,) * 3
        assert state.selections[0] not in view.hand

    def test_a_spectator_sees_no_hand(self) -> None:
        """A spectator's view has no hand and no selection."""
        view = ENGINE.view(self.selected(), None)
        assert view.hand == ()
        assert view.own_selection == NO_SELECTION

    def test_revealed_cards_are_shown_once_revealed(self) -> None:
        """While a row choice is pending every viewer sees the revealed cards."""
        state = build([[50], [60], [70], [80]], [[3, 90], [91, 92]])
        state, _ = select_all(state, [3, 91])
        assert ENGINE.view(state, None).revealed == (3, 91)
        assert ENGINE.view(state, 1).revealed == (3, 91)

    def test_hand_sizes_are_public(self) -> None:
        """Every viewer sees how many cards each seat holds."""
        state = self.selected()
        assert ENGINE.view(state, None).hand_sizes == (9, 10, 9)

    def test_no_zero_card_is_available_without_the_option(self) -> None:
        """Without the zero card option no view shows a zero card available to any seat."""
        state = self.selected()
        for viewer in (None, 0, 1):
            assert ENGINE.view(state, viewer).zero_card_available == (False,) * 3

    def test_the_zero_card_is_available_until_its_seat_plays_it(self) -> None:
        """With the zero card option every viewer sees which seats still hold their zero card."""
        state = zero_card_played_by_seat_0()
        for viewer in (None, 0, 1):
            assert ENGINE.view(state, viewer).zero_card_available == (False, True)

    def test_the_public_parts_are_shown(self) -> None:
        """Rows, totals, taken cards, hand and turn numbers are in every view."""
        state = build([[10], [20], [30], [40]], [[15, 16], [25, 26]], taken=[[1, 2], []])
        view = ENGINE.view(state, None)
        assert (view.rows, view.penalties, view.taken) == (state.rows, (2, 0), ((1, 2), ()))
        assert (view.hand_number, view.turn) == (1, 8)

    @pytest.mark.parametrize("viewer", [-1, 3])
    def test_a_seat_that_does_not_exist_is_refused(self, viewer: int) -> None:
        """A view for a seat outside the game is refused with INVALID_SEAT."""
        with pytest.raises(InvalidSeatError):
            ENGINE.view(ENGINE.new_game(3, SEED, Options()), viewer)


class TestRedeal:
    """redeal re-deals what a seat cannot see and keeps what it can."""

    @pytest.mark.parametrize("seed", [1, 2, 3])
    def test_the_seat_sees_the_same_view(self, seed: int) -> None:
        """The seat's view and the spectator's view are unchanged by a re-deal."""
        state = self.selected()
        redealt = ENGINE.redeal(state, 1, Rng(seed))
        assert ENGINE.view(redealt, 1) == ENGINE.view(state, 1)
        assert ENGINE.view(redealt, None) == ENGINE.view(state, None)

    def test_other_hands_and_selections_change(self) -> None:
        """Other seats' hands and hidden selections are re-dealt."""
        state = self.selected()
        redealt = ENGINE.redeal(state, 1, Rng(5))
        assert redealt.hands[1] == state.hands[1]
        assert redealt.hands[0] != state.hands[0]
        assert redealt.selections[0] != state.selections[0]

    def test_a_redealt_state_is_consistent(self) -> None:
        """A re-dealt state passes validation and plays on."""
        redealt = ENGINE.redeal(self.selected(), 1, Rng(7))
        ENGINE.validate(redealt)
        play_out(redealt, 9)

    def test_revealed_cards_are_kept(self) -> None:
        """Cards revealed this turn are public and stay as they are."""
        state = build([[50], [60], [70], [80]], [[3, 90], [91, 92]])
        state, _ = select_all(state, [3, 91])
        redealt = ENGINE.redeal(state, 1, Rng(3))
        assert redealt.selections == (3, 91)
        assert redealt.hands[1] == state.hands[1]

    def test_a_pending_zero_card_is_re_dealt_too(self) -> None:
        """Whether another seat's pending selection is its zero card is re-dealt as well."""
        state = ENGINE.new_game(3, SEED, ZERO)
        state = ENGINE.apply(state, 0, Select(ZERO_CARD)).state
        state = ENGINE.apply(state, 1, Select(state.hands[1][0])).state
        outcomes = set()
        for seed in range(40):
            redealt = ENGINE.redeal(state, 2, Rng(seed))
            ENGINE.validate(redealt)
            assert ENGINE.view(redealt, 2) == ENGINE.view(state, 2)
            outcomes.update((seat, redealt.selections[seat] == ZERO_CARD) for seat in (0, 1))
        assert outcomes == {(0, True), (0, False), (1, True), (1, False)}

    def test_a_used_zero_card_is_never_re_dealt(self) -> None:
        """A seat whose zero card is used always has a number card pending after a re-deal."""
        state = zero_card_played_by_seat_0()
        state = ENGINE.apply(state, 0, Select(12)).state
        for seed in range(20):
            assert ENGINE.redeal(state, 1, Rng(seed)).selections[0] > ZERO_CARD

    def test_a_pending_last_card_may_become_the_zero_card(self) -> None:
        """On the last turn a seat chose between its last number card and its unused zero card:
        re-dealt, its pending selection is either, with even odds."""
        state = build([[10], [20], [30], [40]], [[11], [21]], options=ZERO)
        state = ENGINE.apply(state, 0, Select(11)).state
        zeros = 0
        for seed in range(40):
            redealt = ENGINE.redeal(state, 1, Rng(seed))
            ENGINE.validate(redealt)
            zeros += redealt.selections[0] == ZERO_CARD
        assert 5 <= zeros <= 35

    def test_a_pending_selection_is_the_zero_card_with_its_fair_chance(self) -> None:
        """A seat that chose among two number cards and its unused zero card selected the zero
        card with a chance of one in three, and so does a re-deal."""
        state = build([[10], [20], [30], [40]], [[11, 12], [21, 22]], options=ZERO)
        state = ENGINE.apply(state, 0, Select(11)).state
        tries = 1500
        zeros = sum(
            ENGINE.redeal(state, 1, Rng(seed)).selections[0] == ZERO_CARD for seed in range(tries)
        )
        assert 0.29 < zeros / tries < 0.38

    def test_the_generator_state_is_drawn_anew(self) -> None:
        """A re-dealt state's generator state is not the game's: a search cannot foresee the
        deal of the next hand from it."""
        state = self.selected()
        redealt = ENGINE.redeal(state, 1, Rng(5))
        assert redealt.rng_state != state.rng_state
        ENGINE.validate(redealt)

    def selected(self) -> State:
        """Seats 0 and 2 of 3 have selected a card."""
        state = ENGINE.new_game(3, SEED, Options())
        state = ENGINE.apply(state, 0, Select(state.hands[0][5])).state
        return ENGINE.apply(state, 2, Select(state.hands[2][5])).state


class TestValidation:
    """States the rules could not have produced are rejected."""

    def test_states_of_a_whole_game_are_valid(self) -> None:
        """Every state of a random game with every option passes validation."""
        options = Options(zero_card=True, end=EndRule.FIXED_HANDS, hands=2)
        play_out(ENGINE.new_game(4, SEED, options), 4)

    @pytest.mark.parametrize(
        "corrupt",
        [
            pytest.param(
                lambda s: replace(s, deck=(s.hands[0][0], *s.deck[1:])), id="a_card_twice"
            ),
            pytest.param(lambda s: replace(s, deck=s.deck[1:]), id="a_card_missing"),
            pytest.param(lambda s: replace(s, deck=(105, *s.deck[1:])), id="a_foreign_card"),
            pytest.param(lambda s: replace(s, deck=(0, *s.deck[1:])), id="a_zero_in_the_deck"),
            pytest.param(
                lambda s: replace(
                    s,
                    rows=(
                        (max(s.rows[0][0], s.deck[0]), min(s.rows[0][0], s.deck[0])),
                        *s.rows[1:],
                    ),
                    deck=s.deck[1:],
                ),
                id="rows_not_ascending",
            ),
            pytest.param(
                lambda s: replace(s, rows=(*s.rows, (s.deck[0],)), deck=s.deck[1:]),
                id="five_rows",
            ),
            pytest.param(
                lambda s: replace(s, rows=s.rows[:3], deck=(*s.deck, s.rows[3][0])),
                id="three_rows",
            ),
            pytest.param(
                lambda s: replace(
                    s,
                    hands=(tuple(sorted((*s.hands[0], s.deck[-1]))), *s.hands[1:]),
                    deck=s.deck[:-1],
                ),
                id="a_hand_too_large",
            ),
            pytest.param(lambda s: replace(s, turn=1), id="hand_size_wrong_for_the_turn"),
            pytest.param(
                lambda s: replace(s, hands=(s.hands[0][::-1], *s.hands[1:])),
                id="a_hand_not_ascending",
            ),
            pytest.param(
                lambda s: replace(s, taken=((s.deck[0],), *s.taken[1:]), deck=s.deck[1:]),
                id="a_penalty_below_the_taken_bullheads",
            ),
            pytest.param(
                lambda s: replace(s, taken=((200,), *s.taken[1:])), id="a_foreign_taken_card"
            ),
            pytest.param(lambda s: replace(s, revealed=True), id="revealed_before_all_selected"),
            pytest.param(lambda s: replace(s, turn=10), id="a_finished_game_with_cards_in_hand"),
            pytest.param(lambda s: replace(s, penalties=s.penalties[1:]), id="too_few_penalties"),
            pytest.param(lambda s: replace(s, hand_number=0), id="hand_number_zero"),
            pytest.param(lambda s: replace(s, rng_state=-1), id="generator_out_of_range"),
            pytest.param(lambda s: replace(s, placed=1), id="placed_before_the_reveal"),
            pytest.param(
                lambda s: replace(s, zero_card_used_in_hand=(1, 0, 0, 0)),
                id="zero_card_used_without_the_option",
            ),
            pytest.param(
                lambda s: replace(s, discarded=(s.deck[0],), deck=s.deck[1:]),
                id="discarded_mid_hand",
            ),
            pytest.param(
                lambda s: replace(s, penalties=(7, 0, 0, 0)), id="a_first_hand_total_not_taken"
            ),
            pytest.param(
                lambda s: replace(s, hand_number=2, penalties=(70, 0, 0, 0)),
                id="a_hand_dealt_after_the_threshold",
            ),
            pytest.param(
                lambda s: replace(s, options=replace(s.options, threshold=0)), id="bad_options"
            ),
            pytest.param(
                lambda s: replace(s, hand_number=2, penalties=(66, 0, 0, 0)),
                id="a_hand_dealt_after_a_total_at_the_threshold",
            ),
            pytest.param(
                lambda s: replace(s, selections=(-2, *s.selections[1:])),
                id="a_selection_below_no_selection",
            ),
        ],
    )
    def test_a_corrupted_state_is_rejected(self, corrupt: Any) -> None:
        """A corrupted state raises InvalidStateError."""
        state = ENGINE.new_game(4, SEED, Options())
        ENGINE.validate(state)
        with pytest.raises(InvalidStateError):
            ENGINE.validate(corrupt(state))

    @pytest.mark.parametrize("name", ["selections", "penalties", "taken", "zero_card_used_in_hand"])
    def test_a_list_of_the_wrong_length_is_named(self, name: str) -> None:
        """A per-seat list one entry short is refused, and the message names the list."""
        state = ENGINE.new_game(4, SEED, Options())
        short = replace(state, **{name: getattr(state, name)[1:]})
        with pytest.raises(InvalidStateError, match=f"^{name} must have one entry per seat"):
            ENGINE.validate(short)

    def test_every_seat_selected_but_not_revealed(self) -> None:
        """A turn in which every seat selected must have been revealed."""
        state = build([[10], [20], [30], [40]], [[11, 12], [21, 22]])
        with pytest.raises(InvalidStateError):
            ENGINE.validate(replace(state, hands=((11,), (21,)), selections=(12, 22)))

    def test_a_pending_choice_without_a_card_lower_than_every_row(self) -> None:
        """A revealed turn must wait on a card lower than every row."""
        state = build([[50], [60], [70], [80]], [[3, 90], [91, 92]])
        pending, _ = select_all(state, [3, 91])
        deck = (*(card for card in pending.deck if card != 2), 50)
        with pytest.raises(InvalidStateError):
            ENGINE.validate(replace(pending, rows=((2,), *pending.rows[1:]), deck=deck))

    def test_a_pending_choice_under_take_cheapest_row(self) -> None:
        """With TAKE_CHEAPEST_ROW no turn ever waits on a row choice."""
        state = build([[50], [60], [70], [80]], [[3, 90], [91, 92]])
        pending, _ = select_all(state, [3, 91])
        with pytest.raises(InvalidStateError):
            ENGINE.validate(replace(pending, options=CHEAPEST))

    def test_a_negative_placed_count(self) -> None:
        """The count of placed cards cannot be negative."""
        state = build([[50], [60], [70], [80]], [[3, 90], [91, 92]])
        pending, _ = select_all(state, [3, 91])
        with pytest.raises(InvalidStateError):
            ENGINE.validate(replace(pending, placed=-1))

    def test_a_revealed_turn_with_every_card_placed(self) -> None:
        """A revealed turn still has a card to place: the one whose row choice is pending."""
        state = build([[50], [60], [70], [80]], [[3, 90], [91, 92]])
        pending, _ = select_all(state, [3, 91])
        with pytest.raises(InvalidStateError, match="nothing left to place"):
            ENGINE.validate(replace(pending, placed=2))

    def test_a_row_of_six_cards(self) -> None:
        """A row never holds 6 cards: the 6th card takes the five (Rule 3)."""
        state = build([[1, 2, 3, 4, 5], [20], [30], [40]], [[41, 90], [21, 91]])
        six = replace(
            state,
            rows=((1, 2, 3, 4, 5, 6), *state.rows[1:]),
            deck=tuple(card for card in state.deck if card != 6),
        )
        with pytest.raises(InvalidStateError, match="a row holds"):
            ENGINE.validate(six)

    def test_a_finished_game_with_cards_in_hand(self) -> None:
        """A finished game holds no cards in hand."""
        state, _ = play_out(ENGINE.new_game(2, SEED, ONE_HAND), 1)
        hand = (state.deck[0],)
        with pytest.raises(InvalidStateError):
            ENGINE.validate(replace(state, hands=(hand, ()), deck=state.deck[1:]))

    def test_a_zero_card_selected_again_in_a_later_hand(self) -> None:
        """A seat that played its zero card in an earlier hand cannot have selected it again."""
        options = replace(ZERO, hands=3)
        state = build(
            [[10], [20], [30], [40]],
            [[11, 90], [21, 91]],
            options=options,
            zero_used=[1, 0],
            hand_number=2,
        )
        with pytest.raises(InvalidStateError):
            ENGINE.validate(replace(state, selections=(ZERO_CARD, NO_SELECTION)))

    def test_a_zero_card_selection_without_the_option(self) -> None:
        """A zero card selection in a game without the option is inconsistent, even where the
        revision counts it."""
        state = build([[10], [20], [30], [40]], [[11, 90], [21, 91]])
        selected = replace(state, selections=(ZERO_CARD, NO_SELECTION), revision=state.revision + 1)
        with pytest.raises(InvalidStateError, match="a zero card selection that the rules"):
            ENGINE.validate(selected)

    def test_a_revision_above_the_selections_under_take_cheapest_row(self) -> None:
        """Under TAKE_CHEAPEST_ROW no action but a selection is ever made: the revision is the
        count of selections, not one more."""
        state = build([[10], [20], [30], [40]], [[11, 90], [21, 91]], options=CHEAPEST)
        with pytest.raises(InvalidStateError, match="does not follow from the turns played"):
            ENGINE.validate(replace(state, revision=state.revision + 1))

    def test_a_hand_dealt_after_a_total_at_the_threshold(self) -> None:
        """A total that reached the threshold ends the game after its hand: no hand follows."""
        state = ENGINE.new_game(4, SEED, Options())
        at_threshold = replace(state, hand_number=2, penalties=(DEFAULT_THRESHOLD, 0, 0, 0))
        with pytest.raises(InvalidStateError, match="after a total reached the threshold"):
            ENGINE.validate(replace(at_threshold, revision=state.revision + 4 * HAND_SIZE))

    @pytest.mark.parametrize(
        ("zero_card", "used"),
        [(False, 1), (True, 5), (True, -1)],
        ids=["in_a_game_without_it", "in_a_hand_not_yet_dealt", "in_a_negative_hand"],
    )
    def test_an_impossible_zero_card_use(self, zero_card: bool, used: int) -> None:
        """A seat's zero card was used in no hand (0) or in a hand dealt so far, and only in a
        game with the zero card."""
        options = replace(ONE_HAND, hands=6, zero_card=zero_card)
        state = build(
            [[10], [20], [30], [40]], [[11, 90], [21, 91]], options=options, hand_number=2
        )
        with pytest.raises(InvalidStateError, match="zero card use out of range"):
            ENGINE.validate(replace(state, zero_card_used_in_hand=(used, 0)))

    def test_a_negative_turn(self) -> None:
        """A hand's turns count from 0, even where a hand of 11 cards and a revision two
        actions short make a turn of -1 add up."""
        options = replace(ONE_HAND, hands=2)
        state = build(
            [[10], [20], [30], [40]],
            [[11, *range(81, 90)], [21, *range(91, 100)]],
            options=options,
            hand_number=2,
        )
        hands = ((*state.hands[0], 100), (*state.hands[1], 101))
        deck = tuple(card for card in state.deck if card not in (100, 101))
        before = replace(state, turn=-1, hands=hands, deck=deck, revision=state.revision - 2)
        with pytest.raises(InvalidStateError, match="hand number or turn out of range"):
            ENGINE.validate(before)

    def test_a_zero_card_turn_with_a_missing_card(self) -> None:
        """A seat that played its zero card this hand holds one card more than the others."""
        state = build([[10], [20], [30], [40]], [[11, 90], [21, 91]], options=ZERO)
        with pytest.raises(InvalidStateError):
            ENGINE.validate(replace(state, zero_card_used_in_hand=(1, 0)))

    def test_a_game_ended_below_the_threshold(self) -> None:
        """A game under PENALTY_THRESHOLD cannot end while every total is below it."""
        state, _ = play_out(ENGINE.new_game(2, SEED, ONE_HAND), 1)
        with pytest.raises(InvalidStateError):
            ENGINE.validate(replace(state, options=Options(threshold=1000)))

    def test_a_row_choice_pending_for_a_card_other_than_the_lowest(self) -> None:
        """Only the lowest revealed card can be lower than every row (each card placed ends a
        row that the next, higher, card can follow), so a pending choice has placed nothing."""
        state = build([[50], [60], [70], [80]], [[3, 90], [5, 91]])
        pending, _ = select_all(state, [3, 5])
        assert pending.placed == 0
        # Seat 0's 3 counted as placed and taken (one bullhead), seat 1's 5 waiting on a row
        # choice: every card accounted for, but no play leads there.
        taken = replace(pending, placed=1, taken=((3,), ()), penalties=(1, 0))
        # The same with the 3 still in the deck.
        in_deck = replace(pending, placed=1, deck=(*pending.deck, 3))
        for corrupted in (taken, in_deck):
            with pytest.raises(InvalidStateError, match="other than the lowest"):
                ENGINE.validate(corrupted)

    def test_a_hand_beyond_the_fixed_number_of_hands(self) -> None:
        """Under FIXED_HANDS no hand is dealt after the last one."""
        options = replace(ONE_HAND, hands=2)
        last = build([[10], [20], [30], [40]], [[11, 90], [21, 91]], options=options, hand_number=2)
        with pytest.raises(InvalidStateError, match="more hands"):
            ENGINE.validate(replace(last, hand_number=3))

    def test_a_game_ended_before_its_last_hand(self) -> None:
        """A game under FIXED_HANDS cannot end before its last hand."""
        state, _ = play_out(ENGINE.new_game(2, SEED, ONE_HAND), 1)
        with pytest.raises(InvalidStateError):
            ENGINE.validate(replace(state, options=replace(ONE_HAND, hands=2)))
