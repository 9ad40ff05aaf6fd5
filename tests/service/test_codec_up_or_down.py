"""The Up or Down? codec: engine values survive the trip through their proto messages."""

from __future__ import annotations

import pytest

from engines.errors import InvalidOptionsError, InvalidStateError, MalformedActionError
from engines.prng import Rng
from engines.up_or_down import ENGINE, Options, State
from engines.up_or_down.data import Length
from engines.up_or_down.rules import DiscardScoring, Turn, TurnPlayed
from ordo.render.up_or_down import render_events, render_view
from ordo.v1 import common_pb2 as common
from ordo.v1 import up_or_down_pb2 as pb
from service.calls.encoding import encode_status
from service.codecs.up_or_down import CODEC
from tests.service.state_parts import assert_parts_cover_the_state, assert_serialized_in_parts

SEED = 11


def _states(seats: int, options: Options) -> list[State]:
    """Every state of one random game."""
    state = ENGINE.new_game(seats, SEED, options)
    states = [state]
    rng = Rng(SEED)
    while to_act := ENGINE.seats_to_act(state):
        state = ENGINE.apply(
            state, to_act[0], ENGINE.suggest(state, to_act[0], "random", rng)
        ).state
        states.append(state)
    return states


def _round_trip(state: State) -> State:
    wire = pb.UpOrDownState.FromString(CODEC.encode_state(state).SerializeToString())
    return CODEC.decode_state(wire, state.rules_version, state.revision)


class TestState:
    """Whole states."""

    @pytest.mark.parametrize(
        "options",
        [Options(), Options(length=Length.LONG, discard_scoring=DiscardScoring.PER_ROW)],
    )
    def test_round_trip_along_a_game(self, options: Options) -> None:
        """Every state of a game decodes to an equal state that validates."""
        for state in _states(3, options):
            decoded = _round_trip(state)
            assert decoded == state
            ENGINE.validate(decoded)

    @pytest.mark.parametrize(
        ("seats", "options"),
        [
            (2, Options()),
            (3, Options(length=Length.LONG, discard_scoring=DiscardScoring.PER_ROW)),
            (5, Options()),
        ],
    )
    def test_serialized_in_parts(self, seats: int, options: Options) -> None:
        """The parts of each state of a game, encoded afresh or reused from the state before
        it, join into protobuf's serialization of the state."""
        assert_serialized_in_parts(CODEC, _states(seats, options))

    def test_the_parts_are_the_whole_state(self) -> None:
        """Every field of the engine state is a part, but the envelope's version and revision."""
        assert_parts_cover_the_state(CODEC, State)

    def test_state_without_options_rejected(self) -> None:
        """A state message must carry its options."""
        with pytest.raises(InvalidStateError):
            CODEC.decode_state(pb.UpOrDownState(), 1, 0)

    def test_row_sizes_that_do_not_add_up_rejected(self) -> None:
        """The row sizes must cut the flat row cards exactly, and the rows per display the rows."""
        state = next(s for s in _states(2, Options()) if any(s.displays))
        for field in ("row_sizes", "display_rows"):
            msg = CODEC.encode_state(state)
            getattr(msg, field)[0] += 1
            with pytest.raises(InvalidStateError):
                CODEC.decode_state(msg, 1, 0)

    def test_unknown_option_value_in_state_rejected(self) -> None:
        """An unknown enum number inside a state is an inconsistent state."""
        msg = CODEC.encode_state(ENGINE.new_game(2, SEED, Options()))
        msg.options.length = 9  # type: ignore[assignment]
        with pytest.raises(InvalidStateError):
            CODEC.decode_state(msg, 1, 0)


class TestAction:
    """Actions."""

    def test_every_legal_action_round_trips(self) -> None:
        """Each legal action of a game decodes to an equal action."""
        for state in _states(2, Options())[:-1:5]:
            (seat,) = ENGINE.seats_to_act(state)
            for action in ENGINE.legal_actions(state, seat):
                wire = pb.UpOrDownAction.FromString(CODEC.encode_action(action).SerializeToString())
                assert CODEC.decode_action(wire) == action

    @pytest.mark.parametrize("unset", ["take", "placement", "draw"])
    def test_unset_part_is_malformed(self, unset: str) -> None:
        """An action with a part left unset is malformed."""
        state = ENGINE.new_game(2, SEED, Options())
        msg = CODEC.encode_action(ENGINE.legal_actions(state, 0)[0])
        msg.ClearField(unset)  # type: ignore[arg-type]
        with pytest.raises(MalformedActionError):
            CODEC.decode_action(msg)


class TestOptions:
    """New-game options."""

    def test_unset_options_take_defaults(self) -> None:
        """An empty options message means the default options."""
        assert CODEC.decode_options(pb.UpOrDownOptions()) == ENGINE.default_options()

    def test_set_options_decode(self) -> None:
        """Each option decodes to its engine value."""
        msg = pb.UpOrDownOptions(
            length=pb.UP_OR_DOWN_LENGTH_LONG,
            discard_scoring=pb.UP_OR_DOWN_DISCARD_SCORING_PER_ROW,
        )
        assert CODEC.decode_options(msg) == Options(Length.LONG, DiscardScoring.PER_ROW)

    def test_unknown_option_rejected(self) -> None:
        """An unknown enum number in the options is refused with the option's name."""
        msg = pb.UpOrDownOptions(discard_scoring=7)  # type: ignore[arg-type]
        with pytest.raises(InvalidOptionsError) as error:
            CODEC.decode_options(msg)
        assert error.value.metadata == {"option": "discard_scoring"}


class TestViewAndEvents:
    """Views and events encode."""

    def test_views_encode_for_every_viewer(self) -> None:
        """A seat's view carries its hand, a spectator's none, both the card colours."""
        state = _states(2, Options())[10]
        for viewer in (None, 0, 1):
            msg = CODEC.encode_view(ENGINE.view(state, viewer))
            assert list(msg.hand) == ([] if viewer is None else list(state.hands[viewer]))
            assert list(msg.circle) == list(state.circle)
            assert len(msg.card_colours) == 42
            assert pb.UP_OR_DOWN_COLOUR_UNSPECIFIED not in msg.card_colours

    def test_view_pile_sizes(self) -> None:
        """The view's pile sizes are the sizes of the face-down and face-up piles, each its own."""
        state = next(
            s for s in _states(2, Options()) if s.face_up and len(s.face_down) != len(s.face_up)
        )
        msg = CODEC.encode_view(ENGINE.view(state, None))
        assert (msg.face_down_size, msg.face_up_size) == (len(state.face_down), len(state.face_up))
        assert msg.face_up_top == state.face_up[0]

    def test_view_scores(self) -> None:
        """The view carries each seat's score as the table stands, mid-game and at the end,
        where it is the outcome's."""
        states = _states(2, Options())
        middle = next(s for s in states if all(s.displays))
        for state in (middle, states[-1]):
            view = ENGINE.view(state, 0)
            assert all(view.scores)
            assert list(CODEC.encode_view(view).scores) == list(view.scores)
        outcome = ENGINE.outcome(states[-1])
        assert outcome is not None
        assert list(CODEC.encode_view(ENGINE.view(states[-1], None)).scores) == list(outcome.scores)

    def test_turn_played_encodes_every_part(self) -> None:
        """Each turn of a game encodes with its seat, cards, placement, row, the cards its
        abandoned row discarded, its draw, the card drawn and the new face-up top."""
        state = ENGINE.new_game(2, SEED, Options())
        rng = Rng(SEED)
        discarded = []
        while to_act := ENGINE.seats_to_act(state):
            transition = ENGINE.apply(
                state, to_act[0], ENGINE.suggest(state, to_act[0], "random", rng)
            )
            body = transition.events[0].body
            assert isinstance(body, TurnPlayed)
            msg = CODEC.encode_event(body).turn_played
            assert (msg.seat, msg.card, msg.taken, msg.row, msg.discarded) == (
                body.seat,
                body.card,
                body.taken,
                body.row,
                body.discarded,
            )
            assert (msg.drawn, msg.face_up_top) == (body.drawn, body.face_up_top)
            assert (
                pb.UpOrDownPlacement.Name(msg.placement)
                == f"UP_OR_DOWN_PLACEMENT_{body.placement.value}"
            )
            assert pb.UpOrDownDraw.Name(msg.draw) == f"UP_OR_DOWN_DRAW_{body.draw.value}"
            discarded.append(body.discarded)
            state = transition.state
        assert max(discarded) > 1

    def test_events_encode(self) -> None:
        """Every event of a game encodes to its message."""
        state = ENGINE.new_game(2, SEED, Options())
        rng = Rng(SEED)
        kinds = set()
        while to_act := ENGINE.seats_to_act(state):
            action: Turn = ENGINE.suggest(state, to_act[0], "random", rng)
            transition = ENGINE.apply(state, to_act[0], action)
            for event in transition.events:
                kinds.add(CODEC.encode_event(event.body).WhichOneof("kind"))
            state = transition.state
        assert kinds == {"turn_played", "card_drawn", "game_scored"}


class TestRendering:
    """The demo's text rendering reads the encoded messages."""

    def test_view_and_events_render(self) -> None:
        """A spectator view draws the circle; each event passed gives one line."""
        state = ENGINE.new_game(2, SEED, Options())
        events: list[common.Event] = []
        rng = Rng(SEED)
        while to_act := ENGINE.seats_to_act(state):
            transition = ENGINE.apply(
                state, to_act[0], ENGINE.suggest(state, to_act[0], "random", rng)
            )
            events.extend(
                common.Event(
                    visible_to_seats=event.audience or (0, 1),
                    public=event.audience is None,
                    up_or_down=CODEC.encode_event(event.body),
                )
                for event in transition.events
            )
            state = transition.state
        view = common.GameView(
            status=encode_status(ENGINE.status(state)),
            up_or_down=CODEC.encode_view(ENGINE.view(state, None)),
        )
        text = render_view(view)
        assert all(str(card) in text for card in state.circle)
        assert "finished" in text
        public = [event for event in events if event.public]
        lines = render_events(public)
        assert len(lines) == len(public)
        assert lines[-1].startswith("every hand is empty")
        assert len(render_events(events)) == len(events)
