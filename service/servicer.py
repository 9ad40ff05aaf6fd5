"""The GameEngineService servicer: thin, game-agnostic, dispatching through the registries.

Each method decodes only what it needs, calls the engine, and encodes the answer straight into
its response message (a message passed to a constructor is copied; one filled in place is not).
``ApplyAction``, the call a game makes most, takes its request as it arrived and returns its
response already serialized: the state's bytes key the state cache as they were sent, the
bytes after them (the action) key the actions decoded before, the new state is serialized once
(in parts that the next action may reuse), and the encodings of the statuses and events the
engines share, which recur from call to call, are kept (``service.wire`` frames the parts). With
state keys, a state is sealed where it is serialized and opened where it is decoded
(``service.sealing``): the rest of the servicer sees engine states only, and the state cache
keys a sealed state by its bytes as it keys a plain one. The time spent in the engine is added
to the call record around each engine section. Errors are raised as ``RulesError``;
``service.server`` turns them into rich statuses in one place. Which game a request is about
comes from the ``game`` oneof of its state or options (``WhichOneof``), or from the ``game_id``
of a sealed state, and a registry lookup: no game is named here.
"""

from __future__ import annotations

import secrets
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from time import perf_counter
from typing import Any

from google.protobuf.message import DecodeError

from engines import registry
from engines.base import Event, GameEngine, Outcome, Status
from engines.errors import (
    IllegalActionError,
    InvalidSeatError,
    InvalidStateError,
    MalformedActionError,
)
from engines.prng import Rng, derive_seed
from engines.search import DEFAULT_MAX_ITERATIONS, SEARCH_POLICY, Budget
from ordo.v1 import common_pb2 as common
from ordo.v1 import engine_service_pb2 as api
from service import wire
from service.codecs import CODECS
from service.codecs.base import Codec
from service.errors import RequestError, with_article
from service.observe import CallRecord
from service.sealing import Sealer, SealInvalidError
from service.state_cache import DECODED_BYTES_PER_BYTE, StateCache

DEFAULT_POLICY = "heuristic"
# Every cache of a worker is bounded in bytes (see ``service.state_cache`` for the states'):
# with the defaults they hold at most 64 + 2 x 4 + 1 + 1 MiB, charged as upper bounds.
DEFAULT_STATE_CACHE_BYTES = 64 << 20  # states per worker (--state-cache-bytes)
ENCODING_BYTES = 4 << 20  # status and event encodings per table (new, asked for again)
ACTION_BYTES = 1 << 20  # decoded actions, by the request bytes that carried them
AUDIENCE_BYTES = 1 << 20  # the encoded audiences of events, by seat count and audience
KEPT_ACTION_BYTES = 64  # longer action bytes are decoded every time, never kept
# What a kept action, encoding or audience is charged beyond its bytes: the table's slot, the
# key and the decoded value (tracemalloc: a decoded action of any game takes under 600 bytes).
KEPT_OVERHEAD_BYTES = 1024
KEPT_ACTION_COST = KEPT_ACTION_BYTES + KEPT_OVERHEAD_BYTES  # the most a kept action is charged
MAX_SEATS = 10  # no game has more: an audience is at most this many seats
AUDIENCE_COST = 2 * MAX_SEATS + KEPT_OVERHEAD_BYTES  # the most a kept audience is charged

_STATE_FIELDS = common.GameState.DESCRIPTOR.fields_by_name
_RESPONSE_FIELDS = api.ApplyActionResponse.DESCRIPTOR.fields_by_name
_EVENT_FIELDS = common.Event.DESCRIPTOR.fields_by_name
RULES_VERSION_KEY = wire.key(_STATE_FIELDS["rules_version"].number, wire.VARINT)
REVISION_KEY = wire.key(_STATE_FIELDS["revision"].number, wire.VARINT)
SEALED_KEY = wire.key(_STATE_FIELDS["sealed"].number, wire.LENGTH_DELIMITED)
GAME_ID_KEY = wire.key(_STATE_FIELDS["game_id"].number, wire.LENGTH_DELIMITED)
RESPONSE_STATE_KEY = wire.key(_RESPONSE_FIELDS["state"].number, wire.LENGTH_DELIMITED)
RESPONSE_STATUS_KEY = wire.key(_RESPONSE_FIELDS["status"].number, wire.LENGTH_DELIMITED)
RESPONSE_EVENTS_KEY = wire.key(_RESPONSE_FIELDS["events"].number, wire.LENGTH_DELIMITED)
# Whose events an ``ApplyAction`` answers with: a seat (0-based), or one of these.
ALL_EVENTS = -1  # no viewer: every event, each with its audience
PUBLIC_EVENTS = -2  # a spectator: the public events only
REQUEST_STATE_KEY = wire.key(
    api.ApplyActionRequest.DESCRIPTOR.fields_by_name["state"].number, wire.LENGTH_DELIMITED
)

#: The methods that take their request as it arrived, unparsed: ``ApplyAction`` keys the state
#: cache with the state's bytes as sent and parses only the rest when it knows the state.
RAW_REQUESTS = frozenset({"ApplyAction"})


@dataclass(frozen=True, slots=True)
class KnownAction:
    """An action decoded before, kept by the bytes of the request that followed its state (the
    ``action`` and ``viewer`` fields): the same bytes decode to the same seat, action and viewer."""

    seat: int
    game: str
    action: Any
    viewer: int = ALL_EVENTS


@dataclass(frozen=True, slots=True)
class Game:
    """A registered game: its engine, its codec and the key of its field in ``GameState``."""

    id: str
    engine: GameEngine[Any, Any, Any, Any]
    codec: Codec
    state_key: bytes  # the key of the game's field in GameState
    event_key: bytes  # the key of the game's field in Event
    state_type: Any  # the game's state message (its field in GameState)
    id_field: bytes  # the game_id field of its sealed states


def encoding_cost(encoding: bytes) -> int:
    """What a kept encoding is charged: its bytes, and the engine value it encodes (an event
    may carry a question's text, as its encoding does) bounded as a decoded state is."""
    return len(encoding) * (1 + DECODED_BYTES_PER_BYTE) + KEPT_OVERHEAD_BYTES


class Encodings:
    """Encodings of engine values, kept per object and context: new ones and those asked for
    again, each table at most ``max_bytes`` (see ``encoding_cost``) and dropped when full,
    which keeps the memory of a worker flat.

    Encoding is a pure function of an engine value (a frozen dataclass) and its context (the
    game, the seat count), so a kept encoding is the one protobuf would make again. Engines
    return the same objects for the values that recur (a status, a selection, a draw), so a
    value is looked up by identity: an entry holds its value, so its id is not reused while
    kept. Looking values up by equality would hash every new event an action makes (a turn
    with its cards), twice when it is new, to find an equal one now and then. Most values are
    asked for once, so an encoding moves to the table of those asked for again on its second
    use: the new ones, which fill their table call after call, never push those out.
    """

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._again: dict[tuple[int, Any], tuple[Any, bytes]] = {}
        self._new: dict[tuple[int, Any], tuple[Any, bytes]] = {}
        self._bytes = {id(self._again): 0, id(self._new): 0}  # what each table is charged

    def get(self, value: Any, context: Any = None) -> bytes | None:
        """The encoding kept for ``value`` (this very object) in ``context``, or None."""
        key = (id(value), context)
        seen = self._again.get(key)
        if seen is None:
            seen = self._new.pop(key, None)
            if seen is None:
                return None
            self._bytes[id(self._new)] -= encoding_cost(seen[1])
            self._keep(self._again, key, seen)
        return seen[1] if seen[0] is value else None

    def put(self, value: Any, context: Any, encoding: bytes) -> None:
        """Keep ``encoding`` for ``value`` in ``context``."""
        self._keep(self._new, (id(value), context), (value, encoding))

    def _keep(
        self, table: dict[tuple[int, Any], tuple[Any, bytes]], key: Any, entry: tuple[Any, bytes]
    ) -> None:
        cost = encoding_cost(entry[1])
        if cost > self.max_bytes:
            return
        charged = self._bytes[id(table)] + cost
        if charged > self.max_bytes:
            table.clear()
            charged = cost
        table[key] = entry
        self._bytes[id(table)] = charged

    def __len__(self) -> int:
        return len(self._again) + len(self._new)


def _registered_games() -> dict[str, Game]:
    missing = set(registry.ENGINES) ^ set(CODECS)
    if missing:
        raise RuntimeError(f"games without both an engine and a codec: {sorted(missing)}")
    return {
        gid: Game(
            gid,
            registry.ENGINES[gid],
            CODECS[gid],
            wire.key(_STATE_FIELDS[gid].number, wire.LENGTH_DELIMITED),
            wire.key(_EVENT_FIELDS[gid].number, wire.LENGTH_DELIMITED),
            type(getattr(common.GameState(), gid)),
            wire.length_delimited(GAME_ID_KEY, gid.encode()),
        )
        for gid in sorted(registry.ENGINES)
    }


def _parse(message_type: Any, data: bytes) -> Any:
    """A message of ``data``; unparsable bytes are a bad request, as for any request."""
    try:
        return message_type.FromString(data)
    except DecodeError:
        raise RequestError(
            f"the request is not a valid {message_type.DESCRIPTOR.full_name} message"
        ) from None


def _viewer_seat(viewer: common.Viewer) -> int | None:
    """The seat of ``viewer``, or None for a spectator; a viewer that is neither is a bad
    request."""
    which = viewer.WhichOneof("viewer")
    if which is None or (which == "spectator" and not viewer.spectator):
        raise RequestError("viewer must be a seat or spectator=true", "VIEWER_NOT_SET")
    return viewer.seat if which == "seat" else None


def encode_outcome(outcome: Outcome) -> common.Outcome:
    """The proto of an engine outcome."""
    return common.Outcome(
        scores=outcome.scores,
        winners=outcome.winners,
        lower_is_better=outcome.lower_is_better,
        termination=outcome.termination,
    )


def encode_status(status: Status) -> common.GameStatus:
    """The proto of an engine status."""
    if status.outcome is None:
        return common.GameStatus(seats_to_act=status.seats_to_act, finished=status.finished)
    return common.GameStatus(finished=True, outcome=encode_outcome(status.outcome))


class GameEngineServicer:
    """Implements every RPC of ``ordo.v1.GameEngineService``."""

    def __init__(
        self,
        state_cache_bytes: int = DEFAULT_STATE_CACHE_BYTES,
        sealer: Sealer | None = None,
        require_sealed: bool = False,
        max_search_iterations: int = DEFAULT_MAX_ITERATIONS,
    ) -> None:
        if require_sealed and sealer is None:
            raise ValueError("sealed states can be required only with keys to seal them")
        self.sealer = sealer
        self.require_sealed = require_sealed
        self.max_search_iterations = max_search_iterations
        self.games = _registered_games()
        self.states = StateCache(state_cache_bytes)
        self.encodings = Encodings(ENCODING_BYTES)
        self._audiences: dict[tuple[int, tuple[int, ...] | None], bytes] = {}
        self.actions: dict[bytes, KnownAction] = {}
        self._list_games = api.ListGamesResponse(
            games=[self._game_info(game) for game in self.games.values()]
        )

    # ----------------------------------------------------------------- RPCs
    def ListGames(self, request: api.ListGamesRequest, call: CallRecord) -> api.ListGamesResponse:
        return self._list_games

    def NewGame(self, request: api.NewGameRequest, call: CallRecord) -> api.NewGameResponse:
        game_id = request.options.WhichOneof("game")
        if game_id is None:
            raise RequestError(
                "options must select a game: set one field of GameOptions.game",
                "GAME_NOT_SELECTED",
            )
        game = self._game(game_id)
        call.game = game.id
        options = game.codec.decode_options(getattr(request.options, game_id))
        seed = request.seed or secrets.randbits(64) or 1
        start = perf_counter()
        try:
            state = game.engine.new_game(request.seats, seed, options)
            status = game.engine.status(state)
        finally:
            call.engine_seconds += perf_counter() - start
        call.game_started = True
        response = api.NewGameResponse(status=encode_status(status), seed=seed)
        self._fill_state(response.state, game, state, call)
        return response

    def ApplyAction(self, request: api.ApplyActionRequest | bytes, call: CallRecord) -> bytes:
        """Apply the action; the answer is the serialized ``ApplyActionResponse``. The request
        is a message, or its serialized bytes as they arrived (see ``RAW_REQUESTS``)."""
        if isinstance(request, bytes):
            state_msg, sent, move, rest = self._split_request(request)
        else:
            state_msg, sent, move, rest = request.state, None, request, None
        game, state, parts = self._decode_state_and_parts(state_msg, call, sent)
        if isinstance(move, KnownAction):  # the common case: an action sent before
            seat, action = self._decode_action(game, move, call)
            viewer = move.viewer
        else:
            seat, action, viewer = self._decode_move(game, state, move, call, state_msg, sent, rest)
        if viewer >= 0:
            game.engine.check_seat(state, viewer)
        start = perf_counter()
        try:
            transition = game.engine.apply(state, seat, action)
            status = game.engine.status(transition.state)
        finally:
            call.engine_seconds += perf_counter() - start
        call.game_finished = status.finished
        new_state = self._state_bytes(game, transition.state, call, state, parts)
        return b"".join(
            (
                RESPONSE_STATE_KEY,
                wire.varint(len(new_state)),
                new_state,
                self._status_field(status),
                *self._event_fields(game, game.engine.seats(state), transition.events, viewer),
            )
        )

    def ValidateAction(
        self, request: api.ValidateActionRequest, call: CallRecord
    ) -> api.ValidateActionResponse:
        game, state = self._decode_state(request.state, call)
        try:
            seat, action = self._decode_action(game, request.action, call)
            start = perf_counter()
            try:
                game.engine.apply(state, seat, action)
            finally:
                call.engine_seconds += perf_counter() - start
        except (IllegalActionError, MalformedActionError, InvalidSeatError) as error:
            return api.ValidateActionResponse(
                legal=False, reason=error.reason, message=error.message
            )
        return api.ValidateActionResponse(legal=True)

    def ListLegalActions(
        self, request: api.ListLegalActionsRequest, call: CallRecord
    ) -> api.ListLegalActionsResponse:
        game, state = self._decode_state(request.state, call)
        call.seat = request.seat
        start = perf_counter()
        try:
            actions = game.engine.legal_actions(state, request.seat)
        finally:
            call.engine_seconds += perf_counter() - start
        encode = game.codec.encode_action
        return api.ListLegalActionsResponse(
            actions=[
                common.Action(seat=request.seat, **{game.id: encode(action)}) for action in actions
            ]
        )

    def GetView(self, request: api.GetViewRequest, call: CallRecord) -> api.GetViewResponse:
        game, state = self._decode_state(request.state, call)
        viewer = _viewer_seat(request.viewer)
        call.seat = viewer
        start = perf_counter()
        try:
            if viewer is not None:
                game.engine.check_seat(state, viewer)
            view = game.engine.view(state, viewer)
            status = game.engine.status(state)
        finally:
            call.engine_seconds += perf_counter() - start
        return api.GetViewResponse(
            view=common.GameView(
                status=encode_status(status), **{game.id: game.codec.encode_view(view)}
            )
        )

    def SuggestAction(
        self, request: api.SuggestActionRequest, call: CallRecord
    ) -> api.SuggestActionResponse:
        game, state = self._decode_state(request.state, call)
        action = self._choose(game, state, request, request.state, None, call)
        return api.SuggestActionResponse(
            action=common.Action(seat=request.seat, **{game.id: game.codec.encode_action(action)})
        )

    # ----------------------------------------------------------------- helpers
    def _game(self, game_id: str) -> Game:
        if game_id not in self.games:
            registry.get(game_id)  # raises UnknownGameError naming the games this server runs
        return self.games[game_id]

    def _choose(
        self,
        game: Game,
        state: Any,
        bot: api.SuggestActionRequest | api.BotMove,
        msg: common.GameState | None,
        sent: bytes | None,
        call: CallRecord,
    ) -> Any:
        """The engine action the bot ``bot.policy`` chooses for ``bot.seat`` (``SuggestAction``,
        and a bot's move in ``ApplyAction``), within the search budget it asks for. Without a
        seed the choice still depends on the request alone, through its state message ``msg``
        (or ``sent``, its bytes, when not parsed): same request, same move."""
        seat, seed = bot.seat, bot.seed
        call.seat = seat
        budget = self._budget(game, bot.search_iterations, bot.search_time_limit_ms)
        if not seed:
            if msg is None:
                msg = _parse(common.GameState, sent or b"")
            seed = derive_seed(zlib.crc32(msg.SerializeToString(deterministic=True)), seat)
        start = perf_counter()
        try:
            return game.engine.suggest(state, seat, bot.policy or DEFAULT_POLICY, Rng(seed), budget)
        finally:
            call.engine_seconds += perf_counter() - start

    def _budget(self, game: Game, iterations: int, time_ms: int) -> Budget | None:
        """The search budget a request asks for (None: the game's default); more iterations
        than this server's maximum are refused."""
        if iterations > self.max_search_iterations:
            raise RequestError(
                f"search_iterations is {iterations}; this server allows at most "
                f"{self.max_search_iterations}",
                "SEARCH_BUDGET_TOO_LARGE",
                iterations=str(iterations),
                max_iterations=str(self.max_search_iterations),
            )
        info = game.engine.search_info
        if not (iterations or time_ms) or info is None:
            return None
        return Budget(iterations or info.searcher.default_iterations, time_ms)

    def _decode_move(
        self,
        game: Game,
        state: Any,
        request: api.ApplyActionRequest,
        call: CallRecord,
        msg: common.GameState | None,
        sent: bytes | None,
        rest: bytes | None,
    ) -> tuple[int, Any, int]:
        """The seat, engine action and viewer (see ``ALL_EVENTS``) of an ``ApplyActionRequest``
        whose action was not known: its action, or the move its bot chooses. ``msg``, ``sent``
        and ``rest`` are as ``_split_request`` gives them."""
        if request.HasField("viewer"):
            seat_or_none = _viewer_seat(request.viewer)
            viewer = PUBLIC_EVENTS if seat_or_none is None else seat_or_none
        else:
            viewer = ALL_EVENTS
        if request.HasField("bot"):
            if request.HasField("action"):
                raise MalformedActionError("set either action or bot, not both")
            bot = request.bot
            action = self._choose(game, state, bot, msg, sent, call)
            return bot.seat, action, viewer
        if not request.HasField("action"):
            raise MalformedActionError("the request has no move: set action or bot")
        seat, action = self._decode_action(game, request.action, call, rest, viewer)
        return seat, action, viewer

    def _decode_state(self, msg: common.GameState, call: CallRecord) -> tuple[Game, Any]:
        game, state, _ = self._decode_state_and_parts(msg, call)
        return game, state

    def _split_request(
        self, raw: bytes
    ) -> tuple[
        common.GameState | None, bytes | None, api.ApplyActionRequest | KnownAction, bytes | None
    ]:
        """An ``ApplyActionRequest`` as sent: its state (parsed, or its bytes when they open the
        request, as protobuf writes them), its move (a ``KnownAction`` when the bytes after the
        state were decoded before, else the parsed request) and those bytes."""
        split = wire.leading_field(raw, REQUEST_STATE_KEY)
        if split is not None:
            sent, rest = split
            known = self.actions.get(rest)
            if known is not None:
                return None, sent, known, None
            request: api.ApplyActionRequest = _parse(api.ApplyActionRequest, rest)
            if not request.HasField("state"):  # else protobuf would merge both: parse it whole
                return None, sent, request, rest
        request = _parse(api.ApplyActionRequest, raw)
        return request.state, None, request, None

    def _decode_state_and_parts(
        self, msg: common.GameState | None, call: CallRecord, sent: bytes | None = None
    ) -> tuple[Game, Any, Any]:
        """The game and engine state of ``msg`` (or of ``sent``, its serialized bytes as they
        arrived, when ``msg`` was not parsed), and the encoding of its parts when this worker
        returned it (None otherwise)."""
        if self.states.max_bytes:
            key = sent if msg is None else msg.SerializeToString()
            known = self.states.get(key) if key else None
            if known is not None:  # a state this worker returned, sent back unchanged
                game = self.games[known[0]]
                call.game = game.id
                return game, known[1], known[2]
        if msg is None:
            msg = _parse(common.GameState, sent or b"")
        if msg.sealed or msg.game_id:
            return (*self._unseal(msg, call), None)
        if self.require_sealed:
            raise RequestError(
                "this server takes sealed states only: send back the states it returned",
                "STATE_NOT_SEALED",
            )
        game_id = msg.WhichOneof("game")
        if game_id is None:
            raise RequestError("the request carries no game state", "STATE_NOT_SET")
        game = self._game(game_id)
        call.game = game.id
        return game, self._engine_state(game, getattr(msg, game_id), msg, call, validate=True), None

    def _unseal(self, msg: common.GameState, call: CallRecord) -> tuple[Game, Any]:
        """The game and engine state of a sealed state. A state whose seal opens was produced
        by this deployment's rules: it is decoded, not validated (its rules version is checked:
        a state sealed before an upgrade of the rules may come back)."""
        if self.sealer is None:
            raise RequestError(
                "the state is sealed, and this server has no keys to open it",
                "SEALING_NOT_CONFIGURED",
            )
        game = self.games.get(msg.game_id)
        if game is None or msg.WhichOneof("game") is not None:
            raise SealInvalidError
        payload = self.sealer.unseal(msg.sealed, game.id, msg.rules_version, msg.revision)
        call.game = game.id
        game.engine.check_rules_version(msg.rules_version)
        return game, self._engine_state(game, game.state_type.FromString(payload), msg, call)

    @staticmethod
    def _engine_state(
        game: Game, inner: Any, msg: common.GameState, call: CallRecord, *, validate: bool = False
    ) -> Any:
        """The engine state of ``inner``, the game's state message in the envelope ``msg``,
        validated when asked (a plain state: it is the caller's)."""
        start = perf_counter()
        try:
            state = game.codec.decode_state(inner, msg.rules_version, msg.revision)
            if validate:
                game.engine.validate(state)
        except (ArithmeticError, LookupError, ValueError, TypeError) as error:
            # The state is the caller's input: whatever trips its checks is a bad argument.
            raise InvalidStateError(
                f"the state is inconsistent ({type(error).__name__})"
            ) from error
        finally:
            call.engine_seconds += perf_counter() - start
        return state

    def _decode_action(
        self,
        game: Game,
        msg: common.Action | KnownAction,
        call: CallRecord,
        rest: bytes | None = None,
        viewer: int = ALL_EVENTS,
    ) -> tuple[int, Any]:
        """The seat and engine action of ``msg``, an action message or a ``KnownAction``. When
        ``rest`` (the bytes of the request after its state, which hold the action and the
        ``viewer``) is given, the decoded action is kept by those bytes for the next request
        that sends them (unless they are longer than an action needs: the memory they take
        stays small)."""
        action_game: str | None
        if isinstance(msg, KnownAction):
            seat, action_game, action = msg.seat, msg.game, msg.action
        else:
            seat, action_game, action = msg.seat, msg.WhichOneof("game"), None
        call.seat = seat
        if action_game is None:
            raise MalformedActionError("the action has no move: set one field of Action.game")
        if action_game != game.id:
            raise MalformedActionError(
                f"{with_article(action_game)} action cannot apply to {with_article(game.id)} state",
                "GAME_MISMATCH",
            )
        if action is None:
            action = game.codec.decode_action(getattr(msg, action_game))
            if rest is not None and len(rest) <= KEPT_ACTION_BYTES:
                if (len(self.actions) + 1) * KEPT_ACTION_COST > ACTION_BYTES:
                    self.actions.clear()
                self.actions[rest] = KnownAction(seat, action_game, action, viewer)
        return seat, action

    def _fill_state(
        self, target: common.GameState, game: Game, state: Any, call: CallRecord
    ) -> None:
        """Encode ``state`` into ``target``, the (empty) state field of a response."""
        target.MergeFromString(self._state_bytes(game, state, call))

    def _state_bytes(
        self,
        game: Game,
        state: Any,
        call: CallRecord,
        previous: Any = None,
        previous_parts: Any = None,
    ) -> bytes:
        """The serialized ``GameState`` of ``state``, sealed when the server has keys,
        remembered by the state cache. When the codec serializes states in parts and the
        encoded parts of ``previous`` (the state the action applied to) are known, the parts
        the action left as they were are reused."""
        codec = game.codec
        if codec.state_parts is not None:
            if previous_parts is None:
                previous = None
            parts = codec.state_parts.serialize(state, previous, previous_parts)
            payload = b"".join(parts)
        else:
            parts = None
            payload = codec.encode_state(state).SerializeToString()
        if self.sealer is None:
            fields: tuple[bytes, ...] = (game.state_key, wire.varint(len(payload)), payload)
        else:
            sealed = self.sealer.seal(game.id, state.rules_version, state.revision, payload)
            fields = (SEALED_KEY, wire.varint(len(sealed)), sealed, game.id_field)
        data = b"".join(
            (
                wire.uint_field(RULES_VERSION_KEY, state.rules_version),
                wire.uint_field(REVISION_KEY, state.revision),
                *fields,
            )
        )
        if self.states.max_bytes:
            self.states.put(data, game.id, state, parts)
        call.state_bytes = len(data)
        return data

    def _status_field(self, status: Status) -> bytes:
        """The ``status`` field of a response."""
        field = self.encodings.get(status)
        if field is None:
            field = wire.length_delimited(
                RESPONSE_STATUS_KEY, encode_status(status).SerializeToString()
            )
            self.encodings.put(status, None, field)
        return field

    def _event_fields(
        self, game: Game, seats: int, events: Sequence[Event], viewer: int = ALL_EVENTS
    ) -> list[bytes]:
        """The entries of the ``events`` field of an ``ApplyActionResponse``: those ``viewer``
        may see (see ``ALL_EVENTS``).

        Most events an action makes are new values, so an event's encoding is put together
        from the game's event message, serialized alone, and the fields before it (the
        audience), which take few values: building the ``Event`` message would copy the game's
        event into it.
        """
        if viewer == PUBLIC_EVENTS:
            events = [event for event in events if event.audience is None]
        elif viewer != ALL_EVENTS:
            events = [e for e in events if e.audience is None or viewer in e.audience]
        context = (game.id, seats)
        kept = self.encodings.get
        fields = []
        for event in events:
            field = kept(event, context)
            if field is None:
                body = game.codec.encode_event(event.body).SerializeToString()
                message = b"".join(
                    (
                        self._audience_fields(seats, event.audience),
                        game.event_key,
                        wire.varint(len(body)),
                        body,
                    )
                )
                field = wire.length_delimited(RESPONSE_EVENTS_KEY, message)
                self.encodings.put(event, context, field)
            fields.append(field)
        return fields

    def _audience_fields(self, seats: int, audience: tuple[int, ...] | None) -> bytes:
        """The ``visible_to_seats`` and ``public`` fields of an ``Event`` (the fields before its
        ``game``), kept per seat count and audience."""
        fields = self._audiences.get((seats, audience))
        if fields is None:
            public = audience is None
            fields = common.Event(
                visible_to_seats=range(seats) if public else audience, public=public
            ).SerializeToString()
            if (len(self._audiences) + 1) * AUDIENCE_COST > AUDIENCE_BYTES:
                self._audiences.clear()
            self._audiences[seats, audience] = fields
        return fields

    def _game_info(self, game: Game) -> common.GameInfo:
        info = game.engine.info
        search = game.engine.search_info
        policies = sorted(game.engine.policies)
        return common.GameInfo(
            id=info.id,
            title=info.title,
            min_seats=info.min_seats,
            max_seats=info.max_seats,
            seat_counts=info.seat_counts,
            simultaneous=info.simultaneous,
            rules_version=info.rules_version,
            options=[
                common.OptionInfo(
                    name=option.name,
                    description=option.description,
                    default_value=option.default,
                    allowed_values=option.allowed,
                )
                for option in info.options
            ],
            policies=policies,
            policy_details=[
                common.PolicyInfo(
                    name=name,
                    description=game.engine.describe_policy(name),
                    **(
                        {
                            "default_search_iterations": search.searcher.default_iterations,
                            "max_search_iterations": self.max_search_iterations,
                        }
                        if name == SEARCH_POLICY and search is not None
                        else {}
                    ),
                )
                for name in policies
            ],
        )
