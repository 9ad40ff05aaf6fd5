"""Scenario tests of Sequence Numbers (docs/rules/sequence_numbers.md), one rule per test.

Situations are built by replacing parts of a dealt state (board, hands, deck, discard piles) and
checked with ``ENGINE.validate`` before the rule under test is exercised.
"""

from __future__ import annotations

from dataclasses import fields, replace

import pytest

from engines.base import Event
from engines.errors import (
    IllegalActionError,
    InvalidOptionsError,
    InvalidSeatsError,
    InvalidStateError,
    MalformedActionError,
)
from engines.prng import Rng
from engines.sequence_numbers import ENGINE
from engines.sequence_numbers.rules import (
    CARD_CELLS,
    CELLS,
    DECK_SIZE,
    HIDDEN_CARD,
    NO_CHIP,
    NUMBERS,
    TURN_LIMIT,
    CardDiscarded,
    CardDrawn,
    ChipPlaced,
    ChipRemoved,
    DeadCardExchanged,
    DeckReshuffled,
    Discard,
    Exchange,
    Options,
    Play,
    Sequence,
    SequenceCompleted,
    SequenceOverlap,
    State,
    TeamWon,
    TurnLimitReached,
    View,
)

SEED = 7
PLUS, OTHER_PLUS = 96, 97
MINUS, OTHER_MINUS = 98, 99
ONE_A, ONE_B = 0, 1  # the two equation cards whose result is 1 (cells 8 and 82)
TWO_A, TWO_B = 2, 3  # the two equation cards whose result is 2 (cells 30 and 38)


FILLERS = (10, 20, 30, 40, 50, 60)  # equation cards to fill a hand up to its size


def hand(*cards: int, size: int = 5) -> tuple[int, ...]:
    """A hand holding ``cards``, filled up to ``size`` with other equation cards."""
    fill = [card for card in FILLERS if card not in cards]
    return (*cards, *fill[: size - len(cards)])


def at(row: int, col: int) -> int:
    """The cell id of a row and column."""
    return row * 10 + col


def card_for(cell: int, copy: int = 0) -> int:
    """An equation card whose result is the number on ``cell`` (ids are in result order)."""
    return 2 * (NUMBERS[cell] - 1) + copy


def table(
    seats: int = 2,
    *,
    teams: int = 0,
    chips: dict[int, int] | None = None,
    sequences: tuple[Sequence, ...] = (),
    hands: dict[int, tuple[int, ...]] | None = None,
    deck: tuple[int, ...] | None = None,
    deck_top: tuple[int, ...] = (),
    discards: dict[int, tuple[int, ...]] | None = None,
    turn: int | None = None,
    exchanged: bool = False,
    overlap: SequenceOverlap = SequenceOverlap.ONE_CELL,
) -> State:
    """A dealt game with the given board and cards; unnamed hands get the lowest free cards, the
    rest goes to the deck (after ``deck_top``), or is dealt over the piles when ``deck`` is set."""
    state = ENGINE.new_game(seats, SEED, Options(teams=teams, sequence_overlap=overlap))
    hands = hands or {}
    discards = dict(discards or {})
    fixed = {card for cards in (*hands.values(), *discards.values()) for card in cards}
    fixed.update(deck_top)
    fixed.update(deck or ())
    pool = [card for card in range(DECK_SIZE) if card not in fixed]
    size = len(state.hands[0])
    dealt: list[tuple[int, ...]] = []
    for seat in range(seats):
        if seat in hands:
            dealt.append(tuple(sorted(hands[seat])))
        else:
            dealt.append(tuple(pool[:size]))
            del pool[:size]
    if deck is None:
        deck = (*deck_top, *pool)
    else:
        for seat in range(seats):
            discards[seat] = (*discards.get(seat, ()), *pool[seat::seats])
    board = [NO_CHIP] * CELLS
    for cell, team in (chips or {}).items():
        board[cell] = team
    built = replace(
        state,
        chips=tuple(board),
        sequences=sequences,
        hands=tuple(dealt),
        deck=deck,
        discards=tuple(discards.get(seat, ()) for seat in range(seats)),
        turn=seats * 25 if turn is None else turn,
        exchanged=exchanged,
    )
    built = replace(built, revision=built.turn + exchanged)  # one action a turn, and the exchange
    ENGINE.validate(built)
    return built


def line(*cells: int, team: int = 0) -> dict[int, int]:
    """Chips of one team on the given cells."""
    return dict.fromkeys(cells, team)


def with_chips(state: State, chips: dict[int, int]) -> State:
    """The state with more chips on the board, not validated."""
    board = list(state.chips)
    for cell, team in chips.items():
        board[cell] = team
    return replace(state, chips=tuple(board))


def won_by_row_and_column() -> State:
    """Four seats: team A won with a row and then a column, team B holding a row of its own."""
    row = (at(4, 2), at(4, 3), at(4, 4), at(4, 5), at(4, 6))
    column = (at(1, 8), at(2, 8), at(3, 8), at(4, 8), at(5, 8))
    other = (at(9, 1), at(9, 2), at(9, 3), at(9, 4), at(9, 5))
    return table(
        4,
        chips={**line(*row, *column), **line(*other, team=1)},
        sequences=(Sequence(0, row), Sequence(1, other), Sequence(0, column)),
        hands={2: hand(size=3)},
        turn=4 * 20 + 3,
    )


def bodies(events: tuple[Event, ...], kind: type) -> list[object]:
    """The bodies of the events of one kind, in order."""
    return [event.body for event in events if isinstance(event.body, kind)]


def refused(state: State, seat: int, action: object) -> str:
    """Apply an action that must be refused; return its reason."""
    with pytest.raises(IllegalActionError) as error:
        ENGINE.apply(state, seat, action)  # type: ignore[arg-type]
    return error.value.reason


class TestSetup:
    """Seats, teams, hands and options."""

    @pytest.mark.parametrize(("seats", "teams"), [(2, 0), (3, 0), (4, 0), (6, 0), (6, 3)])
    def test_hands_hold_five_cards_with_two_or_three_seats_and_four_with_more(
        self, seats: int, teams: int
    ) -> None:
        """Each seat is dealt 5 cards with 2-3 seats, 4 with 4-6."""
        state = ENGINE.new_game(seats, SEED, Options(teams=teams))
        assert [len(hand) for hand in state.hands] == [5 if seats <= 3 else 4] * seats

    @pytest.mark.parametrize("seats", [2, 3])
    def test_two_or_three_seats_play_individually(self, seats: int) -> None:
        """With 2 or 3 seats each seat is a team of its own."""
        assert ENGINE.new_game(seats, SEED, Options()).options.teams == seats

    def test_four_seats_play_as_two_teams_of_two_seated_alternately(self) -> None:
        """4 seats are 2 teams; seat 2 places team 0's chip, as seat 0's partner."""
        assert ENGINE.new_game(4, SEED, Options()).options.teams == 2
        partner = table(4, hands={2: hand(ONE_A, size=4)}, turn=4 * 20 + 2)
        after = ENGINE.apply(partner, 2, Play(ONE_A, at(0, 8))).state
        assert after.chips[at(0, 8)] == 0

    def test_six_seats_play_as_two_teams_of_three_by_default(self) -> None:
        """6 seats default to 2 teams of 3: seat 5 places team 1's chip."""
        assert ENGINE.new_game(6, SEED, Options()).options.teams == 2
        fifth = table(6, hands={5: hand(ONE_A, size=4)}, turn=6 * 20 + 5)
        assert ENGINE.apply(fifth, 5, Play(ONE_A, at(0, 8))).state.chips[at(0, 8)] == 1

    def test_six_seats_may_play_as_three_teams_of_two(self) -> None:
        """The teams option splits 6 seats into 3 teams of 2."""
        state = ENGINE.new_game(6, SEED, Options(teams=3))
        assert state.options.teams == 3
        ENGINE.validate(state)
        fourth = table(6, teams=3, hands={4: hand(ONE_A, size=4)}, turn=6 * 20 + 4)
        assert ENGINE.apply(fourth, 4, Play(ONE_A, at(0, 8))).state.chips[at(0, 8)] == 1

    def test_five_seats_are_rejected_with_a_clear_error(self) -> None:
        """5 seats cannot form teams of equal size."""
        with pytest.raises(InvalidSeatsError) as error:
            ENGINE.new_game(5, SEED, Options())
        assert error.value.reason == "INVALID_SEAT_COUNT"
        assert "5" in error.value.message
        assert "equal size" in error.value.message
        assert "play with 2, 3, 4 or 6 seats" in error.value.message
        assert error.value.metadata == {"seats": "5"}

    @pytest.mark.parametrize("seats", [0, 1, 7, 10])
    def test_seat_counts_out_of_range_are_rejected(self, seats: int) -> None:
        """Fewer than 2 or more than 6 seats are refused."""
        with pytest.raises(InvalidSeatsError) as error:
            ENGINE.new_game(seats, SEED, Options())
        assert error.value.reason == "INVALID_SEAT_COUNT"

    @pytest.mark.parametrize(("seats", "teams"), [(2, 3), (3, 2), (4, 4), (4, 3), (6, 6), (6, 1)])
    def test_a_team_count_the_seats_cannot_form_is_rejected(self, seats: int, teams: int) -> None:
        """The teams option accepts only the splits the rules allow for the seat count."""
        with pytest.raises(InvalidOptionsError) as error:
            ENGINE.new_game(seats, SEED, Options(teams=teams))
        assert error.value.reason == "TEAMS_NOT_ALLOWED"
        assert error.value.metadata == {"option": "teams"}

    def test_the_deal_leaves_every_other_card_in_the_deck(self) -> None:
        """A new game has an empty board, empty discard piles and 100 cards in hands and deck."""
        state = ENGINE.new_game(4, SEED, Options())
        ENGINE.validate(state)
        assert set(state.chips) == {NO_CHIP}
        assert state.discards == ((),) * 4
        assert len(state.deck) == DECK_SIZE - 16

    def test_seat_zero_starts_and_seats_play_in_order(self) -> None:
        """Seat 0 acts first, then seat 1, and so on."""
        state = ENGINE.new_game(3, SEED, Options())
        for expected in (0, 1, 2, 0):
            assert ENGINE.seats_to_act(state) == (expected,)
            action = ENGINE.legal_actions(state, expected)[0]
            state = ENGINE.apply(state, expected, action).state

    def test_the_same_seed_deals_the_same_game(self) -> None:
        """Dealing is driven by the seed alone."""
        assert ENGINE.new_game(2, 99, Options()) == ENGINE.new_game(2, 99, Options())


class TestEquationCards:
    """An equation card places a chip on a free cell showing its result."""

    def test_either_cell_of_the_result_may_be_taken(self) -> None:
        """Both free cells showing the result are legal plays."""
        state = table(hands={0: (ONE_A, 10, 20, 30, 40)})
        assert CARD_CELLS[ONE_A] == (at(0, 8), at(8, 2))
        legal = ENGINE.legal_actions(state, 0)
        assert Play(ONE_A, at(0, 8)) in legal
        assert Play(ONE_A, at(8, 2)) in legal
        for cell in (at(0, 8), at(8, 2)):
            after = ENGINE.apply(state, 0, Play(ONE_A, cell)).state
            assert after.chips[cell] == 0

    def test_a_cell_with_another_number_is_refused(self) -> None:
        """The chip must go on a cell showing the card's result."""
        state = table(hands={0: (ONE_A, 10, 20, 30, 40)})
        assert refused(state, 0, Play(ONE_A, at(0, 7))) == "WRONG_NUMBER"

    def test_an_occupied_cell_is_refused_and_not_listed(self) -> None:
        """Only a free cell of the result is open; a chip already there blocks it."""
        state = table(hands={0: (ONE_A, 10, 20, 30, 40)}, chips={at(0, 8): 1})
        legal = ENGINE.legal_actions(state, 0)
        assert Play(ONE_A, at(0, 8)) not in legal
        assert Play(ONE_A, at(8, 2)) in legal
        assert refused(state, 0, Play(ONE_A, at(0, 8))) == "CELL_OCCUPIED"

    def test_the_card_goes_on_the_discard_pile_and_the_seat_draws(self) -> None:
        """After the play the card is face up on the seat's pile and the top card is drawn."""
        state = table(hands={0: (ONE_A, 10, 20, 30, 40)}, deck_top=(50,))
        transition = ENGINE.apply(state, 0, Play(ONE_A, at(0, 8)))
        after = transition.state
        assert after.discards[0] == (ONE_A,)
        assert after.hands[0] == (10, 20, 30, 40, 50)
        assert after.deck == state.deck[1:]
        assert after.turn == state.turn + 1
        assert ENGINE.seats_to_act(after) == (1,)
        ENGINE.validate(after)
        assert bodies(transition.events, ChipPlaced) == [ChipPlaced(0, 0, ONE_A, at(0, 8))]

    def test_a_card_not_in_hand_is_refused(self) -> None:
        """A seat plays only its own cards."""
        state = table(hands={0: (ONE_A, 10, 20, 30, 40)})
        assert refused(state, 0, Play(ONE_B, at(0, 8))) == "CARD_NOT_IN_HAND"
        assert refused(state, 0, Play(DECK_SIZE, at(0, 8))) == "CARD_NOT_IN_HAND"

    @pytest.mark.parametrize("cell", [-1, CELLS, 2**32 - 1])
    def test_a_cell_off_the_board_is_refused(self, cell: int) -> None:
        """Cells are 0..99."""
        state = table(hands={0: (ONE_A, 10, 20, 30, 40)})
        assert refused(state, 0, Play(ONE_A, cell)) == "NO_SUCH_CELL"


class TestPlusCards:
    """PLUS places a chip on any free non-corner cell."""

    def test_every_free_non_corner_cell_is_listed(self) -> None:
        """PLUS reaches each free cell except the four corners."""
        state = table(hands={0: (PLUS, 10, 20, 30, 40)}, chips={at(5, 5): 1, at(2, 2): 0})
        cells = {a.cell for a in ENGINE.legal_actions(state, 0) if a == Play(PLUS, a.cell)}
        assert cells == set(range(CELLS)) - {0, 9, 90, 99, at(5, 5), at(2, 2)}

    def test_a_corner_is_refused(self) -> None:
        """Nobody places on a corner: it is a free space."""
        state = table(hands={0: (PLUS, 10, 20, 30, 40)})
        assert refused(state, 0, Play(PLUS, 0)) == "CORNER_CELL"
        assert refused(state, 0, Play(PLUS, 99)) == "CORNER_CELL"

    def test_any_card_on_a_corner_is_refused_as_such(self) -> None:
        """An equation card or a MINUS card on a corner is refused for the corner, as PLUS is."""
        state = table(hands={0: (ONE_A, MINUS, 20, 30, 40)})
        assert refused(state, 0, Play(ONE_A, 0)) == "CORNER_CELL"
        assert refused(state, 0, Play(MINUS, 90)) == "CORNER_CELL"

    def test_an_occupied_cell_is_refused(self) -> None:
        """PLUS needs a free cell."""
        state = table(hands={0: (PLUS, 10, 20, 30, 40)}, chips={at(5, 5): 1})
        assert refused(state, 0, Play(PLUS, at(5, 5))) == "CELL_OCCUPIED"

    def test_a_plus_card_places_the_teams_chip(self) -> None:
        """The chip goes on the chosen cell whatever number it shows."""
        state = table(hands={0: (PLUS, 10, 20, 30, 40)})
        after = ENGINE.apply(state, 0, Play(PLUS, at(6, 6))).state
        assert after.chips[at(6, 6)] == 0
        assert after.discards[0] == (PLUS,)


class TestMinusCards:
    """MINUS removes another team's chip that is not in a completed sequence."""

    def test_an_opponents_chip_is_removed(self) -> None:
        """The chip leaves the board and no chip is placed."""
        state = table(hands={0: (MINUS, 10, 20, 30, 40)}, chips={at(5, 5): 1, at(3, 3): 0})
        transition = ENGINE.apply(state, 0, Play(MINUS, at(5, 5)))
        after = transition.state
        assert after.chips[at(5, 5)] == NO_CHIP
        assert after.chips[at(3, 3)] == 0
        assert after.discards[0] == (MINUS,)
        assert bodies(transition.events, ChipRemoved) == [ChipRemoved(0, MINUS, at(5, 5), 1)]
        ENGINE.validate(after)

    def test_only_unlocked_chips_of_other_teams_are_listed(self) -> None:
        """Own chips, locked chips and empty cells are not targets."""
        locked = (at(1, 0), at(1, 1), at(1, 2), at(1, 3), at(1, 4))
        chips = {**line(*locked, team=1), at(5, 5): 1, at(3, 3): 0}
        state = table(
            4, chips=chips, sequences=(Sequence(1, locked),), hands={0: hand(MINUS, size=4)}
        )
        targets = {a.cell for a in ENGINE.legal_actions(state, 0) if a == Play(MINUS, a.cell)}
        assert targets == {at(5, 5)}

    def test_a_locked_chip_is_refused(self) -> None:
        """A chip in a completed sequence can no longer be removed."""
        locked = (at(1, 0), at(1, 1), at(1, 2), at(1, 3), at(1, 4))
        state = table(
            4,
            chips=line(*locked, team=1),
            sequences=(Sequence(1, locked),),
            hands={0: hand(MINUS, size=4)},
        )
        assert refused(state, 0, Play(MINUS, at(1, 2))) == "CHIP_LOCKED"

    def test_an_own_chip_is_refused(self) -> None:
        """MINUS removes another team's chip, never the seat's own."""
        state = table(hands={0: (MINUS, 10, 20, 30, 40)}, chips={at(3, 3): 0})
        assert refused(state, 0, Play(MINUS, at(3, 3))) == "OWN_CHIP"

    def test_a_partners_chip_is_refused(self) -> None:
        """With teams, a partner's chip is the seat's own colour."""
        state = table(4, hands={0: (MINUS, 10, 20, 30)}, chips={at(3, 3): 0, at(4, 4): 1})
        assert refused(state, 0, Play(MINUS, at(3, 3))) == "OWN_CHIP"
        assert ENGINE.apply(state, 0, Play(MINUS, at(4, 4))).state.chips[at(4, 4)] == NO_CHIP

    def test_an_empty_cell_is_refused(self) -> None:
        """There must be a chip to remove."""
        state = table(hands={0: (MINUS, 10, 20, 30, 40)}, chips={at(5, 5): 1})
        assert refused(state, 0, Play(MINUS, at(6, 6))) == "NO_CHIP_TO_REMOVE"


class TestDeadCards:
    """Step 1: at most one dead card may be exchanged per turn, before the play."""

    DEAD = line(at(0, 8), at(8, 2), team=1)  # both cells of 1 taken: ONE_A and ONE_B are dead

    def test_a_dead_card_is_listed_for_exchange_not_for_play(self) -> None:
        """A card whose cells are both taken can be exchanged but not played."""
        state = table(hands={0: (ONE_A, 10, 20, 30, 40)}, chips=self.DEAD)
        legal = ENGINE.legal_actions(state, 0)
        assert legal[0] == Exchange(ONE_A)
        assert not [a for a in legal if isinstance(a, Play) and a.card == ONE_A]

    def test_the_exchange_discards_draws_and_keeps_the_turn(self) -> None:
        """The dead card goes on the pile, a card is drawn, and the same seat plays on."""
        state = table(hands={0: (ONE_A, 10, 20, 30, 40)}, chips=self.DEAD, deck_top=(PLUS,))
        transition = ENGINE.apply(state, 0, Exchange(ONE_A))
        after = transition.state
        ENGINE.validate(after)
        assert after.discards[0] == (ONE_A,)
        assert after.hands[0] == (10, 20, 30, 40, PLUS)
        assert after.exchanged
        assert after.turn == state.turn
        assert ENGINE.seats_to_act(after) == (0,)
        assert bodies(transition.events, DeadCardExchanged) == [DeadCardExchanged(0, ONE_A)]
        assert Play(PLUS, at(5, 5)) in ENGINE.legal_actions(after, 0)

    def test_only_one_exchange_per_turn(self) -> None:
        """A second dead card must wait for the next turn."""
        state = table(hands={0: (ONE_A, ONE_B, 10, 20, 30)}, chips=self.DEAD)
        after = ENGINE.apply(state, 0, Exchange(ONE_A)).state
        assert Exchange(ONE_B) not in ENGINE.legal_actions(after, 0)
        assert refused(after, 0, Exchange(ONE_B)) == "ALREADY_EXCHANGED"

    def test_the_exchange_is_open_again_next_turn(self) -> None:
        """Playing the card ends the turn and clears the exchange."""
        state = table(hands={0: (ONE_A, ONE_B, 10, 20, 30)}, chips=self.DEAD)
        after = ENGINE.apply(state, 0, Exchange(ONE_A)).state
        after = ENGINE.apply(after, 0, ENGINE.legal_actions(after, 0)[0]).state
        assert not after.exchanged

    def test_the_exchange_under_way_counts_on_the_seats_pile(self) -> None:
        """A pile holds two cards per turn played plus the dead card exchanged in this turn."""
        # Turn 2: seat 0 has played one turn (two cards: an exchange and a play) and now holds a
        # dead card: the exchange puts a third card on its pile after only one turn.
        state = table(
            hands={0: hand(ONE_A)},
            chips={at(0, 8): 0, at(8, 2): 1},
            discards={0: (70, 71)},
            turn=2,
        )
        after = ENGINE.apply(state, 0, Exchange(ONE_A)).state
        ENGINE.validate(after)
        assert after.discards[0] == (70, 71, ONE_A)

    def test_a_live_card_cannot_be_exchanged(self) -> None:
        """A card with a free cell, or a PLUS or MINUS card, is not dead."""
        state = table(hands={0: (ONE_A, PLUS, MINUS, 10, 20)}, chips={at(0, 8): 1})
        assert refused(state, 0, Exchange(ONE_A)) == "CARD_NOT_DEAD"
        assert refused(state, 0, Exchange(PLUS)) == "CARD_NOT_DEAD"
        assert refused(state, 0, Exchange(MINUS)) == "CARD_NOT_DEAD"


class TestNothingPlayable:
    """[decision] With no playable card, the seat discards one card and draws."""

    # Both cells of 1 and of 2 hold the seat's own chips; no other team has a chip for MINUS.
    STUCK = line(at(0, 8), at(8, 2), at(3, 0), at(3, 8), team=0)
    HAND = (ONE_A, ONE_B, TWO_A, TWO_B, MINUS)

    def test_only_exchanges_and_discards_are_listed(self) -> None:
        """Dead cards may still be exchanged; otherwise every card may be discarded."""
        state = table(hands={0: self.HAND}, chips=self.STUCK)
        legal = ENGINE.legal_actions(state, 0)
        assert legal == (
            *(Exchange(card) for card in (ONE_A, ONE_B, TWO_A, TWO_B)),
            *(Discard(card) for card in self.HAND),
        )

    def test_the_discard_draws_and_ends_the_turn(self) -> None:
        """The card goes on the pile, a card is drawn, and the next seat acts."""
        state = table(hands={0: self.HAND}, chips=self.STUCK, deck_top=(50,))
        transition = ENGINE.apply(state, 0, Discard(MINUS))
        after = transition.state
        ENGINE.validate(after)
        assert after.discards[0] == (MINUS,)
        assert after.hands[0] == (ONE_A, ONE_B, TWO_A, TWO_B, 50)
        assert ENGINE.seats_to_act(after) == (1,)
        assert bodies(transition.events, CardDiscarded) == [CardDiscarded(0, MINUS)]

    def test_discarding_is_refused_while_a_card_is_playable(self) -> None:
        """A seat that can play must play."""
        state = table(hands={0: (ONE_A, 10, 20, 30, 40)})
        assert refused(state, 0, Discard(ONE_A)) == "PLAYABLE_CARD_IN_HAND"
        assert not [a for a in ENGINE.legal_actions(state, 0) if isinstance(a, Discard)]


class TestDeck:
    """Drawing and the reshuffle of the discard piles."""

    def test_the_discard_piles_are_reshuffled_when_the_deck_runs_out(self) -> None:
        """Drawing the last card shuffles every pile, the card just played included, into a deck."""
        state = table(
            hands={0: (ONE_A, 10, 20, 30, 40), 1: (11, 21, 31, 41, 51)},
            deck=(60,),
            discards={0: (70, 71), 1: (72,)},
        )
        transition = ENGINE.apply(state, 0, Play(ONE_A, at(0, 8)))
        after = transition.state
        ENGINE.validate(after)
        assert after.hands[0] == (10, 20, 30, 40, 60)
        assert after.discards == ((), ())
        assert len(after.deck) == DECK_SIZE - 10
        assert ONE_A in after.deck
        assert after.rng_state != state.rng_state
        assert bodies(transition.events, DeckReshuffled) == [DeckReshuffled(DECK_SIZE - 10)]

    def test_an_exchange_that_empties_the_deck_reshuffles_too(self) -> None:
        """The replacement draw of a dead card also triggers the reshuffle."""
        state = table(
            hands={0: (ONE_A, 10, 20, 30, 40)},
            chips=TestDeadCards.DEAD,
            deck=(60,),
            discards={0: (70,)},
        )
        after = ENGINE.apply(state, 0, Exchange(ONE_A)).state
        ENGINE.validate(after)
        assert after.exchanged
        assert after.discards == ((), ())
        assert ONE_A in after.deck

    def test_the_reshuffle_is_deterministic(self) -> None:
        """The new deck order comes from the state's generator."""
        state = table(deck=(60,), hands={0: (ONE_A, 10, 20, 30, 40)})
        first = ENGINE.apply(state, 0, Play(ONE_A, at(0, 8))).state
        second = ENGINE.apply(state, 0, Play(ONE_A, at(0, 8))).state
        assert first.deck == second.deck


class TestSequences:
    """Five in a line, corners counting for every team, locked once complete."""

    @staticmethod
    def complete(cells: tuple[int, ...], last: int, seats: int = 4) -> tuple[State, list[object]]:
        """Team 0 holds ``cells`` but ``last``; seat 0 places ``last`` with an equation card."""
        card = card_for(last)
        held = [cell for cell in cells if cell != last and NUMBERS[cell] != 0]
        size = len(ENGINE.new_game(seats, SEED, Options()).hands[0])
        state = table(seats, chips=line(*held), hands={0: hand(card, size=size)})
        transition = ENGINE.apply(state, 0, Play(card, last))
        ENGINE.validate(transition.state)
        return transition.state, bodies(transition.events, SequenceCompleted)

    def test_a_row_of_five_is_a_sequence(self) -> None:
        """Five chips side by side in a row make a sequence."""
        cells = (at(4, 2), at(4, 3), at(4, 4), at(4, 5), at(4, 6))
        state, found = self.complete(cells, at(4, 4))
        assert found == [SequenceCompleted(0, cells)]
        assert state.sequences == (Sequence(0, cells),)

    def test_a_column_of_five_is_a_sequence(self) -> None:
        """Five chips one above the other make a sequence."""
        cells = (at(2, 5), at(3, 5), at(4, 5), at(5, 5), at(6, 5))
        _, found = self.complete(cells, at(6, 5))
        assert found == [SequenceCompleted(0, cells)]

    def test_a_down_right_diagonal_of_five_is_a_sequence(self) -> None:
        """Five chips on a diagonal running down to the right make a sequence."""
        cells = (at(1, 2), at(2, 3), at(3, 4), at(4, 5), at(5, 6))
        _, found = self.complete(cells, at(1, 2))
        assert found == [SequenceCompleted(0, cells)]

    def test_a_down_left_diagonal_of_five_is_a_sequence(self) -> None:
        """Five chips on a diagonal running down to the left make a sequence."""
        cells = (at(1, 7), at(2, 6), at(3, 5), at(4, 4), at(5, 3))
        _, found = self.complete(cells, at(3, 5))
        assert found == [SequenceCompleted(0, cells)]

    def test_four_in_a_line_is_not_a_sequence(self) -> None:
        """Four chips are not enough."""
        cells = (at(4, 2), at(4, 3), at(4, 4), at(4, 5))
        _, found = self.complete(cells, at(4, 5))
        assert found == []

    def test_another_teams_chip_breaks_the_line(self) -> None:
        """Only the team's own chips and corners count."""
        card = card_for(at(4, 4))
        chips = {**line(at(4, 2), at(4, 3), at(4, 5)), at(4, 6): 1}
        state = table(4, chips=chips, hands={0: hand(card, size=4)})
        assert ENGINE.apply(state, 0, Play(card, at(4, 4))).state.sequences == ()

    def test_a_corner_counts_as_the_teams_chip(self) -> None:
        """Four chips and a corner make a sequence."""
        cells = (at(0, 0), at(0, 1), at(0, 2), at(0, 3), at(0, 4))
        _, found = self.complete(cells, at(0, 2))
        assert found == [SequenceCompleted(0, cells)]

    def test_a_corner_diagonal_is_a_sequence(self) -> None:
        """The corner also counts on a diagonal."""
        cells = (at(5, 4), at(6, 3), at(7, 2), at(8, 1), at(9, 0))
        _, found = self.complete(cells, at(5, 4))
        assert found == [SequenceCompleted(0, cells)]

    def test_every_team_may_use_the_same_corner(self) -> None:
        """A corner already in one team's sequence still counts for another team."""
        first = (at(0, 0), at(0, 1), at(0, 2), at(0, 3), at(0, 4))
        second = (at(0, 0), at(1, 0), at(2, 0), at(3, 0), at(4, 0))
        card = card_for(at(4, 0))
        state = table(
            4,
            chips={**line(*first[1:], team=0), **line(*second[1:4], team=1)},
            sequences=(Sequence(0, first),),
            hands={1: hand(card, size=4)},
            turn=4 * 20 + 1,
        )
        transition = ENGINE.apply(state, 1, Play(card, at(4, 0)))
        assert bodies(transition.events, SequenceCompleted) == [SequenceCompleted(1, second)]

    def test_a_new_sequence_may_share_one_cell_with_an_earlier_one(self) -> None:
        """A column crossing the team's row sequence counts: they share one cell."""
        row = (at(4, 0), at(4, 1), at(4, 2), at(4, 3), at(4, 4))
        column = (at(1, 4), at(2, 4), at(3, 4), at(4, 4), at(5, 4))
        card = card_for(at(5, 4))
        state = table(
            4,
            chips=line(*row, *column[:3]),
            sequences=(Sequence(0, row),),
            hands={0: hand(card, size=4)},
        )
        transition = ENGINE.apply(state, 0, Play(card, at(5, 4)))
        assert bodies(transition.events, SequenceCompleted) == [SequenceCompleted(0, column)]

    def test_a_window_sharing_two_cells_with_an_earlier_sequence_is_not_new(self) -> None:
        """Extending a row sequence by two cells makes no sequence: it would share two."""
        row = (at(4, 0), at(4, 1), at(4, 2), at(4, 3), at(4, 4))
        card = card_for(at(4, 6))
        state = table(
            4,
            chips=line(*row, at(4, 5)),
            sequences=(Sequence(0, row),),
            hands={0: hand(card, size=4)},
        )
        after = ENGINE.apply(state, 0, Play(card, at(4, 6))).state
        assert after.sequences == (Sequence(0, row),)

    def test_directions_are_scanned_row_column_then_diagonals(self) -> None:
        """One chip completing a column and a row reports the row first."""
        row = (at(4, 2), at(4, 3), at(4, 4), at(4, 5), at(4, 6))
        column = (at(2, 4), at(3, 4), at(4, 4), at(5, 4), at(6, 4))
        _, found = self.complete((*column, *row), at(4, 4))
        assert found == [SequenceCompleted(0, row), SequenceCompleted(0, column)]

    def test_a_new_sequence_may_share_one_cell_with_each_of_several(self) -> None:
        """The limit is per earlier sequence: a diagonal sharing a cell with each of two counts."""
        row = (at(4, 2), at(4, 3), at(4, 4), at(4, 5), at(4, 6))
        column = (at(2, 4), at(3, 4), at(4, 4), at(5, 4), at(6, 4))
        diagonal = (at(2, 8), at(3, 7), at(4, 6), at(5, 5), at(6, 4))
        card = card_for(at(6, 4))
        state = table(
            4,
            chips=line(*row, *column[:4], *diagonal[:4]),
            sequences=(Sequence(0, row),),
            hands={0: hand(card, size=4)},
        )
        transition = ENGINE.apply(state, 0, Play(card, at(6, 4)))
        assert bodies(transition.events, SequenceCompleted) == [
            SequenceCompleted(0, column),
            SequenceCompleted(0, diagonal),
        ]

    def test_a_removed_chip_reopens_a_line(self) -> None:
        """After MINUS removes the chip blocking a line, the line can be completed."""
        cells = (at(4, 2), at(4, 3), at(4, 4), at(4, 5), at(4, 6))
        card = card_for(at(4, 4))
        chips = {**line(*cells[:2], *cells[3:], team=0), at(4, 4): 1}
        state = table(hands={0: hand(MINUS, card)}, chips=chips)
        state = ENGINE.apply(state, 0, Play(MINUS, at(4, 4))).state
        state = ENGINE.apply(state, 1, ENGINE.legal_actions(state, 1)[0]).state
        after = ENGINE.apply(state, 0, Play(card, at(4, 4))).state
        assert after.sequences == (Sequence(0, cells),)


class TestWinning:
    """One sequence wins with 2-3 seats, two with 4-6; 600 turns without a winner is a draw."""

    ROW = (at(4, 2), at(4, 3), at(4, 4), at(4, 5), at(4, 6))

    def test_one_sequence_wins_with_two_seats(self) -> None:
        """The first sequence ends the game at once."""
        card = card_for(at(4, 6))
        state = table(chips=line(*self.ROW[:4]), hands={0: hand(card)})
        transition = ENGINE.apply(state, 0, Play(card, at(4, 6)))
        after = transition.state
        ENGINE.validate(after)
        outcome = ENGINE.outcome(after)
        assert outcome is not None
        assert outcome.winners == (0,)
        assert outcome.scores == (1, 0)
        assert outcome.termination == "SEQUENCES"
        assert not outcome.lower_is_better
        assert ENGINE.seats_to_act(after) == ()
        assert bodies(transition.events, TeamWon) == [TeamWon(0, (0,))]

    def test_one_sequence_wins_with_three_seats(self) -> None:
        """Three seats play individually, and one sequence wins as with two."""
        card = card_for(at(4, 6))
        state = table(3, chips=line(*self.ROW[:4], team=1), hands={1: hand(card)}, turn=3 * 20 + 1)
        transition = ENGINE.apply(state, 1, Play(card, at(4, 6)))
        ENGINE.validate(transition.state)
        outcome = ENGINE.outcome(transition.state)
        assert outcome is not None
        assert outcome.winners == (1,)
        assert outcome.scores == (0, 1, 0)
        assert ENGINE.seats_to_act(transition.state) == ()
        assert bodies(transition.events, TeamWon) == [TeamWon(1, (1,))]

    def test_the_winning_play_is_not_followed_by_a_draw(self) -> None:
        """The game ends at once: the winner's hand stays one card short."""
        card = card_for(at(4, 6))
        state = table(chips=line(*self.ROW[:4]), hands={0: hand(card)})
        transition = ENGINE.apply(state, 0, Play(card, at(4, 6)))
        assert transition.state.hands[0] == (10, 20, 30, 40)
        assert transition.state.deck == state.deck
        assert not bodies(transition.events, CardDrawn)

    def test_a_finished_game_accepts_no_action(self) -> None:
        """After the win nobody is to act and every action is refused."""
        card = card_for(at(4, 6))
        state = table(chips=line(*self.ROW[:4]), hands={0: hand(card)})
        after = ENGINE.apply(state, 0, Play(card, at(4, 6))).state
        assert ENGINE.legal_actions(after, 1) == ()
        assert refused(after, 1, Play(11, 0)) == "GAME_FINISHED"

    def test_one_sequence_does_not_win_with_four_seats(self) -> None:
        """With teams, the first sequence is not enough."""
        card = card_for(at(4, 6))
        state = table(4, chips=line(*self.ROW[:4]), hands={0: hand(card, size=4)})
        after = ENGINE.apply(state, 0, Play(card, at(4, 6))).state
        assert len(after.sequences) == 1
        assert ENGINE.outcome(after) is None
        assert ENGINE.seats_to_act(after) == (1,)

    def test_the_second_sequence_wins_for_a_team_of_four_seats(self) -> None:
        """Two sequences win; both partners are winners and score 2."""
        column = (at(1, 8), at(2, 8), at(3, 8), at(4, 8), at(5, 8))
        card = card_for(at(5, 8))
        state = table(
            4,
            chips=line(*self.ROW, *column[:4]),
            sequences=(Sequence(0, self.ROW),),
            hands={2: hand(card, size=4)},
            turn=4 * 20 + 2,
        )
        transition = ENGINE.apply(state, 2, Play(card, at(5, 8)))
        ENGINE.validate(transition.state)
        outcome = ENGINE.outcome(transition.state)
        assert outcome is not None
        assert outcome.winners == (0, 2)
        assert outcome.scores == (2, 0, 2, 0)
        assert bodies(transition.events, TeamWon) == [TeamWon(0, (0, 2))]

    def test_three_teams_of_two_win_as_a_team(self) -> None:
        """With 6 seats in 3 teams, team 1 is seats 1 and 4."""
        column = (at(1, 8), at(2, 8), at(3, 8), at(4, 8), at(5, 8))
        card = card_for(at(5, 8))
        state = table(
            6,
            teams=3,
            chips=line(*self.ROW, *column[:4], team=1),
            sequences=(Sequence(1, self.ROW),),
            hands={4: hand(card, size=4)},
            turn=6 * 20 + 4,
        )
        outcome = ENGINE.outcome(ENGINE.apply(state, 4, Play(card, at(5, 8))).state)
        assert outcome is not None
        assert outcome.winners == (1, 4)

    def test_six_hundred_turns_without_a_winner_is_a_draw(self) -> None:
        """[decision] The 600th turn ends the game with no winner."""
        state = table(turn=TURN_LIMIT - 1, hands={1: (ONE_A, 10, 20, 30, 40)})
        assert ENGINE.seats_to_act(state) == (1,)
        transition = ENGINE.apply(state, 1, Play(ONE_A, at(0, 8)))
        after = transition.state
        ENGINE.validate(after)
        outcome = ENGINE.outcome(after)
        assert outcome is not None
        assert outcome.winners == ()
        assert outcome.termination == "TURN_LIMIT"
        assert ENGINE.seats_to_act(after) == ()
        assert bodies(transition.events, TurnLimitReached) == [TurnLimitReached(TURN_LIMIT)]

    def test_a_draw_still_scores_each_teams_sequences(self) -> None:
        """At the turn limit nobody wins, but each seat scores its team's sequence count."""
        state = table(
            4,
            chips=line(*self.ROW, team=1),
            sequences=(Sequence(1, self.ROW),),
            hands={3: hand(ONE_A, size=4)},
            turn=TURN_LIMIT - 1,
        )
        after = ENGINE.apply(state, 3, Play(ONE_A, at(0, 8))).state
        ENGINE.validate(after)
        outcome = ENGINE.outcome(after)
        assert outcome is not None
        assert outcome.winners == ()
        assert outcome.termination == "TURN_LIMIT"
        assert outcome.scores == (0, 1, 0, 1)

    def test_a_sequence_on_the_last_turn_still_wins(self) -> None:
        """A sequence completed by the 600th turn is a win, not a draw."""
        card = card_for(at(4, 6))
        state = table(chips=line(*self.ROW[:4], team=1), hands={1: hand(card)}, turn=TURN_LIMIT - 1)
        after = ENGINE.apply(state, 1, Play(card, at(4, 6))).state
        outcome = ENGINE.outcome(after)
        assert after.turn == TURN_LIMIT
        assert outcome is not None
        assert outcome.termination == "SEQUENCES"
        assert outcome.winners == (1,)


class TestViewsAndEvents:
    """What each viewer sees, and who sees each event."""

    def test_a_seat_sees_its_own_hand_and_the_public_table(self) -> None:
        """The view has the board, discard piles, hand sizes and the seat's own hand."""
        state = table(chips={at(5, 5): 1}, discards={1: (70,)}, hands={0: (ONE_A, 10, 20, 30, 40)})
        view = ENGINE.view(state, 0)
        assert view.hand == (ONE_A, 10, 20, 30, 40)
        assert view.chips == state.chips
        assert view.numbers == NUMBERS
        assert view.discards == state.discards
        assert view.hand_sizes == (5, 5)
        assert view.deck_size == len(state.deck)
        assert view.sequences_to_win == 1

    def test_every_viewer_sees_that_a_dead_card_was_exchanged(self) -> None:
        """Whether the seat to act already exchanged a dead card this turn is public."""
        dead = line(at(0, 8), at(8, 2), team=1)
        state = table(hands={0: (ONE_A, 10, 20, 30, 40)}, chips=dead)
        after = ENGINE.apply(state, 0, Exchange(ONE_A)).state
        for viewer in (None, 0, 1):
            assert not ENGINE.view(state, viewer).exchanged
            assert ENGINE.view(after, viewer).exchanged

    def test_a_spectator_sees_no_hand(self) -> None:
        """Spectators see only what is public."""
        state = table()
        assert ENGINE.view(state, None).hand == ()

    def test_views_carry_no_deck_order_and_no_generator_state(self) -> None:
        """The view type has no field for the deck or the generator."""
        names = {field.name for field in fields(View)}
        assert "deck" not in names
        assert "rng_state" not in names
        assert "hands" not in names

    def test_a_redeal_changes_only_what_the_seat_cannot_see(self) -> None:
        """Re-dealing for seat 0 keeps its view and shuffles the others' hands and the deck."""
        state = table(3, chips={at(5, 5): 1})
        redealt = ENGINE.redeal(state, 0, Rng(5))
        ENGINE.validate(redealt)
        assert ENGINE.view(redealt, 0) == ENGINE.view(state, 0)
        assert ENGINE.view(redealt, None) == ENGINE.view(state, None)
        assert redealt.hands[1:] != state.hands[1:]

    def test_the_drawn_card_is_shown_only_to_its_seat(self) -> None:
        """Everyone learns that a seat drew; only that seat learns the card, not its partner."""
        state = table(4, hands={0: (ONE_A, 10, 20, 30)}, deck_top=(50,))
        events = ENGINE.apply(state, 0, Play(ONE_A, at(0, 8))).events
        draws = [event for event in events if isinstance(event.body, CardDrawn)]
        assert draws == [Event(CardDrawn(0, HIDDEN_CARD)), Event(CardDrawn(0, 50), (0,))]

    def test_plays_sequences_and_the_end_are_public(self) -> None:
        """Every event but the private draw has no audience limit."""
        card = card_for(at(4, 6))
        cells = (at(4, 2), at(4, 3), at(4, 4), at(4, 5))
        state = table(chips=line(*cells), hands={0: hand(card)})
        events = ENGINE.apply(state, 0, Play(card, at(4, 6))).events
        assert [type(event.body) for event in events] == [ChipPlaced, SequenceCompleted, TeamWon]
        assert all(event.audience is None for event in events)


class TestActions:
    """Action values and malformed input."""

    def test_actions_read_as_text(self) -> None:
        """Each action has a short text form naming the card and the cell, counted from 1."""
        assert str(Play(ONE_A, at(0, 8))) == "play 44 - 43 = 1 on r1c9"
        assert str(Play(PLUS, at(3, 4))) == "play PLUS on r4c5"
        assert str(Exchange(ONE_B)) == "exchange dead card 31 - 30 = 1"
        assert str(Discard(MINUS)) == "discard MINUS"

    def test_something_that_is_not_an_action_is_malformed(self) -> None:
        """Only Play, Exchange and Discard are actions of this game."""
        state = table()
        with pytest.raises(MalformedActionError):
            ENGINE.apply(state, 0, "play")  # type: ignore[arg-type]

    def test_a_refused_action_leaves_the_state_as_it_was(self) -> None:
        """A refusal changes nothing."""
        state = table(hands={0: (ONE_A, 10, 20, 30, 40)})
        before = replace(state)
        refused(state, 0, Play(ONE_A, at(0, 7)))
        assert state == before

    def test_a_seat_out_of_turn_is_refused(self) -> None:
        """Only the seat to act may act."""
        state = table(hands={1: (ONE_A, 10, 20, 30, 40)})
        assert refused(state, 1, Play(ONE_A, at(0, 8))) == "NOT_SEATS_TURN"
        assert ENGINE.legal_actions(state, 1) == ()


class TestCorruptedStates:
    """States the rules could not have produced are rejected."""

    @staticmethod
    def rejected(state: State) -> str:
        """Validate a state that must be rejected; return the message."""
        with pytest.raises(InvalidStateError) as error:
            ENGINE.validate(state)
        return error.value.message

    def test_a_chip_on_a_corner(self) -> None:
        """Corners are free spaces: nobody places on them."""
        state = table()
        assert "corner" in self.rejected(replace(state, chips=(0, *state.chips[1:])))

    def test_a_card_in_two_places(self) -> None:
        """A card in a hand and in the deck at once."""
        state = table()
        corrupted = replace(state, deck=(state.hands[0][0], *state.deck[1:]))
        assert "cards do not add up" in self.rejected(corrupted)

    def test_a_card_in_two_discard_piles(self) -> None:
        """A card on two piles at once."""
        state = table(discards={0: (70,), 1: (71,)})
        corrupted = replace(state, discards=((70,), (70,)))
        assert "cards do not add up" in self.rejected(corrupted)

    def test_a_locked_sequence_that_is_not_five_in_a_line(self) -> None:
        """A sequence's cells must be a straight window of five."""
        cells = (at(4, 2), at(4, 3), at(4, 4), at(4, 5), at(5, 6))
        state = table(4, chips=line(*cells))
        corrupted = replace(state, sequences=(Sequence(0, cells),))
        assert "straight line" in self.rejected(corrupted)

    def test_a_locked_sequence_that_wraps_around_a_row(self) -> None:
        """Consecutive cell ids that run off the end of a row are not a line."""
        cells = (at(4, 7), at(4, 8), at(4, 9), at(5, 0), at(5, 1))
        state = table(4, chips=line(*cells))
        assert "straight line" in self.rejected(replace(state, sequences=(Sequence(0, cells),)))

    def test_a_locked_sequence_with_another_teams_chip(self) -> None:
        """Each cell of a sequence is its team's chip or a corner."""
        cells = (at(4, 2), at(4, 3), at(4, 4), at(4, 5), at(4, 6))
        state = table(4, chips={**line(*cells[:4]), cells[4]: 1})
        corrupted = replace(state, sequences=(Sequence(0, cells),))
        assert "not its team's" in self.rejected(corrupted)

    def test_two_sequences_sharing_two_cells(self) -> None:
        """A team's sequences share at most one cell."""
        cells = tuple(at(4, col) for col in range(7))
        state = table(4, chips=line(*cells), sequences=(Sequence(0, cells[:5]),))
        corrupted = replace(state, sequences=(Sequence(0, cells[:5]), Sequence(0, cells[2:])))
        assert "share more cells than sequence_overlap ONE_CELL allows" in self.rejected(corrupted)

    def test_a_chip_of_a_team_that_does_not_exist(self) -> None:
        """Chips belong to teams 0..teams-1."""
        state = table()
        assert "teams" in self.rejected(replace(state, chips=(-1, 2, *state.chips[2:])))

    def test_more_chips_than_turns(self) -> None:
        """A team places at most one chip per turn of its seats."""
        state = table(chips=line(at(4, 1), at(4, 2)), turn=4)
        assert "chips after only" in self.rejected(replace(state, turn=2))

    def test_a_hand_of_the_wrong_size(self) -> None:
        """Hands are always full between turns."""
        state = table()
        corrupted = replace(
            state, hands=(state.hands[0][1:], state.hands[1]), deck=(state.hands[0][0], *state.deck)
        )
        assert "holds 4 cards" in self.rejected(corrupted)

    def test_an_empty_deck(self) -> None:
        """The deck is reshuffled as it runs out, so it is never empty."""
        state = table()
        half = len(state.deck) // 2
        corrupted = replace(state, deck=(), discards=(state.deck[:half], state.deck[half:]))
        assert "deck is empty" in self.rejected(corrupted)

    def test_two_winning_teams(self) -> None:
        """Only one team can reach its sequences: the game stops at the first."""
        top = (at(0, 1), at(0, 2), at(0, 3), at(0, 4), at(0, 5))
        bottom = (at(9, 1), at(9, 2), at(9, 3), at(9, 4), at(9, 5))
        state = with_chips(table(), {**line(*top, team=0), **line(*bottom, team=1)})
        corrupted = replace(state, sequences=(Sequence(0, top), Sequence(1, bottom)))
        assert "more than one team" in self.rejected(corrupted)

    def test_a_turn_beyond_the_limit(self) -> None:
        """The game ends at turn 600."""
        state = table()
        assert "turn" in self.rejected(replace(state, turn=TURN_LIMIT + 1))

    def test_five_seats(self) -> None:
        """A state with 5 seats cannot exist."""
        state = table(6)
        corrupted = replace(state, hands=state.hands[:5], discards=state.discards[:5])
        assert "seats" in self.rejected(corrupted)

    def test_a_team_count_the_seats_cannot_form(self) -> None:
        """4 seats always play as 2 teams."""
        state = table(4)
        assert "teams" in self.rejected(replace(state, options=Options(teams=4)))

    def test_an_exchange_whose_card_is_not_dead(self) -> None:
        """The card on top of the pile after an exchange must be dead."""
        state = table(discards={0: (ONE_A,)})
        assert "not dead" in self.rejected(replace(state, exchanged=True))

    def test_a_generator_state_out_of_range(self) -> None:
        """The generator state is a 64-bit value."""
        state = table()
        assert "64-bit" in self.rejected(replace(state, rng_state=1 << 64))

    def test_five_in_a_line_that_are_not_locked(self) -> None:
        """Five of a team in a line would have been locked as a sequence when completed."""
        row = (at(4, 2), at(4, 3), at(4, 4), at(4, 5), at(4, 6))
        corrupted = with_chips(table(4, chips=line(*row[:4])), {row[4]: 0})
        assert "not a locked sequence" in self.rejected(corrupted)

    def test_a_win_whose_team_did_not_play_last(self) -> None:
        """The game ends on the winning play, so the last seat to play is on the winning team."""
        row = (at(4, 2), at(4, 3), at(4, 4), at(4, 5), at(4, 6))
        card = card_for(row[4])
        state = table(chips=line(*row[:4]), hands={0: hand(card)})
        won = ENGINE.apply(state, 0, Play(card, row[4])).state
        moved = won.hands[1][0]
        corrupted = replace(
            won,
            turn=won.turn + 1,
            hands=(tuple(sorted((*won.hands[0], moved))), won.hands[1][1:]),
        )
        assert "did not make the last play" in self.rejected(corrupted)

    def test_a_sequence_completed_after_the_win(self) -> None:
        """Nobody plays after a win: the winner's last sequence is the last one completed."""
        state = won_by_row_and_column()
        row, other, column = state.sequences
        corrupted = replace(state, sequences=(row, column, other))
        assert "after its win" in self.rejected(corrupted)

    def test_the_winners_sequences_before_its_last_play_already_won(self) -> None:
        """Only the sequences of the last play, the trailing run, made the win: a team whose
        earlier sequences were enough had won before it."""
        third = (at(7, 2), at(7, 3), at(7, 4), at(7, 5), at(7, 6))
        state = won_by_row_and_column()
        row, other, column = (sequence.cells for sequence in state.sequences)
        corrupted = replace(
            with_chips(state, line(*third)),
            sequences=(
                Sequence(0, row),
                Sequence(0, column),
                Sequence(1, other),
                Sequence(0, third),
            ),
        )
        assert "after its win" in self.rejected(corrupted)

    def test_a_sequence_of_a_team_the_game_does_not_have(self) -> None:
        """A sequence belongs to one of the game's teams (0 and 1 of two)."""
        row = (at(4, 2), at(4, 3), at(4, 4), at(4, 5), at(4, 6))
        state = table(4, chips=line(*row[:4]))
        corrupted = replace(with_chips(state, line(row[4], team=1)), sequences=(Sequence(2, row),))
        assert "there are 2 teams" in self.rejected(corrupted)

    def test_a_revision_that_misses_the_exchange(self) -> None:
        """An exchange is an action: the revision counts it besides the plays."""
        dead = line(at(0, 8), at(8, 2), team=1)
        state = table(hands={0: (ONE_A, 10, 20, 30, 40)}, chips=dead)
        after = ENGINE.apply(state, 0, Exchange(ONE_A)).state
        short = replace(after, revision=after.revision - 2)
        assert "does not follow from the turns played" in self.rejected(short)

    def test_a_revision_at_its_highest(self) -> None:
        """The revision may count an exchange in every turn and a choice for every sequence."""
        row = (at(4, 2), at(4, 3), at(4, 4), at(4, 5), at(4, 6))
        state = table(4, chips=line(*row), sequences=(Sequence(0, row),))
        ENGINE.validate(replace(state, revision=2 * state.turn + 1))

    def test_an_exchanged_card_that_is_no_equation_card(self) -> None:
        """Only an equation card can be dead: a PLUS card on top of the pile was not
        exchanged."""
        dead = line(at(0, 8), at(8, 2), team=1)
        state = table(hands={0: (ONE_A, 10, 20, 30, 40)}, chips=dead, deck_top=(PLUS,))
        after = ENGINE.apply(state, 0, Exchange(ONE_A)).state
        swapped = replace(
            after,
            hands=(tuple(sorted({*after.hands[0]} - {PLUS} | {ONE_A})), after.hands[1]),
            discards=((PLUS,), after.discards[1]),
        )
        assert "is not dead" in self.rejected(swapped)

    def test_a_discard_pile_longer_than_its_seats_turns(self) -> None:
        """A seat discards at most two cards a turn (an exchange and a play)."""
        state = ENGINE.new_game(2, SEED, Options())
        corrupted = replace(state, discards=((state.deck[0],), ()), deck=state.deck[1:])
        assert "discard pile" in self.rejected(corrupted)

    def test_a_discard_pile_one_card_over_two_per_turn(self) -> None:
        """Each seat's pile holds at most two cards per turn it has played, counted per seat."""
        # Turn 3 with 2 seats: seat 0 played 2 turns, seat 1 one; both piles are at the bound.
        state = table(discards={0: (70, 71, 72, 73), 1: (80, 81)}, turn=3)
        corrupted = replace(
            state,
            discards=(state.discards[0], (80, 81, 82)),
            deck=tuple(card for card in state.deck if card != 82),
        )
        assert "seat 2's discard pile holds more than 2" in self.rejected(corrupted)  # wire seat 1

    def test_an_exchange_with_no_dead_card_on_the_board(self) -> None:
        """An exchange needs a dead card, so at least one number with both cells taken."""
        state = ENGINE.new_game(2, SEED, Options())
        assert "no dead card" in self.rejected(replace(state, exchanged=True))

    def test_an_exchange_after_the_turn_limit(self) -> None:
        """The game is over at turn 600: nobody can have exchanged a dead card since."""
        state = table(turn=TURN_LIMIT, chips=TestDeadCards.DEAD, discards={0: (ONE_A,)})
        assert "finished game" in self.rejected(replace(state, exchanged=True))

    def test_an_exchange_whose_pile_alone_is_empty(self) -> None:
        """Only a reshuffle empties the pile of a seat that exchanged, and it empties every pile."""
        state = table(discards={1: (70,)}, chips=TestDeadCards.DEAD)
        assert "reshuffle" in self.rejected(replace(state, exchanged=True))
