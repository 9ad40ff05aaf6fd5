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

A table with a time control keeps its clock in its state, stamped by the server's clock on every
move. ``ClaimTimeout`` on a table (``claim``) plays the move of a seat whose time ran out, as on a
state, and stores it as a timeout; the feed of a worker that watches the table claims by itself
when a seat's time runs out (``claim_due``). A claim's digest is its table, seat and the revision
it was due at: two replicas that claim the same timeout at once send the same request, which the
table's compare-and-set takes once and answers the other from the record.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from time import perf_counter
from typing import Any

from engines import clock as clocks
from engines.errors import MalformedActionError
from engines.prng import Rng
from engines.search import Budget
from ordo.v1 import common_pb2 as common
from ordo.v1 import engine_service_pb2 as api
from service.calls.clocks import (
    SYSTEM_CLOCK,
    Clock,
    no_time_control,
    not_due,
)
from service.calls.decoding import (
    DecodedState,
    Decoder,
    bot_seed,
    parse,
    seat_of,
    state_and_table,
    viewer_seat,
)
from service.calls.encoding import Encoder, encode_status
from service.calls.games import EVERY_EVENT, EventViewer, Game
from service.calls.replay import FORMAT_VERSION
from service.calls.table_feed import TableFeed
from service.calls.table_moves import (
    FOLLOW,
    Step,
    apply,
    apply_response,
    claim_response,
    entry,
    replay,
)
from service.config import DEFAULT_CLOCK_TOLERANCE_MS
from service.errors import RequestError, TimeoutNotDueError
from service.tables.errors import GameNotFinishedError, TableBusyError, TableNotFoundError
from service.tables.store import Entry, Table, TableStore, is_table_id
from service.tables.watchers import Watcher
from service.telemetry.observe import CallRecord
from service.trust.access import Asked
from service.trust.revision_fence import request_digest
from service.trust.seat_tokens import SeatToken
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
    ``feed`` streams them to the worker's watchers, and claims their timeouts here. Tables with
    a time control read the server's ``clock`` (a timeout due ``tolerance_ms`` after a seat's
    time is up)."""

    def __init__(
        self,
        store: TableStore,
        decoder: Decoder,
        encoder: Encoder,
        budget: BudgetOf,
        feed: TableFeed,
        clock: Clock = SYSTEM_CLOCK,
        tolerance_ms: int = DEFAULT_CLOCK_TOLERANCE_MS,
    ) -> None:
        self.store = store
        self.decoder = decoder
        self.encoder = encoder
        self.budget = budget
        self.feed = feed
        self.clock = clock
        self.tolerance_ms = tolerance_ms
        feed.claim = self.claim_due

    # ----------------------------------------------------------------- the calls
    def host(
        self,
        game: Game,
        state: Any,
        seating: Seating,
        call: CallRecord,
        clock: clocks.GameClock | None = None,
    ) -> tuple[str, Any]:
        """Keep a new game of ``game`` (with its ``clock``, if any) on a table, once its bots
        have played the moves due now; its table id and its status."""
        initial = self.encoder.state(game, state, call, seating=seating, clock=clock)
        start = Step(0, state, game.engine.status(state), clock=clock)
        now = self.clock.now_ms() if clock is not None else 0
        steps = self._bots(game, start, initial.data, initial.parts, seating, call, now)
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
            steps = self._move(given, table, seat, action, call, self._now(given))
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

    def claim(
        self, request: api.ClaimTimeoutRequest, call: CallRecord, token: str
    ) -> api.ClaimTimeoutResponse:
        """A timeout claimed on a table by one of its seats or its spectator (see the module)."""
        granted = self.decoder.admit(token)
        table_id = only_table(request.table_id, request.state)
        viewer = viewer_seat(request.viewer) if request.HasField("viewer") else EVERY_EVENT
        asked = Asked("claim a timeout", views_as=seat_of(viewer))
        return self._claim(table_id, request.seat, viewer, asked, granted, call)

    def claim_due(self, table_id: str, seat: int, call: CallRecord) -> None:
        """A timeout the server claims by itself on a table it watches: none when the table
        moved on meanwhile and the seat's time is no longer up."""
        try:
            self._claim(table_id, seat, EVERY_EVENT, FOLLOW, None, call)
        except TimeoutNotDueError:
            return

    def _claim(
        self,
        table_id: str,
        seat: int,
        viewer: EventViewer,
        asked: Asked,
        granted: SeatToken | None,
        call: CallRecord,
    ) -> api.ClaimTimeoutResponse:
        """Claim ``seat``'s timeout on a table: its bot's move stored as a timeout, and the
        bots' moves after it; the table as it is when the seat is not to act."""
        call.seat = seat
        for _ in range(MAX_ATTEMPTS):
            table = self.store.latest(table_id)
            given = self.decoder.state(table.state, call, asked, granted)
            events_for = self.decoder.events_for(given, viewer)
            game, clock = given.game, given.clock
            if clock is None:
                raise no_time_control()
            game.engine.check_seat(given.state, seat)
            status = game.engine.status(given.state)
            if seat not in status.seats_to_act:  # it moved first: the table as it is
                return api.ClaimTimeoutResponse(
                    status=encode_status(status), table_revision=table.revision
                )
            now = self.clock.now_ms()
            left = clocks.time_until_due_ms(clock, seat, now, self.tolerance_ms)
            if left:
                raise not_due(seat, left)
            rng = Rng(bot_seed(0, seat, table.state))
            policy = policy_of(given.seating, seat, "")
            start = perf_counter()
            try:
                budget = self.budget(game, 0, 0)
                action = game.engine.suggest(given.state, seat, policy, rng, budget)
            finally:
                call.engine_seconds += perf_counter() - start
            steps = self._move(given, table, seat, action, call, now, timed_out=True)
            final = steps[-1]
            digest = request_digest(table_id.encode(), b"timeout %d %d" % (seat, table.revision))
            entries = [stored for _, stored, _ in steps]
            outcome = self.store.commit(table, final[2], entries, final[0].status.finished, digest)
            if isinstance(outcome, tuple):  # the same timeout, claimed at once elsewhere
                _, made = self._made(table_id, outcome, call)
                return claim_response(self.encoder, game, made, events_for)
            if outcome is not None:
                call.game_finished = final[0].status.finished
                return claim_response(
                    self.encoder, game, [step for step, _, _ in steps], events_for
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

    def _now(self, given: DecodedState) -> int:
        """The server's time for a move on the table of ``given`` (0 without a clock)."""
        return 0 if given.clock is None else self.clock.now_ms()

    def _move(
        self,
        given: DecodedState,
        table: Table,
        seat: int,
        action: Any,
        call: CallRecord,
        now: int,
        timed_out: bool = False,
    ) -> list[tuple[Step, Entry, bytes]]:
        """The moves one call makes on ``table`` at the server's time ``now``: ``seat``'s
        ``action`` (played for it when ``timed_out``), then its bots'."""
        game, state = given.game, given.state
        before = Step(table.revision, state, game.engine.status(state), clock=given.clock)
        step = apply(game, before, seat, action, call, now, timed_out)
        encoded = self.encoder.state(
            game, step.state, call, state, given.parts, given.seating, step.clock
        )
        moves = [(step, entry(game, step, action, encoded.data), encoded.data)]
        moves += self._bots(game, step, encoded.data, encoded.parts, given.seating, call, now)
        return moves

    def _bots(
        self,
        game: Game,
        step: Step,
        data: bytes,
        parts: Any,
        seating: Seating,
        call: CallRecord,
        now: int = 0,
    ) -> list[tuple[Step, Entry, bytes]]:
        """The moves the bots of ``seating`` make from ``step`` (whose state's bytes are
        ``data``), one after the other at the server's time ``now``, until the game is over or
        only people are to act."""
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
            before = step
            step = apply(game, before, seat, action, call, now)
            encoded = self.encoder.state(
                game, step.state, call, before.state, parts, seating, step.clock
            )
            data, parts = encoded.data, encoded.parts
            moves.append((step, entry(game, step, action, data), data))
        return moves

    def _again(
        self, table_id: str, made: tuple[int, int], viewer: EventViewer, call: CallRecord
    ) -> bytes:
        """The answer again of a request that moved the table on already (its moves made
        revisions ``made``), from the table's record."""
        game, steps = self._made(table_id, made, call)
        return apply_response(self.encoder, game, steps, viewer)

    def _made(
        self, table_id: str, made: tuple[int, int], call: CallRecord
    ) -> tuple[Game, list[Step]]:
        """The game of a table and the steps a request made (revisions ``made``), played again
        from the table's record."""
        first, last = made
        history = self.store.history(table_id, last)
        if len(history.entries) < last:
            raise TableNotFoundError
        game, steps = replay(self.decoder, history, first, call)
        return game, steps[1:]
