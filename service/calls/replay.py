"""``ReplayGame``: play a game record through, check its digests, show one page of its steps.

A record (``ordo.v1.GameRecord``) is a game's initial state and its moves as they were sent to
``ApplyAction``; the servicer's decoder and encoder (``service.calls.decoding``,
``service.calls.encoding``)
decode the state, decode or choose each move and encode the new state, so a replay gives the
very bytes the game gave. Each state is checked
against its move's digest (the first ``DIGEST_BYTES`` of the SHA-256 of the state as the server
returns it, in ``move_digests``), and the last against the record's full digest: the first step
whose state differs is the one named. A record longer than a whole game of its seats and options
could be is refused before a move is played.

Steps come a page at a time (``first_step``, ``page_size``): every page is an ordinary unary
call that any replica answers alone from the request, so pages go through the call path, retries,
logs and metrics every other method has, over both doors. A page replays the whole record (and
checks it to its last digest), or, given the state its previous page ended on (``from_state``,
checked against the record's digest of that step), its own moves only: walking a long game costs
one replay, not one per page.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from time import perf_counter
from typing import TYPE_CHECKING, Any

from engines import clock as clocks
from engines.base import SPECTATOR, Event, GameEngine, Status, Transition
from engines.clock import GameClock
from engines.errors import MalformedActionError, RulesError, UnsupportedRulesVersionError
from engines.prng import Rng
from engines.search import SEARCH_POLICY, Budget
from ordo.v1 import common_pb2 as common
from ordo.v1 import engine_service_pb2 as api
from service.calls.costs import BOT_MOVE_US, REPLAYED_MOVE_US, CallCosts, Meter, bot_cost_us
from service.calls.decoding import DecodedState, Decoder, bot_seed, viewer_seat
from service.calls.encoding import Encoder, encode_status
from service.calls.games import EVERY_EVENT, RESPONSE_EVENTS_KEY, EventViewer, Game
from service.codecs import wire
from service.errors import RequestError
from service.trust.access import Asked
from service.trust.seat_tokens import SeatNotPermittedError, SeatToken
from service.trust.seats import Seating, policy_of

if TYPE_CHECKING:
    from service.telemetry.observe import CallRecord

FORMAT_VERSION = 1  # GameRecord.format_version of the records this server plays
DIGEST_BYTES = 4  # the digest of each move: the first bytes of its state's SHA-256
DEFAULT_PAGE_STEPS = 64  # steps in a page when the request names no page size
MAX_PAGE_STEPS = 256  # the most steps in a page
#: The search budget a bot move asks for (the game, its iterations and time cap), checked
#: against the server's maximum as ``ApplyAction`` checks it.
BudgetOf = Callable[[Game, int, int], Budget | None]

_STEP_FIELDS = api.ReplayStep.DESCRIPTOR.fields_by_name
_RESPONSE_FIELDS = api.ReplayGameResponse.DESCRIPTOR.fields_by_name
STEP_KEY = wire.key(_STEP_FIELDS["step"].number, wire.VARINT)
STEP_VIEW_KEY = wire.key(_STEP_FIELDS["view"].number, wire.LENGTH_DELIMITED)
STEP_SEAT_VIEWS_KEY = wire.key(_STEP_FIELDS["seat_views"].number, wire.LENGTH_DELIMITED)
STEP_SEAT_KEY = wire.key(_STEP_FIELDS["seat"].number, wire.VARINT)
FINAL_STATE_KEY = wire.key(_RESPONSE_FIELDS["final_state"].number, wire.LENGTH_DELIMITED)
FINAL_STATUS_KEY = wire.key(_RESPONSE_FIELDS["final_status"].number, wire.LENGTH_DELIMITED)
MOVE_COUNT_KEY = wire.key(_RESPONSE_FIELDS["move_count"].number, wire.VARINT)
STEPS_KEY = wire.key(_RESPONSE_FIELDS["steps"].number, wire.LENGTH_DELIMITED)
NEXT_STEP_KEY = wire.key(_RESPONSE_FIELDS["next_step"].number, wire.VARINT)
NEXT_STATE_KEY = wire.key(_RESPONSE_FIELDS["next_state"].number, wire.LENGTH_DELIMITED)
# A step's events are encoded as ApplyAction's are: the same field of the same message type.
if wire.key(_STEP_FIELDS["events"].number, wire.LENGTH_DELIMITED) != RESPONSE_EVENTS_KEY:
    raise RuntimeError("ReplayStep.events must have the number of ApplyActionResponse.events")

RECORD_MISMATCH = "RECORD_MISMATCH"
RULES_VERSION_MISMATCH = "RULES_VERSION_MISMATCH"
RECORD_TOO_LONG = "RECORD_TOO_LONG"
RECORD_FORMAT_UNSUPPORTED = "RECORD_FORMAT_UNSUPPORTED"
REVEAL_NOT_FINISHED = "REVEAL_NOT_FINISHED"
STEP_OUT_OF_RANGE = "STEP_OUT_OF_RANGE"


def state_digest(state_bytes: bytes) -> bytes:
    """The full digest of a state: SHA-256 of its bytes as the server returned them."""
    return hashlib.sha256(state_bytes).digest()


@dataclass(frozen=True, slots=True)
class Watch:
    """Who watches a replay: one viewer (a seat, a spectator, or ``EVERY_EVENT`` when the
    replay only checks the record) or every seat (``reveal``), and the steps of the page."""

    viewer: EventViewer
    reveal: bool
    first: int
    last: int  # the last step of the page, inclusive (first - 1 when nobody watches)


@dataclass(slots=True)
class Played:
    """Where a replay has got to: the state after the last move played (its engine value, its
    bytes and their parts), its status, and the steps of the page so far, serialized."""

    state: Any
    data: bytes
    parts: Any
    status: Status
    steps: list[bytes]
    page_end: bytes = b""  # the bytes of the page's last state
    clock: GameClock | None = None  # the game's clock, None without a time control


def replay_game(
    decoder: Decoder,
    encoder: Encoder,
    request: api.ReplayGameRequest,
    call: CallRecord,
    budget: BudgetOf,
    costs: CallCosts,
    token: str = "",
) -> bytes:
    """Play ``request.record`` through with a servicer's ``decoder`` and ``encoder``; the answer
    is the serialized ``ReplayGameResponse``. With seat tokens required (the decoder's
    ``access``), the caller watches as its token's seat or a spectator, its record's bot moves
    are the game's bots', and a move its seat could not have made is a mismatch, whose reason
    would tell another seat's cards."""
    granted = decoder.admit(token)
    record = request.record
    if record.format_version != FORMAT_VERSION:
        raise RequestError(
            f"the record is of format version {record.format_version}; this server plays "
            f"version {FORMAT_VERSION}",
            RECORD_FORMAT_UNSUPPORTED,
            record_version=str(record.format_version),
            server_version=str(FORMAT_VERSION),
        )
    moves = record.moves
    watch = _watch(request, len(moves))
    asked = Asked("watch", views_as=watch.viewer if isinstance(watch.viewer, int) else None)
    given = _initial_state(decoder, record.initial_state, call, asked, granted)
    game, state = given.game, given.state
    most = game.engine.max_actions(state) - state.revision
    if len(moves) > most:
        raise RequestError(
            f"the record holds {len(moves)} moves; a game of its seats and options has at "
            f"most {most} from its initial state",
            RECORD_TOO_LONG,
            moves=str(len(moves)),
            most=str(most),
        )
    if isinstance(watch.viewer, int):
        game.engine.check_seat(state, watch.viewer)
    resumed = request.HasField("from_state")
    played = Played(
        state, given.canonical(), given.parts, game.engine.status(state), [], clock=given.clock
    )
    if resumed:
        played.state, played.data, played.clock = _from_state(
            decoder, given, request, watch, call, granted
        )
        first, last = watch.first, watch.last
    else:
        first, last = 1, len(moves)
        if watch.first == 0 <= watch.last:
            played.steps.append(_step(game, state, 0, None, (), watch, encoder))
    meter = costs.meter(call)
    meter.plan(
        sum(
            _cost_us(game, given.seating, moves[step - 1], budget)
            for step in range(first, last + 1)
        )
    )
    with costs.work(meter):
        for step in range(first, last + 1):
            meter.spend(REPLAYED_MOVE_US)
            _play(decoder, encoder, given, record, step, played, watch, call, budget, meter)
    call.seat = watch.viewer if isinstance(watch.viewer, int) else None
    more = watch.first <= watch.last < len(moves)
    if more and watch.last == 0:
        played.page_end = record.initial_state.SerializeToString(deterministic=True)
    next_step = watch.last + 1 if more else 0
    if resumed:
        return _response(encoder, played, len(moves), next_step, final=False)
    if not moves:
        played.data = encoder.state(
            game, state, call, seating=given.seating, clock=given.clock
        ).data
    _check_final(record, played.data)
    if watch.reveal and not played.status.finished:
        raise RequestError(
            "every card is shown only once the game is over; this record's game goes on",
            REVEAL_NOT_FINISHED,
        )
    return _response(encoder, played, len(moves), next_step, final=True)


def _check_final(record: api.GameRecord, data: bytes) -> None:
    """Refuse a record whose last state (of bytes ``data``) or digests are not the ones its
    moves led to."""
    moves = len(record.moves)
    if (
        record.final_digest != state_digest(data)
        or len(record.move_digests) != moves * DIGEST_BYTES
    ):
        raise RequestError(
            f"the last state (step {moves}) is not the one the record was made with: moves "
            "are missing or changed",
            RECORD_MISMATCH,
            step=str(moves),
        )


def _play(
    decoder: Decoder,
    encoder: Encoder,
    given: DecodedState,
    record: api.GameRecord,
    step: int,
    played: Played,
    watch: Watch,
    call: CallRecord,
    budget: BudgetOf,
    meter: Meter,
) -> None:
    """Play move ``step`` of ``record`` from where ``played`` got to, check its digest, and add
    its step to the page when the page shows it; its bot's choice is counted by ``meter``."""
    game, seating, state = given.game, given.seating, played.state
    move = record.moves[step - 1]
    try:
        if decoder.access is not None and move.WhichOneof("move") == "bot":
            decoder.access.bot_move(seating, move.bot)
        seat, action = _decode_move(
            decoder, game, state, move, played.data, call, budget, seating, meter
        )
        start = perf_counter()
        try:
            if decoder.access is None:
                transition, allowed = game.engine.apply(state, seat, action), True
            else:
                transition, allowed = _apply_unseen(game.engine, state, seat, action)
            played.status = game.engine.status(transition.state)
        finally:
            call.engine_seconds += perf_counter() - start
    except SeatNotPermittedError:
        raise
    except RulesError as error:
        if decoder.access is not None:
            raise _mismatch(step) from None
        raise _at_step(error, step) from None
    clock = played.clock
    if clock is not None:
        timed_out = move.WhichOneof("move") == "timeout"
        clock = clocks.moved(clock, seat, played.status.seats_to_act, move.at_ms, timed_out)
    encoded = encoder.state(game, transition.state, call, state, played.parts, seating, clock)
    digest = record.move_digests[(step - 1) * DIGEST_BYTES : step * DIGEST_BYTES]
    if digest != state_digest(encoded.data)[:DIGEST_BYTES] or not allowed:
        if decoder.access is not None:
            raise _mismatch(step)
        raise RequestError(
            f"the state after move {step} is not the one the record was made with: its digest "
            "differs",
            RECORD_MISMATCH,
            step=str(step),
        )
    played.state, played.data, played.parts = transition.state, encoded.data, encoded.parts
    played.clock = clock
    if watch.first <= step <= watch.last:
        played.steps.append(
            _step(game, played.state, step, seat, transition.events, watch, encoder)
        )
        played.page_end = encoded.data


def _response(
    encoder: Encoder, played: Played, move_count: int, next_step: int, final: bool
) -> bytes:
    """The serialized ``ReplayGameResponse`` of the page ``played`` holds: the final state and
    status when the whole record was played (``final``), the move count, the page's steps,
    and where the next page starts."""
    if encoder.plain:
        response = api.ReplayGameResponse(move_count=move_count, next_step=next_step)
        if final:
            response.final_state.MergeFromString(played.data)
            response.final_status.CopyFrom(encode_status(played.status))
        for step in played.steps:
            response.steps.add().MergeFromString(step)
        if next_step:
            response.next_state.MergeFromString(played.page_end)
        return response.SerializeToString()
    fields = [
        wire.uint_field(MOVE_COUNT_KEY, move_count),
        *(wire.length_delimited(STEPS_KEY, step) for step in played.steps),
        wire.uint_field(NEXT_STEP_KEY, next_step),
    ]
    if next_step:
        fields.append(wire.length_delimited(NEXT_STATE_KEY, played.page_end))
    if final:
        status = encode_status(played.status).SerializeToString()
        fields[:0] = (
            wire.length_delimited(FINAL_STATE_KEY, played.data),
            wire.length_delimited(FINAL_STATUS_KEY, status),
        )
    return b"".join(fields)


def _from_state(
    decoder: Decoder,
    initial: DecodedState,
    request: api.ReplayGameRequest,
    watch: Watch,
    call: CallRecord,
    granted: SeatToken | None,
) -> tuple[Any, bytes, GameClock | None]:
    """The engine state a page starts from (``from_state``, the state at ``first_step`` - 1),
    once it is known to be the record's state there; its bytes as sent, and its clock."""
    if watch.reveal or watch.viewer is EVERY_EVENT:
        raise RequestError(
            "from_state goes with a viewer's pages: reveal, and a replay that only checks the "
            "record, play the whole record"
        )
    first = watch.first
    if first == 0:
        raise RequestError(
            "from_state is the state before first_step, which must then be 1 or more"
        )
    record = request.record
    sent = request.from_state.SerializeToString(deterministic=True)
    if first == 1:
        same = sent == record.initial_state.SerializeToString(deterministic=True)
    else:
        digest = record.move_digests[(first - 2) * DIGEST_BYTES : (first - 1) * DIGEST_BYTES]
        same = state_digest(sent)[:DIGEST_BYTES] == digest
    if not same:
        raise RequestError(
            f"from_state is not the record's state at step {first - 1}",
            RECORD_MISMATCH,
            step=str(first - 1),
        )
    resumed = decoder.state(request.from_state, call, Asked("watch"), granted)
    if resumed.game is not initial.game or resumed.seating.match_id != initial.seating.match_id:
        raise RequestError("from_state is a state of another game", "GAME_MISMATCH")
    return resumed.state, sent, resumed.clock


def _initial_state(
    decoder: Decoder,
    msg: common.GameState,
    call: CallRecord,
    asked: Asked,
    granted: SeatToken | None,
) -> DecodedState:
    """A record's initial state, decoded and checked as any state a request carries, as
    ``asked``; a state of another rules version is never decoded under these rules."""
    game_id = msg.WhichOneof("game")
    if game_id in decoder.games:
        _check_rules_version(decoder.games[game_id], msg.rules_version)
    try:
        return decoder.state(msg, call, asked, granted)
    except UnsupportedRulesVersionError:
        # A sealed state opens before its version is read: its seal binds the version.
        _check_rules_version(decoder.games[msg.game_id], msg.rules_version)
        raise


def _check_rules_version(game: Game, rules_version: int) -> None:
    server_version = game.engine.info.rules_version
    if rules_version != server_version:
        raise RequestError(
            f"the record was made under {game.id} rules version {rules_version}; this server "
            f"runs rules version {server_version} and does not replay it under those",
            RULES_VERSION_MISMATCH,
            record_version=str(rules_version),
            server_version=str(server_version),
        )


def _watch(request: api.ReplayGameRequest, moves: int) -> Watch:
    """Who watches, and the page of steps, as the request asks."""
    has_viewer = request.HasField("viewer")
    if has_viewer and request.reveal:
        raise RequestError("set either viewer or reveal, not both")
    viewer: EventViewer = viewer_seat(request.viewer) if has_viewer else EVERY_EVENT
    first = request.first_step
    if first > moves:
        raise RequestError(
            f"first_step {first} is beyond the record's last step, {moves}",
            STEP_OUT_OF_RANGE,
            first_step=str(first),
            moves=str(moves),
        )
    if not (has_viewer or request.reveal):
        return Watch(viewer, False, first, first - 1)
    size = min(request.page_size or DEFAULT_PAGE_STEPS, MAX_PAGE_STEPS)
    return Watch(viewer, request.reveal, first, min(first + size - 1, moves))


def _decode_move(
    decoder: Decoder,
    game: Game,
    state: Any,
    move: api.RecordedMove,
    sent: bytes,
    call: CallRecord,
    budget: BudgetOf,
    seating: Seating,
    meter: Meter,
) -> tuple[int, Any]:
    """The seat and engine action of a recorded move, chosen as ``ApplyAction`` chose it for a
    bot: from the state as it was sent then (``sent``, its canonical bytes), its search's
    worlds (or its other bot's move) counted by ``meter``. A timeout's move is the bot move
    ``ClaimTimeout`` played: the game's policy for the seat, its seed from the state."""
    which = move.WhichOneof("move")
    if which in {"bot", "timeout"}:
        bot = _bot_of(move)
        call.seat = bot.seat
        seed = bot_seed(bot.seed, bot.seat, sent)
        search = budget(game, bot.search_iterations, bot.search_time_limit_ms)
        policy = policy_of(seating, bot.seat, bot.policy)
        if policy == SEARCH_POLICY:
            search = meter.search(game, search)
        else:
            meter.spend(BOT_MOVE_US)
        start = perf_counter()
        try:
            action = game.engine.suggest(state, bot.seat, policy, Rng(seed), search)
        finally:
            call.engine_seconds += perf_counter() - start
        return bot.seat, action
    if which is None:
        raise MalformedActionError("the move sets none of action, bot and timeout")
    return decoder.action(game, move.action, call)


def _bot_of(move: api.RecordedMove) -> api.BotMove:
    """The bot move of a recorded bot move or timeout (the game's bot, unseeded)."""
    if move.WhichOneof("move") == "timeout":
        return api.BotMove(seat=move.timeout.seat)
    return move.bot


def _apply_unseen(
    engine: GameEngine[Any, Any, Any, Any], state: Any, seat: int, action: Any
) -> tuple[Transition[Any], bool]:
    """The transition of ``seat``'s ``action`` for a caller who may not see that seat's cards,
    and whether the rules allow it: the same work either way, so that no answer's time tells
    what the seat holds. The seat's legal actions are listed (the same work whichever action
    was sent), and an action not among them is replaced by the first of them, whose state is
    then encoded, sealed and hashed as a legal move's would be before the refusal. Who is to act
    is public: a seat that is not is refused at once."""
    legal = engine.legal_actions(state, seat)
    allowed = action in frozenset(legal)
    chosen = action if allowed or not legal else legal[0]
    return engine.apply(state, seat, chosen), allowed


def _mismatch(step: int) -> RequestError:
    """The refusal of move ``step`` of a record, with seat tokens required: one message
    whether the rules refused the move or its state's digest differs (which tells another
    seat's cards), so that the caller learns the first only as it learns the second."""
    return RequestError(
        f"move {step} of the record is not one this game allows, or its state is not the one "
        "the record was made with",
        RECORD_MISMATCH,
        step=str(step),
    )


def _cost_us(game: Game, seating: Seating, move: api.RecordedMove, budget: BudgetOf) -> int:
    """The nominal cost of playing ``move`` again, as planned before the replay: the move,
    and its bot's choice (a search by the iterations it names). A search budget over the
    server's maximum is refused when its move is reached, as ``ApplyAction`` refuses it."""
    if move.WhichOneof("move") not in {"bot", "timeout"}:
        return REPLAYED_MOVE_US
    bot = _bot_of(move)
    try:
        search = budget(game, bot.search_iterations, bot.search_time_limit_ms)
    except RulesError:
        return REPLAYED_MOVE_US
    policy = policy_of(seating, bot.seat, bot.policy)
    return REPLAYED_MOVE_US + bot_cost_us(game, policy, search)


def _at_step(error: RulesError, step: int) -> RulesError:
    """``error``, raised by move ``step``, naming the step in its message and metadata."""
    error.message = f"move {step}: {error.message}"
    error.args = (error.message,)
    error.metadata = {**error.metadata, "step": str(step)}
    return error


def _step(
    game: Game,
    state: Any,
    step: int,
    seat: int | None,
    events: tuple[Event, ...],
    watch: Watch,
    encoder: Encoder,
) -> bytes:
    """The serialized ``ReplayStep`` of ``state``, reached by ``seat``'s move with ``events``."""
    viewer = watch.viewer if isinstance(watch.viewer, int) and not watch.reveal else SPECTATOR
    status = game.engine.status(state)
    seats = game.engine.seats(state)
    audience = EVERY_EVENT if watch.reveal else watch.viewer
    if encoder.plain:
        return api.ReplayStep(
            step=step,
            view=common.GameView.FromString(_view(game, state, viewer, status)),
            events=encoder.event_messages(game, seats, events, audience),
            seat_views=[
                common.GameView.FromString(_view(game, state, each, status))
                for each in (range(seats) if watch.reveal else ())
            ],
            seat=seat,
        ).SerializeToString()
    fields = [
        wire.uint_field(STEP_KEY, step),
        wire.length_delimited(STEP_VIEW_KEY, _view(game, state, viewer, status)),
        *encoder.event_fields(game, seats, events, audience),
    ]
    if watch.reveal:
        fields += [
            wire.length_delimited(STEP_SEAT_VIEWS_KEY, _view(game, state, each, status))
            for each in range(seats)
        ]
    if seat is not None:
        fields.append(STEP_SEAT_KEY + wire.varint(seat))
    return b"".join(fields)


def _view(game: Game, state: Any, viewer: int | None, status: Status) -> bytes:
    """The serialized ``GameView`` of ``state`` for ``viewer``."""
    view = game.engine.view(state, viewer)
    return common.GameView(
        status=encode_status(status), **{game.id: game.codec.encode_view(view)}
    ).SerializeToString()
