"""The Python client ``ordo.Client``: every RPC against a real server, errors, retries, channels."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from concurrent import futures
from typing import Any

import grpc
import pytest

import ordo
from ordo import Client, OrdoError
from ordo.client import ALSO_RETRYABLE, REQUEST_ID_KEY, RETRYABLE, SEAT_TOKEN_KEY, game_options
from ordo.v1 import common_pb2 as common
from ordo.v1 import engine_service_pb2 as api
from ordo.v1 import engine_service_pb2_grpc as rpc
from ordo.v1 import six_nimmt_pb2 as six_nimmt
from tests.clients.fakes import (
    SERVICE,
    WAITING_SECONDS,
    FakeServer,
    closed_port,
    details,
    running_fake,
    trusting_credentials,
)
from tests.state_keys import TEST_KEY

GAME = "six_nimmt"
SEATS = 4
SEED = 3


@pytest.fixture(scope="module")
def client(server_address: str) -> Iterator[Client]:
    """A client of the real in-process server."""
    with Client(server_address) as ordo:
        yield ordo


@pytest.fixture(scope="module")
def dealt(client: Client) -> api.NewGameResponse:
    """A fixed 6 nimmt! deal: four seats, seed 3."""
    return client.new_game(GAME, SEATS, seed=SEED)


def _select(state: common.GameState, seat: int, card: int) -> common.Action:
    return common.Action(seat=seat, six_nimmt=six_nimmt.SixNimmtAction(select_card=card))


def _hand(client: Client, state: common.GameState, seat: int) -> list[int]:
    return list(client.get_view(state, seat).view.six_nimmt.hand)


class TestCalls:
    """One method per RPC, each returning the response message."""

    def test_list_games(self, client: Client) -> None:
        """list_games returns the registered games with their seat ranges and policies."""
        games = {game.id: game for game in client.list_games().games}
        assert games[GAME].min_seats == 2
        assert games[GAME].max_seats == 10
        assert list(games[GAME].seat_counts) == list(range(2, 11))
        assert list(games["sequence_numbers"].seat_counts) == [2, 3, 4, 6]
        assert "heuristic" in games[GAME].policies

    def test_new_game_by_id(self, dealt: api.NewGameResponse) -> None:
        """new_game with a game id deals that game with its defaults and the given seed."""
        assert dealt.state.WhichOneof("game") == GAME
        assert dealt.seed == SEED
        assert list(dealt.status.seats_to_act) == list(range(SEATS))
        assert dealt.state.six_nimmt.options.threshold == 66

    def test_new_game_by_id_with_options(self, client: Client) -> None:
        """new_game with a game id and its options message deals with those options."""
        options = six_nimmt.SixNimmtOptions(threshold=10)
        response = client.new_game(GAME, 2, seed=1, options=options)
        assert response.state.six_nimmt.options.threshold == 10

    def test_new_game_by_game_options(self, client: Client, dealt: api.NewGameResponse) -> None:
        """new_game with a GameOptions deals the same game as with the game id."""
        options = common.GameOptions(six_nimmt=six_nimmt.SixNimmtOptions())
        assert client.new_game(options, SEATS, SEED).state == dealt.state

    def test_new_game_unknown_id_is_refused_locally(self, client: Client) -> None:
        """A game id that is no field of GameOptions is the client's one error, as the server
        gives it for a game it does not run: INVALID_ARGUMENT, UNKNOWN_GAME, the id."""
        with pytest.raises(OrdoError) as raised:
            client.new_game("chess", 2)
        error = raised.value
        assert (error.code, error.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "UNKNOWN_GAME")
        assert error.metadata == {"game": "chess"}
        assert "unknown game 'chess'" in error.message

    def test_apply_action(self, client: Client, dealt: api.NewGameResponse) -> None:
        """apply_action returns the new state, the status and the events."""
        card = _hand(client, dealt.state, 0)[0]
        response = client.apply_action(dealt.state, _select(dealt.state, 0, card))
        assert response.state.revision == 1
        assert 0 not in response.status.seats_to_act
        assert response.events

    def test_validate_action_legal(self, client: Client, dealt: api.NewGameResponse) -> None:
        """validate_action accepts a card from the seat's hand."""
        card = _hand(client, dealt.state, 1)[0]
        assert client.validate_action(dealt.state, _select(dealt.state, 1, card)).legal

    def test_validate_action_illegal(self, client: Client, dealt: api.NewGameResponse) -> None:
        """validate_action answers an illegal action in its response, with the reason."""
        missing = next(card for card in range(1, 105) if card not in _hand(client, dealt.state, 1))
        response = client.validate_action(dealt.state, _select(dealt.state, 1, missing))
        assert not response.legal
        assert response.reason == "CARD_NOT_IN_HAND"

    def test_list_legal_actions(self, client: Client, dealt: api.NewGameResponse) -> None:
        """list_legal_actions lists one selection per card in the seat's hand."""
        actions = client.list_legal_actions(dealt.state, 2).actions
        assert sorted(action.six_nimmt.select_card for action in actions) == sorted(
            _hand(client, dealt.state, 2)
        )
        assert {action.seat for action in actions} == {2}

    def test_get_view_of_a_seat(self, client: Client, dealt: api.NewGameResponse) -> None:
        """get_view with a seat shows that seat's hand."""
        view = client.get_view(dealt.state, 0).view
        assert len(view.six_nimmt.hand) == 10
        assert list(view.status.seats_to_act) == list(range(SEATS))

    def test_get_view_of_a_spectator(self, client: Client, dealt: api.NewGameResponse) -> None:
        """get_view without a seat is a spectator's view: no hand."""
        view = client.get_view(dealt.state).view
        assert not view.six_nimmt.hand
        assert len(view.six_nimmt.rows) == 4

    def test_suggest_action(self, client: Client, dealt: api.NewGameResponse) -> None:
        """suggest_action returns one of the seat's legal actions, the same for the same seed."""
        suggested = client.suggest_action(dealt.state, 3, "random", seed=7).action
        assert suggested in client.list_legal_actions(dealt.state, 3).actions
        assert client.suggest_action(dealt.state, 3, "random", seed=7).action == suggested

    def test_search_with_a_budget(self, client: Client, dealt: api.NewGameResponse) -> None:
        """suggest_action and play_bot pass the search policy's iterations on: a legal move
        within the server's maximum, the same for the same seed, refused beyond it."""
        suggested = client.suggest_action(
            dealt.state, 3, "search", seed=7, search_iterations=2
        ).action
        assert suggested in client.list_legal_actions(dealt.state, 3).actions
        played = client.play_bot(dealt.state, 3, "search", seed=7, search_iterations=2)
        assert played.state == client.apply_action(dealt.state, suggested).state
        with pytest.raises(OrdoError) as refused:
            client.suggest_action(dealt.state, 3, "search", search_iterations=1 << 20)
        assert refused.value.reason == "SEARCH_BUDGET_TOO_LARGE"

    def test_play_bot_with_a_viewer(self, client: Client, dealt: api.NewGameResponse) -> None:
        """play_bot applies the suggested move; with a viewer, the bot's selection, which only
        its seat may see, is not in the events (apply_action filters alike)."""
        suggested = client.suggest_action(dealt.state, 3, "random", seed=7).action
        applied = client.apply_action(dealt.state, suggested)
        assert any(list(event.visible_to_seats) == [3] for event in applied.events)
        played = client.play_bot(dealt.state, 3, "random", seed=7, viewer=0)
        assert played.state == applied.state
        assert played.events
        assert all(event.public for event in played.events)
        assert client.apply_action(dealt.state, suggested, viewer=0).events == played.events


class TestErrors:
    """Every failure is one OrdoError with the status code and the ErrorInfo's reason."""

    def test_not_seats_turn(self, client: Client, dealt: api.NewGameResponse) -> None:
        """A seat that already selected gets NOT_SEATS_TURN from suggest_action."""
        card = _hand(client, dealt.state, 0)[0]
        after = client.apply_action(dealt.state, _select(dealt.state, 0, card)).state
        with pytest.raises(OrdoError) as caught:
            client.suggest_action(after, 0)
        assert caught.value.code is grpc.StatusCode.INVALID_ARGUMENT
        assert caught.value.reason == "NOT_SEATS_TURN"
        assert caught.value.message

    def test_game_not_selected(self, client: Client) -> None:
        """Options that select no game give GAME_NOT_SELECTED."""
        with pytest.raises(OrdoError) as caught:
            client.new_game(common.GameOptions(), SEATS)
        assert caught.value.code is grpc.StatusCode.INVALID_ARGUMENT
        assert caught.value.reason == "GAME_NOT_SELECTED"

    def test_unknown_policy_with_metadata(self, client: Client, dealt: api.NewGameResponse) -> None:
        """An unknown bot policy gives UNKNOWN_POLICY and the ErrorInfo's metadata."""
        with pytest.raises(OrdoError) as caught:
            client.suggest_action(dealt.state, 0, policy="oracle")
        assert caught.value.reason == "UNKNOWN_POLICY"
        assert caught.value.metadata == {"policy": "oracle"}

    def test_illegal_action(self, client: Client, dealt: api.NewGameResponse) -> None:
        """apply_action raises what validate_action reports."""
        missing = next(card for card in range(1, 105) if card not in _hand(client, dealt.state, 1))
        with pytest.raises(OrdoError) as caught:
            client.apply_action(dealt.state, _select(dealt.state, 1, missing))
        assert caught.value.reason == "CARD_NOT_IN_HAND"

    def test_text_names_code_and_reason(self, client: Client) -> None:
        """str() of the error starts with the code and the reason."""
        with pytest.raises(OrdoError) as caught:
            client.new_game(GAME, 1)
        assert str(caught.value).startswith("INVALID_ARGUMENT INVALID_SEAT_COUNT: ")

    def test_unreachable_server(self) -> None:
        """Nothing listening gives UNAVAILABLE with an empty reason (the retries, counted with
        a fake server in TestRetries, find nothing either)."""
        with (
            Client(f"127.0.0.1:{closed_port()}", timeout=5.0, retries=2) as ordo,
            pytest.raises(OrdoError) as caught,
        ):
            ordo.list_games()
        assert caught.value.code is grpc.StatusCode.UNAVAILABLE
        assert caught.value.reason == ""


class TestErrorsFromAnyServer:
    """OrdoError reads what a server sends, and no more than it can trust."""

    def test_rich_status_of_the_call(self, fake: FakeServer) -> None:
        """Details whose code is the call's give the ErrorInfo reason and their message."""
        fake.failures = [grpc.StatusCode.NOT_FOUND]
        fake.details = details(grpc.StatusCode.NOT_FOUND, "SOME_REASON")
        with Client(fake.address) as ordo, pytest.raises(OrdoError) as caught:
            ordo.list_games()
        assert caught.value.code is grpc.StatusCode.NOT_FOUND
        assert caught.value.reason == "SOME_REASON"
        assert caught.value.message == "scripted failure"

    def test_details_that_contradict_the_call_are_ignored(self, fake: FakeServer) -> None:
        """Details of another code than the call's are not the call's: the error has the call's
        code, and no reason."""
        fake.failures = [grpc.StatusCode.INTERNAL]
        fake.details = details(grpc.StatusCode.NOT_FOUND, "SOME_REASON")
        with Client(fake.address, retries=0) as ordo, pytest.raises(OrdoError) as caught:
            ordo.list_games()
        assert (caught.value.code, caught.value.reason) == (grpc.StatusCode.INTERNAL, "")
        assert caught.value.message == "scripted failure"

    def test_text_without_a_message(self) -> None:
        """An error with no message reads as its code alone, or its code and reason."""
        assert str(OrdoError(grpc.StatusCode.UNAVAILABLE, "", "")) == "UNAVAILABLE"
        assert str(OrdoError(grpc.StatusCode.INTERNAL, "INTERNAL", "")) == "INTERNAL INTERNAL"


class TestRetries:
    """A call that failed before the service answered it (UNAVAILABLE, CANCELLED, INTERNAL or
    UNKNOWN without an ErrorInfo) is retried a bounded number of times; nothing else is."""

    def test_retries_unavailable_until_success(self, fake: FakeServer) -> None:
        """Two UNAVAILABLE answers then success: three attempts, no error."""
        fake.failures = [grpc.StatusCode.UNAVAILABLE] * 2
        with Client(fake.address, retries=3, backoff=0.001) as ordo:
            ordo.list_games()
        assert len(fake.calls) == 3

    def test_gives_up_after_retries(self, fake: FakeServer) -> None:
        """A server that stays UNAVAILABLE is tried retries + 1 times, then the error is raised."""
        fake.failures = [grpc.StatusCode.UNAVAILABLE] * 10
        with (
            Client(fake.address, retries=2, backoff=0.001) as ordo,
            pytest.raises(OrdoError) as caught,
        ):
            ordo.list_games()
        assert caught.value.code is grpc.StatusCode.UNAVAILABLE
        assert len(fake.calls) == 3

    @pytest.mark.parametrize("code", sorted(RETRYABLE, key=lambda code: code.name))
    def test_failures_on_the_way_are_retried_by_default(
        self, fake: FakeServer, code: grpc.StatusCode
    ) -> None:
        """A failure that carries no answer of the service (no ErrorInfo), such as the
        CANCELLED of a call a stopping worker never served, is sent again by default."""
        fake.failures = [code, grpc.StatusCode.UNAVAILABLE]
        with Client(fake.address, retries=3, backoff=0.001) as ordo:
            ordo.list_games()
        assert len(fake.calls) == 3

    @pytest.mark.parametrize(
        "code",
        [
            grpc.StatusCode.INVALID_ARGUMENT,
            grpc.StatusCode.RESOURCE_EXHAUSTED,
            grpc.StatusCode.DEADLINE_EXCEEDED,
            grpc.StatusCode.UNIMPLEMENTED,
            grpc.StatusCode.PERMISSION_DENIED,
        ],
    )
    def test_other_codes_are_not_retried(self, fake: FakeServer, code: grpc.StatusCode) -> None:
        """A code that a server answers with (or the caller's spent deadline) is raised after
        the first attempt."""
        fake.failures = [code]
        with (
            Client(fake.address, retries=3, backoff=0.001) as ordo,
            pytest.raises(OrdoError) as caught,
        ):
            ordo.list_games()
        assert caught.value.code is code
        assert caught.value.reason == ""
        assert len(fake.calls) == 1

    @pytest.mark.parametrize("code", sorted(RETRYABLE, key=lambda code: code.name))
    def test_an_answer_of_the_service_is_never_retried(
        self, fake: FakeServer, code: grpc.StatusCode
    ) -> None:
        """A failure with Ordo's ErrorInfo is the service's answer, raised after one attempt
        whatever its code (the same request would get it again)."""
        fake.failures = [code]
        fake.details = details(code, "SOME_REASON")
        with (
            Client(fake.address, retries=3, backoff=0.001) as ordo,
            pytest.raises(OrdoError) as caught,
        ):
            ordo.list_games()
        assert (caught.value.code, caught.value.reason) == (code, "SOME_REASON")
        assert caught.value.answered
        assert len(fake.calls) == 1

    def test_the_revision_stores_unavailability_is_retried(self, fake: FakeServer) -> None:
        """UNAVAILABLE with REVISION_STORE_UNAVAILABLE, the one answer a retry may change (the
        move was not applied), is tried again like a failure on the way."""
        fake.failures = [grpc.StatusCode.UNAVAILABLE] * 2
        fake.details = details(grpc.StatusCode.UNAVAILABLE, "REVISION_STORE_UNAVAILABLE")
        with Client(fake.address, retries=3, backoff=0.001) as ordo:
            ordo.list_games()
        assert len(fake.calls) == 3

    def test_a_move_whose_outcome_is_unknown_is_retried(self, fake: FakeServer) -> None:
        """UNAVAILABLE with REVISION_STORE_OUTCOME_UNKNOWN is sent again: the same request
        settles the move."""
        fake.failures = [grpc.StatusCode.UNAVAILABLE]
        fake.details = details(grpc.StatusCode.UNAVAILABLE, "REVISION_STORE_OUTCOME_UNKNOWN")
        with Client(fake.address, retries=3, backoff=0.001) as ordo:
            ordo.list_games()
        assert len(fake.calls) == 2

    def test_a_busy_worker_is_retried_no_sooner_than_it_asks(self, fake: FakeServer) -> None:
        """RESOURCE_EXHAUSTED with SERVER_BUSY is sent again, once the delay its answer names
        (metadata retry_after_ms) has passed."""
        fake.failures = [grpc.StatusCode.RESOURCE_EXHAUSTED]
        fake.details = details(
            grpc.StatusCode.RESOURCE_EXHAUSTED, "SERVER_BUSY", retry_after_ms="150"
        )
        with Client(fake.address, retries=3, backoff=0.001) as ordo:
            started = time.monotonic()
            ordo.list_games()
            assert time.monotonic() - started >= 0.15
        assert len(fake.calls) == 2

    @pytest.mark.parametrize(
        ("code", "reason"),
        [
            (grpc.StatusCode.UNAUTHENTICATED, "SEAT_TOKEN_MISSING"),
            (grpc.StatusCode.UNAUTHENTICATED, "SEAT_TOKEN_INVALID"),
            (grpc.StatusCode.PERMISSION_DENIED, "SEAT_NOT_PERMITTED"),
            (grpc.StatusCode.PERMISSION_DENIED, "NOT_A_BOT_SEAT"),
            (grpc.StatusCode.PERMISSION_DENIED, "BOT_SETTINGS_NOT_PERMITTED"),
            (grpc.StatusCode.PERMISSION_DENIED, "SEED_NOT_PERMITTED"),
            (grpc.StatusCode.FAILED_PRECONDITION, "STATE_SUPERSEDED"),
        ],
    )
    def test_seat_and_fence_refusals_are_never_retried(
        self, fake: FakeServer, code: grpc.StatusCode, reason: str
    ) -> None:
        """A seat token refused, a seat not granted or a state superseded is raised after one
        attempt, with its code and reason."""
        fake.failures = [code]
        fake.details = details(code, reason)
        with (
            Client(fake.address, retries=3, backoff=0.001) as ordo,
            pytest.raises(OrdoError) as caught,
        ):
            ordo.list_games()
        assert (caught.value.code, caught.value.reason) == (code, reason)
        assert len(fake.calls) == 1

    def test_fewer_codes_retry_less(self, fake: FakeServer) -> None:
        """With UNAVAILABLE alone among the retry codes, CANCELLED is raised at once."""
        fake.failures = [grpc.StatusCode.CANCELLED]
        codes = {grpc.StatusCode.UNAVAILABLE}
        with (
            Client(fake.address, retries=3, backoff=0.001, retry_codes=codes) as ordo,
            pytest.raises(OrdoError) as caught,
        ):
            ordo.list_games()
        assert caught.value.code is grpc.StatusCode.CANCELLED
        assert len(fake.calls) == 1

    def test_the_callers_cancellation_is_not_retried(self, fake: FakeServer) -> None:
        """A call in flight when its caller closes the client fails CANCELLED, once: closing
        is the caller's own cancellation."""
        fake.pauses = [WAITING_SECONDS * 4]
        failures: list[OrdoError] = []
        ordo = Client(fake.address, retries=3, backoff=0.001)

        def call() -> None:
            try:
                ordo.list_games()
            except OrdoError as error:
                failures.append(error)

        caller = threading.Thread(target=call)
        caller.start()
        assert fake.received.wait(WAITING_SECONDS * 4)
        ordo.close()
        caller.join()
        assert [failure.code for failure in failures] == [grpc.StatusCode.CANCELLED]
        assert len(fake.calls) == 1

    def test_the_old_name_of_cancelled_is_retried_too(self) -> None:
        """``ALSO_RETRYABLE``, which a caller once added to retry CANCELLED, is in RETRYABLE."""
        assert ALSO_RETRYABLE <= RETRYABLE

    def test_retries_share_the_calls_deadline(self, fake: FakeServer) -> None:
        """A retry gets what is left of the call's timeout, not a whole timeout of its own."""
        fake.failures = [grpc.StatusCode.UNAVAILABLE]
        fake.pauses = [0.6]  # the first attempt spends most of the second the call has
        with Client(fake.address, timeout=1.0, backoff=0.001) as ordo:
            ordo.list_games()
        first, retry = (call.time_remaining for call in fake.calls)
        assert first is not None
        assert retry is not None
        assert first > 0.8
        assert retry < 0.6

    @pytest.mark.parametrize(
        "settings", [{"timeout": 0.0}, {"timeout": -1.0}, {"retries": -1}, {"backoff": -0.01}]
    )
    def test_bad_settings_are_refused(self, settings: dict[str, Any]) -> None:
        """A timeout that is not positive, or a negative retry count or pause, is a ValueError."""
        with pytest.raises(ValueError, match="need retries >= 0, timeout > 0"):
            Client(**settings)

    def test_backoff_above_its_cap_is_refused(self) -> None:
        """A first pause longer than the longest one is a ValueError."""
        with pytest.raises(ValueError, match="backoff"):
            Client(backoff=1.0, max_backoff=0.5)

    @pytest.mark.parametrize(
        "code",
        [
            grpc.StatusCode.INVALID_ARGUMENT,
            grpc.StatusCode.DEADLINE_EXCEEDED,
            grpc.StatusCode.RESOURCE_EXHAUSTED,
        ],
    )
    def test_codes_a_server_answered_cannot_be_retried(self, code: grpc.StatusCode) -> None:
        """Asking to retry a code outside RETRYABLE (an answer that would come again, or a
        deadline already spent) is refused."""
        with pytest.raises(ValueError, match="retry_codes"):
            Client(retry_codes={grpc.StatusCode.UNAVAILABLE, code})

    def test_backoff_doubles_up_to_its_cap(
        self, fake: FakeServer, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """Each pause is drawn below a bound that doubles per retry, capped at max_backoff."""
        fake.failures = [grpc.StatusCode.UNAVAILABLE] * 4
        bounds: list[float] = []

        def shortest(low: float, high: float) -> float:
            bounds.append(high)
            return low

        with Client(fake.address, retries=4, backoff=0.01, max_backoff=0.03) as ordo:
            monkeypatch.setattr(ordo._random, "uniform", shortest)
            ordo.list_games()
        assert bounds == [0.01, 0.02, 0.03, 0.03]

    def test_no_retry_past_the_deadline(
        self, fake: FakeServer, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """A pause that would end after the call's deadline raises at once instead."""
        fake.failures = [grpc.StatusCode.UNAVAILABLE] * 4
        with Client(fake.address, timeout=1.0, retries=4, backoff=5.0, max_backoff=5.0) as ordo:
            monkeypatch.setattr(ordo._random, "uniform", lambda low, high: high)
            with pytest.raises(OrdoError):
                ordo.list_games()
        assert len(fake.calls) == 1


class TestMetadata:
    """Every call carries an x-request-id and the client's metadata."""

    def test_request_id_is_generated_per_call(self, fake: FakeServer) -> None:
        """Without one, each call gets a fresh 32-digit hex request id."""
        with Client(fake.address) as ordo:
            ordo.list_games()
            ordo.list_games()
        first, second = (call.metadata[REQUEST_ID_KEY] for call in fake.calls)
        assert first != second
        assert len(first) == 32
        int(first, 16)

    def test_callers_request_id_is_sent(self, fake: FakeServer) -> None:
        """The caller's request id is sent as given."""
        with Client(fake.address) as ordo:
            ordo.list_games(request_id="match-42-move-7")
        assert fake.calls[0].metadata[REQUEST_ID_KEY] == "match-42-move-7"

    def test_request_id_is_kept_across_retries(self, fake: FakeServer) -> None:
        """Every attempt of one call carries the same request id."""
        fake.failures = [grpc.StatusCode.UNAVAILABLE]
        with Client(fake.address, backoff=0.001) as ordo:
            ordo.list_games()
        assert len({call.metadata[REQUEST_ID_KEY] for call in fake.calls}) == 1

    def test_a_failed_call_tells_its_request_id(self, fake: FakeServer) -> None:
        """The error carries the request id its attempts were sent with, given or made."""
        fake.failures = [grpc.StatusCode.INVALID_ARGUMENT] * 2
        with Client(fake.address) as ordo:
            with pytest.raises(OrdoError) as given:
                ordo.list_games(request_id="match-42-move-7")
            with pytest.raises(OrdoError) as made:
                ordo.list_games()
        assert given.value.request_id == "match-42-move-7"
        assert made.value.request_id == fake.calls[1].metadata[REQUEST_ID_KEY]

    def test_the_clients_seat_token_is_sent(self, fake: FakeServer) -> None:
        """The constructor's seat token goes with every call as ordo-seat-token; none without
        one."""
        with Client(fake.address, seat_token="o1.k.m.0.mac") as ordo:
            ordo.list_games()
        with Client(fake.address) as ordo:
            ordo.list_games()
        assert fake.calls[0].metadata[SEAT_TOKEN_KEY] == "o1.k.m.0.mac"
        assert SEAT_TOKEN_KEY not in fake.calls[1].metadata

    def test_client_metadata_is_sent(self, fake: FakeServer) -> None:
        """The constructor's metadata goes with every call."""
        with Client(fake.address, metadata=[("x-tenant", "blue")]) as ordo:
            ordo.list_games()
        assert fake.calls[0].metadata["x-tenant"] == "blue"


class TestChannels:
    """channels=N opens N distinct connections and spreads calls over them round-robin."""

    def test_calls_spread_over_distinct_connections(self, fake: FakeServer) -> None:
        """Six calls on three channels come from three peers, two calls each."""
        with Client(fake.address, channels=3) as ordo:
            for _ in range(6):
                ordo.list_games()
        peers = [call.peer for call in fake.calls]
        assert len(set(peers)) == 3
        assert peers[:3] == peers[3:]

    def test_retry_takes_the_next_channel(self, fake: FakeServer) -> None:
        """A retried call is tried again on another connection."""
        fake.failures = [grpc.StatusCode.UNAVAILABLE]
        with Client(fake.address, channels=2, backoff=0.001) as ordo:
            ordo.list_games()
        assert len({call.peer for call in fake.calls}) == 2

    def test_channel_options_reach_every_channel(self, fake: FakeServer) -> None:
        """Channel arguments are given to each of the channels."""
        options = [("grpc.primary_user_agent", "table-server/7")]
        with Client(fake.address, channels=2, channel_options=options) as ordo:
            for _ in range(2):
                ordo.list_games()
        assert len({call.peer for call in fake.calls}) == 2
        assert all(call.metadata["user-agent"].startswith("table-server/7") for call in fake.calls)

    def test_round_robin_spreads_calls_over_the_addresses(
        self, two_fakes: tuple[FakeServer, FakeServer]
    ) -> None:
        """With the round_robin policy a target of several addresses (as a headless Service's
        DNS name resolves) gets calls on every one; without it, on one."""
        target = "ipv4:" + ",".join(server.address for server in two_fakes)
        with Client(target) as ordo:
            for _ in range(10):
                ordo.list_games()
        assert sorted(len(server.calls) for server in two_fakes) == [0, 10]
        options = [("grpc.lb_policy_name", "round_robin")]
        with Client(target, channel_options=options) as ordo:
            for _ in range(20):
                ordo.list_games()
        assert all(len(server.calls) > 0 for server in two_fakes)
        assert sum(len(server.calls) for server in two_fakes) == 30

    def test_one_channel_is_one_connection(self, fake: FakeServer) -> None:
        """With the default single channel every call comes from the same peer."""
        with Client(fake.address) as ordo:
            for _ in range(3):
                ordo.list_games()
        assert len({call.peer for call in fake.calls}) == 1

    def test_every_method_works_over_several_channels(self, server_address: str) -> None:
        """A whole exchange with a real server works over four channels."""
        with Client(server_address, channels=4) as ordo:
            assert ordo.channel_count == 4
            dealt = ordo.new_game(GAME, 2, seed=5)
            action = ordo.suggest_action(dealt.state, 0).action
            assert ordo.validate_action(dealt.state, action).legal
            assert ordo.apply_action(dealt.state, action).state.revision == 1
            assert ordo.list_legal_actions(dealt.state, 1).actions
            assert ordo.get_view(dealt.state).view.six_nimmt.rows

    def test_zero_channels_is_refused(self) -> None:
        """channels must be at least one."""
        with pytest.raises(ValueError, match="channels"):
            Client(channels=0)


class TestWaitForReady:
    """wait_for_ready makes a call wait for a server that is not up yet."""

    def test_a_call_waits_for_a_server_that_starts_later(self) -> None:
        """The call is still waiting when the server is not there, and is answered once it
        starts; no retry is needed."""
        port = closed_port()
        target = f"127.0.0.1:{port}"
        with (
            Client(target, timeout=30.0, retries=0, wait_for_ready=True) as ordo,
            futures.ThreadPoolExecutor(max_workers=1) as pool,
        ):
            call = pool.submit(ordo.list_games)
            with pytest.raises(futures.TimeoutError):
                call.result(timeout=WAITING_SECONDS)
            with running_fake(port) as fake:
                call.result(timeout=30.0)
            assert len(fake.calls) == 1

    def test_without_it_the_call_fails_at_once(self) -> None:
        """By default a call to a server that is not up fails with UNAVAILABLE, long before
        its deadline."""
        with (
            Client(f"127.0.0.1:{closed_port()}", timeout=30.0, retries=0) as ordo,
            futures.ThreadPoolExecutor(max_workers=1) as pool,
        ):
            call = pool.submit(ordo.list_games)
            with pytest.raises(OrdoError) as caught:
                call.result(timeout=10.0)
        assert caught.value.code is grpc.StatusCode.UNAVAILABLE


class TestTLS:
    """With credentials every channel is a TLS one; without, the client speaks plaintext."""

    def test_calls_over_tls(self, tls_server_address: str) -> None:
        """A client trusting the server's certificate plays over TLS, on every channel."""
        with Client(tls_server_address, channels=2, credentials=trusting_credentials()) as ordo:
            dealt = ordo.new_game(GAME, 2, seed=5)
            action = ordo.suggest_action(dealt.state, 0).action
            assert ordo.apply_action(dealt.state, action).state.revision == 1

    def test_plaintext_to_a_tls_server_fails(self, tls_server_address: str) -> None:
        """Without credentials the TLS server is not reached: UNAVAILABLE."""
        with (
            Client(tls_server_address, timeout=5.0, retries=0) as ordo,
            pytest.raises(OrdoError) as caught,
        ):
            ordo.list_games()
        assert caught.value.code is grpc.StatusCode.UNAVAILABLE

    def test_an_untrusted_certificate_fails(self, tls_server_address: str) -> None:
        """gRPC's default roots do not trust the self-signed test certificate: UNAVAILABLE."""
        credentials = grpc.ssl_channel_credentials()
        with (
            Client(tls_server_address, timeout=5.0, retries=0, credentials=credentials) as ordo,
            pytest.raises(OrdoError) as caught,
        ):
            ordo.list_games()
        assert caught.value.code is grpc.StatusCode.UNAVAILABLE


class TestLifecycle:
    """The client is a context manager that closes its channels."""

    def test_context_manager_closes_every_channel(
        self, server_address: str, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """Leaving the block closes each channel, which then refuses calls."""
        opened: list[grpc.Channel] = []
        real = grpc.insecure_channel

        def recording(target: str, options: list[tuple[str, int]] | None = None) -> grpc.Channel:
            channel = real(target, options=options)
            opened.append(channel)
            return channel

        monkeypatch.setattr(grpc, "insecure_channel", recording)
        with Client(server_address, channels=2) as ordo:
            ordo.list_games()
        assert ordo.closed
        assert len(opened) == 2
        for channel in opened:
            with pytest.raises(ValueError, match="closed"):
                channel.unary_unary(f"/{SERVICE}/ListGames")(b"")

    def test_closed_client_refuses_calls(self, server_address: str) -> None:
        """A call after close() is a ValueError."""
        ordo = Client(server_address)
        ordo.close()
        with pytest.raises(ValueError, match="closed"):
            ordo.list_games()


class TestGameOptions:
    """game_options builds the GameOptions of a game id."""

    def test_defaults(self) -> None:
        """A game id alone selects the game with an empty options message."""
        options = game_options(GAME)
        assert options.WhichOneof("game") == GAME
        assert options.six_nimmt == six_nimmt.SixNimmtOptions()

    def test_both_forms_at_once_are_refused(self) -> None:
        """A GameOptions with a separate options message is ambiguous."""
        with pytest.raises(ValueError, match="either"):
            game_options(common.GameOptions(), six_nimmt.SixNimmtOptions())


class TestSealedInfo:
    """ordo.sealed_info reads what a sealed state keeps in clear, and nothing of a plain one."""

    def test_a_sealed_state(self, sealed_stub: rpc.GameEngineServiceStub) -> None:
        """A state a server with keys returned gives its game, revision, rules version, match
        id and bot seats, and the id of the key that sealed it."""
        options = common.GameOptions(fora_de_ordem={})
        bots = [common.BotSeat(seat=2, policy="random")]
        request = api.NewGameRequest(seats=3, seed=8, options=options, bots=bots)
        state = sealed_stub.NewGame(request).state
        assert len(state.match_id) == 16
        assert ordo.sealed_info(state) == ordo.SealedInfo(
            game_id="fora_de_ordem",
            revision=0,
            rules_version=state.rules_version,
            key_id=TEST_KEY[0],
            match_id=state.match_id,
            bots=((2, "random"),),
        )

    def test_a_plain_state(self, stub: rpc.GameEngineServiceStub) -> None:
        """A plain state is not sealed: None."""
        options = common.GameOptions(six_nimmt={})
        state = stub.NewGame(api.NewGameRequest(seats=3, seed=8, options=options)).state
        assert ordo.sealed_info(state) is None
