"""Bad input of any kind gets INVALID_ARGUMENT with a reason, and the server keeps serving.

Thousands of requests: random bytes, valid requests with bytes flipped or cut, and states whose
fields are set to random values, for every method and every registered game.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import grpc
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engines import registry
from engines.errors import InvalidStateError
from ordo import records
from ordo.v1 import common_pb2 as common
from ordo.v1 import engine_service_pb2 as api
from service.calls.servicer import GameEngineServicer
from service.telemetry.observe import CallRecord
from tests.conformance.drivers import reason_of
from tests.connect_calls import HttpDoor
from tests.seat_calls import HOSTED_METHODS

SERVICE = "/ordo.v1.GameEngineService/"
# The stateless methods: those of hosted tables are fuzzed on a hosting server (test_tables).
METHODS = tuple(
    method.name
    for method in api.DESCRIPTOR.services_by_name["GameEngineService"].methods
    if method.name not in HOSTED_METHODS
)
GAMES = sorted(registry.ENGINES)
ACCEPTED = {grpc.StatusCode.OK, grpc.StatusCode.INVALID_ARGUMENT}
# The methods whose request holds a state, and their request messages.
STATE_REQUESTS: dict[str, Any] = {
    "ApplyAction": api.ApplyActionRequest,
    "GetView": api.GetViewRequest,
    "ListLegalActions": api.ListLegalActionsRequest,
    "SuggestAction": api.SuggestActionRequest,
}
FUZZ = settings(
    max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def raw_call(channel: grpc.Channel, method: str, payload: bytes) -> tuple[grpc.StatusCode, str]:
    """Send raw bytes to a method; return the status code and the ErrorInfo reason."""
    call = channel.unary_unary(SERVICE + method)
    try:
        call(payload, timeout=10)
    except grpc.RpcError as error:
        reason = reason_of(error) if error.code() == grpc.StatusCode.INVALID_ARGUMENT else ""
        return error.code(), reason
    return grpc.StatusCode.OK, ""


#: Sends raw bytes to a method through one door; returns the status code and the reason.
Door = Callable[[str, bytes], tuple[grpc.StatusCode, str]]


@pytest.fixture(scope="module", params=["grpc", "connect"])
def door(
    request: pytest.FixtureRequest, channel: grpc.Channel, http_address: str
) -> Iterator[Door]:
    """Each door of the server in turn: gRPC, and Connect (binary) on the HTTP port."""
    if request.param == "grpc":
        yield lambda method, payload: raw_call(channel, method, payload)
        return
    client = HttpDoor(http_address)

    def call(method: str, payload: bytes) -> tuple[grpc.StatusCode, str]:
        answer = client.call("connect-proto", method, payload)
        return answer.code, answer.reason

    yield call
    client.close()


def sample_requests(game: str) -> dict[str, bytes]:
    """One valid serialized request per method, a few actions into a game."""
    engine = registry.get(game)
    from tests.conformance.drivers import InProcess  # noqa: PLC0415

    driver = InProcess(game)
    state = driver.new_game(engine.info.min_seats, 3)
    record = api.GameRecord(format_version=records.FORMAT_VERSION, initial_state=state)
    for _ in range(3):
        seat = driver.status(state).seats_to_act[0]
        record.moves.add(action=driver.legal(state, seat)[0])
        state = driver.apply(state, record.moves[-1].action).state
        record.move_digests += records.state_digest(state)[: records.DIGEST_BYTES]
    record.final_digest = records.state_digest(state)
    seat = driver.status(state).seats_to_act[0]
    action = driver.legal(state, seat)[0]
    requests: dict[str, Any] = {
        "ListGames": api.ListGamesRequest(),
        "NewGame": api.NewGameRequest(
            seats=engine.info.min_seats, seed=5, options=common.GameOptions(**{game: {}})
        ),
        "ApplyAction": api.ApplyActionRequest(state=state, action=action),
        "ValidateAction": api.ValidateActionRequest(state=state, action=action),
        "ListLegalActions": api.ListLegalActionsRequest(state=state, seat=seat),
        "GetView": api.GetViewRequest(state=state, viewer=common.Viewer(seat=seat)),
        "SuggestAction": api.SuggestActionRequest(state=state, seat=seat),
        "ReplayGame": api.ReplayGameRequest(record=record, viewer=common.Viewer(seat=seat)),
    }
    return {method: request.SerializeToString() for method, request in requests.items()}


@pytest.fixture(scope="module")
def samples() -> dict[str, dict[str, bytes]]:
    """Valid requests of every game."""
    return {game: sample_requests(game) for game in GAMES}


def assert_still_serving(door: Door) -> None:
    """The server answers a plain call after the abuse."""
    assert door("ListGames", b"") == (grpc.StatusCode.OK, "")


class TestGarbage:
    """Bytes that are not requests."""

    @FUZZ
    @given(method=st.sampled_from(METHODS), payload=st.binary(max_size=600))
    def test_random_bytes(self, door: Door, method: str, payload: bytes) -> None:
        """Random bytes get OK (when they happen to parse) or INVALID_ARGUMENT with a reason."""
        code, reason = door(method, payload)
        assert code in ACCEPTED
        assert code == grpc.StatusCode.OK or reason

    def test_unparsable_request_has_a_stable_reason(self, door: Door) -> None:
        """A payload that is no protobuf message at all gets MALFORMED_REQUEST."""
        code, reason = door("ApplyAction", b"\xff\xff\xff\xff")
        assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, "MALFORMED_REQUEST")
        assert_still_serving(door)


class TestMutatedRequests:
    """Valid requests damaged on the wire."""

    @FUZZ
    @given(
        game=st.sampled_from(GAMES),
        method=st.sampled_from(METHODS),
        flips=st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 255)), max_size=6),
        cut=st.integers(0, 10**6) | st.none(),
    )
    def test_flipped_and_cut_bytes(
        self,
        door: Door,
        samples: dict[str, dict[str, bytes]],
        game: str,
        method: str,
        flips: list[tuple[int, int]],
        cut: int | None,
    ) -> None:
        """A request with bytes changed or cut off never gets anything but OK or a reason."""
        payload = bytearray(samples[game][method])
        for position, value in flips:
            if payload:
                payload[position % len(payload)] = value
        if cut is not None and payload:
            del payload[cut % len(payload) :]
        code, reason = door(method, bytes(payload))
        assert code in ACCEPTED
        assert code == grpc.StatusCode.OK or reason

    @pytest.mark.parametrize("edit", ["numbers", "lists"])
    @FUZZ
    @given(
        game=st.sampled_from(GAMES),
        method=st.sampled_from(sorted(STATE_REQUESTS)),
        data=st.data(),
    )
    def test_tampered_state(
        self,
        door: Door,
        samples: dict[str, dict[str, bytes]],
        edit: str,
        game: str,
        method: str,
        data: st.DataObject,
    ) -> None:
        """A state whose numbers are changed, or whose lists of numbers (cards, chips, sizes…)
        are grown or shrunk, is applied correctly or refused: it never crashes a worker."""
        request = STATE_REQUESTS[method].FromString(samples[game][method])
        fields = list(_integer_fields(getattr(request.state, game)))
        for _ in range(data.draw(st.integers(1, 4))):
            if edit == "numbers":
                _change_a_number(fields, data)
            else:
                _resize_a_list(fields, data)
        code, reason = door(method, request.SerializeToString())
        assert code in ACCEPTED
        assert code == grpc.StatusCode.OK or reason

    def test_server_still_serves_after_the_fuzzing(self, door: Door) -> None:
        """After every bad request above, the same server answers normally."""
        assert_still_serving(door)


class TestMissingParts:
    """Requests with a required part left out get a specific reason."""

    @pytest.mark.parametrize(
        ("method", "request_message", "reason"),
        [
            ("NewGame", api.NewGameRequest(seats=2), "GAME_NOT_SELECTED"),
            ("ApplyAction", api.ApplyActionRequest(), "STATE_NOT_SET"),
            ("GetView", api.GetViewRequest(), "STATE_NOT_SET"),
            ("ListLegalActions", api.ListLegalActionsRequest(), "STATE_NOT_SET"),
            ("SuggestAction", api.SuggestActionRequest(), "STATE_NOT_SET"),
            ("ValidateAction", api.ValidateActionRequest(), "STATE_NOT_SET"),
        ],
    )
    def test_missing_part(self, door: Door, method: str, request_message: Any, reason: str) -> None:
        """The reason names what is missing."""
        code, got = door(method, request_message.SerializeToString())
        assert (code, got) == (grpc.StatusCode.INVALID_ARGUMENT, reason)

    @pytest.mark.parametrize("game", GAMES)
    def test_view_without_viewer(
        self, door: Door, samples: dict[str, dict[str, bytes]], game: str
    ) -> None:
        """GetView without a viewer gets VIEWER_NOT_SET."""
        request = api.GetViewRequest.FromString(samples[game]["GetView"])
        request.ClearField("viewer")
        code, reason = door("GetView", request.SerializeToString())
        assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, "VIEWER_NOT_SET")

    @pytest.mark.parametrize("game", GAMES)
    def test_view_of_a_spectator_set_to_false(
        self, door: Door, samples: dict[str, dict[str, bytes]], game: str
    ) -> None:
        """GetView with spectator: false (the oneof set, saying no one) gets VIEWER_NOT_SET."""
        request = api.GetViewRequest.FromString(samples[game]["GetView"])
        request.viewer.spectator = False
        assert request.viewer.WhichOneof("viewer") == "spectator"
        code, reason = door("GetView", request.SerializeToString())
        assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, "VIEWER_NOT_SET")

    @pytest.mark.parametrize("game", GAMES)
    def test_seat_count_out_of_range(self, door: Door, game: str) -> None:
        """Too many seats get INVALID_SEAT_COUNT."""
        info = registry.get(game).info
        request = api.NewGameRequest(
            seats=info.max_seats + 1, options=common.GameOptions(**{game: {}})
        )
        code, reason = door("NewGame", request.SerializeToString())
        assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_SEAT_COUNT")

    @pytest.mark.parametrize("game", GAMES)
    def test_unknown_policy(
        self, door: Door, samples: dict[str, dict[str, bytes]], game: str
    ) -> None:
        """An unknown bot policy gets UNKNOWN_POLICY."""
        request = api.SuggestActionRequest.FromString(samples[game]["SuggestAction"])
        request.policy = "clairvoyant"
        code, reason = door("SuggestAction", request.SerializeToString())
        assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, "UNKNOWN_POLICY")

    def test_action_of_another_game(self, door: Door) -> None:
        """An action whose game differs from the state's gets GAME_MISMATCH or MALFORMED_ACTION."""
        samples = {game: sample_requests(game) for game in GAMES}
        request = api.ApplyActionRequest.FromString(samples[GAMES[0]]["ApplyAction"])
        field = common.Action.DESCRIPTOR.oneofs_by_name["game"].fields
        other = next(f.name for f in field if f.name != GAMES[0])
        request.action.ClearField(GAMES[0])
        getattr(request.action, other).SetInParent()
        code, reason = door("ApplyAction", request.SerializeToString())
        assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, "GAME_MISMATCH")

    @pytest.mark.parametrize("game", GAMES)
    def test_validate_action_answers_a_seat_the_game_does_not_have(
        self, channel: grpc.Channel, samples: dict[str, dict[str, bytes]], game: str
    ) -> None:
        """ValidateAction for a seat past the last answers legal=false with INVALID_SEAT in
        its response, as for any other illegal action."""
        request = api.ValidateActionRequest.FromString(samples[game]["ValidateAction"])
        request.action.seat = 99
        answer = channel.unary_unary(SERVICE + "ValidateAction")(
            request.SerializeToString(), timeout=10
        )
        reply = api.ValidateActionResponse.FromString(answer)
        assert (reply.legal, reply.reason) == (False, "INVALID_SEAT")


class TestDefaultedParts:
    """Parts a request may leave out take their documented defaults."""

    def test_new_game_without_a_seed_returns_the_seed_it_picked(
        self, channel: grpc.Channel
    ) -> None:
        """Seed 0 picks a seed, which the answer gives back: dealing with it again gives the
        same game."""
        new_game = channel.unary_unary(SERVICE + "NewGame")
        request = api.NewGameRequest(seats=2, options=common.GameOptions(six_nimmt={}))
        dealt = api.NewGameResponse.FromString(new_game(request.SerializeToString(), timeout=10))
        assert dealt.seed != 0
        request.seed = dealt.seed
        again = api.NewGameResponse.FromString(new_game(request.SerializeToString(), timeout=10))
        assert again.state == dealt.state

    def test_suggest_action_without_a_policy_is_the_heuristic(
        self, channel: grpc.Channel, samples: dict[str, dict[str, bytes]]
    ) -> None:
        """No policy means ``heuristic``: the same move as asking for it, in every game, where
        the random bot would not always have made it."""
        suggest = channel.unary_unary(SERVICE + "SuggestAction")
        random_differs = False
        for game in GAMES:
            request = api.SuggestActionRequest.FromString(samples[game]["SuggestAction"])
            for seed in range(1, 6):
                request.seed = seed
                moves = {}
                for policy in ("", "heuristic", "random"):
                    request.policy = policy
                    moves[policy] = suggest(request.SerializeToString(), timeout=10)
                assert moves[""] == moves["heuristic"], (game, seed)
                random_differs |= moves["random"] != moves["heuristic"]
        assert random_differs


class TestUnexpectedErrorsInAState:
    """The state is the caller's input: whatever error its validation trips is a bad argument,
    never INTERNAL, even one that no check of the rules raises on purpose."""

    @pytest.mark.parametrize(
        "error", [ZeroDivisionError, OverflowError, IndexError, KeyError, ValueError, TypeError]
    )
    @pytest.mark.parametrize("game", GAMES)
    def test_an_error_while_validating_is_an_invalid_state(
        self,
        monkeypatch: pytest.MonkeyPatch,
        samples: dict[str, dict[str, bytes]],
        game: str,
        error: type[Exception],
    ) -> None:
        """An arithmetic, lookup, value or type error raised by validation is INVALID_STATE."""
        servicer = GameEngineServicer(state_cache_bytes=0)

        def trip(state: Any) -> None:
            raise error("tripped")

        monkeypatch.setattr(servicer.games[game].engine, "validate", trip)
        request = api.GetViewRequest.FromString(samples[game]["GetView"])
        with pytest.raises(InvalidStateError) as refused:
            servicer.GetView(request, CallRecord("GetView"))
        assert refused.value.reason == "INVALID_STATE"
        assert isinstance(refused.value.__cause__, error)


class TestLongText:
    """A caller's text of any length that an error quotes still comes back as a rich status
    (clients refuse trailing metadata over 16 KiB by default)."""

    LONG = "\u00e9" * 20_000  # 40 KB of UTF-8, more again once percent-encoded

    @pytest.mark.parametrize("game", GAMES)
    def test_long_unknown_policy(
        self, door: Door, samples: dict[str, dict[str, bytes]], game: str
    ) -> None:
        """A policy name of 20,000 characters gets UNKNOWN_POLICY, not a transport error."""
        request = api.SuggestActionRequest.FromString(samples[game]["SuggestAction"])
        request.policy = self.LONG
        code, reason = door("SuggestAction", request.SerializeToString())
        assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, "UNKNOWN_POLICY")

    def test_long_custom_question(self, door: Door) -> None:
        """A custom question whose category is 20,000 characters gets INVALID_CUSTOM_QUESTION."""
        question = common.GameOptions(
            fora_de_ordem={
                "rounds": 1,
                "custom_questions": [
                    {"category": self.LONG, "items": list("abcde"), "ranks": [1, 2, 3, 4, 5]}
                ],
            }
        )
        request = api.NewGameRequest(seats=3, options=question)
        code, reason = door("NewGame", request.SerializeToString())
        assert (code, reason) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_CUSTOM_QUESTION")


class TestHugeRepeatedFields:
    """A request is bounded in bytes, not in entries: a repeated field of a hundred thousand
    empty entries is refused by its count, before its entries are decoded one by one (which
    took seconds)."""

    HUGE = 100_000

    @staticmethod
    def refusal(channel: grpc.Channel, method: str, request: Any) -> tuple[str, str]:
        """The reason and message of a call that must fail with INVALID_ARGUMENT."""
        with pytest.raises(grpc.RpcError) as caught:
            channel.unary_unary(SERVICE + method)(request.SerializeToString(), timeout=30)
        assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        return reason_of(caught.value), caught.value.details() or ""

    def test_sequences(self, channel: grpc.Channel, samples: dict[str, dict[str, bytes]]) -> None:
        """Sequence Numbers: more sequences than the board has lines of five."""
        request = api.ApplyActionRequest.FromString(samples["sequence_numbers"]["ApplyAction"])
        sequences = request.state.sequence_numbers.sequences
        for _ in range(self.HUGE):
            sequences.add()
        reason, message = self.refusal(channel, "ApplyAction", request)
        assert reason == "INVALID_STATE"
        assert message.startswith("sequences: 100,000 entries, more than a state holds")

    def test_list_sizes(self, channel: grpc.Channel, samples: dict[str, dict[str, bytes]]) -> None:
        """Up or Down?: a hundred thousand display rows, each of no card."""
        request = api.ApplyActionRequest.FromString(samples["up_or_down"]["ApplyAction"])
        request.state.up_or_down.row_sizes.extend([0] * self.HUGE)
        reason, message = self.refusal(channel, "ApplyAction", request)
        assert reason == "INVALID_STATE"
        assert message.startswith("display rows: 100,")

    def test_round_questions(
        self, channel: grpc.Channel, samples: dict[str, dict[str, bytes]]
    ) -> None:
        """Fora de Ordem: more round questions in a state than a game has rounds."""
        request = api.GetViewRequest.FromString(samples["fora_de_ordem"]["GetView"])
        questions = request.state.fora_de_ordem.questions
        for _ in range(self.HUGE):
            questions.add()
        reason, message = self.refusal(channel, "GetView", request)
        assert reason == "INVALID_STATE"
        assert message.startswith("questions: 100,000 entries")

    def test_custom_questions(self, channel: grpc.Channel) -> None:
        """Fora de Ordem: NewGame with more custom questions than a game may carry."""
        request = api.NewGameRequest(seats=3, options=common.GameOptions(fora_de_ordem={}))
        custom = request.options.fora_de_ordem.custom_questions
        for _ in range(self.HUGE):
            custom.add()
        reason, message = self.refusal(channel, "NewGame", request)
        assert reason == "INVALID_OPTIONS"
        assert message == "at most 1000 custom questions, not 100,000"


def _integer_fields(message: Any) -> Any:
    """Every integer field of a message, single or repeated, recursively: (message, field)."""
    for field in message.DESCRIPTOR.fields:
        if field.message_type is not None:
            if field.is_repeated:
                for item in getattr(message, field.name):
                    yield from _integer_fields(item)
            elif message.HasField(field.name):
                yield from _integer_fields(getattr(message, field.name))
        elif field.cpp_type in _INT_RANGES:
            yield message, field


def _change_a_number(fields: list[tuple[Any, Any]], data: st.DataObject) -> None:
    """Set one integer (a single field or an item of a list) to another value of its type."""
    slots = [
        (message, field, index)
        for message, field in fields
        for index in (range(len(getattr(message, field.name))) if field.is_repeated else [None])
    ]
    if not slots:
        return
    message, field, index = data.draw(st.sampled_from(slots))
    value = data.draw(_values_for(field))
    if index is None:
        setattr(message, field.name, value)
    else:
        getattr(message, field.name)[index] = value


def _resize_a_list(fields: list[tuple[Any, Any]], data: st.DataObject) -> None:
    """Remove an item from a repeated integer field, or add 1, 2 or 300 of one value to it."""
    lists = [(message, field) for message, field in fields if field.is_repeated]
    message, field = data.draw(st.sampled_from(lists))
    items = getattr(message, field.name)
    if items and data.draw(st.booleans()):
        del items[data.draw(st.integers(0, len(items) - 1))]
    else:
        items.extend([data.draw(_values_for(field))] * data.draw(st.sampled_from((1, 2, 300))))


_INT_RANGES = {
    1: (-(2**31), 2**31 - 1),  # CPPTYPE_INT32
    2: (-(2**63), 2**63 - 1),  # CPPTYPE_INT64
    3: (0, 2**32 - 1),  # CPPTYPE_UINT32
    4: (0, 2**64 - 1),  # CPPTYPE_UINT64
    8: (-(2**31), 2**31 - 1),  # CPPTYPE_ENUM (open enums take any int32)
}


def _values_for(field: Any) -> st.SearchStrategy[int]:
    low, high = _INT_RANGES[field.cpp_type]
    return st.integers(max(low, -3), min(high, 200)) | st.integers(low, high)
