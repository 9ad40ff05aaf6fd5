"""A thin, typed client of ``ordo.v1.GameEngineService``: one method per RPC, one error type.

Every method sends one request and returns the response message unchanged; the client keeps no
game state and knows no game. What it adds to a bare stub:

- ``OrdoError``, the single exception of every failed call, carrying the status code and the
  stable ``reason`` of the server's ``google.rpc.ErrorInfo``;
- retries, by default, of every call that failed without an answer of the service (refused,
  cut off or lost on the way: a worker stopping, a connection closing, a stream over a
  connection's limit), and of the service's own UNAVAILABLE (its revision store out of reach),
  with exponential backoff and full jitter, within the call's deadline — safe because every RPC
  is a pure function of its request, ApplyAction included (the revision fence recognises an
  ApplyAction sent again). Any other answer of the service (an error with Ordo's
  ``ErrorInfo``: a seat token refused, a state superseded...), the caller's own deadline and the
  caller's own cancellation are never retried;
- a seat token (``ordo-seat-token``) for the servers that require one: the client's own, sent
  with every call, or one given to a call;
- hosted tables, on a server that hosts them: ``new_game(host=True)``, a table's id in place
  of a state in every call that takes one, ``watch_game`` (an iterator over the table's stream
  that watches again by itself from its last revision, ``ordo.tables``) and ``get_record``;
- an ``x-request-id`` on every call (the caller's, or a fresh one), the same for all attempts;
- several connections on demand (``channels=N``), used round-robin (call by call, attempt by
  attempt), so that one client reaches every worker of a server whose workers share a port with
  SO_REUSEPORT.
"""

from __future__ import annotations

import itertools
import random
import time
import uuid
from collections.abc import Callable, Collection, Generator, Mapping, Sequence
from types import TracebackType
from typing import Any, Generic, Self, TypeVar

import grpc
from google.protobuf.message import Message

from ordo.errors import OrdoError
from ordo.requests import (
    Game,
    apply_request,
    game_field,
    game_options,
    new_game_request,
    record_token,
    replay_request,
    view_request,
)
from ordo.tables import MAX_RECONNECTS, pause, reconnects, watch_request
from ordo.v1 import common_pb2 as common
from ordo.v1 import engine_service_pb2 as api
from ordo.v1 import engine_service_pb2_grpc as api_grpc

__all__ = [
    "ALSO_RETRYABLE",
    "DEFAULT_TARGET",
    "REQUEST_ID_KEY",
    "RETRIED_REASONS",
    "RETRYABLE",
    "SEAT_TOKEN_KEY",
    "Client",
    "Game",
    "OrdoError",
    "apply_request",
    "game_options",
    "new_game_request",
    "replay_request",
    "view_request",
]

DEFAULT_TARGET = "localhost:50051"
REQUEST_ID_KEY = "x-request-id"
SEAT_TOKEN_KEY = "ordo-seat-token"  # the metadata that carries a seat token
# The answers of the service that are retried, whatever ``retry_codes`` holds: its revision store
# or its table store was out of reach, or a table too busy, and the move was not applied (a
# retried move on a table is recognised by its table_revision), or the move's outcome is unknown,
# which the same request settles (UNAVAILABLE); a worker busy with heavy calls, retried no sooner
# than the delay it names (RESOURCE_EXHAUSTED, metadata retry_after_ms). Its other refusals come
# again the same and are never retried, those of seat tokens (UNAUTHENTICATED:
# SEAT_TOKEN_MISSING, SEAT_TOKEN_INVALID; PERMISSION_DENIED: SEAT_NOT_PERMITTED, NOT_A_BOT_SEAT,
# BOT_SETTINGS_NOT_PERMITTED, SEED_NOT_PERMITTED) and of the revision fence (FAILED_PRECONDITION:
# STATE_SUPERSEDED) among them: they need another token, or the game's latest state.
RETRIED_REASONS = frozenset(
    {
        "REVISION_STORE_UNAVAILABLE",
        "REVISION_STORE_OUTCOME_UNKNOWN",
        "SERVER_BUSY",
        "TABLE_STORE_UNAVAILABLE",
        "TABLE_BUSY",
    }
)
RETRY_AFTER_KEY = "retry_after_ms"  # the ErrorInfo metadata of the delay a retry waits at least
# The codes of a call that failed on the way, which no answer of the service carries (its
# answers carry an ErrorInfo, and are never retried whatever their code): UNAVAILABLE (no
# connection, a stream refused: REFUSED_STREAM, or sent after the server's GOAWAY), CANCELLED
# (a stopping worker cancels the calls gRPC had received but not handed to it; the caller's own
# cancellation is told apart and never retried), INTERNAL and UNKNOWN (a stream reset with an
# HTTP/2 error, a proxy's failure). Not DEADLINE_EXCEEDED: the caller's deadline is spent. Not
# RESOURCE_EXHAUSTED: a limit answered (a request too large), and would answer the same again.
RETRYABLE = frozenset(
    {
        grpc.StatusCode.UNAVAILABLE,
        grpc.StatusCode.CANCELLED,
        grpc.StatusCode.INTERNAL,
        grpc.StatusCode.UNKNOWN,
    }
)
# Once the code a caller had to add to retry the calls a stopping worker cancels; retried by
# default now (it is in RETRYABLE), kept for the code that names it.
ALSO_RETRYABLE = frozenset({grpc.StatusCode.CANCELLED})
MS_PER_SECOND = 1000
GAME_FIELD = "game"  # the oneof of GameOptions whose field names are the game ids
UNKNOWN_GAME = "UNKNOWN_GAME"  # the server's reason for a game it does not run

ChannelT = TypeVar("ChannelT")
StubT = TypeVar("StubT")
Request = TypeVar("Request", bound=Message)
Response = TypeVar("Response", bound=Message)
Method = Callable[
    [api_grpc.GameEngineServiceStub], "grpc.UnaryUnaryMultiCallable[Request, Response]"
]


class _ClientBase(Generic[ChannelT, StubT]):
    """What ``Client`` and ``ordo.aio.AsyncClient`` share: their settings, their channels, and
    the policy of their retries (the calls themselves are each client's own)."""

    def __init__(
        self,
        target: str = DEFAULT_TARGET,
        *,
        timeout: float = 10.0,
        retries: int = 3,
        channels: int = 1,
        metadata: Sequence[tuple[str, str]] = (),
        backoff: float = 0.05,
        max_backoff: float = 2.0,
        retry_codes: Collection[grpc.StatusCode] = RETRYABLE,
        channel_options: Sequence[tuple[str, Any]] = (),
        credentials: grpc.ChannelCredentials | None = None,
        wait_for_ready: bool = False,
        seat_token: str = "",
    ) -> None:
        if channels < 1:
            raise ValueError(f"channels must be at least 1, not {channels}")
        if not set(retry_codes) <= RETRYABLE:
            raise ValueError(
                "retry_codes may hold only UNAVAILABLE, CANCELLED, INTERNAL and UNKNOWN: other "
                "codes come from calls a server has answered, and would fail again"
            )
        if retries < 0 or timeout <= 0 or backoff < 0 or max_backoff < backoff:
            raise ValueError("need retries >= 0, timeout > 0 and 0 <= backoff <= max_backoff")
        self.target = target
        self.timeout = timeout
        self.retries = retries
        self.retry_codes = frozenset(retry_codes)
        self.metadata = tuple(metadata)
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.credentials = credentials
        self.wait_for_ready = wait_for_ready
        self.seat_token = seat_token
        # A local subchannel pool gives each channel its own connection: without it, channels
        # to the same target share one and every call lands on the same server worker.
        options = [("grpc.use_local_subchannel_pool", 1)] if channels > 1 else []
        options += channel_options
        self._channels = tuple(self._open_channel(target, options) for _ in range(channels))
        self._stubs = tuple(self._stub(channel) for channel in self._channels)
        self._next = itertools.count()
        self._random = random.Random()
        self._closed = False

    def _open_channel(self, target: str, options: list[tuple[str, Any]]) -> ChannelT:
        """A new channel to ``target``."""
        raise NotImplementedError

    def _stub(self, channel: ChannelT) -> StubT:
        """The service's stub on ``channel``."""
        raise NotImplementedError

    @property
    def closed(self) -> bool:
        """Whether ``close()`` was called."""
        return self._closed

    @property
    def channel_count(self) -> int:
        """The number of distinct connections this client spreads its calls over."""
        return len(self._channels)

    def _begin(
        self, timeout: float | None, request_id: str | None, seat_token: str | None = None
    ) -> tuple[str, tuple[tuple[str, str], ...], float]:
        """The request id, the metadata (with the call's seat token, else the client's) and
        the deadline of a new call."""
        if self._closed:
            raise ValueError("the client is closed")
        request_id = request_id or uuid.uuid4().hex
        metadata: tuple[tuple[str, str], ...] = ((REQUEST_ID_KEY, request_id), *self.metadata)
        token = self.seat_token if seat_token is None else seat_token
        if token:
            metadata += ((SEAT_TOKEN_KEY, token),)
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        return request_id, metadata, deadline

    def _attempt(self, deadline: float) -> tuple[StubT, float]:
        """The stub of the next attempt (the next channel: a retry may reach another server
        worker) and the seconds left until the deadline."""
        stub = self._stubs[next(self._next) % len(self._stubs)]
        return stub, max(deadline - time.monotonic(), 0.0)

    def _failure(self, error: grpc.RpcError, request_id: str) -> OrdoError:
        """The ``OrdoError`` of a failed attempt."""
        failure = OrdoError.from_rpc_error(error)
        failure.request_id = request_id
        return failure

    def _pause(self, failure: OrdoError, attempt: int, deadline: float) -> float:
        """The pause before trying a failed call again, drawn below a bound that doubles at each
        retry (full jitter); raises ``failure`` when the call is not to be tried again: an answer
        of the service (but those of ``RETRIED_REASONS``, which wait at least the delay their
        answer names), a code not to retry, a client closed by its caller (which cancels its
        calls), no retry left, or a pause that would end past the deadline."""
        retried = failure.answered and failure.reason in RETRIED_REASONS
        if (
            (failure.answered and not retried)
            or (failure.code not in self.retry_codes and not retried)
            or self._closed
            or attempt >= self.retries
        ):
            raise failure
        pause = self._random.uniform(0.0, min(self.max_backoff, self.backoff * 2**attempt))
        asked = failure.metadata.get(RETRY_AFTER_KEY, "")
        if asked.isdigit():
            pause = max(pause, int(asked) / MS_PER_SECOND)
        if time.monotonic() + pause >= deadline:
            raise failure
        return pause


class Client(_ClientBase[grpc.Channel, api_grpc.GameEngineServiceStub]):
    """A connection to an Ordo server; use it as a context manager or call ``close()``.

    ``timeout`` is each call's deadline in seconds, retries included; ``retries`` is how many
    times a call that failed on the way, with one of the ``retry_codes`` and no answer of the
    service, is tried again (so at most ``retries + 1`` attempts). The retry codes are
    ``RETRYABLE`` by default: UNAVAILABLE, CANCELLED, INTERNAL and UNKNOWN, which gRPC gives a
    call refused or cut off before the service answered it (a worker that stops, a stream over
    a connection's limit); a failure that carries the service's ``ErrorInfo`` is its answer and
    is never retried, nor is the caller's own deadline (DEADLINE_EXCEEDED) or cancellation (a
    client closed). Every RPC is a pure function of its request, so sending one again is safe.
    Pass fewer codes (``retry_codes={grpc.StatusCode.UNAVAILABLE}``), or ``retries=0``, to
    retry less. ``channels`` is the number of distinct connections to
    open; ``metadata`` is sent with every call. ``backoff`` is the first retry's largest pause
    in seconds, doubled at each retry up to ``max_backoff``; each pause is drawn uniformly below
    that bound (full jitter). ``channel_options`` are gRPC channel arguments given to every
    channel, e.g. ``[("grpc.lb_policy_name", "round_robin")]`` to spread the calls over every
    address a ``dns:///`` target resolves to. ``credentials`` make every channel a TLS one, e.g.
    ``grpc.ssl_channel_credentials()`` (gRPC's default roots) for a server behind a gateway
    or a mesh that terminates TLS; without them the channels are plaintext. With
    ``wait_for_ready`` a call to a server not reachable yet (one still starting) waits for it
    until its deadline, where by default it fails at once with UNAVAILABLE (and is retried).
    ``seat_token`` is sent with every call (metadata ``ordo-seat-token``) to a server that
    requires seat tokens; a call's own ``seat_token`` replaces it (``""``: none).
    ``ordo.aio.AsyncClient`` is the same client for asyncio.
    """

    def _open_channel(self, target: str, options: list[tuple[str, Any]]) -> grpc.Channel:
        if self.credentials is None:
            return grpc.insecure_channel(target, options=options)
        return grpc.secure_channel(target, self.credentials, options=options)

    def _stub(self, channel: grpc.Channel) -> api_grpc.GameEngineServiceStub:
        return api_grpc.GameEngineServiceStub(channel)

    # ----------------------------------------------------------------- lifecycle
    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Close every channel; the client cannot be used afterwards."""
        self._closed = True
        for channel in self._channels:
            channel.close()

    # ----------------------------------------------------------------- RPCs
    def list_games(
        self, *, timeout: float | None = None, request_id: str | None = None
    ) -> api.ListGamesResponse:
        """Every game the server runs, with seat ranges, options and bot policies."""
        return self._call(lambda stub: stub.ListGames, api.ListGamesRequest(), timeout, request_id)

    def new_game(
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
        """Deal a new game: ``game`` is a ``GameOptions``, or a game id with its ``options``.

        A game id without options plays that game with its defaults; seed 0 lets the server
        pick one (the response says which, unless the server requires seat tokens). ``bots``
        maps the seats bots play to their policies (``""``: heuristic). With state keys, the
        response holds a token for each seat a person plays (``seat_tokens``). With ``host``
        the server keeps the game (``table_id``; no state) and plays its bots.
        """
        request = new_game_request(game, seats, seed, options, bots, host)
        return self._call(lambda stub: stub.NewGame, request, timeout, request_id)

    def apply_action(
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
        """Apply one seat's action: the new state, the status and the events (only those
        ``viewer`` may see when given: a seat, or ``common.Viewer(spectator=True)``). On a
        hosted table (``state`` its id), the action chosen at ``table_revision`` (the last one
        seen: a retry is then recognised); the answer has the table's new revision."""
        request = apply_request(state, viewer, action=action, table_revision=table_revision)
        return self._call(lambda stub: stub.ApplyAction, request, timeout, request_id, seat_token)

    def play_bot(
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
        return self._call(lambda stub: stub.ApplyAction, request, timeout, request_id, seat_token)

    def validate_action(
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
        return self._call(
            lambda stub: stub.ValidateAction, request, timeout, request_id, seat_token
        )

    def list_legal_actions(
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
        return self._call(
            lambda stub: stub.ListLegalActions, request, timeout, request_id, seat_token
        )

    def get_view(
        self,
        state: Game,
        seat: int | None = None,
        *,
        timeout: float | None = None,
        request_id: str | None = None,
        seat_token: str | None = None,
    ) -> api.GetViewResponse:
        """What ``seat`` may see of the game; a spectator's view when ``seat`` is None."""
        return self._call(
            lambda stub: stub.GetView, view_request(state, seat), timeout, request_id, seat_token
        )

    def suggest_action(
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
        return self._call(lambda stub: stub.SuggestAction, request, timeout, request_id, seat_token)

    def replay_game(
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
        """Play a game record through: its last state and status and, for ``viewer`` (a seat or
        a ``Viewer``) or with ``reveal`` (every seat, finished games only), one page of steps
        from ``first_step``; from the previous page's ``next_state`` (``from_state``) a page
        replays its own moves only (``ordo.records.replay_steps`` walks every page). The call
        sends the record's own ``seat_token`` when it has one and the call names none."""
        request = replay_request(record, viewer, reveal, first_step, page_size, from_state)
        token = record_token(record, seat_token)
        return self._call(lambda stub: stub.ReplayGame, request, timeout, request_id, token)

    def watch_game(
        self,
        table_id: str,
        *,
        after_revision: int | None = None,
        viewer: int | common.Viewer | None = None,
        request_id: str | None = None,
        seat_token: str | None = None,
    ) -> Generator[api.WatchGameResponse]:
        """Every revision of a hosted table as the token's seat (or ``viewer``) sees it: the
        view now (or each move after ``after_revision``), then each move, until the game is
        over; a cut stream is taken up again from the last revision given (``ordo.tables``).
        Close the iterator to stop watching."""
        request_id, metadata, _ = self._begin(None, request_id, seat_token)
        last, attempt = after_revision, 0
        while True:
            stub, _ = self._attempt(time.monotonic())
            stream: Any = stub.WatchGame(
                watch_request(table_id, last, viewer),
                metadata=metadata,
                wait_for_ready=self.wait_for_ready,
            )
            try:
                for message in stream:
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
            time.sleep(pause(attempt, self.backoff, self.max_backoff, self._random))
            attempt += 1

    def get_record(
        self,
        table_id: str,
        *,
        timeout: float | None = None,
        request_id: str | None = None,
        seat_token: str | None = None,
    ) -> api.GetRecordResponse:
        """The record of a hosted table's game, once it is over (``ordo.records`` saves it)."""
        request = api.GetRecordRequest(table_id=table_id)
        return self._call(lambda stub: stub.GetRecord, request, timeout, request_id, seat_token)

    # ----------------------------------------------------------------- helpers
    def _call(
        self,
        method: Method[Request, Response],
        request: Request,
        timeout: float | None,
        request_id: str | None,
        seat_token: str | None = None,
    ) -> Response:
        """Send one request, retrying the retry codes within the deadline."""
        request_id, metadata, deadline = self._begin(timeout, request_id, seat_token)
        attempt = 0
        while True:
            stub, remaining = self._attempt(deadline)
            try:
                return method(stub)(
                    request,
                    timeout=remaining,
                    metadata=metadata,
                    wait_for_ready=self.wait_for_ready,
                )
            except grpc.RpcError as error:
                failure = self._failure(error, request_id)
            time.sleep(self._pause(failure, attempt, deadline))
            attempt += 1
