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
from collections.abc import Callable, Collection, Mapping, Sequence
from types import TracebackType
from typing import Any, Generic, Self, TypeVar

import grpc
from google.protobuf.message import Message
from google.rpc import error_details_pb2
from grpc_status import rpc_status

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
    "OrdoError",
]

DEFAULT_TARGET = "localhost:50051"
REQUEST_ID_KEY = "x-request-id"
SEAT_TOKEN_KEY = "ordo-seat-token"  # the metadata that carries a seat token
# The answers of the service that are retried, whatever ``retry_codes`` holds: its revision store
# was out of reach and the move not applied, or the move's outcome is unknown, which the same
# request settles (UNAVAILABLE); a worker busy with heavy calls, retried no sooner than the
# delay it names (RESOURCE_EXHAUSTED, metadata retry_after_ms). Its other refusals come again
# the same and are never retried, those of seat tokens (UNAUTHENTICATED: SEAT_TOKEN_MISSING,
# SEAT_TOKEN_INVALID; PERMISSION_DENIED: SEAT_NOT_PERMITTED, NOT_A_BOT_SEAT,
# BOT_SETTINGS_NOT_PERMITTED, SEED_NOT_PERMITTED) and of the revision fence
# (FAILED_PRECONDITION: STATE_SUPERSEDED) among them: they need another token, or the game's
# latest state.
RETRIED_REASONS = frozenset(
    {"REVISION_STORE_UNAVAILABLE", "REVISION_STORE_OUTCOME_UNKNOWN", "SERVER_BUSY"}
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


class OrdoError(Exception):
    """A failed call: its status code and the stable reason and metadata of its ``ErrorInfo``.

    ``reason`` is empty when the failure did not come from Ordo's rules (an unreachable server,
    an expired deadline); ``message`` is for people. ``request_id`` is the ``x-request-id`` the
    call was sent with (every attempt), which the server's access log and error lines carry.
    ``answered`` says that the failure is an answer of the service: it carried an ``ErrorInfo``
    (the same request would get it again, so it is never retried, unless its reason is one of
    ``RETRIED_REASONS``: the service could not serve it now, its revision store out of reach).
    """

    def __init__(
        self,
        code: grpc.StatusCode,
        reason: str,
        message: str,
        metadata: Mapping[str, str] | None = None,
        request_id: str = "",
        *,
        answered: bool = False,
    ) -> None:
        super().__init__(code, reason, message)
        self.code = code
        self.reason = reason
        self.message = message
        self.metadata: dict[str, str] = dict(metadata or {})
        self.request_id = request_id
        self.answered = answered

    def __str__(self) -> str:
        head = f"{self.code.name} {self.reason}" if self.reason else self.code.name
        return f"{head}: {self.message}" if self.message else head

    @classmethod
    def from_rpc_error(cls, error: grpc.RpcError) -> OrdoError:
        """Read the code, and the ``ErrorInfo`` of the rich status when there is one."""
        code = error.code()
        message = error.details() or ""
        status = None
        # from_call reads the code, details and trailing metadata, which an asyncio call's error
        # (AioRpcError, no grpc.Call) has as well.
        if isinstance(error, grpc.Call | grpc.aio.AioRpcError):
            try:
                status = rpc_status.from_call(error)  # type: ignore[arg-type]
            except ValueError:  # the rich status contradicts the call's own code: ignore it
                status = None
        if status is None:
            return cls(code, "", message)
        for detail in status.details:
            info = error_details_pb2.ErrorInfo()
            if detail.Unpack(info):
                return cls(code, info.reason, status.message, info.metadata, answered=True)
        return cls(code, "", status.message)


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
        time_control: common.TimeControl | None = None,
        timeout: float | None = None,
        request_id: str | None = None,
    ) -> api.NewGameResponse:
        """Deal a new game: ``game`` is a ``GameOptions``, or a game id with its ``options``.

        A game id without options plays that game with its defaults; seed 0 lets the server
        pick one (the response says which, unless the server requires seat tokens). ``bots``
        maps the seats bots play to their policies (``""``: heuristic); ``time_control`` gives
        every seat a clock (see ``claim_timeout``). With state keys, the response holds a token
        for each seat a person plays (``seat_tokens``).
        """
        request = new_game_request(game, seats, seed, options, bots, time_control)
        return self._call(lambda stub: stub.NewGame, request, timeout, request_id)

    def apply_action(
        self,
        state: common.GameState,
        action: common.Action,
        *,
        viewer: int | common.Viewer | None = None,
        timeout: float | None = None,
        request_id: str | None = None,
        seat_token: str | None = None,
    ) -> api.ApplyActionResponse:
        """Apply one seat's action: the new state, the status and the events (only those
        ``viewer`` may see when given: a seat, or ``common.Viewer(spectator=True)``)."""
        request = apply_request(state, viewer, action=action)
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

    def claim_timeout(
        self,
        state: common.GameState,
        seat: int,
        *,
        viewer: int | common.Viewer | None = None,
        timeout: float | None = None,
        request_id: str | None = None,
        seat_token: str | None = None,
    ) -> api.ClaimTimeoutResponse:
        """Claim that ``seat``'s time is up, in a game with a time control: the game's bot
        plays its move (``timed_out``), or, when the seat is no longer to act, the game comes
        back as it is. Before the seat's time is up the server refuses with reason
        ``TIMEOUT_NOT_DUE`` and the time left (``error.metadata["time_left_ms"]``)."""
        request = claim_request(state, seat, viewer)
        return self._call(lambda stub: stub.ClaimTimeout, request, timeout, request_id, seat_token)

    def validate_action(
        self,
        state: common.GameState,
        action: common.Action,
        *,
        timeout: float | None = None,
        request_id: str | None = None,
        seat_token: str | None = None,
    ) -> api.ValidateActionResponse:
        """Whether ``apply_action`` would accept the action, and why not."""
        request = api.ValidateActionRequest(state=state, action=action)
        return self._call(
            lambda stub: stub.ValidateAction, request, timeout, request_id, seat_token
        )

    def list_legal_actions(
        self,
        state: common.GameState,
        seat: int,
        *,
        timeout: float | None = None,
        request_id: str | None = None,
        seat_token: str | None = None,
    ) -> api.ListLegalActionsResponse:
        """Every legal action of ``seat`` now (none when it is not to act)."""
        request = api.ListLegalActionsRequest(state=state, seat=seat)
        return self._call(
            lambda stub: stub.ListLegalActions, request, timeout, request_id, seat_token
        )

    def get_view(
        self,
        state: common.GameState,
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
        state: common.GameState,
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
            state=state,
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


def new_game_request(
    game: str | common.GameOptions,
    seats: int,
    seed: int = 0,
    options: Message | None = None,
    bots: Mapping[int, str] | None = None,
    time_control: common.TimeControl | None = None,
) -> api.NewGameRequest:
    """The ``NewGameRequest`` of ``Client.new_game``'s arguments."""
    request = api.NewGameRequest(
        seats=seats,
        seed=seed,
        options=game_options(game, options),
        bots=[common.BotSeat(seat=seat, policy=policy) for seat, policy in (bots or {}).items()],
    )
    if time_control is not None:
        request.options.time_control.CopyFrom(time_control)
    return request


def claim_request(
    state: common.GameState, seat: int, viewer: int | common.Viewer | None
) -> api.ClaimTimeoutRequest:
    """The ``ClaimTimeoutRequest`` of ``Client.claim_timeout``'s arguments."""
    request = api.ClaimTimeoutRequest(state=state, seat=seat)
    if viewer is not None:
        request.viewer.CopyFrom(common.Viewer(seat=viewer) if isinstance(viewer, int) else viewer)
    return request


def apply_request(
    state: common.GameState,
    viewer: int | common.Viewer | None,
    *,
    action: common.Action | None = None,
    bot: api.BotMove | None = None,
) -> api.ApplyActionRequest:
    """The ``ApplyActionRequest`` of an action or a bot move, and a viewer (a seat, a
    ``Viewer``, or None for every event)."""
    request = api.ApplyActionRequest(state=state, action=action, bot=bot)
    if viewer is not None:
        request.viewer.CopyFrom(common.Viewer(seat=viewer) if isinstance(viewer, int) else viewer)
    return request


def record_token(record: api.GameRecord, seat_token: str | None) -> str | None:
    """The seat token a replay of ``record`` sends: the call's own, else the record's (the
    token of whoever kept it), else the client's."""
    if seat_token is None and record.seat_token:
        return record.seat_token
    return seat_token


def replay_request(
    record: api.GameRecord,
    viewer: int | common.Viewer | None,
    reveal: bool,
    first_step: int,
    page_size: int,
    from_state: common.GameState | None = None,
) -> api.ReplayGameRequest:
    """The ``ReplayGameRequest`` of ``Client.replay_game``'s arguments."""
    request = api.ReplayGameRequest(
        record=record,
        reveal=reveal,
        first_step=first_step,
        page_size=page_size,
        from_state=from_state,
    )
    if viewer is not None:
        request.viewer.CopyFrom(common.Viewer(seat=viewer) if isinstance(viewer, int) else viewer)
    return request


def view_request(state: common.GameState, seat: int | None) -> api.GetViewRequest:
    """The ``GetViewRequest`` of a seat, or of a spectator when ``seat`` is None."""
    viewer = common.Viewer(spectator=True) if seat is None else common.Viewer(seat=seat)
    return api.GetViewRequest(state=state, viewer=viewer)


def game_options(
    game: str | common.GameOptions, options: Message | None = None
) -> common.GameOptions:
    """The ``GameOptions`` of a game id (with its options message, or its defaults).

    An id that is no field of ``GameOptions.game`` raises ``OrdoError`` as a server would answer
    it (INVALID_ARGUMENT, reason ``UNKNOWN_GAME``, the id in its metadata under ``game``): a game
    id often comes from a person or a configuration, and a caller handles one error type for
    every game a request cannot name. Options given together with a ``GameOptions`` are a
    mistake in the calling code, a ``ValueError``.
    """
    if isinstance(game, common.GameOptions):
        if options is not None:
            raise ValueError("give either a GameOptions or a game id with its options, not both")
        return game
    oneof = common.GameOptions.DESCRIPTOR.oneofs_by_name[GAME_FIELD]
    ids = [field.name for field in oneof.fields]
    if game not in ids:
        raise OrdoError(
            grpc.StatusCode.INVALID_ARGUMENT,
            UNKNOWN_GAME,
            f"unknown game {game!r}; GameOptions knows {', '.join(ids)}",
            {"game": game},
        )
    result = common.GameOptions()
    selected = getattr(result, game)
    if options is None:
        selected.SetInParent()
    else:
        selected.CopyFrom(options)
    return result
