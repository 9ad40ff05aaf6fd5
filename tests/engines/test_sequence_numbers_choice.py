"""Scenario tests of Sequence Numbers: the seat chooses the five chips its play locks, and the
``sequence_overlap`` option (how much a second sequence may share with the first), one rule per
test. Situations are built as in ``test_sequence_numbers``.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from engines.base import Event
from engines.errors import InvalidStateError
from engines.prng import Rng
from engines.sequence_numbers import ENGINE
from engines.sequence_numbers.rules import (
    CARD_CELLS,
    NO_CELL,
    NO_CHIP,
    NUMBERS,
    TURN_LIMIT,
    CardDrawn,
    ChooseSequence,
    Discard,
    Exchange,
    Options,
    Play,
    Sequence,
    SequenceChoice,
    SequenceCompleted,
    SequenceOverlap,
    State,
    TeamWon,
)
from tests.engines.test_sequence_numbers import (
    MINUS,
    PLUS,
    at,
    bodies,
    card_for,
    hand,
    line,
    refused,
    table,
    with_chips,
)

ONE_CELL, ANY = SequenceOverlap.ONE_CELL, SequenceOverlap.ANY
# The example: one diagonal from the top-right corner (cell 9) down to the left.
DIAGONAL = (9, 18, 27, 36, 45, 54)
CORNER_FIVE, LOWER_FIVE = DIAGONAL[:5], DIAGONAL[1:]
ROW = tuple(at(4, col) for col in range(1, 10))  # row 4 from column 1 to 9


def place(
    held: tuple[int, ...],
    cell: int,
    seats: int = 2,
    overlap: SequenceOverlap = ONE_CELL,
    sequences: tuple[Sequence, ...] = (),
    extra: tuple[int, ...] = (),
) -> tuple[State, State, tuple[Event, ...]]:
    """Team 0 holds ``held`` but ``cell`` (corners skipped); seat 0 places a chip on ``cell``
    with an equation card. Returns the state before, the state after and the events."""
    card = card_for(cell)
    size = 5 if seats <= 3 else 4
    chips = line(*(c for c in held if c != cell and NUMBERS[c] != 0))
    before = table(
        seats,
        chips=chips,
        sequences=sequences,
        hands={0: hand(card, *extra, size=size)},
        overlap=overlap,
    )
    transition = ENGINE.apply(before, 0, Play(card, cell))
    ENGINE.validate(transition.state)
    return before, transition.state, transition.events


def swap_cards(state: State, first: int, second: int) -> State:
    """The state with two cards trading places, wherever they are: every count still adds up."""
    swap = {first: second, second: first}

    def swapped(cards: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(swap.get(card, card) for card in cards)

    return replace(
        state,
        hands=tuple(tuple(sorted(swapped(cards))) for cards in state.hands),
        discards=tuple(swapped(pile) for pile in state.discards),
        deck=swapped(state.deck),
    )


def choices(state: State) -> list[tuple[int, ...]]:
    """The fives the seat to act is offered, from its legal actions."""
    actions = ENGINE.legal_actions(state, state.turn % len(state.hands))
    assert all(isinstance(action, ChooseSequence) for action in actions)
    return [action.cells for action in actions if isinstance(action, ChooseSequence)]


def choose(state: State, cells: tuple[int, ...]) -> tuple[State, tuple[Event, ...]]:
    """The seat to act locks ``cells``; the new state is checked."""
    transition = ENGINE.apply(state, state.turn % len(state.hands), ChooseSequence(cells))
    ENGINE.validate(transition.state)
    return transition.state, transition.events


class TestChoosingTheFive:
    """A play completing fives that exclude one another waits for its seat's choice."""

    def test_the_diagonal_example_waits_for_the_seats_choice(self) -> None:
        """Holding 18, 27, 45 and 54, a chip on 36 offers the corner five and the lower five."""
        _, after, events = place(DIAGONAL, 36)
        assert after.pending_cell == 36
        assert after.sequences == ()
        assert ENGINE.seats_to_act(after) == (0,)
        assert ENGINE.outcome(after) is None
        assert choices(after) == [CORNER_FIVE, LOWER_FIVE]
        assert bodies(events, SequenceChoice) == [
            SequenceChoice(0, 0, 36, (CORNER_FIVE, LOWER_FIVE))
        ]

    @pytest.mark.parametrize("five", [CORNER_FIVE, LOWER_FIVE])
    def test_each_choice_locks_the_chosen_five(self, five: tuple[int, ...]) -> None:
        """The five the seat chooses is the sequence locked, and only it."""
        _, pending, _ = place(DIAGONAL, 36, seats=4)
        after, events = choose(pending, five)
        assert after.sequences == (Sequence(0, five),)
        assert bodies(events, SequenceCompleted) == [SequenceCompleted(0, five)]
        assert after.pending_cell == NO_CELL

    @pytest.mark.parametrize(("five", "removable"), [(CORNER_FIVE, True), (LOWER_FIVE, False)])
    def test_a_chip_left_out_of_the_chosen_five_stays_removable(
        self, five: tuple[int, ...], removable: bool
    ) -> None:
        """After the corner five, a MINUS card may take 54; after the lower five it may not."""
        _, pending, _ = place(DIAGONAL, 36, seats=4)
        after, _ = choose(pending, five)
        after = swap_cards(after, after.hands[1][0], MINUS)
        assert (Play(MINUS, 54) in ENGINE.legal_actions(after, 1)) is removable

    def test_the_view_shows_the_choice_to_everyone(self) -> None:
        """The choice is public: every seat and a spectator see it in their views."""
        _, after, _ = place(DIAGONAL, 36)
        expected = SequenceChoice(0, 0, 36, (CORNER_FIVE, LOWER_FIVE))
        for viewer in (None, 0, 1):
            assert ENGINE.view(after, viewer).choice == expected
        assert ENGINE.view(choose(after, LOWER_FIVE)[0], None).choice is None

    def test_the_draw_waits_for_the_choice(self) -> None:
        """The seat draws and the turn passes only once the five is chosen."""
        before, pending, events = place(DIAGONAL, 36, seats=4)
        assert bodies(events, CardDrawn) == []
        assert len(pending.hands[0]) == 3
        assert (pending.turn, pending.deck) == (before.turn, before.deck)
        after, events = choose(pending, LOWER_FIVE)
        assert len(after.hands[0]) == 4
        assert after.turn == before.turn + 1
        assert ENGINE.seats_to_act(after) == (1,)
        assert len(bodies(events, CardDrawn)) == 2

    def test_a_line_of_six_offers_its_two_fives(self) -> None:
        """Six in a row completed in the middle offer the left and the right five."""
        six = ROW[1:7]
        _, after, _ = place(six, six[2])
        assert choices(after) == [six[:5], six[1:]]

    def test_a_line_of_nine_makes_two_sequences_when_an_end_five_is_chosen(self) -> None:
        """Choosing an end five of nine locks the other end five too: they share one cell."""
        nine = ROW[:9]
        _, pending, _ = place(nine, nine[4], seats=4)
        assert choices(pending) == [nine[i : i + 5] for i in range(5)]
        after, events = choose(pending, nine[4:])
        assert after.sequences == (Sequence(0, nine[4:]), Sequence(0, nine[:5]))
        assert bodies(events, TeamWon) == [TeamWon(0, (0, 2))]

    def test_a_line_of_nine_makes_one_sequence_when_the_middle_five_is_chosen(self) -> None:
        """The middle five of nine shares two cells with each end five: nothing else counts."""
        nine = ROW[:9]
        _, pending, _ = place(nine, nine[4], seats=4)
        after, _ = choose(pending, nine[2:7])
        assert after.sequences == (Sequence(0, nine[2:7]),)

    def test_two_lines_of_six_ask_once_per_line(self) -> None:
        """A row of six and a column of six: after the row's five, the seat chooses the
        column's."""
        row = tuple(at(4, col) for col in range(2, 8))
        column = tuple(at(r, 4) for r in range(2, 8))
        _, pending, _ = place((*row, *column), at(4, 4), seats=4)
        assert choices(pending) == [row[:5], row[1:], column[:5], column[1:]]
        again, events = choose(pending, row[1:])
        assert bodies(events, SequenceChoice) == [
            SequenceChoice(0, 0, at(4, 4), (column[:5], column[1:]))
        ]
        assert again.pending_cell == at(4, 4)
        after, _ = choose(again, column[:5])
        assert after.sequences == (Sequence(0, row[1:]), Sequence(0, column[:5]))

    def test_two_directions_at_once_lock_both_fives_without_a_choice(self) -> None:
        """A row five and a column five share only the placed cell: both are locked at once."""
        row = tuple(at(4, col) for col in range(2, 7))
        column = tuple(at(r, 4) for r in range(2, 7))
        _, after, _ = place((*row, *column), at(4, 4), seats=4)
        assert after.pending_cell == NO_CELL
        assert after.sequences == (Sequence(0, row), Sequence(0, column))

    def test_two_directions_at_once_lock_the_column_and_ask_for_the_row(self) -> None:
        """A row of six and a column of five: the column is locked, the seat chooses in the row."""
        six = tuple(at(4, col) for col in range(2, 8))
        column = tuple(at(r, 4) for r in range(2, 7))
        _, pending, events = place((*six, *column), at(4, 4), seats=4)
        assert pending.sequences == (Sequence(0, column),)
        assert bodies(events, SequenceCompleted) == [SequenceCompleted(0, column)]
        assert choices(pending) == [six[:5], six[1:]]
        after, events = choose(pending, six[1:])
        assert after.sequences == (Sequence(0, column), Sequence(0, six[1:]))
        assert bodies(events, TeamWon) == [TeamWon(0, (0, 2))]

    def test_the_winning_five_is_chosen_before_the_game_ends(self) -> None:
        """With two seats the game is not over until the seat has chosen its five."""
        _, pending, events = place(DIAGONAL, 36)
        assert bodies(events, TeamWon) == []
        after, events = choose(pending, CORNER_FIVE)
        assert bodies(events, TeamWon) == [TeamWon(0, (0,))]
        outcome = ENGINE.outcome(after)
        assert outcome is not None
        assert outcome.winners == (0,)
        assert after.sequences == (Sequence(0, CORNER_FIVE),)

    def test_a_corner_counts_in_the_fives_offered(self) -> None:
        """The corner of row 0 is in the first five offered, as the team's chip."""
        six = tuple(at(0, col) for col in range(6))
        _, after, _ = place(six, at(0, 3))
        assert choices(after) == [six[:5], six[1:]]

    def test_only_the_choice_is_open_while_it_is_pending(self) -> None:
        """No play, exchange or discard until the five is chosen."""
        _, pending, _ = place(DIAGONAL, 36, extra=(PLUS,))
        assert refused(pending, 0, Play(PLUS, at(5, 5))) == "SEQUENCE_CHOICE_PENDING"
        assert refused(pending, 0, Exchange(pending.hands[0][0])) == "SEQUENCE_CHOICE_PENDING"
        assert refused(pending, 0, Discard(pending.hands[0][0])) == "SEQUENCE_CHOICE_PENDING"
        assert refused(pending, 1, ChooseSequence(CORNER_FIVE)) == "NOT_SEATS_TURN"

    def test_a_five_not_offered_is_refused(self) -> None:
        """Only a five on offer, its cells in line order, may be chosen."""
        _, pending, _ = place(DIAGONAL, 36)
        for cells in (LOWER_FIVE[::-1], DIAGONAL, LOWER_FIVE[:4], (1, 2, 3, 4, 5)):
            assert refused(pending, 0, ChooseSequence(cells)) == "NOT_A_SEQUENCE_CHOICE"

    def test_no_five_can_be_chosen_when_no_choice_is_pending(self) -> None:
        """Choosing a five outside a pending choice is refused."""
        state = table()
        assert refused(state, 0, ChooseSequence(CORNER_FIVE)) == "NO_SEQUENCE_CHOICE_PENDING"

    def test_a_dead_card_exchanged_before_the_play_stays_under_it(self) -> None:
        """An exchange, then a play that waits for its choice, then the choice: all consistent."""
        card, dead = card_for(36), card_for(at(7, 7))
        chips = {**line(*DIAGONAL[1:3], *DIAGONAL[4:]), **line(*CARD_CELLS[dead], team=1)}
        state = table(4, chips=chips, hands={0: hand(card, dead, size=4)})
        state = ENGINE.apply(state, 0, Exchange(dead)).state
        pending = ENGINE.apply(state, 0, Play(card, 36)).state
        ENGINE.validate(pending)
        assert pending.exchanged
        assert pending.discards[0][-2:] == (dead, card)
        after, _ = choose(pending, LOWER_FIVE)
        assert not after.exchanged

    def test_the_exchanged_card_is_found_under_the_play_on_a_longer_pile(self) -> None:
        """On a pile that holds earlier turns' cards too, the card under the pending play is
        the exchanged one, dead."""
        card, dead = card_for(36), card_for(at(7, 7))
        chips = {**line(*DIAGONAL[1:3], *DIAGONAL[4:]), **line(*CARD_CELLS[dead], team=1)}
        earlier = {0: (80, 81), 1: (82,)}
        state = table(4, chips=chips, hands={0: hand(card, dead, size=4)}, discards=earlier)
        state = ENGINE.apply(state, 0, Exchange(dead)).state
        pending = ENGINE.apply(state, 0, Play(card, 36)).state
        assert pending.discards[0] == (80, 81, dead, card)
        ENGINE.validate(pending)


class TestSequenceOverlap:
    """Option ``sequence_overlap``: ONE_CELL (default) or ANY."""

    def test_the_option_is_listed_with_its_values(self) -> None:
        """ListGames shows sequence_overlap, ONE_CELL by default, and its two values."""
        option = next(o for o in ENGINE.info.options if o.name == "sequence_overlap")
        assert option.default == "ONE_CELL"
        assert option.allowed == ("ONE_CELL", "ANY")
        assert ENGINE.default_options().sequence_overlap is ONE_CELL

    def test_a_new_game_keeps_the_option(self) -> None:
        """The option set at NewGame is in the state, beside the resolved team count."""
        state = ENGINE.new_game(4, 3, Options(sequence_overlap=ANY))
        assert state.options == Options(teams=2, sequence_overlap=ANY)

    def test_any_allows_a_second_sequence_that_reuses_four_chips(self) -> None:
        """With ANY, one more chip beside a locked five makes a second sequence, which wins."""
        first = ROW[1:6]
        _, after, events = place(
            (*first, ROW[6]), ROW[6], seats=4, overlap=ANY, sequences=(Sequence(0, first),)
        )
        assert after.sequences == (Sequence(0, first), Sequence(0, ROW[2:7]))
        assert bodies(events, TeamWon) == [TeamWon(0, (0, 2))]

    def test_one_cell_refuses_a_second_sequence_that_reuses_four_chips(self) -> None:
        """With ONE_CELL the same chip makes nothing: the five would share four cells."""
        first = ROW[1:6]
        _, after, _ = place((*first, ROW[6]), ROW[6], seats=4, sequences=(Sequence(0, first),))
        assert after.sequences == (Sequence(0, first),)
        assert ENGINE.outcome(after) is None

    def test_any_locks_both_fives_of_a_line_of_six_at_once(self) -> None:
        """With ANY the fives of a line never exclude one another: no choice, two sequences."""
        _, after, events = place(DIAGONAL, 36, seats=4, overlap=ANY)
        assert after.pending_cell == NO_CELL
        assert after.sequences == (Sequence(0, CORNER_FIVE), Sequence(0, LOWER_FIVE))
        assert bodies(events, SequenceChoice) == []

    def test_any_counts_a_corner_in_both_sequences(self) -> None:
        """With ANY, a corner five locked first and the five beside it make two sequences."""
        corner_five = tuple(at(0, col) for col in range(5))
        _, after, _ = place(
            (*corner_five, at(0, 5)),
            at(0, 5),
            seats=4,
            overlap=ANY,
            sequences=(Sequence(0, corner_five),),
        )
        assert after.sequences[-1] == Sequence(0, tuple(at(0, col) for col in range(1, 6)))

    def test_one_cell_lets_a_corner_join_two_sequences_of_a_team(self) -> None:
        """With ONE_CELL, a row and a column sharing only their corner are two sequences."""
        row = tuple(at(0, col) for col in range(5))
        column = tuple(at(r, 0) for r in range(5))
        _, after, _ = place((*row, *column), at(4, 0), seats=4, sequences=(Sequence(0, row),))
        assert after.sequences == (Sequence(0, row), Sequence(0, column))

    def test_any_refuses_the_same_five_twice(self) -> None:
        """A team's sequences are never the same five, even with ANY."""
        five = ROW[1:6]
        state = table(4, chips=line(*five), sequences=(Sequence(0, five),), overlap=ANY)
        corrupted = replace(state, sequences=(Sequence(0, five),) * 2)
        with pytest.raises(InvalidStateError, match="sequence_overlap ANY"):
            ENGINE.validate(corrupted)


class TestRedealDuringAChoice:
    """A re-deal for the search bot keeps what every seat may see, a pending choice included."""

    def test_a_pending_choice_survives_a_redeal(self) -> None:
        """Re-dealing the hidden cards while a seat chooses its five keeps the choice."""
        _, pending, _ = place(DIAGONAL, 36)
        for seat in (0, 1):
            redealt = ENGINE.redeal(pending, seat, Rng(seat + 3))
            ENGINE.validate(redealt)
            assert redealt.pending_cell == pending.pending_cell
            assert ENGINE.view(redealt, seat) == ENGINE.view(pending, seat)


class TestPendingChoiceStates:
    """A pending choice the rules could not have produced is rejected."""

    @staticmethod
    def rejected(state: State, match: str) -> None:
        """Validate a state that must be rejected with ``match`` in its message."""
        with pytest.raises(InvalidStateError, match=match):
            ENGINE.validate(state)

    def test_a_choice_pending_on_a_corner_or_off_the_board(self) -> None:
        """The chip awaiting the choice is on a cell of the board that is not a corner."""
        _, pending, _ = place(DIAGONAL, 36)
        for cell in (9, 100, 2**31):
            self.rejected(replace(pending, pending_cell=cell), "not a cell of a chip")

    def test_a_choice_pending_on_a_cell_without_the_teams_chip(self) -> None:
        """The chip awaiting the choice is the team's of the seat to act."""
        _, pending, _ = place(DIAGONAL, 36)
        self.rejected(replace(pending, pending_cell=at(5, 5)), "holds no chip of team A")

    def test_a_choice_pending_whose_fives_exclude_nothing(self) -> None:
        """A choice is pending only while the fives through the chip exclude one another."""
        _, pending, _ = place(DIAGONAL, 36)
        chips = (*pending.chips[:54], NO_CHIP, *pending.chips[55:])
        self.rejected(replace(pending, chips=chips), "do not exclude one another")

    def test_a_choice_pending_after_a_card_that_did_not_place_the_chip(self) -> None:
        """The card on top of the seat's pile is the one that placed the chip."""
        _, pending, _ = place(DIAGONAL, 36)
        corrupted = swap_cards(pending, pending.discards[0][-1], MINUS)
        self.rejected(corrupted, "did not place the chip")

    def test_a_choice_pending_after_the_first_equation_card(self) -> None:
        """Any equation card may have placed the chip awaiting the choice, card 0 included."""
        row = tuple(at(0, col) for col in range(4, 10))
        assert card_for(at(0, 8)) == 0
        _, pending, _ = place(row, at(0, 8))
        assert pending.pending_cell == at(0, 8)

    def test_a_choice_pending_with_an_empty_pile(self) -> None:
        """The card that placed the chip is on top of the seat's pile: an empty pile placed
        nothing."""
        _, pending, _ = place(DIAGONAL, 36)
        top = pending.discards[0][-1]
        emptied = replace(pending, discards=((), *pending.discards[1:]), deck=(top, *pending.deck))
        with pytest.raises(InvalidStateError):
            ENGINE.validate(emptied)

    def test_a_choice_pending_on_a_chip_that_completes_no_five(self) -> None:
        """A choice is pending only on a chip that completes fives."""
        _, pending, _ = place(DIAGONAL, 36)
        chips = list(pending.chips)
        chips[27] = chips[54] = NO_CHIP
        self.rejected(replace(pending, chips=tuple(chips)), "do not exclude one another")

    def test_a_choice_pending_with_a_five_that_excludes_none_of_the_others(self) -> None:
        """A five that shares at most the allowed cells with every other five would have been
        locked at once, not offered in a choice."""
        six = tuple(at(4, col) for col in range(2, 8))
        column = tuple(at(r, 4) for r in range(2, 7))
        _, pending, _ = place((*six, *column), at(4, 4), seats=4)
        self.rejected(replace(pending, sequences=()), "do not exclude one another")

    def test_an_unlocked_five_beside_a_pending_choice(self) -> None:
        """Only the fives through the chip awaiting its choice may stay unlocked: another team's
        five further along the same direction is refused."""
        _, pending, _ = place(DIAGONAL, 36)
        other = with_chips(pending, line(19, 28, 37, 46, 55, team=1))
        self.rejected(other, "are not a locked sequence")

    def test_a_choice_pending_at_the_turn_limit(self) -> None:
        """The turn limit ends the game: no choice can be pending then."""
        _, pending, _ = place(DIAGONAL, 36)
        self.rejected(replace(pending, turn=TURN_LIMIT), "after the turn limit")

    def test_a_full_hand_while_the_choice_is_pending(self) -> None:
        """The seat choosing has not drawn yet: its hand is one card short."""
        _, pending, _ = place(DIAGONAL, 36)
        top, *deck = pending.deck
        fuller = (tuple(sorted((*pending.hands[0], top))), *pending.hands[1:])
        self.rejected(replace(pending, hands=fuller, deck=tuple(deck)), "holds 5 cards, not 4")

    @pytest.mark.parametrize(
        ("seats", "rows"), [(2, (8,)), (4, (7, 8))], ids=["one_to_win", "two_to_win"]
    )
    def test_a_choice_pending_for_a_team_that_had_already_won(
        self, seats: int, rows: tuple[int, ...]
    ) -> None:
        """A team whose earlier sequences won made no later play: a choice pending on a chip of
        that play is refused as the same position without the play is."""
        _, pending, _ = place(DIAGONAL, 36, seats=seats)
        earlier = tuple(Sequence(0, tuple(at(row, col) for col in range(1, 6))) for row in rows)
        chips = list(pending.chips)
        for sequence in earlier:
            for cell in sequence.cells:
                chips[cell] = 0
        won = replace(pending, chips=tuple(chips), sequences=earlier)
        chips[36] = NO_CHIP
        without_the_play = replace(won, chips=tuple(chips), pending_cell=NO_CELL)
        for state in (without_the_play, won):
            self.rejected(state, "team A won but did not make the last play")
