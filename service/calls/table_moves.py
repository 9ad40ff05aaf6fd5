"""A hosted table's moves as the engines play them: stored moves applied, replayed, and shown to
one viewer.

A table's store (``service.tables.store``) holds each move as its record does: a
``RecordedMove`` (a seat's action; a bot's move as the action the bot chose, so that playing it
again costs no search) after the first bytes of the digest of the state it led to. Applying
one to the state before it gives the same state on any server of the same rules and keys, so a
server that follows a table plays its moves itself instead of reading every state: a
``Step`` is one move played, and ``replay`` plays a table's record from its initial state.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from time import perf_counter
from typing import Any

from engines.base import Event, Status
from ordo.v1 import common_pb2 as common
from ordo.v1 import engine_service_pb2 as api
from service.calls.decoding import DecodedState, Decoder, parse
from service.calls.encoding import Encoder, encode_status
from service.calls.games import EventViewer, Game
from service.tables.store import DIGEST_BYTES, Entry, History
from service.telemetry.observe import CallRecord
from service.trust.access import Asked

#: What the server asks of a table's state when it reads one for itself (nobody's token).
FOLLOW = Asked("follow the table")


@dataclass(frozen=True, slots=True)
class Step:
    """A table at one revision: the engine state, its status, and the move that led there (the
    seat that moved and its events; none for a state a stream starts from)."""

    revision: int
    state: Any
    status: Status
    seat: int | None = None
    events: Sequence[Event] = ()


def digest(data: bytes) -> bytes:
    """A stored move's digest of the state it led to: the first bytes of its SHA-256, as a
    record's ``move_digests`` hold it."""
    return hashlib.sha256(data).digest()[:DIGEST_BYTES]


def entry(game: Game, seat: int, action: Any, data: bytes) -> Entry:
    """The stored move of ``seat``'s ``action`` that led to the state of bytes ``data``."""
    move = api.RecordedMove(
        action=common.Action(seat=seat, **{game.id: game.codec.encode_action(action)})
    )
    return Entry(digest(data), move.SerializeToString())


def open_state(decoder: Decoder, data: bytes, call: CallRecord) -> DecodedState:
    """A table's stored state, opened by the server for itself."""
    return decoder.state(data, call, FOLLOW)


def play(
    decoder: Decoder, game: Game, state: Any, revision: int, stored: Entry, call: CallRecord
) -> Step:
    """The step that the stored move ``stored`` makes from ``state`` (at ``revision - 1``)."""
    move = parse(api.RecordedMove, stored.move)
    seat, action = decoder.action(game, move.action, call)
    return apply(game, state, revision, seat, action, call)


def apply(game: Game, state: Any, revision: int, seat: int, action: Any, call: CallRecord) -> Step:
    """The step that ``seat``'s ``action`` makes from ``state`` (at ``revision - 1``), its
    engine time counted in ``call``."""
    start = perf_counter()
    try:
        transition = game.engine.apply(state, seat, action)
        status = game.engine.status(transition.state)
    finally:
        call.engine_seconds += perf_counter() - start
    return Step(revision, transition.state, status, seat, transition.events)


def replay(
    decoder: Decoder, history: History, first: int, call: CallRecord
) -> tuple[Game, list[Step]]:
    """A table's game and its steps from revision ``first - 1`` (the state before the first step
    asked for) to the last move of ``history``, played from its initial state."""
    given = open_state(decoder, history.initial, call)
    game, state = given.game, given.state
    steps = []
    if first <= 1:
        steps.append(Step(0, state, game.engine.status(state)))
    for revision, stored in enumerate(history.entries, start=1):
        step = play(decoder, game, state, revision, stored, call)
        state = step.state
        if revision >= first - 1:
            steps.append(step)
    return game, steps


def watch_message(encoder: Encoder, game: Game, step: Step, viewer: int | None) -> bytes:
    """The ``WatchGameResponse`` of ``step`` for ``viewer`` (a seat, or None: a spectator),
    serialized: its view, its status and the events of its move that the viewer may see."""
    engine = game.engine
    status = encode_status(step.status)
    view = common.GameView(status=status)
    getattr(view, game.id).CopyFrom(game.codec.encode_view(engine.view(step.state, viewer)))
    seats = engine.seats(step.state)
    message = api.WatchGameResponse(revision=step.revision, view=view, status=status, seats=seats)
    if step.seat is not None:
        message.seat = step.seat
        message.events.extend(encoder.event_messages(game, seats, step.events, viewer))
    return message.SerializeToString()


def apply_response(
    encoder: Encoder, game: Game, steps: Sequence[Step], viewer: EventViewer
) -> bytes:
    """The serialized ``ApplyActionResponse`` of the moves one call made on a table (``steps``,
    the last one at the table's new revision): the status after them, the events ``viewer`` may
    see and the revision; no state (it stays on the server)."""
    last = steps[-1]
    seats = game.engine.seats(last.state)
    events = [event for step in steps for event in step.events]
    response = api.ApplyActionResponse(
        status=encode_status(last.status), table_revision=last.revision
    )
    response.events.extend(encoder.event_messages(game, seats, events, viewer))
    return response.SerializeToString()
