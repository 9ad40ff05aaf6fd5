"""Scenario tests of Up or Down? (docs/rules/up_or_down.md), one rule per test."""

from __future__ import annotations

import dataclasses
from collections import Counter
from itertools import product

import pytest

from engines.errors import (
    IllegalActionError,
    InvalidOptionsError,
    InvalidSeatsError,
    InvalidStateError,
)
from engines.prng import Rng
from engines.up_or_down import ENGINE, Options, State
from engines.up_or_down.data import (
    BLOCK,
    CARD_COLOURS,
    COLOUR_BLOCKS,
    HIGHEST_CARD,
    Colour,
    Length,
)
from engines.up_or_down.rules import (
    NO_CARD,
    CardDrawn,
    DiscardScoring,
    Draw,
    GameScored,
    Neighbour,
    Placement,
    Turn,
    TurnPlayed,
    highest_card,
    row_score,
)

SEED = 2024
CIRCLE = (10, 15, 20, 25, 30, 35)
LOWER, HIGHER = Neighbour.LOWER, Neighbour.HIGHER
EXTEND, NEW_ROW, ABANDON = Placement.EXTEND, Placement.NEW_ROW, Placement.ABANDON
FACE_UP, FACE_DOWN, NONE = Draw.FACE_UP, Draw.FACE_DOWN, Draw.NONE

Display = tuple[tuple[int, ...], ...]


def arrange(
    *,
    hand: tuple[int, ...] = (5, 22, 40),
    circle: tuple[int, ...] = CIRCLE,
    displays: dict[int, Display] | None = None,
    discards: dict[int, tuple[int, ...]] | None = None,
    hands: dict[int, tuple[int, ...]] | None = None,
    face_up: tuple[int, ...] | None = None,
    face_down: tuple[int, ...] | None = None,
    seats: int = 2,
    options: Options | None = None,
) -> State:
    """A consistent state with seat 0 to act, built on a dealt one.

    The given cards go where given; the other hands are filled in ascending order. A pile given
    as ``()`` is empty, a pile given with cards has them on top; the cards left over go below,
    face up first, as far as the piles could hold them after the deal. The rest, and enough for
    every seat to have played as many turns as the busiest one, counts as played: into a seat's
    discard pile when it has rows, else into one new rising row.
    """
    options = options or Options()
    dealt = ENGINE.new_game(seats, SEED, options)
    all_hands = {0: hand, **(hands or {})}
    all_displays = dict(displays or {})
    all_discards = dict(discards or {})
    used = set(circle) | set(face_up or ()) | set(face_down or ())
    for cards in (*all_hands.values(), *all_discards.values()):
        used.update(cards)
    for display in all_displays.values():
        used.update(card for row in display for card in row)
    pool = [card for card in range(1, highest_card(options, seats) + 1) if card not in used]
    for seat in range(seats):
        if seat not in all_hands:
            all_hands[seat] = tuple(pool[:3])
            del pool[:3]
    dealt_piles = len(dealt.face_up) + len(dealt.face_down)
    up_room = 0 if face_up == () else dealt_piles // 2 - len(face_up or ())
    down_room = 0 if face_down == () else (dealt_piles + 1) // 2 - len(face_down or ())
    placed = [
        len(all_discards.get(seat, ())) + sum(len(row) for row in all_displays.get(seat, ()))
        for seat in range(seats)
    ]
    # Seat 0 is to act when every seat has played the same number of turns.
    overflow = max(0, len(pool) - up_room - down_room)
    turns_each = max(*placed, -(-(sum(placed) + overflow) // seats))
    for seat in range(seats):
        extra = turns_each - placed[seat]
        if extra:
            cards = tuple(sorted(pool[-extra:]))
            del pool[-extra:]
            if all_displays.get(seat):
                all_discards[seat] = (*all_discards.get(seat, ()), *cards)
            else:
                all_displays[seat] = (cards,)
    ups = (*(face_up or ()), *pool[:up_room])
    downs = (*(face_down or ()), *pool[up_room:])
    state = dataclasses.replace(
        dealt,
        revision=turns_each * seats,
        circle=circle,
        hands=tuple(all_hands[seat] for seat in range(seats)),
        displays=tuple(all_displays.get(seat, ()) for seat in range(seats)),
        discards=tuple(tuple(sorted(all_discards.get(seat, ()))) for seat in range(seats)),
        abandoned=tuple(1 if all_discards.get(seat) else 0 for seat in range(seats)),
        face_up=ups,
        face_down=downs,
    )
    ENGINE.validate(state)
    return state


def play(state: State, turn: Turn) -> tuple[State, tuple[object, ...]]:
    """Apply ``turn`` for the seat to act and return the new state and the event bodies."""
    (seat,) = ENGINE.seats_to_act(state)
    transition = ENGINE.apply(state, seat, turn)
    ENGINE.validate(transition.state)
    return transition.state, tuple(event.body for event in transition.events)


def refused(state: State, turn: Turn, reason: str) -> None:
    """Check that ``turn`` is refused with ``reason`` and is not listed."""
    (seat,) = ENGINE.seats_to_act(state)
    before = state
    with pytest.raises(IllegalActionError) as error:
        ENGINE.apply(state, seat, turn)
    assert error.value.reason == reason
    assert state == before
    assert turn not in ENGINE.legal_actions(state, seat)


def cards_of(colour: Colour) -> list[int]:
    """Every card of a colour, ascending."""
    return [card for card in range(1, HIGHEST_CARD + 1) if CARD_COLOURS[card] is colour]


def playout(state: State, policy: str = "random", seed: int = SEED) -> list[State]:
    """The states of a whole game from ``state`` on, every seat using ``policy``."""
    rng = Rng(seed)
    states = [state]
    while seats := ENGINE.seats_to_act(state):
        state = ENGINE.apply(state, seats[0], ENGINE.suggest(state, seats[0], policy, rng)).state
        states.append(state)
    return states


class TestColourTable:
    """The checked-in colour of each card 1..126."""

    def test_every_card_has_a_colour(self) -> None:
        """Cards 1..126 each have one of the six colours."""
        assert len(CARD_COLOURS) == HIGHEST_CARD + 1
        assert all(isinstance(CARD_COLOURS[card], Colour) for card in range(1, HIGHEST_CARD + 1))

    def test_each_block_of_six_holds_every_colour(self) -> None:
        """Every block of six consecutive numbers holds each colour once."""
        for start in range(1, HIGHEST_CARD + 1, BLOCK):
            assert {CARD_COLOURS[card] for card in range(start, start + BLOCK)} == set(Colour)
        assert all(sorted(block) == sorted("YBRGPO") for block in COLOUR_BLOCKS)

    def test_each_colour_has_21_cards(self) -> None:
        """Each colour has 21 of the 126 cards."""
        counts = Counter(CARD_COLOURS[1:])
        assert counts == dict.fromkeys(Colour, 21)

    def test_the_table_is_fixed(self) -> None:
        """The table never changes within a rules version: every card keeps its colour."""
        assert COLOUR_BLOCKS == (
            "BPYGRO", "GBOYRP", "BORYGP", "BRPOGY", "YOGPBR", "BRGPYO", "YROBGP",
            "PGBRYO", "PYROBG", "ORYBGP", "BROGPY", "RPYBGO", "OBRGPY", "PROGBY",
            "RYOPGB", "YBGOPR", "GBRPOY", "YOPRGB", "YBROPG", "RYGOBP", "RPYGBO",
        )  # fmt: skip


class TestOptions:
    """Options, the card set per seat count and the seat range."""

    def test_defaults_are_short_and_per_card(self) -> None:
        """By default the game is short and discards score per card."""
        assert ENGINE.default_options() == Options(Length.SHORT, DiscardScoring.PER_CARD)

    @pytest.mark.parametrize(
        ("length", "seats", "highest"),
        [
            (Length.SHORT, 2, 42),
            (Length.SHORT, 3, 60),
            (Length.SHORT, 4, 78),
            (Length.SHORT, 5, 96),
            (Length.SHORT, 6, 96),
            (Length.LONG, 2, 54),
            (Length.LONG, 3, 78),
            (Length.LONG, 4, 102),
            (Length.LONG, 5, 126),
            (Length.LONG, 6, 126),
        ],
    )
    def test_card_set_per_seat_count(self, length: Length, seats: int, highest: int) -> None:
        """The game deals exactly cards 1..highest for its length and seat count."""
        state = ENGINE.new_game(seats, SEED, Options(length=length))
        cards = [*state.circle, *state.face_down, *state.face_up]
        cards.extend(card for hand in state.hands for card in hand)
        assert sorted(cards) == list(range(1, highest + 1))

    def test_bad_option_rejected(self) -> None:
        """An option value outside its enum is refused with a reason naming the option."""
        bad = Options(length="MEDIUM")  # type: ignore[arg-type]
        with pytest.raises(InvalidOptionsError) as error:
            ENGINE.new_game(2, SEED, bad)
        assert error.value.reason == "INVALID_OPTIONS"
        assert error.value.metadata == {"option": "length"}

    def test_bad_discard_scoring_rejected(self) -> None:
        """An unknown discard scoring is refused with a reason naming the option."""
        bad = Options(discard_scoring="PER_TURN")  # type: ignore[arg-type]
        with pytest.raises(InvalidOptionsError) as error:
            ENGINE.new_game(2, SEED, bad)
        assert error.value.metadata == {"option": "discard_scoring"}

    @pytest.mark.parametrize("seats", [0, 1, 7, 10])
    def test_seat_count_out_of_range_rejected(self, seats: int) -> None:
        """Up or Down? takes 2 to 6 seats."""
        with pytest.raises(InvalidSeatsError) as error:
            ENGINE.new_game(seats, SEED, Options())
        assert error.value.reason == "INVALID_SEAT_COUNT"


class TestSetup:
    """The deal."""

    def test_three_cards_per_seat(self) -> None:
        """Each seat is dealt 3 cards."""
        state = ENGINE.new_game(4, SEED, Options())
        assert [len(hand) for hand in state.hands] == [3, 3, 3, 3]

    def test_circle_of_six_ascending(self) -> None:
        """Six cards are revealed into the circle, kept in ascending order."""
        state = ENGINE.new_game(3, SEED, Options())
        assert len(state.circle) == 6
        assert list(state.circle) == sorted(state.circle)

    def test_face_down_pile_is_the_larger_half(self) -> None:
        """The rest is split with the face-down pile taking the larger half."""
        state = ENGINE.new_game(3, SEED, Options())  # 60 - 9 - 6 = 45 cards left
        assert (len(state.face_down), len(state.face_up)) == (23, 22)

    def test_seat_zero_starts_with_empty_displays(self) -> None:
        """Seat 0 acts first; no seat has a row or a discarded card."""
        state = ENGINE.new_game(5, SEED, Options())
        assert ENGINE.seats_to_act(state) == (0,)
        assert state.displays == ((),) * 5
        assert state.discards == ((),) * 5

    def test_same_seed_same_deal(self) -> None:
        """The deal depends on the seed alone."""
        assert ENGINE.new_game(2, 7, Options()) == ENGINE.new_game(2, 7, Options())
        assert ENGINE.new_game(2, 7, Options()) != ENGINE.new_game(2, 8, Options())


class TestCircle:
    """Playing a card into the circle and taking a neighbour."""

    def test_low_wrap_takes_highest_as_lower_neighbour(self) -> None:
        """A card below the lowest sits between highest and lowest: LOWER takes the highest."""
        state, _ = play(arrange(), Turn(5, LOWER, NEW_ROW, 0, FACE_UP))
        assert state.displays[0] == ((35,),)
        assert state.circle == (5, 10, 15, 20, 25, 30)

    def test_low_wrap_takes_lowest_as_higher_neighbour(self) -> None:
        """A card below the lowest: HIGHER takes the lowest card."""
        state, _ = play(arrange(), Turn(5, HIGHER, NEW_ROW, 0, FACE_UP))
        assert state.displays[0] == ((10,),)
        assert state.circle == (5, 15, 20, 25, 30, 35)

    def test_high_wrap_takes_highest_as_lower_neighbour(self) -> None:
        """A card above the highest: LOWER takes the highest card."""
        state, _ = play(arrange(), Turn(40, LOWER, NEW_ROW, 0, FACE_UP))
        assert state.displays[0] == ((35,),)
        assert state.circle == (10, 15, 20, 25, 30, 40)

    def test_high_wrap_takes_lowest_as_higher_neighbour(self) -> None:
        """A card above the highest sits between highest and lowest: HIGHER takes the lowest."""
        state, _ = play(arrange(), Turn(40, HIGHER, NEW_ROW, 0, FACE_UP))
        assert state.displays[0] == ((10,),)
        assert state.circle == (15, 20, 25, 30, 35, 40)

    def test_both_neighbours_inside_the_circle(self) -> None:
        """A card between two cards may take the next lower or the next higher one."""
        lower, _ = play(arrange(), Turn(22, LOWER, NEW_ROW, 0, FACE_UP))
        higher, _ = play(arrange(), Turn(22, HIGHER, NEW_ROW, 0, FACE_UP))
        assert (lower.displays[0], higher.displays[0]) == (((20,),), ((25,),))
        assert lower.circle == (10, 15, 22, 25, 30, 35)
        assert higher.circle == (10, 15, 20, 22, 30, 35)

    def test_card_not_in_hand_refused(self) -> None:
        """Only a card from the seat's own hand may be played."""
        refused(arrange(), Turn(23, LOWER, NEW_ROW, 0, FACE_UP), "CARD_NOT_IN_HAND")


class TestRows:
    """Placing the taken card in the display."""

    def test_row_of_one_accepts_any_card(self) -> None:
        """A row of one card may be extended upwards or downwards."""
        up, _ = play(arrange(displays={0: ((12,),)}), Turn(22, HIGHER, EXTEND, 0, FACE_UP))
        down, _ = play(arrange(displays={0: ((32,),)}), Turn(22, HIGHER, EXTEND, 0, FACE_UP))
        assert (up.displays[0], down.displays[0]) == (((12, 25),), ((32, 25),))

    def test_second_card_fixes_ascending(self) -> None:
        """After an ascending second card the row accepts only higher cards."""
        state = arrange(displays={0: ((12, 21),)})
        extended, _ = play(state, Turn(22, HIGHER, EXTEND, 0, FACE_UP))
        assert extended.displays[0] == ((12, 21, 25),)
        refused(state, Turn(22, LOWER, EXTEND, 0, FACE_UP), "BREAKS_DIRECTION")

    def test_second_card_fixes_descending(self) -> None:
        """After a descending second card the row accepts only lower cards."""
        state = arrange(displays={0: ((32, 24),)})
        extended, _ = play(state, Turn(22, LOWER, EXTEND, 0, FACE_UP))
        assert extended.displays[0] == ((32, 24, 20),)
        refused(state, Turn(22, HIGHER, EXTEND, 0, FACE_UP), "BREAKS_DIRECTION")

    def test_direction_stays_fixed_for_good(self) -> None:
        """A long rising row still refuses a lower card."""
        state = arrange(displays={0: ((1, 2, 3, 4, 11),)})
        refused(state, Turn(5, HIGHER, EXTEND, 0, FACE_UP), "BREAKS_DIRECTION")

    def test_new_row_with_fewer_than_three(self) -> None:
        """A new row may be started while the display has fewer than 3 rows."""
        state, _ = play(arrange(displays={0: ((12,), (32,))}), Turn(22, LOWER, NEW_ROW, 2, FACE_UP))
        assert state.displays[0] == ((12,), (32,), (20,))

    def test_fourth_row_refused(self) -> None:
        """A display holds at most 3 rows."""
        state = arrange(displays={0: ((12,), (32,), (2,))})
        refused(state, Turn(22, LOWER, NEW_ROW, 3, FACE_UP), "TOO_MANY_ROWS")

    def test_new_row_index_must_be_next(self) -> None:
        """A new row's index is the number of rows the display had."""
        refused(arrange(), Turn(22, LOWER, NEW_ROW, 1, FACE_UP), "NEW_ROW_INDEX_MISMATCH")

    def test_missing_row_refused(self) -> None:
        """Only an existing row may be extended or abandoned."""
        state = arrange(displays={0: ((12,),)})
        refused(state, Turn(22, LOWER, EXTEND, 1, FACE_UP), "NO_SUCH_ROW")
        refused(state, Turn(22, LOWER, ABANDON, 1, FACE_UP), "NO_SUCH_ROW")

    def test_abandon_discards_row_and_restarts_it(self) -> None:
        """Abandoning sends the row to the discard pile; the taken card restarts it in place."""
        state = arrange(displays={0: ((12,), (32, 27, 21))})
        after, events = play(state, Turn(22, LOWER, ABANDON, 1, FACE_UP))
        assert after.displays[0] == ((12,), (20,))
        assert after.discards[0] == (21, 27, 32)
        assert after.abandoned[0] == 1
        assert isinstance(events[0], TurnPlayed)
        assert events[0].discarded == 3

    def test_abandon_allowed_when_the_card_fits(self) -> None:
        """Abandoning is always allowed, even when the card could extend the row."""
        state = arrange(displays={0: ((12, 14),)})
        assert Turn(22, LOWER, ABANDON, 0, FACE_UP) in ENGINE.legal_actions(state, 0)
        after, _ = play(state, Turn(22, LOWER, ABANDON, 0, FACE_UP))
        assert after.displays[0] == ((20,),)

    def test_abandon_restarts_the_row_in_its_place(self) -> None:
        """An abandoned row that is not the last is restarted at its own index."""
        state = arrange(displays={0: ((12,), (32, 27, 21))})
        after, _ = play(state, Turn(22, LOWER, ABANDON, 0, FACE_UP))
        assert after.displays[0] == ((20,), (32, 27, 21))
        assert after.discards[0] == (12,)


class TestDraw:
    """Drawing at the end of the turn."""

    def test_draw_face_up_reveals_next_card(self) -> None:
        """The face-up top goes to hand and the next card becomes the visible top."""
        state = arrange(face_up=(7, 8))
        after, events = play(state, Turn(22, LOWER, NEW_ROW, 0, FACE_UP))
        assert after.hands[0] == (5, 7, 40)
        assert after.face_up[0] == 8
        assert events == (TurnPlayed(0, 22, 20, NEW_ROW, 0, 0, FACE_UP, 7, 8),)

    def test_draw_face_down(self) -> None:
        """The face-down top goes to hand."""
        state = arrange(face_down=(9, 8))
        after, _ = play(state, Turn(22, LOWER, NEW_ROW, 0, FACE_DOWN))
        assert after.hands[0] == (5, 9, 40)
        assert len(after.face_down) == len(state.face_down) - 1
        assert after.face_up == state.face_up

    def test_only_face_down_when_face_up_is_empty(self) -> None:
        """With the face-up pile empty, the face-down pile is the only draw."""
        state = arrange(face_up=(), displays={0: ((12,),)})
        draws = {turn.draw for turn in ENGINE.legal_actions(state, 0)}
        assert draws == {FACE_DOWN}
        refused(state, Turn(22, LOWER, NEW_ROW, 1, FACE_UP), "PILE_EMPTY")

    def test_only_face_up_when_face_down_is_empty(self) -> None:
        """With the face-down pile empty, the face-up pile is the only draw."""
        state = arrange(face_down=(), displays={0: ((12,),)})
        draws = {turn.draw for turn in ENGINE.legal_actions(state, 0)}
        assert draws == {FACE_UP}
        refused(state, Turn(22, LOWER, NEW_ROW, 1, FACE_DOWN), "PILE_EMPTY")

    def test_must_draw_while_a_pile_has_cards(self) -> None:
        """Drawing nothing is refused while a pile has cards."""
        refused(arrange(), Turn(22, LOWER, NEW_ROW, 0, NONE), "MUST_DRAW")

    def test_no_draw_when_both_piles_are_empty(self) -> None:
        """Once both piles are empty a turn draws nothing, and only that is legal."""
        states = playout(ENGINE.new_game(2, SEED, Options()))
        empty = next(s for s in states if not s.face_up and not s.face_down and any(s.hands))
        (seat,) = ENGINE.seats_to_act(empty)
        assert {turn.draw for turn in ENGINE.legal_actions(empty, seat)} == {NONE}
        turn = ENGINE.legal_actions(empty, seat)[0]
        refused(empty, dataclasses.replace(turn, draw=FACE_UP), "PILE_EMPTY")


class TestLegalActions:
    """The list of legal actions is exactly the set of turns that apply."""

    def test_lists_exactly_the_legal_turns(self) -> None:
        """Every combination of parts applies if and only if it is listed."""
        for state in playout(ENGINE.new_game(3, SEED, Options()))[:-1:4]:
            (seat,) = ENGINE.seats_to_act(state)
            listed = ENGINE.legal_actions(state, seat)
            assert len(set(listed)) == len(listed)
            cards = (*state.hands[seat], state.circle[0], 0)
            applying = set()
            for card, take, placement, row, draw in product(
                cards, Neighbour, Placement, range(-1, 5), Draw
            ):
                turn = Turn(card, take, placement, row, draw)
                try:
                    ENGINE.apply(state, seat, turn)
                except IllegalActionError:
                    continue
                applying.add(turn)
            assert applying == set(listed)

    @pytest.mark.parametrize(
        "change",
        [{"take": None}, {"placement": None}, {"draw": None}],
        ids=["no_neighbour", "no_placement", "no_draw"],
    )
    def test_a_turn_without_a_part_is_malformed(self, change: dict[str, None]) -> None:
        """A turn missing its neighbour, its placement or its draw is refused as
        MALFORMED_ACTION."""
        state = arrange(displays={0: ((12,),)})
        turn = dataclasses.replace(ENGINE.legal_actions(state, 0)[0], **change)
        with pytest.raises(IllegalActionError) as error:
            ENGINE.apply(state, 0, turn)
        assert error.value.reason == "MALFORMED_ACTION"

    def test_something_that_is_not_a_turn_is_malformed(self) -> None:
        """An action of another game is refused as MALFORMED_ACTION."""
        with pytest.raises(IllegalActionError) as error:
            ENGINE.apply(arrange(), 0, "draw face-up")  # type: ignore[arg-type]
        assert error.value.reason == "MALFORMED_ACTION"

    @pytest.mark.parametrize("seats", [3, 4, 5])
    def test_every_state_of_a_whole_game_validates(self, seats: int) -> None:
        """At every seat count, each state of a game played to its end is valid, the turns
        after the piles ran out included."""
        for state in playout(ENGINE.new_game(seats, SEED, Options())):
            ENGINE.validate(state)

    def test_count_on_an_open_display(self) -> None:
        """3 cards, 2 neighbours, 3 placements (extend, new row, abandon) and 2 piles."""
        state = arrange(displays={0: ((12,),)})
        assert len(ENGINE.legal_actions(state, 0)) == 3 * 2 * 3 * 2

    def test_seat_not_to_act_has_none(self) -> None:
        """A seat that is not to act has no legal actions and is refused."""
        state = arrange()
        assert ENGINE.legal_actions(state, 1) == ()
        with pytest.raises(IllegalActionError) as error:
            ENGINE.apply(state, 1, ENGINE.legal_actions(state, 0)[0])
        assert error.value.reason == "NOT_SEATS_TURN"


class TestEndAndScoring:
    """The end of the game and the scores."""

    def test_play_goes_on_after_the_piles_run_out(self) -> None:
        """After both piles are empty every seat plays its 3 cards, then the game ends."""
        states = playout(ENGINE.new_game(3, SEED, Options()))
        first_empty = next(i for i, s in enumerate(states) if not s.face_up and not s.face_down)
        assert [len(hand) for hand in states[first_empty].hands] == [3, 3, 3]
        assert len(states) - 1 - first_empty == 3 * 3
        assert all(ENGINE.seats_to_act(s) for s in states[first_empty:-1])
        final = states[-1]
        assert final.hands == ((), (), ())
        assert ENGINE.seats_to_act(final) == ()
        assert ENGINE.outcome(final) is not None

    def test_no_action_after_the_end(self) -> None:
        """A finished game refuses every action."""
        final = playout(ENGINE.new_game(2, SEED, Options()))[-1]
        with pytest.raises(IllegalActionError) as error:
            ENGINE.apply(final, 0, Turn(5, LOWER, NEW_ROW, 0, NONE))
        assert error.value.reason == "GAME_FINISHED"

    def test_eight_cards_three_of_a_colour_score_24(self) -> None:
        """docs/rules/up_or_down.md: 8 cards with 3 of the most common colour score 24."""
        row = sorted(
            cards_of(Colour.YELLOW)[:3] + cards_of(Colour.BLUE)[:3] + cards_of(Colour.RED)[:2]
        )
        assert row_score(tuple(row)) == 24

    def test_two_cards_of_different_colours_score_2(self) -> None:
        """docs/rules/up_or_down.md: 2 cards of different colours score 2."""
        assert row_score((cards_of(Colour.GREEN)[0], cards_of(Colour.PURPLE)[0])) == 2

    def test_eight_cards_five_of_a_colour_score_40(self) -> None:
        """docs/rules/up_or_down.md: 8 cards with 5 of one colour score 40."""
        row = sorted(cards_of(Colour.ORANGE)[:5] + cards_of(Colour.BLUE)[:3])
        assert row_score(tuple(row[::-1])) == 40

    def test_discards_score_per_card(self) -> None:
        """PER_CARD: each discarded card scores 1, added to the rows."""
        final = self._finished(Options(discard_scoring=DiscardScoring.PER_CARD))
        outcome = ENGINE.outcome(final)
        assert outcome is not None
        assert outcome.scores == (24 + 10, 1 + 17)
        assert outcome.winners == (0,)
        assert outcome.lower_is_better is False

    def test_discards_score_per_row(self) -> None:
        """PER_ROW: each abandoned row scores 1, whatever its size."""
        final = self._finished(Options(discard_scoring=DiscardScoring.PER_ROW))
        outcome = ENGINE.outcome(final)
        assert outcome is not None
        assert outcome.scores == (24 + 2, 1 + 1)
        assert outcome.winners == (0,)

    def test_ties_share_the_win(self) -> None:
        """Every seat with the highest total wins."""
        pool = [card for card in range(1, 43) if card not in CIRCLE]
        final = arrange(
            hand=(),
            hands={1: ()},
            displays={0: ((pool[0],),), 1: ((pool[1],),)},
            discards={0: tuple(pool[2:19]), 1: tuple(pool[19:])},
            face_up=(),
            face_down=(),
        )
        outcome = ENGINE.outcome(final)
        assert outcome is not None
        assert outcome.scores == (18, 18)
        assert outcome.winners == (0, 1)

    def test_final_event_gives_scores(self) -> None:
        """The last turn announces the final scores to everyone."""
        states = playout(ENGINE.new_game(2, SEED, Options()))
        last = states[-2]
        (seat,) = ENGINE.seats_to_act(last)
        transition = ENGINE.apply(last, seat, ENGINE.legal_actions(last, seat)[0])
        scored = transition.events[-1]
        assert scored.audience is None
        outcome = ENGINE.outcome(transition.state)
        assert outcome is not None
        assert scored.body == GameScored(outcome.scores)

    @staticmethod
    def _finished(options: Options) -> State:
        """A finished 2-seat game: seat 0 has the 24-point row and 10 cards in 2 abandoned
        rows; seat 1 has a row of one card and 17 cards in 1 abandoned row."""
        row = tuple(
            sorted(
                cards_of(Colour.YELLOW)[:3] + cards_of(Colour.BLUE)[:3] + cards_of(Colour.RED)[:2]
            )
        )
        rest = [c for c in range(1, 37) if c not in row]
        circle = (37, 38, 39, 40, 41, 42)
        state = arrange(
            hand=(),
            hands={1: ()},
            circle=circle,
            displays={0: (row,), 1: ((rest[10],),)},
            discards={0: tuple(rest[:10]), 1: tuple(rest[11:])},
            face_up=(),
            face_down=(),
            options=options,
        )
        return dataclasses.replace(state, abandoned=(2, 1))


class TestVisibility:
    """What each viewer sees, and who is told what."""

    def test_face_down_draw_told_to_drawer_alone(self) -> None:
        """A face-down draw is public without its card; the card goes to the drawer alone."""
        state = arrange(face_down=(9, 8))
        transition = ENGINE.apply(state, 0, Turn(22, LOWER, NEW_ROW, 0, FACE_DOWN))
        public, private = transition.events
        assert public.audience is None
        assert isinstance(public.body, TurnPlayed)
        assert public.body.drawn == NO_CARD
        assert private == type(private)(CardDrawn(0, 9), (0,))

    def test_face_up_draw_is_public(self) -> None:
        """A face-up draw is one public event with the card and the new top."""
        transition = ENGINE.apply(arrange(face_up=(7, 8)), 0, Turn(22, LOWER, NEW_ROW, 0, FACE_UP))
        (event,) = transition.events
        assert event.audience is None
        assert isinstance(event.body, TurnPlayed)
        assert (event.body.drawn, event.body.face_up_top) == (7, 8)

    def test_spectator_sees_no_hand(self) -> None:
        """A spectator sees the table, pile sizes and the face-up top, but no hand."""
        state = arrange(face_up=(7, 8), displays={0: ((12,),)})
        view = ENGINE.view(state, None)
        assert view.hand == ()
        assert view.circle == CIRCLE
        assert view.displays == state.displays
        assert view.face_up_top == 7
        assert view.face_up_size == len(state.face_up)
        assert view.face_down_size == len(state.face_down)
        assert view.hand_sizes == (3, 3)

    def test_seat_sees_own_hand_only(self) -> None:
        """A seat sees its own hand; of the other hands only their sizes."""
        state = arrange()
        view = ENGINE.view(state, 0)
        assert view.hand == state.hands[0]
        assert view.hand_sizes == (3, 3)
        assert ENGINE.view(state, 1).hand == state.hands[1]

    def test_hand_sizes_follow_each_hand(self) -> None:
        """Once the piles are empty the hands shrink one seat at a time: every view shows each
        seat's own hand size."""
        states = playout(ENGINE.new_game(2, SEED, Options()))
        state = next(s for s in states if len(s.hands[0]) != len(s.hands[1]))
        for viewer in (None, 0, 1):
            assert ENGINE.view(state, viewer).hand_sizes == tuple(map(len, state.hands))

    def test_discarded_faces_hidden_from_everyone(self) -> None:
        """No view shows a discarded face, not even the owner's: only sizes and row counts."""
        state = arrange(displays={0: ((12,),), 1: ((32,),)}, discards={0: (1, 2), 1: (3, 4)})
        swapped = dataclasses.replace(state, discards=((3, 4), (1, 2)))
        for viewer in (None, 0, 1):
            view = ENGINE.view(state, viewer)
            assert (view.discard_sizes, view.abandoned) == ((2, 2), (1, 1))
            assert ENGINE.view(swapped, viewer) == view

    @pytest.mark.parametrize(
        ("discard_scoring", "expected"),
        [
            # seat 0: rows 3 yellows (3 x 3) and 2 purples (2 x 2), 2 cards in 1 abandoned row;
            # seat 1: a row of 3 reds (3 x 3), 4 cards in 1 abandoned row.
            (DiscardScoring.PER_CARD, (9 + 4 + 2, 9 + 4)),
            (DiscardScoring.PER_ROW, (9 + 4 + 1, 9 + 1)),
        ],
        ids=["per-card", "per-row"],
    )
    def test_view_scores_follow_the_scoring_rule(
        self, discard_scoring: DiscardScoring, expected: tuple[int, int]
    ) -> None:
        """Mid-game, every view shows what each seat would score now: each row its length times
        its most common colour's count, plus the discard pile per ``discard_scoring``."""
        yellows, purples, reds = (3, 16, 24), (42, 28), (11, 32, 38)
        assert {CARD_COLOURS[card] for card in yellows} == {Colour.YELLOW}
        assert {CARD_COLOURS[card] for card in purples} == {Colour.PURPLE}
        assert {CARD_COLOURS[card] for card in reds} == {Colour.RED}
        state = arrange(
            displays={0: (yellows, purples), 1: (reds,)},
            discards={0: (1, 2), 1: (4, 6, 7, 8)},
            options=Options(discard_scoring=discard_scoring),
        )
        assert ENGINE.seats_to_act(state) == (0,)
        for viewer in (None, 0, 1):
            assert ENGINE.view(state, viewer).scores == expected

    def test_view_colours_cover_the_cards_in_play(self) -> None:
        """The view carries the colour of every card in play."""
        view = ENGINE.view(arrange(), None)
        assert len(view.card_colours) == 42
        assert view.card_colours[0] is CARD_COLOURS[1]

    def test_redeal_keeps_the_seat_view(self) -> None:
        """Re-dealing what a seat cannot see leaves its view unchanged and the state valid."""
        for state in playout(ENGINE.new_game(4, SEED, Options()))[::7]:
            for seat in range(4):
                redealt = ENGINE.redeal(state, seat, Rng(seat + 1))
                ENGINE.validate(redealt)
                assert ENGINE.view(redealt, seat) == ENGINE.view(state, seat)


class TestCorruptedStates:
    """States the rules could not have produced are rejected."""

    def _rejected(self, state: State, match: str | None = None) -> None:
        with pytest.raises(InvalidStateError, match=match):
            ENGINE.validate(state)

    def test_card_in_two_places(self) -> None:
        """A card both in a hand and in the circle is rejected."""
        state = arrange()
        self._rejected(dataclasses.replace(state, hands=((5, 10, 40), state.hands[1])))

    def test_circle_out_of_order(self) -> None:
        """A circle that is not ascending is rejected."""
        self._rejected(dataclasses.replace(arrange(), circle=(15, 10, 20, 25, 30, 35)))

    @pytest.mark.parametrize("row", [(12, 27, 21), (27, 12, 21)], ids=["up-down", "down-up"])
    def test_row_breaking_its_direction(self, row: tuple[int, ...]) -> None:
        """A row that turns back against its direction is rejected (the same cards, rising
        or falling, are a valid state)."""
        state = arrange(displays={0: ((12, 21, 27),)})
        ENGINE.validate(dataclasses.replace(state, displays=(((27, 21, 12),), state.displays[1])))
        self._rejected(
            dataclasses.replace(state, displays=((row,), state.displays[1])), "breaks the direction"
        )

    def test_foreign_card(self) -> None:
        """A card outside the game's card set is rejected."""
        state = arrange(face_up=(7,))
        self._rejected(dataclasses.replace(state, face_up=(43, *state.face_up[1:])))

    def test_card_zero(self) -> None:
        """A card 0, below the card set, is rejected even in place of a missing card."""
        state = arrange(face_up=(7,))
        self._rejected(dataclasses.replace(state, face_up=(0, *state.face_up[1:])))

    def test_missing_card(self) -> None:
        """A state that lost a card is rejected."""
        state = arrange()
        self._rejected(dataclasses.replace(state, face_down=state.face_down[1:]))

    def test_pile_larger_than_dealt(self) -> None:
        """A pile never holds more cards than the deal put in it."""
        state = ENGINE.new_game(2, SEED, Options())
        moved = state.face_down[0]
        self._rejected(
            dataclasses.replace(
                state, face_down=state.face_down[1:], face_up=(moved, *state.face_up)
            )
        )

    def test_face_down_pile_larger_than_dealt(self) -> None:
        """The face-down pile never holds more than the larger half the deal gave it."""
        state = ENGINE.new_game(2, SEED, Options())  # 42 - 6 - 6 = 30 cards: 15 face down
        assert len(state.face_down) == 15
        self._rejected(
            dataclasses.replace(
                state, face_down=(state.face_up[0], *state.face_down), face_up=state.face_up[1:]
            ),
            "more cards than the deal gave it",
        )

    def test_face_up_pile_larger_than_dealt(self) -> None:
        """The face-up pile never holds more than the smaller half the deal gave it."""
        state = ENGINE.new_game(3, SEED, Options())  # 60 - 9 - 6 = 45 cards: 22 face up
        assert len(state.face_up) == 22
        self._rejected(
            dataclasses.replace(
                state, face_up=(state.face_down[0], *state.face_up), face_down=state.face_down[1:]
            ),
            "more cards than the deal gave it",
        )

    def test_revision_does_not_match_turns(self) -> None:
        """The revision must equal the cards placed in displays and discard piles."""
        self._rejected(dataclasses.replace(arrange(), revision=2))

    def test_wrong_hand_size(self) -> None:
        """While the piles last every hand holds 3 cards."""
        state = arrange(face_up=(7,))
        self._rejected(
            dataclasses.replace(state, hands=((5, 7, 22, 40), state.hands[1]), face_up=())
        )

    def test_hand_one_card_short(self) -> None:
        """Once the piles are empty each seat holds 3 cards less one per turn it played: a seat
        one card short (its card in the hand of a seat that played one more turn) is rejected."""
        states = playout(ENGINE.new_game(2, SEED, Options()))
        state = next(s for s in states if len(s.hands[0]) != len(s.hands[1]))
        assert not state.face_up
        assert not state.face_down
        ahead, behind = sorted((0, 1), key=lambda seat: len(state.hands[seat]))
        assert (len(state.hands[ahead]), len(state.hands[behind])) == (2, 3)
        moved = state.hands[behind][0]
        hands = list(state.hands)
        hands[ahead] = tuple(sorted((*state.hands[ahead], moved)))
        hands[behind] = state.hands[behind][1:]
        # The check names the first seat whose hand is off: either of the two.
        self._rejected(
            dataclasses.replace(state, hands=tuple(hands)), "holds (2 cards, not 3|3 cards, not 2)"
        )

    def test_cards_placed_by_the_wrong_seat(self) -> None:
        """Each seat's display and discard pile hold one card per turn that seat played."""
        state = arrange(displays={0: ((12,),), 1: ((32,),)})
        self._rejected(dataclasses.replace(state, displays=(((12,), (32,)), ())))

    def test_discards_without_a_row(self) -> None:
        """An abandoned row is restarted, so a seat with discards still has a row."""
        state = arrange(displays={0: ((12,),), 1: ((32,),)}, discards={0: (1,), 1: (2,)})
        self._rejected(
            dataclasses.replace(state, displays=((), ((32,),)), discards=((1, 12), (2,)))
        )

    def test_four_rows(self) -> None:
        """A display of 4 rows is rejected."""
        with pytest.raises(InvalidStateError, match="more than 3 rows"):
            arrange(displays={0: ((12,), (32,), (2,), (3,))})

    def test_abandoned_rows_without_discards(self) -> None:
        """An abandoned row count with an empty discard pile is rejected."""
        self._rejected(dataclasses.replace(arrange(), abandoned=(1, 0)))

    def test_generator_state_out_of_range(self) -> None:
        """The generator state must be a 64-bit value."""
        self._rejected(dataclasses.replace(arrange(), rng_state=1 << 64))

    def test_per_seat_lengths(self) -> None:
        """Per-seat fields need one entry per seat."""
        self._rejected(dataclasses.replace(arrange(), abandoned=(0,)))
