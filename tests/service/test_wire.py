"""The framing of responses assembled from serialized parts is protobuf's own encoding."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engines import registry
from engines.base import Event, Status
from engines.errors import InvalidStateError, MalformedActionError
from engines.prng import Rng
from engines.six_nimmt.rules import HAND_SIZE
from ordo.v1 import common_pb2 as common
from ordo.v1 import engine_service_pb2 as api
from service.calls import caches
from service.calls.caches import Encodings, encoding_cost
from service.calls.encoding import encode_status
from service.calls.servicer import GameEngineServicer
from service.codecs import CODECS, wire
from service.errors import RequestError
from service.telemetry.observe import CallRecord
from tests.conformance.drivers import InProcess

ONE_BYTE = encoding_cost(b"x")  # what an encoding of one byte is charged

GAMES = sorted(registry.ENGINES)
UINT64 = st.integers(min_value=0, max_value=2**64 - 1)


class TestFraming:
    """Each helper against protobuf serializing the same field."""

    @given(UINT64)
    def test_varint(self, value: int) -> None:
        """A varint is the encoding of a uint64 field, less its key."""
        encoded = common.GameState(revision=value).SerializeToString()
        field_key = wire.key(2, wire.VARINT)
        assert wire.uint_field(field_key, value) == encoded
        if value:
            assert encoded == field_key + wire.varint(value)

    @pytest.mark.parametrize("value", [0, 1, 127, 128, 16383, 16384, 2**63])
    def test_varint_kept_or_not(self, value: int) -> None:
        """The varints kept (below 16384) and those worked out each time, asked twice."""
        expected = common.GameState(revision=value).SerializeToString()[1:] or b"\x00"
        assert wire.varint(value) == expected
        assert wire.varint(value) == expected

    @pytest.mark.parametrize("value", [-1, 1.5, "1"])
    def test_a_varint_of_anything_else_is_refused(self, value: object) -> None:
        """A negative number, a float or a string has no varint: asking is a programming
        error, raised at once rather than written as some other number."""
        with pytest.raises((ValueError, TypeError)):
            wire.varint(value)  # type: ignore[arg-type]

    def test_zero_is_left_out(self) -> None:
        """proto3 writes no default value."""
        assert common.GameState(rules_version=0).SerializeToString() == b""
        assert wire.uint_field(wire.key(1, wire.VARINT), 0) == b""

    @given(st.binary(max_size=300))
    def test_length_delimited(self, payload: bytes) -> None:
        """A bytes payload is framed as protobuf frames a sub-message of those bytes."""
        inner = common.Outcome(termination=payload.hex())
        data = inner.SerializeToString()
        outer = common.GameStatus(outcome=inner).SerializeToString()
        assert wire.length_delimited(wire.key(3, wire.LENGTH_DELIMITED), data) == outer

    def test_leading_field(self) -> None:
        """The payload of a length-delimited field that opens a message, and the rest."""
        state = common.GameState(revision=300).SerializeToString()
        action = common.Action(seat=2).SerializeToString()
        request = api.ApplyActionRequest(
            state=common.GameState(revision=300), action=common.Action(seat=2)
        ).SerializeToString()
        field_key = wire.key(1, wire.LENGTH_DELIMITED)
        assert wire.leading_field(request, field_key) == (
            state,
            b"\x12" + bytes([len(action)]) + action,
        )
        assert wire.leading_field(request[len(state) + 2 :], field_key) is None  # opens with 2
        assert wire.leading_field(request[: len(state) + 1], field_key) is None  # cut short
        assert wire.leading_field(b"\x0a", field_key) is None  # no length
        assert wire.leading_field(b"\x0a" + b"\xff" * 11, field_key) is None  # no end to it
        assert wire.leading_field(b"\x0a\x00", field_key) == (b"", b"")

    @given(st.integers(min_value=0, max_value=40_000), st.binary(max_size=8))
    def test_leading_field_of_any_length(self, length: int, rest: bytes) -> None:
        """Lengths of one, two and three bytes; the message cut inside the length, or one byte
        short of the payload's end, is None."""
        field_key = wire.key(1, wire.LENGTH_DELIMITED)
        payload = bytes(range(256)) * (length // 256) + bytes(range(length % 256))
        data = field_key + wire.varint(length) + payload + rest
        assert wire.leading_field(data, field_key) == (payload, rest)
        for end in {1, 2, 3, len(data) - len(rest) - 1}:
            if 0 < end < len(data) - len(rest):
                assert wire.leading_field(data[:end], field_key) is None

    def test_an_empty_sub_message_is_present(self) -> None:
        """A set sub-message field is written even when the sub-message is empty."""
        assert wire.length_delimited(wire.key(3, wire.LENGTH_DELIMITED), b"") == (
            common.GameStatus(outcome=common.Outcome()).SerializeToString()
        )


def _expected(game: str, request: api.ApplyActionRequest) -> bytes:
    """The ApplyAction response built by protobuf from the engine's answer, field by field."""
    engine, codec = registry.get(game), CODECS[game]
    msg = request.state
    state = codec.decode_state(getattr(msg, game), msg.rules_version, msg.revision)
    seat = request.action.seat
    transition = engine.apply(state, seat, codec.decode_action(getattr(request.action, game)))
    new = transition.state
    seats = engine.seats(state)
    return api.ApplyActionResponse(
        state=common.GameState(
            rules_version=new.rules_version,
            revision=new.revision,
            **{game: codec.encode_state(new)},
        ),
        status=encode_status(engine.status(new)),
        events=[
            common.Event(
                visible_to_seats=range(seats) if event.audience is None else event.audience,
                public=event.audience is None,
                **{game: codec.encode_event(event.body)},
            )
            for event in transition.events
        ],
    ).SerializeToString()


def _served_playout(servicer: GameEngineServicer, game: str, seed: int) -> int:
    """Play a whole game through the servicer, checking every ApplyAction answer against
    protobuf's encoding of the engine's answer; the number of actions."""
    driver = InProcess(game)
    rng = Rng(seed)
    seats = registry.get(game).info.max_seats
    new = servicer.NewGame(
        api.NewGameRequest(seats=seats, seed=seed, options=common.GameOptions(**{game: {}})),
        CallRecord("NewGame"),
    )
    state, status = new.state, new.status
    actions = 0
    while not status.finished:
        seat = rng.choice(list(status.seats_to_act))
        request = api.ApplyActionRequest(state=state, action=rng.choice(driver.legal(state, seat)))
        data = servicer.ApplyAction(request, CallRecord("ApplyAction"))
        assert data == _expected(game, request)
        reply = api.ApplyActionResponse.FromString(data)
        # Parsed and serialized again, the answer is unchanged: a client that sends the state
        # back sends the very bytes the state cache knows.
        assert reply.SerializeToString() == data
        state, status = reply.state, reply.status
        actions += 1
    return actions


def _new_game(
    servicer: GameEngineServicer, game: str = "six_nimmt", seed: int = 5
) -> api.NewGameResponse:
    """A new two-seat game of ``game``."""
    return servicer.NewGame(
        api.NewGameRequest(seats=2, seed=seed, options=common.GameOptions(**{game: {}})),
        CallRecord("NewGame"),
    )


def _select(new: api.NewGameResponse, index: int = 0) -> common.Action:
    """In a new two-seat 6 nimmt! game, the first seat to act selects the ``index``-th card of
    its hand."""
    seat = new.status.seats_to_act[0]
    action = common.Action(seat=seat)
    action.six_nimmt.select_card = new.state.six_nimmt.hand_cards[seat * HAND_SIZE + index]
    return action


class TestRequestsAsSent:
    """ApplyAction given the request's bytes answers as given the parsed request."""

    @pytest.mark.parametrize("game", GAMES)
    def test_same_answers(self, game: str) -> None:
        """Along a whole game, sent as bytes to one servicer (which knows the states it returned,
        and, the second time, every action) and as messages to another that knows none."""
        raw, parsed = GameEngineServicer(), GameEngineServicer(state_cache_bytes=0)
        for _ in range(2):
            driver = InProcess(game)
            rng = Rng(3)
            seats = registry.get(game).info.min_seats
            new = raw.NewGame(
                api.NewGameRequest(seats=seats, seed=3, options=common.GameOptions(**{game: {}})),
                CallRecord("NewGame"),
            )
            state, status = new.state, new.status
            while not status.finished:
                seat = rng.choice(list(status.seats_to_act))
                request = api.ApplyActionRequest(
                    state=state, action=rng.choice(driver.legal(state, seat))
                )
                data = raw.ApplyAction(request.SerializeToString(), CallRecord("ApplyAction"))
                assert data == parsed.ApplyAction(request, CallRecord("ApplyAction"))
                reply = api.ApplyActionResponse.FromString(data)
                state, status = reply.state, reply.status
        assert raw.actions

    def test_a_kept_action_is_checked_against_the_state(self) -> None:
        """The bytes of a 6 nimmt! action, kept after a 6 nimmt! state, still cannot apply to
        another game's state; the message names both games, each with its article."""
        servicer = GameEngineServicer()
        six = _new_game(servicer, "six_nimmt")
        action = _select(six)
        servicer.ApplyAction(
            api.ApplyActionRequest(state=six.state, action=action).SerializeToString(),
            CallRecord("ApplyAction"),
        )
        assert len(servicer.actions) == 1
        other = api.ApplyActionRequest(state=_new_game(servicer, "up_or_down").state, action=action)
        with pytest.raises(MalformedActionError) as caught:
            servicer.ApplyAction(other.SerializeToString(), CallRecord("ApplyAction"))
        assert caught.value.reason == "GAME_MISMATCH"
        assert str(caught.value) == "a six_nimmt action cannot apply to an up_or_down state"

    def test_the_kept_actions_are_bounded(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """When full, the kept actions are dropped and kept again from the next one."""
        monkeypatch.setattr(caches, "ACTION_BYTES", 3 * caches.KEPT_ACTION_COST)
        servicer = GameEngineServicer()
        new = _new_game(servicer)
        sizes = []
        for card in range(5):
            request = api.ApplyActionRequest(state=new.state, action=_select(new, card))
            servicer.ApplyAction(request.SerializeToString(), CallRecord("ApplyAction"))
            sizes.append(len(servicer.actions))
        assert sizes == [1, 2, 3, 1, 2]

    def test_long_action_bytes_are_not_kept(self) -> None:
        """Bytes after the state longer than an action needs (unknown fields, say) are decoded
        but not kept: a caller cannot fill a worker's memory with them."""
        servicer = GameEngineServicer()
        new = _new_game(servicer)
        request = api.ApplyActionRequest(state=new.state, action=_select(new)).SerializeToString()
        unknown = wire.key(99, wire.LENGTH_DELIMITED) + bytes([100]) + bytes(100)  # field 99
        answer = servicer.ApplyAction(request + unknown, CallRecord("ApplyAction"))
        assert answer == GameEngineServicer().ApplyAction(request, CallRecord("ApplyAction"))
        assert not servicer.actions

    def test_a_state_sent_twice_is_merged(self) -> None:
        """A request holding the state field twice means what protobuf makes of it (the two
        merged), not the first one alone, even when the first is a state the worker knows: here
        a new game at revision 5, which no action led to."""
        servicer = GameEngineServicer()
        new = _new_game(servicer, seed=9)
        first = api.ApplyActionRequest(state=new.state, action=_select(new)).SerializeToString()
        tampered = common.GameState(revision=new.state.revision + 5)
        second = api.ApplyActionRequest(state=tampered).SerializeToString()
        merged = api.ApplyActionRequest.FromString(first + second)
        assert merged.state.revision == new.state.revision + 5
        with pytest.raises(InvalidStateError) as sent:
            servicer.ApplyAction(first + second, CallRecord("ApplyAction"))
        with pytest.raises(InvalidStateError) as parsed:
            GameEngineServicer(0).ApplyAction(merged, CallRecord("ApplyAction"))
        assert sent.value.message == parsed.value.message
        assert "the revision 5 does not follow" in sent.value.message

    def test_unparsable_bytes_are_a_malformed_request(self) -> None:
        """A state that is no GameState, or a rest that is no message, is MALFORMED_REQUEST."""
        servicer = GameEngineServicer()
        for raw in (b"\x0a\x02\xff\xff", b"\x0a\x00\xff", b"\xff"):
            with pytest.raises(RequestError) as caught:
                servicer.ApplyAction(raw, CallRecord("ApplyAction"))
            assert caught.value.reason == "MALFORMED_REQUEST"


class TestAssembledResponses:
    """ApplyAction's answer, put together from parts, is what protobuf would serialize."""

    @pytest.mark.parametrize("game", GAMES)
    def test_byte_identical_to_protobuf(self, game: str) -> None:
        """Every answer of a whole game, with the statuses and events encoded afresh, and again
        with the encodings kept from the first time: those of the values the engines share
        (statuses, frequent events) are used again."""
        servicer = GameEngineServicer()
        assert _served_playout(servicer, game, seed=11) > 0
        kept = len(servicer.encodings)
        assert kept > 0
        _served_playout(servicer, game, seed=11)
        assert len(servicer.encodings) - kept < kept  # the second game encoded fewer

    def test_the_kept_encodings_are_bounded(self) -> None:
        """When full, the new encodings are dropped and kept again from the next one; so are
        those asked for again."""
        encodings = Encodings(2 * ONE_BYTE)
        values = [Status((seat,), False, None) for seat in range(5)]
        for value in values:
            encodings.put(value, None, bytes(value.seats_to_act))
            assert len(encodings) <= 2
        assert encodings.get(values[4]) == b"\x04"
        assert encodings.get(values[0]) is None
        for value in values:
            encodings.put(value, None, bytes(value.seats_to_act))
            assert encodings.get(value) == bytes(value.seats_to_act)  # now asked for again
            assert len(encodings) <= 4
        assert encodings.get(values[4]) == b"\x04"
        assert encodings.get(values[0]) is None

    def test_an_encoding_asked_for_again_leaves_room_for_new_ones(self) -> None:
        """An encoding that moves to the table of those asked for again no longer takes room
        among the new ones: two more new ones fit where two did."""
        encodings = Encodings(2 * ONE_BYTE)
        first, second, third = (Status((seat,), False, None) for seat in range(3))
        encodings.put(first, None, b"a")
        assert encodings.get(first) == b"a"
        encodings.put(second, None, b"b")
        encodings.put(third, None, b"c")
        assert encodings.get(second) == b"b"

    def test_new_encodings_do_not_push_out_those_asked_for_again(self) -> None:
        """A value asked for a second time stays kept however many new values follow it, as a
        shared status does among the new events of every action."""
        encodings = Encodings(4 * ONE_BYTE)
        shared = Status((1,), False, None)
        encodings.put(shared, None, b"s")
        assert encodings.get(shared) == b"s"
        for seat in range(100):
            new = Status((seat,), False, None)
            encodings.put(new, None, b"n")
            assert encodings.get(shared) == b"s"

    def test_kept_per_object_and_context(self) -> None:
        """A value finds the encoding kept for it in its context; an equal value (another
        object) and the same value in another context do not."""
        encodings = Encodings(8 * ONE_BYTE)
        first, equal = Status((1,), False, None), Status((1,), False, None)
        assert first == equal
        assert first is not equal
        encodings.put(first, "four seats", b"a")
        assert encodings.get(first, "four seats") == b"a"
        assert encodings.get(equal, "four seats") is None
        assert encodings.get(first, "two seats") is None
        encodings.put(first, "two seats", b"b")  # the same value, kept in another context
        assert encodings.get(first, "four seats") == b"a"
        assert encodings.get(first, "two seats") == b"b"

    def test_only_the_object_kept_finds_its_encoding(self) -> None:
        """An encoding is found by the object it was kept for alone, even once the caller has
        let go of that object, whose id a new object may then take."""
        encodings = Encodings(8 * ONE_BYTE)
        encodings.put(Status((1,), False, None), None, b"a")
        for _ in range(100):
            assert encodings.get(Status((2,), False, None)) is None

    def test_a_public_event_shared_by_games_of_different_seat_counts(self) -> None:
        """6 nimmt! makes the public event of a seat's selection once and shares it among all
        games: one worker sends it to every seat of a two-seat game, then of a four-seat one
        (an encoding or an audience kept for the first must not serve the second)."""
        servicer = GameEngineServicer()
        games = {2: _new_game(servicer)}
        card = games[2].state.six_nimmt.hand_cards[0]  # seat 0's lowest card
        for seed in range(1, 100):  # a four-seat deal that gives seat 0 that card too
            games[4] = servicer.NewGame(
                api.NewGameRequest(seats=4, seed=seed, options=common.GameOptions(six_nimmt={})),
                CallRecord("NewGame"),
            )
            if card in games[4].state.six_nimmt.hand_cards[:HAND_SIZE]:
                break
        for seats, new in games.items():
            action = common.Action(seat=0)
            action.six_nimmt.select_card = card
            request = api.ApplyActionRequest(state=new.state, action=action)
            data = servicer.ApplyAction(request, CallRecord("ApplyAction"))
            assert data == _expected("six_nimmt", request)
            events = api.ApplyActionResponse.FromString(data).events
            public = [list(event.visible_to_seats) for event in events if event.public]
            assert public == [list(range(seats))]

    @pytest.mark.parametrize("game", GAMES)
    @pytest.mark.parametrize("audience", [None, (), (0,), (2,), (0, 3), (1, 2, 3)])
    def test_an_event_for_any_audience(self, game: str, audience: tuple[int, ...] | None) -> None:
        """An event's entry, put together from its audience and its game's event, is protobuf's
        encoding of the whole ``Event``, for everyone, no one, one seat or several."""
        servicer = GameEngineServicer()
        engine = registry.get(game)
        state = engine.new_game(4, 7, engine.default_options())
        seat = engine.status(state).seats_to_act[0]
        transition = engine.apply(state, seat, engine.legal_actions(state, seat)[0])
        body = transition.events[0].body
        seats = 4
        expected = common.Event(
            visible_to_seats=range(seats) if audience is None else audience,
            public=audience is None,
            **{game: CODECS[game].encode_event(body)},
        )
        event = Event(body, audience)
        for _ in range(3):  # made, found among the new ones, then among those asked again
            (entry,) = servicer.encoder.event_fields(servicer.games[game], seats, [event])
            assert entry == api.ApplyActionResponse(events=[expected]).SerializeToString()
