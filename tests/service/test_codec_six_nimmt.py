"""The 6 nimmt! codec: states, actions, options, views and events to their messages and back."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engines.base import Event
from engines.errors import InvalidOptionsError, InvalidStateError, MalformedActionError
from engines.prng import Rng
from engines.six_nimmt import ENGINE, Options, State
from engines.six_nimmt.data import ZERO_CARD
from engines.six_nimmt.rules import (
    DEFAULT_THRESHOLD,
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
)
from ordo.v1 import six_nimmt_pb2 as pb
from service.codecs.base import MAX_LISTS, groups_part
from service.codecs.six_nimmt import CODEC
from tests.service.state_parts import assert_parts_cover_the_state, assert_serialized_in_parts

OPTIONS = {
    "default": Options(threshold=30),
    "zero_card": Options(zero_card=True, end=EndRule.FIXED_HANDS, hands=2),
    "tactical": Options(tactical_deck=True, threshold=25),
    "cheapest": Options(too_low_rule=TooLowRule.TAKE_CHEAPEST_ROW, end=EndRule.FIXED_HANDS),
    "everything": Options(
        too_low_rule=TooLowRule.TAKE_CHEAPEST_ROW,
        end=EndRule.FIXED_HANDS,
        hands=3,
        tactical_deck=True,
        zero_card=True,
    ),
}
EVENT_FIELDS = {
    CardSelected: "card_selected",
    CardsRevealed: "cards_revealed",
    CardPlaced: "card_placed",
    RowTaken: "row_taken",
    RowChoiceRequired: "row_choice_required",
    HandEnded: "hand_ended",
    HandDealt: "hand_dealt",
}


def playout(options: Options, seats: int, seed: int) -> Iterator[tuple[State, tuple[Event, ...]]]:
    """Every state of a random game (the first with no events) and the events that led to it."""
    state = ENGINE.new_game(seats, seed, options)
    yield state, ()
    rng = Rng(seed)
    while not ENGINE.status(state).finished:
        seat = ENGINE.seats_to_act(state)[0]
        transition = ENGINE.apply(state, seat, rng.choice(ENGINE.legal_actions(state, seat)))
        state = transition.state
        yield state, transition.events


def round_trip(state: State) -> State:
    """The state encoded, serialized, parsed and decoded again."""
    wire = CODEC.encode_state(state).SerializeToString(deterministic=True)
    return CODEC.decode_state(
        pb.SixNimmtState.FromString(wire), state.rules_version, state.revision
    )


class TestStates:
    """Every state of a game survives the wire unchanged."""

    @pytest.mark.parametrize("name", sorted(OPTIONS))
    @pytest.mark.parametrize("seats", [2, 4, 10])
    def test_states_of_a_playout_round_trip(self, name: str, seats: int) -> None:
        """Each state along a random playout decodes to the state that was encoded."""
        for state, _ in playout(OPTIONS[name], seats, seed=seats * 31):
            assert round_trip(state) == state

    def test_a_pending_row_choice_round_trips(self) -> None:
        """A revealed turn waiting on a Rule 4 choice keeps its selections and placed count."""
        pending = next(state for state, _ in playout(Options(), 4, seed=3) if state.revealed)
        assert round_trip(pending) == pending

    def test_a_pending_zero_card_round_trips(self) -> None:
        """A hidden zero card selection survives the wire as 0, and -1 for seats yet to select."""
        state = ENGINE.new_game(3, 5, OPTIONS["zero_card"])
        state = ENGINE.apply(state, 1, Select(ZERO_CARD)).state
        assert state.selections == (NO_SELECTION, ZERO_CARD, NO_SELECTION)
        assert round_trip(state) == state

    def test_the_encoding_is_deterministic(self) -> None:
        """The same state always serializes to the same bytes."""
        state = ENGINE.new_game(4, 8, Options())
        first = CODEC.encode_state(state).SerializeToString(deterministic=True)
        assert CODEC.encode_state(replace(state)).SerializeToString(deterministic=True) == first

    def test_the_generator_state_keeps_all_64_bits(self) -> None:
        """A generator state with the top bit set round-trips."""
        state = replace(ENGINE.new_game(4, 8, Options()), rng_state=(1 << 64) - 1)
        assert round_trip(state).rng_state == (1 << 64) - 1

    @pytest.mark.parametrize("name", sorted(OPTIONS))
    @pytest.mark.parametrize("seats", [2, 4, 10])
    def test_serialized_in_parts(self, name: str, seats: int) -> None:
        """The parts of each state of a playout, encoded afresh or reused from the state before
        it, join into protobuf's serialization of the state."""
        states = (state for state, _ in playout(OPTIONS[name], seats, seed=seats * 13))
        assert_serialized_in_parts(CODEC, states)

    @given(
        st.lists(
            st.lists(st.one_of(st.integers(0, 127), st.integers(0, 2**32 - 1)), max_size=140),
            max_size=12,
        ).map(lambda groups: tuple(map(tuple, groups)))
    )
    def test_groups_are_encoded_as_protobuf_encodes_them(
        self, groups: tuple[tuple[int, ...], ...]
    ) -> None:
        """A list of lists in parts is its flat items and its sizes as protobuf writes them,
        small values (one byte each) or large, a list longer than 127 items, empty lists or
        none at all."""
        msg = pb.SixNimmtState()
        msg.hand_cards.extend(value for group in groups for value in group)
        msg.hand_lengths.extend(map(len, groups))
        assert groups_part(pb.SixNimmtState, "hand_cards", "hand_lengths")(groups) == (
            msg.SerializeToString()
        )

    @pytest.mark.parametrize("size", [127, 128, 300])
    def test_a_list_of_more_than_127_small_items_has_a_size_of_two_bytes(self, size: int) -> None:
        """Every item fits in a byte, but a size need not: a list of 128 cards or more has its
        size written as a varint of two bytes, as protobuf writes it."""
        groups = ((1, 2), tuple(card % 100 for card in range(size)), ())
        msg = pb.SixNimmtState()
        msg.taken_cards.extend(card for group in groups for card in group)
        msg.taken_lengths.extend(map(len, groups))
        encode = groups_part(pb.SixNimmtState, "taken_cards", "taken_lengths")
        assert encode(groups) == msg.SerializeToString()

    def test_the_parts_are_the_whole_state(self) -> None:
        """Every field of the engine state is a part, but the envelope's version and revision."""
        assert_parts_cover_the_state(CODEC, State)

    def test_a_state_without_options_is_refused(self) -> None:
        """A state message without options is an inconsistent state."""
        msg = CODEC.encode_state(ENGINE.new_game(4, 8, Options()))
        msg.ClearField("options")
        with pytest.raises(InvalidStateError):
            CODEC.decode_state(msg, 1, 0)

    def test_an_unknown_rule_in_a_state_is_refused(self) -> None:
        """An enum number the codec does not know, inside a state, is an inconsistent state."""
        msg = CODEC.encode_state(ENGINE.new_game(4, 8, Options()))
        msg.options.too_low_rule = 99  # type: ignore[assignment]
        with pytest.raises(InvalidStateError):
            CODEC.decode_state(msg, 1, 0)

    @pytest.mark.parametrize("field", ["row_lengths", "hand_lengths", "taken_lengths"])
    def test_lengths_that_do_not_add_up_are_refused(self, field: str) -> None:
        """A flat list of cards whose lengths do not add up to its cards is an inconsistent
        state."""
        msg = CODEC.encode_state(ENGINE.new_game(4, 8, Options()))
        getattr(msg, field).append(1)
        with pytest.raises(InvalidStateError):
            CODEC.decode_state(msg, 1, 0)

    @pytest.mark.parametrize("field", ["row_lengths", "hand_lengths", "taken_lengths"])
    def test_lengths_that_leave_cards_over_are_refused(self, field: str) -> None:
        """Lengths that add up to fewer cards than the list holds are refused as well: the
        cards past them are not dropped silently."""
        msg = CODEC.encode_state(ENGINE.new_game(4, 8, Options()))
        if field == "taken_lengths":
            msg.taken_cards.append(msg.deck.pop())  # a card taken that no length counts
        else:
            getattr(msg, field)[-1] -= 1
        with pytest.raises(InvalidStateError, match="do not add up"):
            CODEC.decode_state(msg, 1, 0)

    @pytest.mark.parametrize(
        ("field", "name"),
        [("row_lengths", "row"), ("hand_lengths", "hand"), ("taken_lengths", "taken")],
    )
    def test_more_lengths_than_a_state_holds_are_refused_by_their_count(
        self, field: str, name: str
    ) -> None:
        """More lengths than ``MAX_LISTS`` are refused by their count, before the cards are cut
        into that many lists (a field of a hundred thousand zero lengths takes a few bytes)."""
        msg = CODEC.encode_state(ENGINE.new_game(4, 8, Options()))
        lengths = getattr(msg, field)
        lengths.extend([0] * (MAX_LISTS + 1 - len(lengths)))
        with pytest.raises(
            InvalidStateError, match=f"^{name} lengths: {MAX_LISTS + 1} entries, more than"
        ):
            CODEC.decode_state(msg, 1, 0)

    def test_a_decoded_corrupt_state_fails_validation(self) -> None:
        """The codec decodes faithfully; a duplicated card is caught by validation."""
        msg = CODEC.encode_state(ENGINE.new_game(4, 8, Options()))
        msg.deck[0] = msg.hand_cards[0]
        with pytest.raises(InvalidStateError):
            ENGINE.validate(CODEC.decode_state(msg, 1, 0))


class TestActions:
    """Actions round-trip; a message without a move is malformed."""

    @pytest.mark.parametrize(
        "action", [Select(1), Select(104), Select(ZERO_CARD), ChooseRow(0), ChooseRow(3)]
    )
    def test_actions_round_trip(self, action: Any) -> None:
        """An action encodes, serializes and decodes to itself."""
        wire = CODEC.encode_action(action).SerializeToString()
        assert CODEC.decode_action(pb.SixNimmtAction.FromString(wire)) == action

    def test_the_zero_card_is_a_set_move(self) -> None:
        """Selecting the zero card sets the move even though its value is 0."""
        assert CODEC.encode_action(Select(ZERO_CARD)).WhichOneof("move") == "select_card"

    def test_an_action_without_a_move_is_malformed(self) -> None:
        """An empty action message is refused as malformed."""
        with pytest.raises(MalformedActionError):
            CODEC.decode_action(pb.SixNimmtAction())

    def test_every_legal_action_round_trips(self) -> None:
        """Every legal action along a game with the zero card round-trips."""
        for state, _ in playout(OPTIONS["zero_card"], 3, seed=4):
            for seat in ENGINE.seats_to_act(state):
                for action in ENGINE.legal_actions(state, seat):
                    assert CODEC.decode_action(CODEC.encode_action(action)) == action


class TestOptions:
    """Options decode with their defaults; unknown values are refused."""

    def test_empty_options_are_the_defaults(self) -> None:
        """An empty options message means the engine's default options."""
        assert CODEC.decode_options(pb.SixNimmtOptions()) == ENGINE.default_options()

    def test_zero_threshold_and_hands_mean_the_defaults(self) -> None:
        """Threshold 0 means 66 and hands 0 means 1."""
        options = CODEC.decode_options(pb.SixNimmtOptions(threshold=0, hands=0))
        assert (options.threshold, options.hands) == (DEFAULT_THRESHOLD, 1)

    def test_every_option_is_decoded(self) -> None:
        """Each field of the message reaches the engine options."""
        msg = pb.SixNimmtOptions(
            too_low_rule=pb.SIX_NIMMT_TOO_LOW_RULE_TAKE_CHEAPEST_ROW,
            end=pb.SIX_NIMMT_END_RULE_FIXED_HANDS,
            threshold=40,
            hands=3,
            tactical_deck=True,
            zero_card=True,
        )
        assert CODEC.decode_options(msg) == Options(
            too_low_rule=TooLowRule.TAKE_CHEAPEST_ROW,
            end=EndRule.FIXED_HANDS,
            threshold=40,
            hands=3,
            tactical_deck=True,
            zero_card=True,
        )

    @pytest.mark.parametrize("field", ["too_low_rule", "end"])
    def test_an_unknown_enum_value_is_refused(self, field: str) -> None:
        """An enum number the codec does not know is an invalid option."""
        msg = pb.SixNimmtOptions()
        setattr(msg, field, 7)
        with pytest.raises(InvalidOptionsError) as error:
            CODEC.decode_options(msg)
        assert error.value.metadata == {"option": field}


class TestViews:
    """Views encode every field, for seats and spectators."""

    @pytest.mark.parametrize("name", sorted(OPTIONS))
    def test_views_along_a_playout_encode_every_field(self, name: str) -> None:
        """Each field of the message equals the engine view's, for every viewer."""
        for state, _ in playout(OPTIONS[name], 3, seed=6):
            for viewer in (0, 1, 2, None):
                view = ENGINE.view(state, viewer)
                msg = pb.SixNimmtView.FromString(CODEC.encode_view(view).SerializeToString())
                assert [tuple(row.cards) for row in msg.rows] == list(view.rows)
                assert tuple(msg.hand) == view.hand
                assert tuple(msg.selected) == view.selected
                assert tuple(msg.revealed) == view.revealed
                assert msg.own_selection == view.own_selection
                assert tuple(msg.penalties) == view.penalties
                assert [tuple(t.cards) for t in msg.taken] == list(view.taken)
                assert tuple(msg.zero_card_available) == view.zero_card_available
                assert (msg.hand_number, msg.turn) == (view.hand_number, view.turn)
                assert tuple(msg.hand_sizes) == view.hand_sizes
                assert CODEC.decode_options(msg.options) == view.options

    def test_a_view_never_holds_another_hand(self) -> None:
        """The serialized view of a seat holds none of the others' hands or the deck."""
        state = ENGINE.new_game(4, 8, Options())
        msg = CODEC.encode_view(ENGINE.view(state, 0))
        shown = set(msg.hand)
        assert shown == set(state.hands[0])
        assert not shown & {card for hand in state.hands[1:] for card in hand}
        assert "deck" not in pb.SixNimmtView.DESCRIPTOR.fields_by_name


class TestEvents:
    """Every event type encodes into its field of the event message."""

    def test_every_event_type_occurs_and_encodes(self) -> None:
        """Games with every option produce all 7 event types, each encoding to its field."""
        seen: set[type] = set()
        for name in ("default", "zero_card"):
            for _, events in playout(OPTIONS[name], 4, seed=12):
                for event in events:
                    msg = CODEC.encode_event(event.body)
                    assert msg.WhichOneof("kind") == EVENT_FIELDS[type(event.body)]
                    seen.add(type(event.body))
        assert seen == set(EVENT_FIELDS)

    def test_card_selected(self) -> None:
        """CardSelected keeps the seat and the card, -1 in the public event."""
        assert CODEC.encode_event(CardSelected(2, NO_SELECTION)).card_selected.card == -1
        msg = CODEC.encode_event(CardSelected(2, 17)).card_selected
        assert (msg.seat, msg.card) == (2, 17)

    def test_cards_revealed(self) -> None:
        """CardsRevealed keeps every seat's card, 0 for the zero card."""
        msg = CODEC.encode_event(CardsRevealed((5, ZERO_CARD, 99))).cards_revealed
        assert tuple(msg.cards) == (5, ZERO_CARD, 99)

    def test_card_placed(self) -> None:
        """CardPlaced keeps the seat, the card and the row."""
        msg = CODEC.encode_event(CardPlaced(1, 44, 3)).card_placed
        assert (msg.seat, msg.card, msg.row) == (1, 44, 3)

    def test_row_taken(self) -> None:
        """RowTaken keeps the seat, the row, its cards in order and their bullheads."""
        msg = CODEC.encode_event(RowTaken(2, 0, (12, 14, 15, 21, 26), 6)).row_taken
        assert (msg.seat, msg.row, tuple(msg.cards), msg.bullheads) == (
            2,
            0,
            (12, 14, 15, 21, 26),
            6,
        )

    def test_row_choice_required(self) -> None:
        """RowChoiceRequired keeps the seat and its card."""
        msg = CODEC.encode_event(RowChoiceRequired(0, 3)).row_choice_required
        assert (msg.seat, msg.card) == (0, 3)

    def test_hand_ended(self) -> None:
        """HandEnded keeps the hand number and the totals."""
        msg = CODEC.encode_event(HandEnded(2, (7, 0, 66))).hand_ended
        assert (msg.hand_number, tuple(msg.penalties)) == (2, (7, 0, 66))

    def test_hand_dealt(self) -> None:
        """HandDealt keeps the hand number and the four starting cards."""
        msg = CODEC.encode_event(HandDealt(3, (8, 40, 77, 101))).hand_dealt
        assert (msg.hand_number, tuple(msg.rows)) == (3, (8, 40, 77, 101))

    def test_a_foreign_event_is_refused(self) -> None:
        """A body that is no 6 nimmt! event raises TypeError."""
        with pytest.raises(TypeError):
            CODEC.encode_event("nothing")
