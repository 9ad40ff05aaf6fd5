"""The asyncio client ``ordo.AsyncClient``: the surface of ``ordo.Client`` as coroutines, against
a real server and scripted fakes; calls running concurrently on one client."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import grpc
import pytest

from ordo import AsyncClient, Client, OrdoError
from ordo.client import REQUEST_ID_KEY
from ordo.v1 import common_pb2 as common
from ordo.v1 import engine_service_pb2 as api
from ordo.v1 import six_nimmt_pb2 as six_nimmt
from tests.clients.fakes import (
    WAITING_SECONDS,
    FakeServer,
    closed_port,
    details,
    running_fake,
    trusting_credentials,
)

GAME = "six_nimmt"
SEATS = 4
SEED = 3
WAIT_SECONDS = 10.0  # bound on waiting for the fake server to receive a call
T = TypeVar("T")


def run(client: Callable[[], AsyncClient], body: Callable[[AsyncClient], Awaitable[T]]) -> T:
    """Run ``body`` with a client made (by ``client``) inside a new event loop, then closed."""

    async def main() -> T:
        async with client() as ordo:
            return await body(ordo)

    return asyncio.run(main())


def _select(seat: int, card: int) -> common.Action:
    return common.Action(seat=seat, six_nimmt=six_nimmt.SixNimmtAction(select_card=card))


def _public_methods(cls: type) -> dict[str, inspect.Signature]:
    return {
        name: inspect.signature(member)
        for name, member in vars(cls).items()
        if callable(member) and not name.startswith("_")
    }


class TestSurface:
    """The asyncio client is the client's twin."""

    def test_same_methods_with_the_same_arguments(self) -> None:
        """Every public method of Client is a coroutine of AsyncClient with the same
        parameters, defaults and return annotation; a generator of Client (a stream) is an
        async generator of AsyncClient with the same parameters."""
        sync, aio = _public_methods(Client), _public_methods(AsyncClient)
        assert sorted(sync) == sorted(aio)
        for name, signature in sync.items():
            if inspect.isgeneratorfunction(getattr(Client, name)):
                assert inspect.isasyncgenfunction(getattr(AsyncClient, name)), name
                assert aio[name].parameters == signature.parameters, name
                continue
            assert inspect.iscoroutinefunction(getattr(AsyncClient, name)), name
            assert aio[name] == signature, name

    @pytest.mark.parametrize(
        "settings", [{"timeout": 0.0}, {"retries": -1}, {"backoff": -0.01}, {"channels": 0}]
    )
    def test_bad_settings_are_refused(self, settings: dict[str, Any]) -> None:
        """The settings are checked as the client checks them."""
        with pytest.raises(ValueError, match=r"must be at least 1|need retries >= 0"):
            AsyncClient(**settings)


class TestCalls:
    """Every RPC against the real server, alone and many at once."""

    def test_a_whole_exchange(self, server_address: str) -> None:
        """Each method answers as the client's does, for the same requests."""

        async def exchange(ordo: AsyncClient) -> list[Any]:
            games = await ordo.list_games()
            dealt = await ordo.new_game(GAME, SEATS, seed=SEED)
            view = await ordo.get_view(dealt.state, 0)
            spectator = await ordo.get_view(dealt.state)
            legal = await ordo.list_legal_actions(dealt.state, 1)
            action = (await ordo.suggest_action(dealt.state, 2, "random", seed=7)).action
            validated = await ordo.validate_action(dealt.state, action)
            applied = await ordo.apply_action(dealt.state, action)
            return [games, dealt, view, spectator, legal, action, validated, applied]

        got = run(lambda: AsyncClient(server_address), exchange)
        games, dealt, view, spectator, legal, action, validated, applied = got
        assert GAME in {game.id for game in games.games}
        assert dealt.seed == SEED
        assert len(view.view.six_nimmt.hand) == 10
        assert not spectator.view.six_nimmt.hand
        assert {each.seat for each in legal.actions} == {1}
        assert validated.legal
        assert applied.state.revision == 1
        with Client(server_address) as ordo:
            assert ordo.new_game(GAME, SEATS, seed=SEED) == dealt
            assert ordo.suggest_action(dealt.state, 2, "random", seed=7).action == action
            assert ordo.apply_action(dealt.state, action) == applied

    def test_new_game_with_options(self, server_address: str) -> None:
        """A game id with its options message deals with those options."""
        options = six_nimmt.SixNimmtOptions(threshold=10)

        async def deal(ordo: AsyncClient) -> api.NewGameResponse:
            return await ordo.new_game(GAME, 2, seed=1, options=options)

        dealt = run(lambda: AsyncClient(server_address), deal)
        assert dealt.state.six_nimmt.options.threshold == 10

    def test_concurrent_calls_on_one_client(self, server_address: str) -> None:
        """Every card of every seat is selected at once, over two connections: every answer
        comes, each the one its own request asks for."""

        async def play(ordo: AsyncClient) -> tuple[Any, list[common.Action], list[Any]]:
            dealt = await ordo.new_game(GAME, 10, seed=SEED)
            views = await asyncio.gather(*(ordo.get_view(dealt.state, seat) for seat in range(10)))
            actions = [
                _select(seat, card)
                for seat, view in enumerate(views)
                for card in view.view.six_nimmt.hand
            ]
            applied = await asyncio.gather(
                *(ordo.apply_action(dealt.state, action) for action in actions)
            )
            return dealt, actions, applied

        dealt, actions, applied = run(lambda: AsyncClient(server_address, channels=2), play)
        assert len(applied) == len(actions) == 100
        assert len({response.SerializeToString() for response in applied}) == 100
        with Client(server_address) as ordo:
            for action, response in list(zip(actions, applied, strict=True))[::7]:
                assert ordo.apply_action(dealt.state, action) == response


class TestErrors:
    """A failed call raises the OrdoError the client raises."""

    def test_illegal_action(self, server_address: str) -> None:
        """An illegal action gives INVALID_ARGUMENT with the rules' reason."""

        async def illegal(ordo: AsyncClient) -> None:
            dealt = await ordo.new_game(GAME, SEATS, seed=SEED)
            hand = (await ordo.get_view(dealt.state, 1)).view.six_nimmt.hand
            missing = next(card for card in range(1, 105) if card not in hand)
            await ordo.apply_action(dealt.state, _select(1, missing))

        with pytest.raises(OrdoError) as caught:
            run(lambda: AsyncClient(server_address), illegal)
        assert caught.value.code is grpc.StatusCode.INVALID_ARGUMENT
        assert caught.value.reason == "CARD_NOT_IN_HAND"
        assert caught.value.request_id

    def test_error_info_metadata(self, server_address: str) -> None:
        """The ErrorInfo's metadata comes with the reason."""

        async def oracle(ordo: AsyncClient) -> None:
            dealt = await ordo.new_game(GAME, SEATS, seed=SEED)
            await ordo.suggest_action(dealt.state, 0, policy="oracle")

        with pytest.raises(OrdoError) as caught:
            run(lambda: AsyncClient(server_address), oracle)
        assert caught.value.reason == "UNKNOWN_POLICY"
        assert caught.value.metadata == {"policy": "oracle"}

    def test_details_that_contradict_the_call_are_ignored(self, fake: FakeServer) -> None:
        """Rich details of the call's code give their reason; of another code, none."""
        fake.failures = [grpc.StatusCode.NOT_FOUND, grpc.StatusCode.PERMISSION_DENIED]
        fake.details = details(grpc.StatusCode.NOT_FOUND, "SOME_REASON")
        caught = []

        async def twice(ordo: AsyncClient) -> None:
            for _ in range(2):
                with pytest.raises(OrdoError) as error:
                    await ordo.list_games()
                caught.append(error.value)

        run(lambda: AsyncClient(fake.address), twice)
        assert [(error.code, error.reason) for error in caught] == [
            (grpc.StatusCode.NOT_FOUND, "SOME_REASON"),
            (grpc.StatusCode.PERMISSION_DENIED, ""),
        ]

    def test_unreachable_server(self) -> None:
        """Nothing listening gives UNAVAILABLE with an empty reason, after the retries."""

        async def call(ordo: AsyncClient) -> None:
            await ordo.list_games()

        target = f"127.0.0.1:{closed_port()}"
        with pytest.raises(OrdoError) as caught:
            run(lambda: AsyncClient(target, timeout=5.0, retries=2), call)
        assert (caught.value.code, caught.value.reason) == (grpc.StatusCode.UNAVAILABLE, "")


async def _list_games(ordo: AsyncClient) -> None:
    await ordo.list_games()


class TestRetries:
    """The client's retry policy: failures on the way only (never an answer of the service, nor
    the caller's own cancellation), a bounded number of times, within the call's deadline, with
    the same request id."""

    def test_retries_unavailable_until_success(self, fake: FakeServer) -> None:
        """Two UNAVAILABLE answers then success: three attempts, one request id."""
        fake.failures = [grpc.StatusCode.UNAVAILABLE] * 2
        run(lambda: AsyncClient(fake.address, retries=3, backoff=0.001), _list_games)
        assert len(fake.calls) == 3
        assert len({call.metadata[REQUEST_ID_KEY] for call in fake.calls}) == 1

    def test_gives_up_after_retries(self, fake: FakeServer) -> None:
        """A server that stays UNAVAILABLE is tried retries + 1 times."""
        fake.failures = [grpc.StatusCode.UNAVAILABLE] * 10
        with pytest.raises(OrdoError) as caught:
            run(lambda: AsyncClient(fake.address, retries=2, backoff=0.001), _list_games)
        assert caught.value.code is grpc.StatusCode.UNAVAILABLE
        assert caught.value.request_id == fake.calls[0].metadata[REQUEST_ID_KEY]
        assert len(fake.calls) == 3

    @pytest.mark.parametrize(
        "code", [grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.RESOURCE_EXHAUSTED]
    )
    def test_other_codes_are_not_retried(self, fake: FakeServer, code: grpc.StatusCode) -> None:
        """A code that a server answers with is raised after the first attempt."""
        fake.failures = [code]
        with pytest.raises(OrdoError) as caught:
            run(lambda: AsyncClient(fake.address, backoff=0.001), _list_games)
        assert caught.value.code is code
        assert len(fake.calls) == 1

    def test_cancelled_is_retried_by_default(self, fake: FakeServer) -> None:
        """A call cancelled on the server's side (a stopping worker's) is sent again."""
        fake.failures = [grpc.StatusCode.CANCELLED, grpc.StatusCode.UNAVAILABLE]
        run(lambda: AsyncClient(fake.address, backoff=0.001), _list_games)
        assert len(fake.calls) == 3

    def test_an_answer_of_the_service_is_never_retried(self, fake: FakeServer) -> None:
        """A failure with Ordo's ErrorInfo is the service's answer, even as UNAVAILABLE."""
        fake.failures = [grpc.StatusCode.UNAVAILABLE]
        fake.details = details(grpc.StatusCode.UNAVAILABLE, "SOME_REASON")
        with pytest.raises(OrdoError) as caught:
            run(lambda: AsyncClient(fake.address, backoff=0.001), _list_games)
        assert caught.value.answered
        assert len(fake.calls) == 1

    def test_the_callers_cancellation_is_not_retried(self, fake: FakeServer) -> None:
        """A task cancelled while its call is in flight ends cancelled, after one attempt."""
        fake.pauses = [WAITING_SECONDS * 4]

        async def cancelled(ordo: AsyncClient) -> None:
            call = asyncio.ensure_future(ordo.list_games())
            while not fake.received.is_set():
                await asyncio.sleep(0.01)
            call.cancel()
            with pytest.raises(asyncio.CancelledError):
                await call

        run(lambda: AsyncClient(fake.address, backoff=0.001), cancelled)
        assert len(fake.calls) == 1

    def test_retries_share_the_calls_deadline(self, fake: FakeServer) -> None:
        """A retry gets what is left of the call's timeout, on the next channel."""
        fake.failures = [grpc.StatusCode.UNAVAILABLE]
        fake.pauses = [0.6]
        run(lambda: AsyncClient(fake.address, timeout=1.0, channels=2, backoff=0.001), _list_games)
        first, retry = (call.time_remaining for call in fake.calls)
        assert first is not None
        assert retry is not None
        assert first > 0.8
        assert retry < 0.6
        assert len({call.peer for call in fake.calls}) == 2

    def test_backoff_doubles_up_to_its_cap(
        self, fake: FakeServer, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """Between attempts the client pauses, each pause below a bound that doubles per retry,
        capped at max_backoff (the pauses it chooses are recorded, not the event loop's other
        sleeps)."""
        fake.failures = [grpc.StatusCode.UNAVAILABLE] * 4
        paused: list[float] = []
        pause = AsyncClient._pause

        def recording(self: AsyncClient, *args: Any) -> float:
            chosen: float = pause(self, *args)
            paused.append(chosen)
            return chosen

        monkeypatch.setattr(AsyncClient, "_pause", recording)

        def client() -> AsyncClient:
            ordo = AsyncClient(fake.address, retries=4, backoff=0.01, max_backoff=0.03)
            ordo._random.uniform = lambda low, high: high  # type: ignore[method-assign]
            return ordo

        run(client, _list_games)
        assert len(fake.calls) == 5
        assert paused == [0.01, 0.02, 0.03, 0.03]

    def test_no_retry_past_the_deadline(self, fake: FakeServer) -> None:
        """A pause that would end after the deadline raises at once instead."""
        fake.failures = [grpc.StatusCode.UNAVAILABLE] * 4

        def client() -> AsyncClient:
            ordo = AsyncClient(fake.address, timeout=1.0, backoff=5.0, max_backoff=5.0)
            ordo._random.uniform = lambda low, high: high  # type: ignore[method-assign]
            return ordo

        with pytest.raises(OrdoError):
            run(client, _list_games)
        assert len(fake.calls) == 1


class TestMetadata:
    """Every call carries an x-request-id and the client's metadata."""

    def test_request_ids(self, fake: FakeServer) -> None:
        """A fresh id per call unless the caller gives one; the client's metadata goes too."""

        async def calls(ordo: AsyncClient) -> None:
            await ordo.list_games()
            await ordo.list_games(request_id="match-42-move-7")

        run(lambda: AsyncClient(fake.address, metadata=[("x-tenant", "blue")]), calls)
        made, given = (call.metadata for call in fake.calls)
        assert len(made[REQUEST_ID_KEY]) == 32
        assert given[REQUEST_ID_KEY] == "match-42-move-7"
        assert made["x-tenant"] == given["x-tenant"] == "blue"


class TestChannels:
    """channels and channel_options, as the client's."""

    def test_calls_spread_over_distinct_connections(self, fake: FakeServer) -> None:
        """Six calls on three channels come from three peers, in turn."""

        async def six(ordo: AsyncClient) -> None:
            for _ in range(6):
                await ordo.list_games()

        run(lambda: AsyncClient(fake.address, channels=3), six)
        peers = [call.peer for call in fake.calls]
        assert len(set(peers)) == 3
        assert peers[:3] == peers[3:]

    def test_round_robin_spreads_calls_over_the_addresses(
        self, two_fakes: tuple[FakeServer, FakeServer]
    ) -> None:
        """With the round_robin policy every address of the target gets calls."""
        target = "ipv4:" + ",".join(server.address for server in two_fakes)
        options = [("grpc.lb_policy_name", "round_robin")]

        async def twenty(ordo: AsyncClient) -> None:
            for _ in range(20):
                await ordo.list_games()

        run(lambda: AsyncClient(target, channel_options=options), twenty)
        assert all(len(server.calls) > 0 for server in two_fakes)


class TestWaitForReady:
    """wait_for_ready, as the client's."""

    def test_a_call_waits_for_a_server_that_starts_later(self) -> None:
        """The call is still waiting when the server is not there, and is answered once it
        starts."""
        port = closed_port()

        async def body() -> int:
            async with AsyncClient(
                f"127.0.0.1:{port}", timeout=30.0, retries=0, wait_for_ready=True
            ) as ordo:
                call = asyncio.ensure_future(ordo.list_games())
                done, _ = await asyncio.wait({call}, timeout=WAITING_SECONDS)
                assert not done
                with running_fake(port) as fake:
                    await asyncio.wait_for(call, 30.0)
                return len(fake.calls)

        assert asyncio.run(body()) == 1


class TestTLS:
    """Credentials make the channels TLS ones, as the client's."""

    def test_calls_over_tls(self, tls_server_address: str) -> None:
        """A client trusting the server's certificate deals and plays over TLS."""

        async def play(ordo: AsyncClient) -> int:
            dealt = await ordo.new_game(GAME, 2, seed=5)
            action = (await ordo.suggest_action(dealt.state, 0)).action
            return (await ordo.apply_action(dealt.state, action)).state.revision

        credentials = trusting_credentials()
        assert run(lambda: AsyncClient(tls_server_address, credentials=credentials), play) == 1

    def test_plaintext_to_a_tls_server_fails(self, tls_server_address: str) -> None:
        """Without credentials the TLS server is not reached: UNAVAILABLE."""
        with pytest.raises(OrdoError) as caught:
            run(lambda: AsyncClient(tls_server_address, timeout=5.0, retries=0), _list_games)
        assert caught.value.code is grpc.StatusCode.UNAVAILABLE


class TestLifecycle:
    """``async with`` closes the channels; a closed client refuses calls."""

    def test_closed_client_refuses_calls(self, server_address: str) -> None:
        """Leaving the block closes the client; a call after it is a ValueError."""

        async def body() -> AsyncClient:
            async with AsyncClient(server_address, channels=2) as ordo:
                await ordo.list_games()
            assert ordo.closed
            with pytest.raises(ValueError, match="closed"):
                await ordo.list_games()
            return ordo

        asyncio.run(body())

    def test_close_ends_the_calls_in_flight(self, fake: FakeServer) -> None:
        """A call still waiting when the client closes raises CANCELLED, not a hang, and not
        the CancelledError that would say its task was cancelled."""
        fake.pauses = [2.0]

        async def body() -> OrdoError:
            ordo = AsyncClient(fake.address, timeout=30.0)
            call = asyncio.ensure_future(ordo.list_games())
            assert await asyncio.to_thread(fake.received.wait, WAIT_SECONDS)
            await ordo.close()
            with pytest.raises(OrdoError) as caught:
                await asyncio.wait_for(call, 10.0)
            return caught.value

        assert asyncio.run(body()).code is grpc.StatusCode.CANCELLED

    def test_a_cancelled_task_stays_cancelled(self, fake: FakeServer) -> None:
        """Cancelling the task that awaits a call cancels it, as for any coroutine."""
        fake.pauses = [2.0]

        async def body() -> None:
            async with AsyncClient(fake.address, timeout=30.0) as ordo:
                call = asyncio.ensure_future(ordo.list_games())
                assert await asyncio.to_thread(fake.received.wait, WAIT_SECONDS)
                call.cancel()
                with pytest.raises(asyncio.CancelledError):
                    await call

        asyncio.run(body())

    def test_made_outside_an_event_loop(self) -> None:
        """Made where no loop runs, the client says it must be made in its loop."""
        with pytest.raises(
            RuntimeError, match="make it in a coroutine of that loop: no event loop is running"
        ):
            AsyncClient()

    def test_used_from_another_event_loop(self, server_address: str) -> None:
        """Used from a loop other than its own, a call says so, and sends nothing."""

        async def make() -> AsyncClient:
            return AsyncClient(server_address)

        ordo = asyncio.run(make())
        with pytest.raises(RuntimeError, match="made in another loop"):
            asyncio.run(ordo.list_games())

    def test_a_task_cancelled_as_the_client_closes_stays_cancelled(self, fake: FakeServer) -> None:
        """A task cancelled while its client closes ends cancelled, not with an OrdoError."""
        fake.pauses = [2.0]

        async def body() -> None:
            ordo = AsyncClient(fake.address, timeout=30.0)
            call = asyncio.ensure_future(ordo.list_games())
            assert await asyncio.to_thread(fake.received.wait, WAIT_SECONDS)
            call.cancel()
            await ordo.close()
            with pytest.raises(asyncio.CancelledError):
                await call

        asyncio.run(body())
