"""``AsyncClient``: Ordo's client for asyncio, on ``grpc.aio``.

It is ``ordo.Client`` with coroutines: the same methods with the same arguments, the same
``OrdoError``, the same retries (of every call that failed before the service answered it, but
never of the caller's own deadline or cancellation; exponential backoff with full jitter,
within the call's deadline), the same ``x-request-id`` on every attempt of a call, and
the same ``channels``, ``channel_options``, ``credentials`` and ``wait_for_ready``. Calls run
concurrently on one client::

    async with AsyncClient("localhost:50051") as ordo:
        game = await ordo.new_game("six_nimmt", seats=4)
        views = await asyncio.gather(*(ordo.get_view(game.state, seat) for seat in range(4)))

Make it inside the event loop that uses it (in a coroutine), as ``grpc.aio`` channels are: made
outside a running loop, or used from another, it raises a ``RuntimeError`` that says so.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Mapping
from types import TracebackType
from typing import TYPE_CHECKING, Any, Self

import grpc
from google.protobuf.message import Message

from ordo.client import OrdoError, Request, Response, _ClientBase
from ordo.requests import (
    Game,
    apply_request,
    game_field,
    new_game_request,
    record_token,
    replay_request,
    view_request,
)
from ordo.tables import MAX_RECONNECTS, pause, reconnects, watch_request
from ordo.v1 import common_pb2 as common
from ordo.v1 import engine_service_pb2 as api
from ordo.v1 import engine_service_pb2_grpc as api_grpc

if TYPE_CHECKING:
    from ordo.v1.engine_service_pb2_grpc import GameEngineServiceAsyncStub as AsyncStub
else:  # the same class at run time: its type stubs type it on an asyncio channel
    AsyncStub = api_grpc.GameEngineServiceStub

__all__ = ["AsyncClient"]

LOOP_RULE = (
    "an AsyncClient is used in the event loop it was made in (grpc.aio channels belong to "
    "their loop): make it in a coroutine of that loop"
)

AsyncMethod = Callable[[AsyncStub], "grpc.aio.UnaryUnaryMultiCallable[Request, Response]"]


def _running_loop() -> asyncio.AbstractEventLoop:
    """The event loop running now; a RuntimeError that says why when none is."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        raise RuntimeError(f"{LOOP_RULE}: no event loop is running") from None


def _cancelling() -> bool:
    """Whether the current task is being cancelled."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


class AsyncClient(_ClientBase[grpc.aio.Channel, AsyncStub]):
    """A connection to an Ordo server for asyncio; use it with ``async with`` or await
    ``close()``. It takes the settings of ``ordo.Client``, which says what each one does."""

    _loop: asyncio.AbstractEventLoop  # the loop its channels belong to

    def _open_channel(self, target: str, options: list[tuple[str, Any]]) -> grpc.aio.Channel:
        self._loop = _running_loop()  # the same for every channel: the one they are made in
        if self.credentials is None:
            return grpc.aio.insecure_channel(target, options=options)
        return grpc.aio.secure_channel(target, self.credentials, options=options)

    def _stub(self, channel: grpc.aio.Channel) -> AsyncStub:
        return api_grpc.GameEngineServiceStub(channel)

    # ----------------------------------------------------------------- lifecycle
    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.close()

    async def close(self) -> None:
        """Close every channel; the client cannot be used afterwards. A call still in flight
        raises an ``OrdoError`` of code CANCELLED."""
        self._closed = True
        for channel in self._channels:
            await channel.close(None)

    # ----------------------------------------------------------------- RPCs
    async def list_games(
        self, *, timeout: float | None = None, request_id: str | None = None
    ) -> api.ListGamesResponse:
        """Every game the server runs, with seat ranges, options and bot policies."""
        request = api.ListGamesRequest()
        return await self._call(lambda stub: stub.ListGames, request, timeout, request_id)

    async def new_game(
        self,
        game: str | common.GameOptions,
        seats: int,
        seed: int = 0,
        *,
        options: Message | None = None,
        bots: Mapping[int, str] | None = None,
        host: bool = False,
        timeout: float | None = None,
        request_id: str | None = None,
    ) -> api.NewGameResponse:
        """Deal a new game, or host one (see ``Client.new_game``)."""
        request = new_game_request(game, seats, seed, options, bots, host)
        return await self._call(lambda stub: stub.NewGame, request, timeout, request_id)

    async def apply_action(
        self,
        state: Game,
        action: common.Action,
        *,
        viewer: int | common.Viewer | None = None,
        table_revision: int = 0,
        timeout: float | None = None,
        request_id: str | None = None,
        seat_token: str | None = None,
    ) -> api.ApplyActionResponse:
        """Apply one seat's action, to a state or a hosted table (see
        ``Client.apply_action``)."""
        request = apply_request(state, viewer, action=action, table_revision=table_revision)
        return await self._call(
            lambda stub: stub.ApplyAction, request, timeout, request_id, seat_token
        )

    async def play_bot(
        self,
        state: common.GameState,
        seat: int,
        policy: str = "",
        seed: int = 0,
        *,
        search_iterations: int = 0,
        viewer: int | common.Viewer | None = None,
        timeout: float | None = None,
        request_id: str | None = None,
        seat_token: str | None = None,
    ) -> api.ApplyActionResponse:
        """Apply the move a bot chooses for ``seat`` (as ``suggest_action`` would choose it),
        without showing the move: the events are those ``viewer`` may see, as in
        ``apply_action``. Without a ``policy`` the bot plays the one the game's ``bots`` gave
        the seat (``heuristic`` for any other seat). ``search_iterations`` is the ``search``
        policy's budget (0: the game's default)."""
        bot = api.BotMove(seat=seat, policy=policy, seed=seed, search_iterations=search_iterations)
        request = apply_request(state, viewer, bot=bot)
        return await self._call(
            lambda stub: stub.ApplyAction, request, timeout, request_id, seat_token
        )

    async def validate_action(
        self,
        state: Game,
        action: common.Action,
        *,
        timeout: float | None = None,
        request_id: str | None = None,
        seat_token: str | None = None,
    ) -> api.ValidateActionResponse:
        """Whether ``apply_action`` would accept the action, and why not."""
        request = api.ValidateActionRequest(action=action, **game_field(state))
        return await self._call(
            lambda stub: stub.ValidateAction, request, timeout, request_id, seat_token
        )

    async def list_legal_actions(
        self,
        state: Game,
        seat: int,
        *,
        timeout: float | None = None,
        request_id: str | None = None,
        seat_token: str | None = None,
    ) -> api.ListLegalActionsResponse:
        """Every legal action of ``seat`` now (none when it is not to act)."""
        request = api.ListLegalActionsRequest(seat=seat, **game_field(state))
        return await self._call(
            lambda stub: stub.ListLegalActions, request, timeout, request_id, seat_token
        )

    async def get_view(
        self,
        state: Game,
        seat: int | None = None,
        *,
        timeout: float | None = None,
        request_id: str | None = None,
        seat_token: str | None = None,
    ) -> api.GetViewResponse:
        """What ``seat`` may see of the game; a spectator's view when ``seat`` is None."""
        request = view_request(state, seat)
        return await self._call(lambda stub: stub.GetView, request, timeout, request_id, seat_token)

    async def suggest_action(
        self,
        state: Game,
        seat: int,
        policy: str = "heuristic",
        seed: int = 0,
        *,
        search_iterations: int = 0,
        timeout: float | None = None,
        request_id: str | None = None,
        seat_token: str | None = None,
    ) -> api.SuggestActionResponse:
        """A bot's action for ``seat``; seed 0 makes the answer depend on the request alone.
        ``search_iterations`` is the ``search`` policy's budget (0: the game's default)."""
        request = api.SuggestActionRequest(
            **game_field(state),
            seat=seat,
            policy=policy,
            seed=seed,
            search_iterations=search_iterations,
        )
        return await self._call(
            lambda stub: stub.SuggestAction, request, timeout, request_id, seat_token
        )

    async def replay_game(
        self,
        record: api.GameRecord,
        viewer: int | common.Viewer | None = None,
        *,
        reveal: bool = False,
        first_step: int = 0,
        page_size: int = 0,
        from_state: common.GameState | None = None,
        timeout: float | None = None,
        request_id: str | None = None,
        seat_token: str | None = None,
    ) -> api.ReplayGameResponse:
        """Play a game record through, as ``Client.replay_game`` does."""
        request = replay_request(record, viewer, reveal, first_step, page_size, from_state)
        token = record_token(record, seat_token)
        return await self._call(lambda stub: stub.ReplayGame, request, timeout, request_id, token)

    async def watch_game(
        self,
        table_id: str,
        *,
        after_revision: int | None = None,
        viewer: int | common.Viewer | None = None,
        request_id: str | None = None,
        seat_token: str | None = None,
    ) -> AsyncIterator[api.WatchGameResponse]:
        """Every revision of a hosted table, for ``async for`` (see ``Client.watch_game``):
        a cut stream is taken up again from the last revision given."""
        request_id, metadata, _ = self._begin(None, request_id, seat_token)
        if _running_loop() is not self._loop:
            raise RuntimeError(f"{LOOP_RULE}: this one was made in another loop")
        last, attempt = after_revision, 0
        while True:
            stub, _ = self._attempt(0.0)
            stream: Any = stub.WatchGame(
                watch_request(table_id, last, viewer),
                metadata=metadata,
                wait_for_ready=self.wait_for_ready,
            )
            try:
                async for message in stream:
                    last, attempt = message.revision, 0
                    yield message
                return
            except grpc.RpcError as error:
                failure = self._failure(error, request_id)
                if self._closed or attempt >= MAX_RECONNECTS:
                    raise failure from None
                if not reconnects(failure, self.retry_codes):
                    raise failure from None
            finally:
                stream.cancel()
            await asyncio.sleep(pause(attempt, self.backoff, self.max_backoff, self._random))
            attempt += 1

    async def get_record(
        self,
        table_id: str,
        *,
        timeout: float | None = None,
        request_id: str | None = None,
        seat_token: str | None = None,
    ) -> api.GetRecordResponse:
        """The record of a hosted table's finished game."""
        request = api.GetRecordRequest(table_id=table_id)
        return await self._call(
            lambda stub: stub.GetRecord, request, timeout, request_id, seat_token
        )

    # ----------------------------------------------------------------- helpers
    async def _call(
        self,
        method: AsyncMethod[Request, Response],
        request: Request,
        timeout: float | None,
        request_id: str | None,
        seat_token: str | None = None,
    ) -> Response:
        """Send one request, retrying the retry codes within the deadline."""
        request_id, metadata, deadline = self._begin(timeout, request_id, seat_token)
        if _running_loop() is not self._loop:
            raise RuntimeError(f"{LOOP_RULE}: this one was made in another loop")
        attempt = 0
        while True:
            stub, remaining = self._attempt(deadline)
            try:
                return await method(stub)(
                    request,
                    timeout=remaining,
                    metadata=metadata,
                    wait_for_ready=self.wait_for_ready,
                )
            except grpc.RpcError as error:
                failure = self._failure(error, request_id)
            except asyncio.CancelledError:
                if _cancelling():
                    raise  # the task awaiting the call was cancelled: it must end
                # grpc.aio cancels the calls of a channel that closes: the call failed, the
                # task that awaits it was not cancelled.
                raise OrdoError(
                    grpc.StatusCode.CANCELLED, "", "the client was closed", request_id=request_id
                ) from None
            await asyncio.sleep(self._pause(failure, attempt, deadline))
            attempt += 1
