"""The servicer's first part: from a request to what the engine is called with.

A request decodes to its game (the ``game`` oneof of its state or options, or the ``game_id`` of
a sealed state, looked up among the registered games), its engine state, and for
``ApplyAction`` the seat that acts, its action or the bot that chooses it, and the viewer whose
events the answer carries. A state this worker returned is game in the state cache by its
bytes as they were sent; a sealed state is opened here (``service.trust.sealing``) and a plain one
validated, so the rest of the servicer sees engine states only. The bytes of an
``ApplyActionRequest`` after its state key the actions decoded before (``KnownAction``).
A state also decodes to its seating (match id and bot seats, ``service.trust.seats``), and, on a
server that requires seat tokens, to the seat its caller's token grants: the token is checked
before the state is opened, so a caller without one of the game's gets nothing decoded.
Whatever the request gets wrong is raised as a ``RulesError`` with its reason.
"""

from __future__ import annotations

import secrets
import zlib
from time import perf_counter
from typing import Any

from google.protobuf.message import DecodeError

from engines.errors import InvalidStateError, MalformedActionError
from engines.prng import derive_seed
from ordo.v1 import common_pb2 as common
from ordo.v1 import engine_service_pb2 as api
from service.calls.caches import KEPT_ACTION_BYTES, KEPT_ACTION_COST, KnownAction
from service.calls.games import ALL_EVENTS, PUBLIC_EVENTS, REQUEST_STATE_KEY, Game, lookup
from service.calls.state_cache import StateCache
from service.codecs import wire
from service.errors import RequestError, with_article
from service.telemetry.observe import CallRecord
from service.trust.sealing import Sealer, SealInvalidError
from service.trust.seat_tokens import SeatToken
from service.trust.seats import NO_SEATING, SeatGuard, Seating, policy_of, seating_of

#: The seat of a call whose token nobody asked for (a server that does not require tokens).
UNCHECKED = -3


#: A state decoded (``Decoder.state``): its game, engine state and seating, and the seat the
#: call's token grants (None: a spectator's token; ``UNCHECKED`` without tokens required).
Decoded = tuple[Game, Any, Seating, "int | None"]


#: An ``ApplyActionRequest`` decoded (``Decoder.move``), a plain tuple as the hot path wants it:
#: the game; the engine state the action applies to; the encoded parts of that state when this
#: worker returned it (else None); the seat that acts; its engine action (None when a bot
#: chooses it); the viewer, whose events the answer carries (a seat, ``ALL_EVENTS`` or
#: ``PUBLIC_EVENTS``); the policy of the bot that chooses the action (None when one was sent);
#: that bot's seed; the search budget it asks for, (iterations, time cap in ms), 0 for unset;
#: the state's seating (match id and bot seats); the seat the call's token grants (see
#: ``Decoded``); the bot move as asked (None for an action); the state's seal, kept for the
#: revision fence (empty unless the decoder keeps seals).
Move = tuple[
    Game,
    Any,
    Any,
    int,
    Any,
    int,
    "str | None",
    int,
    tuple[int, int],
    Seating,
    "int | None",
    Any,
    bytes,
]
NO_BUDGET = (0, 0)  # a move sent, or a bot move that asks for no search budget


def parse(message_type: Any, data: bytes) -> Any:
    """A message of ``data``; unparsable bytes are a bad request, as for any request."""
    try:
        return message_type.FromString(data)
    except DecodeError:
        raise RequestError(
            f"the request is not a valid {message_type.DESCRIPTOR.full_name} message"
        ) from None


def viewer_seat(viewer: common.Viewer) -> int | None:
    """The seat of ``viewer``, or None for a spectator; a viewer that is neither is a bad
    request."""
    which = viewer.WhichOneof("viewer")
    if which is None or (which == "spectator" and not viewer.spectator):
        raise RequestError("viewer must be a seat or spectator=true", "VIEWER_NOT_SET")
    return viewer.seat if which == "seat" else None


def bot_seed(seed: int, seat: int, msg: common.GameState | None, sent: bytes | None) -> int:
    """The seed of a bot's choice for ``seat``: the one sent, or without one a seed that still
    depends on the request alone, through its state message ``msg`` (or ``sent``, its bytes,
    when not parsed): same request, same move."""
    if seed:
        return seed
    if msg is None:
        msg = parse(common.GameState, sent or b"")
    return derive_seed(zlib.crc32(msg.SerializeToString(deterministic=True)), seat)


class Decoder:
    """Decodes the requests of one servicer, with the worker's ``states`` and ``actions``
    tables, opening sealed states with ``sealer`` (and refusing plain ones when
    ``require_sealed``), checking the callers' seat tokens with ``guard`` when tokens are
    required, and keeping the seals of the states moves are sent with when ``keep_seals``."""

    def __init__(
        self,
        games: dict[str, Game],
        states: StateCache,
        actions: dict[bytes, KnownAction],
        action_bytes: int,
        sealer: Sealer | None,
        require_sealed: bool,
        guard: SeatGuard | None = None,
        keep_seals: bool = False,
    ) -> None:
        self.games = games
        self.states = states
        self.actions = actions
        self.action_bytes = action_bytes  # the most the kept actions are charged
        self.sealer = sealer
        self.require_sealed = require_sealed
        self.guard = guard
        self.keep_seals = keep_seals

    def new_game(self, request: api.NewGameRequest, call: CallRecord) -> tuple[Game, Any, int]:
        """The game, engine options and seed of a ``NewGameRequest`` (a random seed when it
        sends none)."""
        game_id = request.options.WhichOneof("game")
        if game_id is None:
            raise RequestError(
                "options must select a game: set one field of GameOptions.game",
                "GAME_NOT_SELECTED",
            )
        game = lookup(self.games, game_id)
        call.game = game.id
        options = game.codec.decode_options(getattr(request.options, game_id))
        return game, options, request.seed or secrets.randbits(64) or 1

    def state(self, msg: common.GameState, call: CallRecord) -> Decoded:
        """The state message ``msg`` decoded."""
        game, state, _, seating, holder = self._state_and_parts(msg, call)
        return game, state, seating, holder

    def move(self, request: api.ApplyActionRequest | bytes, call: CallRecord) -> Move:
        """The ``Move`` of an ``ApplyActionRequest``, a message, or its serialized bytes as they
        arrived (``ApplyAction``'s own path: the state's bytes key the state cache, the bytes
        after them the actions decoded before)."""
        if isinstance(request, bytes):
            msg, sent, move, rest = self._split_request(request)
        else:
            msg, sent, move, rest = request.state, None, request, None
        game, state, parts, seating, holder = self._state_and_parts(msg, call, sent)
        kept = b""
        if self.keep_seals:  # the seal: the state's one spelling, whatever door it came through
            kept = (msg if msg is not None else parse(common.GameState, sent or b"")).sealed
        policy: str | None = None  # a bot move's: its policy, seed, budget and request
        seed, search, bot = 0, NO_BUDGET, None
        action: Any = None
        if isinstance(move, KnownAction):  # the common case: an action sent before
            seat, action = self.action(game, move, call)
            viewer = move.viewer
        else:
            if move.HasField("viewer"):
                seat_or_none = viewer_seat(move.viewer)
                viewer = PUBLIC_EVENTS if seat_or_none is None else seat_or_none
            else:
                viewer = ALL_EVENTS
            if move.HasField("bot"):
                if move.HasField("action"):
                    raise MalformedActionError("set either action or bot, not both")
                bot = move.bot
                seat = call.seat = bot.seat
                seed = bot_seed(bot.seed, seat, msg, sent)
                policy = policy_of(seating, seat, bot.policy)
                search = (bot.search_iterations, bot.search_time_limit_ms)
            elif move.HasField("action"):
                seat, action = self.action(game, move.action, call, rest, viewer)
            else:
                raise MalformedActionError("the request has no move: set action or bot")
        return (
            game,
            state,
            parts,
            seat,
            action,
            viewer,
            policy,
            seed,
            search,
            seating,
            holder,
            bot,
            kept,
        )

    def action(
        self,
        game: Game,
        msg: common.Action | KnownAction,
        call: CallRecord,
        rest: bytes | None = None,
        viewer: int = ALL_EVENTS,
    ) -> tuple[int, Any]:
        """The seat and engine action of ``msg``, an action message or a ``KnownAction``, for
        a state of the game ``game``. When ``rest`` (the bytes of the request after its state,
        which hold the action and the ``viewer``) is given, the decoded action is kept by those
        bytes for the next request that sends them (unless they are longer than an action
        needs: the memory they take stays small)."""
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
                if (len(self.actions) + 1) * KEPT_ACTION_COST > self.action_bytes:
                    self.actions.clear()
                self.actions[rest] = KnownAction(seat, action_game, action, viewer)
        return seat, action

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
            request: api.ApplyActionRequest = parse(api.ApplyActionRequest, rest)
            if not request.HasField("state"):  # else protobuf would merge both: parse it whole
                return None, sent, request, rest
        request = parse(api.ApplyActionRequest, raw)
        return request.state, None, request, None

    def _state_and_parts(
        self, msg: common.GameState | None, call: CallRecord, sent: bytes | None = None
    ) -> tuple[Game, Any, Any, Seating, int | None]:
        """The game and engine state of ``msg`` (or of ``sent``, its serialized bytes as they
        arrived, when ``msg`` was not parsed), the encoding of its parts when this worker
        returned it (None otherwise), its seating and the seat the call's token grants."""
        token = self._token(call)
        if self.states.max_bytes:
            key = sent if msg is None else msg.SerializeToString()
            known = self.states.get(key) if key else None
            if known is not None:  # a state this worker returned, sent back unchanged
                seating = known[3] or NO_SEATING
                holder = self._holder(token, seating)
                game = self.games[known[0]]
                call.game = game.id
                return game, known[1], known[2], seating, holder
        if msg is None:
            msg = parse(common.GameState, sent or b"")
        seating = seating_of(msg)
        if msg.sealed or msg.game_id:
            holder = self._holder(token, seating)
            return (*self._unseal(msg, call, seating), None, seating, holder)
        if self.require_sealed:
            raise RequestError(
                "this server takes sealed states only: send back the states it returned",
                "STATE_NOT_SEALED",
            )
        game_id = msg.WhichOneof("game")
        if game_id is None:
            raise RequestError("the request carries no game state", "STATE_NOT_SET")
        game = lookup(self.games, game_id)
        call.game = game.id
        inner = getattr(msg, game_id)
        state = self._engine_state(game, inner, msg, call, validate=True)
        return game, state, None, seating, UNCHECKED

    def _token(self, call: CallRecord) -> SeatToken | None:
        """The seat token of the call, checked first when tokens are required (missing or not
        the server's: refused before anything else)."""
        if self.guard is None:
            return None
        return self.guard.token(call.seat_token)

    def _holder(self, token: SeatToken | None, seating: Seating) -> int | None:
        """The seat ``token`` grants in the game of ``seating`` (``UNCHECKED`` without tokens
        required)."""
        if self.guard is None or token is None:
            return UNCHECKED
        return self.guard.holder(token, seating)

    def _unseal(
        self, msg: common.GameState, call: CallRecord, seating: Seating
    ) -> tuple[Game, Any]:
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
        payload = self.sealer.unseal(
            msg.sealed, game.id, msg.rules_version, msg.revision, seating.fields()
        )
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
