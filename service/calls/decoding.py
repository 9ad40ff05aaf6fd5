"""The servicer's first part: from a request's bytes to what the engine is called with.

Every request that carries a state has it as its field 1, which protobuf writes first: the
state's bytes are split off as they arrived (``split``), and the rest of the request is parsed
alone. The state's bytes find, in the state cache, a state this worker returned; any other
state is parsed once, opened when sealed (``service.trust.sealing``) or validated when plain.
For ``ApplyAction`` the bytes after the state find an action decoded before (``KnownAction``).

With seat tokens required, the decoder is where ``service.trust.access`` decides: the call's
token is admitted before anything else, and what the call asks (``Asked``) is permitted once
the state's seating is known, before the state is opened and before an action is decoded. A
refusal costs no work that depends on the state. Whatever a request gets wrong is raised as a
``RulesError`` with its reason.
"""

from __future__ import annotations

import secrets
import zlib
from dataclasses import dataclass
from time import perf_counter
from typing import Any

from google.protobuf.message import DecodeError

from engines.errors import InvalidStateError, MalformedActionError
from engines.prng import derive_seed
from ordo.v1 import common_pb2 as common
from ordo.v1 import engine_service_pb2 as api
from service.calls.caches import KEPT_ACTION_BYTES, KEPT_ACTION_COST, KnownAction
from service.calls.games import EVERY_EVENT, REQUEST_STATE_KEY, EventViewer, Game, lookup
from service.calls.state_cache import KnownState, StateCache
from service.codecs import wire
from service.errors import RequestError, with_article
from service.telemetry.observe import CallRecord
from service.trust.access import Access, Asked
from service.trust.sealing import Sealer, SealInvalidError
from service.trust.seat_tokens import SeatToken
from service.trust.seats import Seating, policy_of, seating_of


@dataclass(frozen=True, slots=True)
class Envelope:
    """A request's state before it is opened: its seating, and what it is: a state this worker
    returned (``known``, by its bytes as ``sent``), or a state message."""

    seating: Seating
    known: KnownState | None = None
    sent: bytes = b""
    message: common.GameState | None = None


@dataclass(frozen=True, slots=True)
class DecodedState:
    """A state as a request carried it, decoded."""

    game: Game
    state: Any  # the engine state
    seating: Seating  # its match id and bot seats
    holder: int | None  # the seat the call's token holds (None: a spectator's; tokens required)
    parts: Any = None  # its encoded parts, when this worker returned it
    seal: bytes = b""  # its sealed payload (``GameState.sealed``); empty for a plain state
    sent: bytes = b""  # its bytes as they arrived, when the cache knew them (canonical)
    message: common.GameState | None = None  # the state message, when it was parsed

    def canonical(self) -> bytes:
        """The state's bytes as protobuf writes them (a bot's seed depends on them): those the
        cache knew, which this worker wrote, or those of the parsed message."""
        if self.message is None:
            return self.sent
        return self.message.SerializeToString(deterministic=True)


@dataclass(frozen=True, slots=True)
class BotChoice:
    """A bot move asked for: the move as asked, the policy that chooses and its seed."""

    asked: api.BotMove
    policy: str
    seed: int


@dataclass(frozen=True, slots=True)
class Move:
    """An ``ApplyActionRequest`` decoded: the state, the seat that acts, its action (None while
    a bot is to choose it), the bot's choice (None for an action) and whose events the answer
    carries."""

    given: DecodedState
    seat: int
    action: Any
    bot: BotChoice | None
    viewer: EventViewer


def parse(message_type: Any, data: bytes) -> Any:
    """A message of ``data``; unparsable bytes are a bad request, as for any request."""
    try:
        return message_type.FromString(data)
    except DecodeError:
        raise RequestError(
            f"the request is not a valid {message_type.DESCRIPTOR.full_name} message"
        ) from None


def state_and_table() -> RequestError:
    """The refusal of a request that carries a state and names a hosted table."""
    return RequestError(
        "the request sets both state and table_id: send one of them", "STATE_AND_TABLE_ID_SET"
    )


def viewer_seat(viewer: common.Viewer) -> int | None:
    """The seat of ``viewer``, or None for a spectator; a viewer that is neither is a bad
    request."""
    which = viewer.WhichOneof("viewer")
    if which is None or (which == "spectator" and not viewer.spectator):
        raise RequestError("viewer must be a seat or spectator=true", "VIEWER_NOT_SET")
    return viewer.seat if which == "seat" else None


def bot_seed(seed: int, seat: int, state_bytes: bytes) -> int:
    """The seed of a bot's choice for ``seat``: the one sent, or without one a seed that still
    depends on the request alone, through its state's canonical bytes: same request, same
    move."""
    return seed or derive_seed(zlib.crc32(state_bytes), seat)


def split(raw: bytes, request_type: Any) -> tuple[bytes | common.GameState, Any]:
    """A request that carries a state, as sent: the state's bytes when they open the request, as
    protobuf writes them (else the parsed state), and the request parsed (without its state
    when split)."""
    return _split(raw, request_type, wire.leading_field(raw, REQUEST_STATE_KEY))


def _split(
    raw: bytes, request_type: Any, found: tuple[bytes, bytes] | None
) -> tuple[bytes | common.GameState, Any]:
    """``split``, once the state's field was looked for (``found``: its bytes and the rest)."""
    if found is not None:
        sent, rest = found
        request = parse(request_type, rest)
        if not request.HasField("state"):  # else protobuf would merge both: parse it whole
            return sent, request
    request = parse(request_type, raw)
    return request.state, request


class Decoder:
    """Decodes the requests of one servicer, with the worker's ``states`` and ``actions``
    tables, opening sealed states with ``sealer`` (and refusing plain ones when
    ``require_sealed``), and asking ``access`` who may ask when seat tokens are required."""

    def __init__(
        self,
        games: dict[str, Game],
        states: StateCache,
        actions: dict[bytes, KnownAction],
        action_bytes: int,
        sealer: Sealer | None,
        require_sealed: bool,
        access: Access | None = None,
    ) -> None:
        self.games = games
        self.states = states
        self.actions = actions
        self.action_bytes = action_bytes  # the most the kept actions are charged
        self.sealer = sealer
        self.require_sealed = require_sealed
        self.access = access

    def new_game(self, request: api.NewGameRequest, call: CallRecord) -> tuple[Game, Any, int]:
        """The game, engine options and seed of a ``NewGameRequest`` (a random seed when it
        sends none; none may be sent when seat tokens are required)."""
        if self.access is not None:
            self.access.no_seed(request.seed)
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

    def admit(self, token: str) -> SeatToken | None:
        """What the call's seat ``token`` grants, checked first, before anything of the request
        but its shape (None without tokens required)."""
        return None if self.access is None else self.access.admit(token)

    def envelope(self, sent: bytes | common.GameState) -> Envelope:
        """The state a request carries, before it is opened: its bytes as they arrived (see
        ``split``), found in the state cache or parsed, or its message when the request was
        parsed whole; refused when it is no state this server takes."""
        if type(sent) is bytes and self.states.max_bytes:
            known = self.states.get(sent)
            if known is not None:  # a state this worker returned, sent back unchanged
                return Envelope(known.seating, known, sent)
        msg = sent if isinstance(sent, common.GameState) else parse(common.GameState, sent)
        if not (msg.sealed or msg.game_id):
            if self.require_sealed:
                raise RequestError(
                    "this server takes sealed states only: send back the states it returned",
                    "STATE_NOT_SEALED",
                )
            if msg.WhichOneof("game") is None:
                raise RequestError(
                    "the request carries no game state: set state, or the table_id of a hosted "
                    "table",
                    "STATE_NOT_SET",
                )
        return Envelope(seating_of(msg), message=msg)

    def open(
        self,
        envelope: Envelope,
        call: CallRecord,
        asked: Asked,
        granted: SeatToken | None = None,
    ) -> DecodedState:
        """The state of ``envelope`` once ``asked``, what the call asks of the game, is
        permitted (with tokens required, for the token that ``granted`` what ``admit`` found):
        a state this worker returned as it kept it, a sealed one opened, a plain one decoded
        and validated."""
        seating = envelope.seating
        holder = self._permit(granted, seating, asked)
        known = envelope.known
        if known is not None:
            game = self.games[known.game_id]
            call.game = game.id
            return DecodedState(
                game, known.state, seating, holder, known.parts, known.seal, envelope.sent
            )
        msg = envelope.message
        assert msg is not None
        if msg.sealed or msg.game_id:
            game, state = self._unseal(msg, call, seating)
            return DecodedState(game, state, seating, holder, seal=msg.sealed, message=msg)
        game_id = msg.WhichOneof("game")
        assert game_id is not None
        game = lookup(self.games, game_id)
        call.game = game.id
        state = self._engine_state(game, getattr(msg, game_id), msg, call, validate=True)
        return DecodedState(game, state, seating, holder, message=msg)

    def state(
        self,
        sent: bytes | common.GameState,
        call: CallRecord,
        asked: Asked,
        granted: SeatToken | None = None,
    ) -> DecodedState:
        """The state a request carries (see ``envelope``), opened (see ``open``)."""
        return self.open(self.envelope(sent), call, asked, granted)

    def move(self, raw: bytes, call: CallRecord, token: str = "") -> Move:
        """The ``Move`` of an ``ApplyActionRequest`` as it arrived: the state's bytes key the
        state cache, the bytes after them the actions decoded before."""
        granted = self.admit(token)
        found = wire.leading_field(raw, REQUEST_STATE_KEY)
        known = None if found is None else self.actions.get(found[1])
        if found is not None and known is not None:  # the common case: an action sent before
            call.seat = known.seat
            asked = Asked("apply the actions", acts_as=known.seat, views_as=seat_of(known.viewer))
            given = self.state(found[0], call, asked, granted)
            self._same_game(given.game, known.game)
            events_for = self.events_for(given, known.viewer)
            return Move(given, known.seat, known.action, None, events_for)
        sent, request = _split(raw, api.ApplyActionRequest, found)
        if request.table_id:
            raise state_and_table()
        envelope = self.envelope(sent)
        viewer: EventViewer = (
            viewer_seat(request.viewer) if request.HasField("viewer") else EVERY_EVENT
        )
        if request.HasField("bot"):
            if request.HasField("action"):
                raise MalformedActionError("set either action or bot, not both")
            bot = request.bot
            seat = call.seat = bot.seat
            asked = Asked("apply the actions", bot=bot, views_as=seat_of(viewer))
            given = self.open(envelope, call, asked, granted)
            seed = bot_seed(bot.seed, seat, given.canonical())
            choice = BotChoice(bot, policy_of(given.seating, seat, bot.policy), seed)
            return Move(given, seat, None, choice, self.events_for(given, viewer))
        if not request.HasField("action"):
            raise MalformedActionError("the request has no move: set action or bot")
        seat = call.seat = request.action.seat
        asked = Asked("apply the actions", acts_as=seat, views_as=seat_of(viewer))
        given = self.open(envelope, call, asked, granted)
        rest = found[1] if found is not None and type(sent) is bytes else None
        _, action = self.action(given.game, request.action, call, rest, viewer)
        return Move(given, seat, action, None, self.events_for(given, viewer))

    def action(
        self,
        game: Game,
        msg: common.Action,
        call: CallRecord,
        rest: bytes | None = None,
        viewer: EventViewer = EVERY_EVENT,
    ) -> tuple[int, Any]:
        """The seat and engine action of ``msg``, an action of a state of ``game``. When
        ``rest`` (the bytes of the request after its state, which hold the action and the
        ``viewer``) is given, the decoded action is kept by those bytes for the next request
        that sends them (unless they are longer than an action needs: the memory they take
        stays small)."""
        seat, action_game = msg.seat, msg.WhichOneof("game")
        call.seat = seat
        self._same_game(game, action_game)
        assert action_game is not None
        action = game.codec.decode_action(getattr(msg, action_game))
        if rest is not None and len(rest) <= KEPT_ACTION_BYTES:
            if (len(self.actions) + 1) * KEPT_ACTION_COST > self.action_bytes:
                self.actions.clear()
            self.actions[rest] = KnownAction(seat, action_game, action, viewer)
        return seat, action

    def _same_game(self, game: Game, action_game: str | None) -> None:
        """Refuse an action of no game, or of another game than the state's."""
        if action_game is None:
            raise MalformedActionError("the action has no move: set one field of Action.game")
        if action_game != game.id:
            raise MalformedActionError(
                f"{with_article(action_game)} action cannot apply to {with_article(game.id)} state",
                "GAME_MISMATCH",
            )

    def events_for(self, given: DecodedState, viewer: EventViewer) -> EventViewer:
        """Whose events a move answers with: the viewer asked for; without one, every event,
        or, with tokens required, the token's seat's."""
        if viewer is EVERY_EVENT and self.access is not None:
            return given.holder
        return viewer

    def _permit(self, granted: SeatToken | None, seating: Seating, asked: Asked) -> int | None:
        """The seat the call's token holds once ``access`` permits ``asked`` (None without
        tokens required)."""
        if self.access is None or granted is None:
            return None
        return self.access.permit(granted, seating, asked)

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


def seat_of(viewer: EventViewer) -> int | None:
    """The seat whose view a viewer asks for (None: a spectator's, or no viewer at all)."""
    return viewer if isinstance(viewer, int) else None
