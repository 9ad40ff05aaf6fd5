"""A hosted table's moves as the engines play them: stored moves applied, replayed, and shown to
one viewer.

A table's store (``service.tables.store``) holds each move as its record does: a
``RecordedMove`` (a seat's action; a bot's move as the action the bot chose, so that playing it
again costs no search) after the first bytes of the digest of the state it led to. Applying
one to the state before it gives the same state on any server of the same rules and keys, so a
server that follows a table plays its moves itself instead of reading every state: a
``Step`` is one move played, and ``replay`` plays a table's record from its initial state.

A table with a time control keeps its clock in its state; each stored move keeps the time the
server stamped it (``at_ms``), and a timeout is stored as one (``timeout``, with the action the
bot chose for the timed-out seat), so that playing the moves again moves the clock as it moved.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from time import perf_counter
from typing import Any

from engines import clock as clocks
from engines.base import Event, Status
from engines.clock import GameClock
from ordo.v1 import common_pb2 as common
from ordo.v1 import engine_service_pb2 as api
from service.calls.clocks import clock_view
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
    """A table at one revision: the engine state, its status, its clock (a table with a time
    control), and the move that led there (the seat that moved, its events, whether it was a
    timeout and when the server stamped it; none for a state a stream starts from)."""

    revision: int
    state: Any
    status: Status
    seat: int | None = None
    events: Sequence[Event] = ()
    clock: GameClock | None = None
    timed_out: bool = False
    at_ms: int = 0


def digest(data: bytes) -> bytes:
    """A stored move's digest of the state it led to: the first bytes of its SHA-256, as a
    record's ``move_digests`` hold it."""
    return hashlib.sha256(data).digest()[:DIGEST_BYTES]


def entry(game: Game, step: Step, action: Any, data: bytes) -> Entry:
    """The stored move of the seat of ``step`` (its ``action``, or its timeout) that led to the
    state of bytes ``data``."""
    assert step.seat is not None
    played = common.Action(seat=step.seat, **{game.id: game.codec.encode_action(action)})
    if step.timed_out:
        timeout = api.TimeoutClaim(seat=step.seat, action=played)
        move = api.RecordedMove(timeout=timeout, at_ms=step.at_ms)
    else:
        move = api.RecordedMove(action=played, at_ms=step.at_ms)
    return Entry(digest(data), move.SerializeToString())


def open_state(decoder: Decoder, data: bytes, call: CallRecord) -> DecodedState:
    """A table's stored state, opened by the server for itself."""
    return decoder.state(data, call, FOLLOW)


def play(decoder: Decoder, game: Game, before: Step, stored: Entry, call: CallRecord) -> Step:
    """The step that the stored move ``stored`` makes from ``before``."""
    move = parse(api.RecordedMove, stored.move)
    timed_out = move.WhichOneof("move") == "timeout"
    played = move.timeout.action if timed_out else move.action
    seat, action = decoder.action(game, played, call)
    return apply(game, before, seat, action, call, move.at_ms, timed_out)


def apply(
    game: Game,
    before: Step,
    seat: int,
    action: Any,
    call: CallRecord,
    at_ms: int = 0,
    timed_out: bool = False,
) -> Step:
    """The step that ``seat``'s ``action`` (a move played for it when ``timed_out``) makes from
    ``before`` at the server's time ``at_ms``, its engine time counted in ``call``; the clock,
    if any, moved on."""
    start = perf_counter()
    try:
        transition = game.engine.apply(before.state, seat, action)
        status = game.engine.status(transition.state)
    finally:
        call.engine_seconds += perf_counter() - start
    clock = before.clock
    if clock is not None:
        clock = clocks.moved(clock, seat, status.seats_to_act, at_ms, timed_out)
    return Step(
        before.revision + 1,
        transition.state,
        status,
        seat,
        transition.events,
        clock,
        timed_out,
        at_ms if clock is not None else 0,
    )


def replay(
    decoder: Decoder, history: History, first: int, call: CallRecord
) -> tuple[Game, list[Step]]:
    """A table's game and its steps from revision ``first - 1`` (the state before the first step
    asked for) to the last move of ``history``, played from its initial state."""
    given = open_state(decoder, history.initial, call)
    game = given.game
    step = Step(0, given.state, game.engine.status(given.state), clock=given.clock)
    steps = [step] if first <= 1 else []
    for revision, stored in enumerate(history.entries, start=1):
        step = play(decoder, game, step, stored, call)
        if revision >= first - 1:
            steps.append(step)
    return game, steps


def watch_message(
    encoder: Encoder, game: Game, step: Step, viewer: int | None, now_ms: int = 0
) -> bytes:
    """The ``WatchGameResponse`` of ``step`` for ``viewer`` (a seat, or None: a spectator),
    serialized: its view (with every seat's clock at ``now_ms``), its status and the events of
    its move that the viewer may see."""
    engine = game.engine
    status = encode_status(step.status)
    view = common.GameView(status=status)
    getattr(view, game.id).CopyFrom(game.codec.encode_view(engine.view(step.state, viewer)))
    if step.clock is not None:
        view.clock.CopyFrom(clock_view(step.clock, now_ms))
    seats = engine.seats(step.state)
    message = api.WatchGameResponse(revision=step.revision, view=view, status=status, seats=seats)
    if step.seat is not None:
        message.seat = step.seat
        message.timed_out = step.timed_out
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
        status=encode_status(last.status), table_revision=last.revision, at_ms=steps[0].at_ms
    )
    response.events.extend(encoder.event_messages(game, seats, events, viewer))
    return response.SerializeToString()


def claim_response(
    encoder: Encoder, game: Game, steps: Sequence[Step], viewer: EventViewer
) -> api.ClaimTimeoutResponse:
    """The ``ClaimTimeoutResponse`` of a timeout claimed on a table (``steps``: the timeout's
    move, then the bots' after it): the status after them, the events ``viewer`` may see, whether
    the seat is now absent, when the server stamped it and the table's revision; no state."""
    first, last = steps[0], steps[-1]
    assert first.seat is not None
    assert first.clock is not None
    response = api.ClaimTimeoutResponse(
        status=encode_status(last.status),
        timed_out=True,
        absent=first.clock.seats[first.seat].absent,
        at_ms=first.at_ms,
        table_revision=last.revision,
    )
    seats = game.engine.seats(last.state)
    events = [event for step in steps for event in step.events]
    response.events.extend(encoder.event_messages(game, seats, events, viewer))
    return response
