"""Hosted tables: games the server keeps, which their seats play and watch by a table id.

``NewGame`` with ``host`` keeps the game in the table store (``service.tables.store``) and
answers with its table id and seat tokens, never its state. Every call that takes a state takes
a table id instead: the servicer reads the table's latest state and goes on as with a state
sent (``state_of``). ``ApplyAction`` on a table (``apply``) reads it, applies the action, lets
the bots play their seats until a person must act, and writes it all back by compare-and-set on
the revision: when another move landed meanwhile (several seats choosing at once), it reads the
table again and applies the action to the newer state, as long as it is legal there. The
request's digest (its table, seat, action and the revision it was chosen at) is stored with
its moves: the same request sent again is answered again from the record, never applied twice.

Who may ask is decided as for a state (``service.trust.access``), from the table's stored
state: the token is admitted before the store is read, and what the call asks is permitted
before the state is opened. ``GetRecord`` gives a finished game's record to any seat of the game
or its spectator. ``WatchGame`` opens a ``Watcher`` here (its refusals are the call's); the
worker's ``TableFeed`` streams to it (``service.calls.table_feed``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from time import perf_counter
from typing import Any

from engines.errors import MalformedActionError
from engines.prng import Rng
from engines.search import Budget
from ordo.v1 import common_pb2 as common
from ordo.v1 import engine_service_pb2 as api
from service.calls.decoding import (
    DecodedState,
    Decoder,
    bot_seed,
    parse,
    seat_of,
    state_and_table,
    viewer_seat,
)
from service.calls.encoding import Encoder
from service.calls.games import EVERY_EVENT, EventViewer, Game
from service.calls.replay import FORMAT_VERSION
from service.calls.table_feed import TableFeed
from service.calls.table_moves import Step, apply, apply_response, entry, replay
from service.errors import RequestError
from service.tables.errors import GameNotFinishedError, TableBusyError, TableNotFoundError
from service.tables.store import Entry, Table, TableStore, is_table_id
from service.tables.watchers import Watcher
from service.telemetry.observe import CallRecord
from service.trust.access import Asked
from service.trust.revision_fence import request_digest
from service.trust.seats import Seating, policy_of

MAX_ATTEMPTS = 16  # reads of a table for one move, when other moves keep landing meanwhile
#: The search budget of a bot's move (None: the game's default), as the servicer bounds it.
BudgetOf = Callable[[Game, int, int], Budget | None]


def table_id_of(text: str) -> str:
    """``text`` once known to have the form of a table id."""
    if not is_table_id(text):
        raise RequestError(
            "table_id is not a table id: send the table_id NewGame returned (22 letters, "
            "digits, - and _)",
            "TABLE_ID_INVALID",
        )
    return text


def only_table(table_id: str, state: Any) -> str:
    """The table id of a request that names a table, once it is known to carry no state of its
    own (``state``: what it carries, its bytes as ``split`` found them or its message)."""
    if type(state) is bytes or state.ByteSize():
        raise state_and_table()
    return table_id_of(table_id)


class Hosting:
    """The hosted tables of one servicer, in ``store``, with its ``decoder`` and ``encoder``;
    ``feed`` streams them to the worker's watchers."""

    def __init__(
        self,
        store: TableStore,
        decoder: Decoder,
        encoder: Encoder,
        budget: BudgetOf,
        feed: TableFeed,
    ) -> None:
        self.store = store
        self.decoder = decoder
        self.encoder = encoder
        self.budget = budget
        self.feed = feed

    # ----------------------------------------------------------------- the calls
    def host(self, game: Game, state: Any, seating: Seating, call: CallRecord) -> tuple[str, Any]:
        """Keep a new game of ``game`` on a table, once its bots have played the moves due
        now; its table id and its status."""
        initial = self.encoder.state(game, state, call, seating=seating)
        start = Step(0, state, game.engine.status(state))
        steps = self._bots(game, start, initial.data, initial.parts, seating, call)
        entries = [stored for _, stored, _ in steps]
        last_step, _, last_data = steps[-1] if steps else (start, None, initial.data)
        table_id = self.store.create(initial.data, last_data, entries, last_step.status.finished)
        return table_id, last_step.status

    def state_of(self, table_id: str, state: Any) -> bytes:
        """The latest state of the table a request names, which must carry no ``state`` of its
        own (``state``: what it carries, as ``split`` found it)."""
        return self.store.latest(only_table(table_id, state)).state

    def apply(self, request: api.ApplyActionRequest, call: CallRecord, token: str) -> bytes:
        """Apply a seat's action to a table, and its bots' moves after it (see the module); the
        serialized ``ApplyActionResponse``."""
        granted = self.decoder.admit(token)
        table_id = only_table(request.table_id, request.state)
        viewer = viewer_seat(request.viewer) if request.HasField("viewer") else EVERY_EVENT
        if request.HasField("bot"):
            asked = Asked("apply the actions", bot=request.bot, views_as=seat_of(viewer))
            self.decoder.open(self._envelope(table_id), call, asked, granted)
            raise RequestError(
                "a hosted table plays its bots by itself, as soon as they are to act: send "
                "your own seat's action",
                "TABLE_PLAYS_ITS_BOTS",
            )
        if not request.HasField("action"):
            raise MalformedActionError("the request has no move: set action")
        seat = call.seat = request.action.seat
        asked = Asked("apply the actions", acts_as=seat, views_as=seat_of(viewer))
        action_bytes = request.action.SerializeToString(deterministic=True)
        digest = request_digest(
            table_id.encode(), b"%d %d " % (seat, request.table_revision) + action_bytes
        )
        for _ in range(MAX_ATTEMPTS):
            table = self.store.latest(table_id, digest)
            given = self.decoder.state(table.state, call, asked, granted)
            events_for = self.decoder.events_for(given, viewer)
            if table.retried is not None:
                return self._again(table_id, table.retried, events_for, call)
            _, action = self.decoder.action(given.game, request.action, call)
            steps = self._move(given, table, seat, action, call)
            final = steps[-1]
            outcome = self.store.commit(
                table,
                final[2],
                [stored for _, stored, _ in steps],
                final[0].status.finished,
                digest,
            )
            if isinstance(outcome, tuple):  # the same request, sent twice at once
                return self._again(table_id, outcome, events_for, call)
            if outcome is not None:
                call.game_finished = final[0].status.finished
                return apply_response(
                    self.encoder, given.game, [s for s, _, _ in steps], events_for
                )
        raise TableBusyError

    def record(self, request: api.GetRecordRequest, call: CallRecord, token: str) -> Any:
        """The record of a table's finished game, for any seat of it or its spectator."""
        granted = self.decoder.admit(token)
        history = self.store.history(table_id_of(request.table_id))
        self.decoder.open(
            self.decoder.envelope(history.state), call, Asked("ask for the record"), granted
        )
        if not history.finished:
            raise GameNotFinishedError
        return api.GetRecordResponse(
            record=api.GameRecord(
                format_version=FORMAT_VERSION,
                initial_state=parse(common.GameState, history.initial),
                moves=[parse(api.RecordedMove, stored.move) for stored in history.entries],
                move_digests=b"".join(stored.digest for stored in history.entries),
                final_digest=hashlib.sha256(history.state).digest(),
            )
        )

    def watch(self, request: api.WatchGameRequest, call: CallRecord, token: str) -> Watcher:
        """A new watcher of a table, counted in the worker's (not yet fed: the door attaches
        its sink, then starts it)."""
        granted = self.decoder.admit(token)
        table = self.store.latest(table_id_of(request.table_id))
        envelope = self.decoder.envelope(table.state)
        if request.HasField("viewer"):
            viewer = viewer_seat(request.viewer)
            given = self.decoder.open(envelope, call, Asked("watch", views_as=viewer), granted)
        else:
            given = self.decoder.open(envelope, call, Asked("watch"), granted)
            viewer = given.holder
        if viewer is not None:
            given.game.engine.check_seat(given.state, viewer)
        call.seat = viewer
        after = request.after_revision if request.HasField("after_revision") else None
        if after is not None and after > table.revision:
            raise RequestError(
                f"after_revision is {after}; the table is at revision {table.revision}: send "
                "the last revision this table's stream gave you",
                "REVISION_AHEAD",
                after_revision=str(after),
                revision=str(table.revision),
            )
        return self.feed.open(request.table_id, viewer, after)

    # ----------------------------------------------------------------- moves
    def _envelope(self, table_id: str) -> Any:
        return self.decoder.envelope(self.store.latest(table_id).state)

    def _move(
        self, given: DecodedState, table: Table, seat: int, action: Any, call: CallRecord
    ) -> list[tuple[Step, Entry, bytes]]:
        """The moves one call makes on ``table``: ``seat``'s ``action``, then its bots'."""
        game, state = given.game, given.state
        step = apply(game, state, table.revision + 1, seat, action, call)
        encoded = self.encoder.state(game, step.state, call, state, given.parts, given.seating)
        moves = [(step, entry(game, seat, action, encoded.data), encoded.data)]
        moves += self._bots(game, step, encoded.data, encoded.parts, given.seating, call)
        return moves

    def _bots(
        self,
        game: Game,
        step: Step,
        data: bytes,
        parts: Any,
        seating: Seating,
        call: CallRecord,
    ) -> list[tuple[Step, Entry, bytes]]:
        """The moves the bots of ``seating`` make from ``step`` (whose state's bytes are
        ``data``), one after the other, until the game is over or only people are to act."""
        engine = game.engine
        bots = seating.bot_policies
        moves: list[tuple[Step, Entry, bytes]] = []
        budget = self.budget(game, 0, 0)
        for _ in range(engine.max_actions(step.state)):
            due = [seat for seat in step.status.seats_to_act if seat in bots]
            if step.status.finished or not due:
                break
            seat = due[0]
            rng = Rng(bot_seed(0, seat, data))
            start = perf_counter()
            try:
                action = engine.suggest(step.state, seat, policy_of(seating, seat, ""), rng, budget)
            finally:
                call.engine_seconds += perf_counter() - start
            before = step.state
            step = apply(game, before, step.revision + 1, seat, action, call)
            encoded = self.encoder.state(game, step.state, call, before, parts, seating)
            data, parts = encoded.data, encoded.parts
            moves.append((step, entry(game, seat, action, data), data))
        return moves

    def _again(
        self, table_id: str, made: tuple[int, int], viewer: EventViewer, call: CallRecord
    ) -> bytes:
        """The answer again of a request that moved the table on already (its moves made
        revisions ``made``), from the table's record."""
        first, last = made
        history = self.store.history(table_id, last)
        if len(history.entries) < last:
            raise TableNotFoundError
        game, steps = replay(self.decoder, history, first, call)
        return apply_response(self.encoder, game, steps[1:], viewer)
