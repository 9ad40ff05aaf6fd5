"""The Sequence Numbers codec, in-process: states, actions, options, views and events."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from engines.errors import InvalidOptionsError, InvalidStateError, MalformedActionError
from engines.prng import Rng
from engines.sequence_numbers import ENGINE
from engines.sequence_numbers.rules import (
    HIDDEN_CARD,
    NO_CELL,
    WINDOWS,
    CardDrawn,
    ChipPlaced,
    ChooseSequence,
    Discard,
    Exchange,
    Options,
    Play,
    SequenceChoice,
    SequenceOverlap,
    State,
)
from ordo.v1 import sequence_numbers_pb2 as pb
from service.codecs import CODECS
from service.codecs.sequence_numbers import CODEC
from tests.engines.test_sequence_numbers_choice import CORNER_FIVE, DIAGONAL, LOWER_FIVE, place
from tests.service.state_parts import assert_parts_cover_the_state, assert_serialized_in_parts

SEEDS = (1, 2, 3)


def playout(seats: int, seed: int) -> Iterator[tuple[State, tuple[object, ...]]]:
    """Every state of a random playout, with the events that led to it."""
    rng = Rng(seed)
    state = ENGINE.new_game(seats, seed, Options())
    events: tuple[object, ...] = ()
    while True:
        yield state, events
        to_act = ENGINE.seats_to_act(state)
        if not to_act:
            return
        seat = to_act[0]
        transition = ENGINE.apply(state, seat, rng.choice(ENGINE.legal_actions(state, seat)))
        state, events = transition.state, tuple(event.body for event in transition.events)


def round_trip(state: State) -> State:
    """Encode a state, send it through bytes, and decode it."""
    wire = CODEC.encode_state(state).SerializeToString()
    return CODEC.decode_state(
        pb.SequenceNumbersState.FromString(wire), state.rules_version, state.revision
    )


class TestStates:
    """States survive the wire unchanged."""

    @pytest.mark.parametrize("seats", [2, 3, 4, 6])
    @pytest.mark.parametrize("seed", SEEDS)
    def test_every_state_of_a_playout_round_trips(self, seats: int, seed: int) -> None:
        """state → proto → bytes → proto → state gives an equal state."""
        for state, _ in playout(seats, seed):
            assert round_trip(state) == state

    @pytest.mark.parametrize("seats", [2, 3, 4, 6])
    def test_serialized_in_parts(self, seats: int) -> None:
        """The parts of each state of a game, encoded afresh or reused from the state before
        it, join into protobuf's serialization of the state."""
        assert_serialized_in_parts(CODEC, (state for state, _ in playout(seats, SEEDS[0])))

    def test_the_parts_are_the_whole_state(self) -> None:
        """Every field of the engine state is a part, but the envelope's version and revision."""
        assert_parts_cover_the_state(CODEC, State)

    def test_a_pending_choice_round_trips_and_is_serialized_in_parts(self) -> None:
        """A state awaiting a choice of five keeps its cell; the states around it too."""
        before, pending, _ = place(DIAGONAL, 36)
        msg = CODEC.encode_state(pending)
        assert msg.pending_choice.cell == 36
        assert round_trip(pending) == pending
        assert_serialized_in_parts(CODEC, (before, pending))

    def test_no_pending_choice_leaves_the_field_unset(self) -> None:
        """Between turns the pending choice is absent from the message."""
        state = ENGINE.new_game(2, 1, Options())
        assert not CODEC.encode_state(state).HasField("pending_choice")
        assert round_trip(state).pending_cell == NO_CELL

    def test_an_unknown_overlap_in_a_state_is_refused(self) -> None:
        """A sequence_overlap value the server does not know makes the state invalid."""
        msg = CODEC.encode_state(ENGINE.new_game(2, 1, Options()))
        msg.options.sequence_overlap = 7  # type: ignore[assignment]
        with pytest.raises(InvalidStateError, match="sequence_overlap"):
            CODEC.decode_state(msg, 1, 0)

    def test_a_state_without_options_is_refused(self) -> None:
        """The options are required in a state."""
        with pytest.raises(InvalidStateError):
            CODEC.decode_state(pb.SequenceNumbersState(), 1, 0)

    def test_hand_sizes_that_do_not_add_up_are_refused(self) -> None:
        """The hand sizes must cut the flat hand cards exactly."""
        msg = CODEC.encode_state(ENGINE.new_game(2, 1, Options()))
        msg.hand_sizes[-1] -= 1
        with pytest.raises(InvalidStateError):
            CODEC.decode_state(msg, 1, 0)

    def test_as_many_sequences_as_the_board_has_lines_of_five_are_decoded(self) -> None:
        """The count of sequences refuses only more than the board's lines of five: one
        sequence on each line is still decoded (validation judges it), one more is not."""
        msg = CODEC.encode_state(ENGINE.new_game(2, 1, Options()))
        for window in WINDOWS:
            msg.sequences.add(team=0, cells=window)
        decoded = CODEC.decode_state(msg, 1, 0)
        assert len(decoded.sequences) == len(WINDOWS)
        msg.sequences.add(team=1, cells=WINDOWS[0])
        with pytest.raises(InvalidStateError, match=f"^sequences: {len(WINDOWS) + 1} entries"):
            CODEC.decode_state(msg, 1, 0)

    def test_the_codec_is_registered(self) -> None:
        """The codec is found by the game id."""
        assert CODECS["sequence_numbers"] is CODEC


class TestActions:
    """Actions survive the wire unchanged."""

    @pytest.mark.parametrize(
        "action",
        [Play(0, 8), Play(96, 55), Exchange(0), Discard(99), ChooseSequence(LOWER_FIVE)],
    )
    def test_actions_round_trip(self, action: object) -> None:
        """Each kind of action encodes and decodes to itself."""
        wire = CODEC.encode_action(action).SerializeToString()  # type: ignore[arg-type]
        assert CODEC.decode_action(pb.SequenceNumbersAction.FromString(wire)) == action

    def test_card_zero_is_a_set_move(self) -> None:
        """Card id 0 is a real card: the oneof keeps the move set."""
        msg = CODEC.encode_action(Exchange(0))
        assert msg.WhichOneof("move") == "exchange_dead_card"

    def test_a_choice_of_too_many_cells_is_cut_one_past_a_five(self) -> None:
        """A choice of a million cells decodes to six, which no five on offer is."""
        msg = pb.SequenceNumbersAction(
            choose_sequence=pb.SequenceNumbersChooseSequence(cells=range(1_000_000))
        )
        assert CODEC.decode_action(msg) == ChooseSequence((0, 1, 2, 3, 4, 5))

    def test_an_action_without_a_move_is_malformed(self) -> None:
        """An empty action message has no move."""
        with pytest.raises(MalformedActionError):
            CODEC.decode_action(pb.SequenceNumbersAction())

    def test_every_legal_action_of_a_playout_round_trips(self) -> None:
        """All listed actions along a playout encode and decode to themselves."""
        for state, _ in playout(4, 5):
            for seat in ENGINE.seats_to_act(state):
                for action in ENGINE.legal_actions(state, seat):
                    assert CODEC.decode_action(CODEC.encode_action(action)) == action


class TestOptions:
    """Options and their defaults."""

    def test_unset_teams_means_the_usual(self) -> None:
        """An empty options message is the default options."""
        assert CODEC.decode_options(pb.SequenceNumbersOptions()) == ENGINE.default_options()

    def test_teams_are_carried(self) -> None:
        """The team count is decoded as sent."""
        assert CODEC.decode_options(pb.SequenceNumbersOptions(teams=3)) == Options(teams=3)

    @pytest.mark.parametrize(
        ("number", "overlap"),
        [
            (pb.SEQUENCE_NUMBERS_SEQUENCE_OVERLAP_UNSPECIFIED, SequenceOverlap.ONE_CELL),
            (pb.SEQUENCE_NUMBERS_SEQUENCE_OVERLAP_ONE_CELL, SequenceOverlap.ONE_CELL),
            (pb.SEQUENCE_NUMBERS_SEQUENCE_OVERLAP_ANY, SequenceOverlap.ANY),
        ],
    )
    def test_sequence_overlap_is_carried(self, number: int, overlap: SequenceOverlap) -> None:
        """Unset means ONE_CELL; each value decodes to its engine value and back."""
        msg = pb.SequenceNumbersOptions(sequence_overlap=number)  # type: ignore[arg-type]
        options = CODEC.decode_options(msg)
        assert options == Options(sequence_overlap=overlap)
        assert CODEC.encode_state(ENGINE.new_game(2, 1, options)).options.sequence_overlap == (
            number or pb.SEQUENCE_NUMBERS_SEQUENCE_OVERLAP_ONE_CELL
        )

    def test_an_unknown_sequence_overlap_is_refused(self) -> None:
        """A value outside the enum is refused naming the option."""
        msg = pb.SequenceNumbersOptions(sequence_overlap=9)  # type: ignore[arg-type]
        with pytest.raises(InvalidOptionsError) as error:
            CODEC.decode_options(msg)
        assert error.value.metadata == {"option": "sequence_overlap"}


class TestViewsAndEvents:
    """Views and events encode with full card descriptions."""

    def test_views_encode_along_a_playout(self) -> None:
        """Every viewer's view encodes; a seat's hand cards are described in full."""
        for state, _ in playout(4, 7):
            for viewer in (None, 0, 1, 2, 3):
                msg = CODEC.encode_view(ENGINE.view(state, viewer))
                assert len(msg.numbers) == 100
                assert len(msg.chips) == 100
                hand = () if viewer is None else state.hands[viewer]
                assert [card.id for card in msg.hand] == list(hand)
                for pile, cards in zip(msg.discards, state.discards, strict=True):
                    assert list(pile.cards) == list(cards)
                    assert pile.HasField("top") == bool(cards)

    def test_an_equation_card_is_described(self) -> None:
        """Card 0 is 44 - 43 = 1."""
        msg = CODEC.encode_event(ChipPlaced(0, 0, 0, 8)).chip_placed
        assert msg.card.kind == pb.SEQUENCE_NUMBERS_CARD_KIND_EQUATION
        assert msg.card.operator == pb.SEQUENCE_NUMBERS_OPERATOR_SUBTRACT
        assert (msg.card.left, msg.card.right, msg.card.result) == (44, 43, 1)
        assert msg.number == 1

    def test_the_public_draw_carries_no_card(self) -> None:
        """The public draw event leaves the card unset; the seat's own event describes it."""
        public = CODEC.encode_event(CardDrawn(1, HIDDEN_CARD)).card_drawn
        assert not public.HasField("card")
        private = CODEC.encode_event(CardDrawn(1, 97)).card_drawn
        assert private.card.kind == pb.SEQUENCE_NUMBERS_CARD_KIND_PLUS

    def test_every_event_of_a_playout_encodes(self) -> None:
        """Each event kind met in playouts has a message."""
        kinds = set()
        for seed in SEEDS:
            for _, events in playout(2, seed):
                for body in events:
                    kinds.add(CODEC.encode_event(body).WhichOneof("kind"))
        assert {"chip_placed", "card_drawn", "sequence_completed", "team_won"} <= kinds

    def test_the_choice_of_five_is_in_views_and_its_event(self) -> None:
        """The pending choice is in every view and in the event that asks for it."""
        _, pending, events = place(DIAGONAL, 36)
        for viewer in (None, 0, 1):
            choice = CODEC.encode_view(ENGINE.view(pending, viewer)).sequence_choice
            assert (choice.seat, choice.team, choice.cell) == (0, 0, 36)
            assert [tuple(five.cells) for five in choice.choices] == [CORNER_FIVE, LOWER_FIVE]
        asked = [e.body for e in events if isinstance(e.body, SequenceChoice)]
        msg = CODEC.encode_event(asked[0])
        assert msg.WhichOneof("kind") == "sequence_choice_required"
        assert msg.sequence_choice_required.cell == 36
        assert not CODEC.encode_view(ENGINE.view(ENGINE.new_game(2, 1, Options()), None)).HasField(
            "sequence_choice"
        )

    def test_an_unknown_event_is_an_error(self) -> None:
        """Only this game's events encode."""
        with pytest.raises(TypeError):
            CODEC.encode_event(object())
