"""The Sequence Numbers codec, in-process: states, actions, options, views and events."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from engines.errors import InvalidStateError, MalformedActionError
from engines.prng import Rng
from engines.sequence_numbers import ENGINE
from engines.sequence_numbers.rules import (
    HIDDEN_CARD,
    WINDOWS,
    CardDrawn,
    ChipPlaced,
    Discard,
    Exchange,
    Options,
    Play,
    State,
)
from ordo.v1 import sequence_numbers_pb2 as pb
from service.codecs import CODECS
from service.codecs.sequence_numbers import CODEC
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

    @pytest.mark.parametrize("action", [Play(0, 8), Play(96, 55), Exchange(0), Discard(99)])
    def test_actions_round_trip(self, action: object) -> None:
        """Each kind of action encodes and decodes to itself."""
        wire = CODEC.encode_action(action).SerializeToString()  # type: ignore[arg-type]
        assert CODEC.decode_action(pb.SequenceNumbersAction.FromString(wire)) == action

    def test_card_zero_is_a_set_move(self) -> None:
        """Card id 0 is a real card: the oneof keeps the move set."""
        msg = CODEC.encode_action(Exchange(0))
        assert msg.WhichOneof("move") == "exchange_dead_card"

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

    def test_an_unknown_event_is_an_error(self) -> None:
        """Only this game's events encode."""
        with pytest.raises(TypeError):
            CODEC.encode_event(object())
