"""A worker's feed of its watchers: every move of a watched table, as each watcher may see it.

One thread does it all, in the order things happen, so that no watcher is sent a revision twice
or skips one: it starts new watchers (the view now, or every move after the revision a watcher
saw), and plays each table's new moves as the table store publishes them
(``service.tables.watchers.NoticeReader``), sending each watcher its view, its status and the
events it may see (``service.calls.table_moves``). A table watched here has a cursor: its game,
its latest step and the last ``RECENT_STEPS`` steps, so that a watcher that comes back after a
few moves is sent them from memory; one further behind is sent them from the table's record,
played again from the initial state.

A notice that skips revisions (the reader reconnected, pub/sub having dropped what was published
meanwhile) has the feed read the moves it missed from the store; after a reconnection, or a
store that failed it, the feed reads every watched table's revision again. A table that is gone
ends its streams with ``TABLE_NOT_FOUND``; a finished game ends them normally once its last
move is sent; a server that stops ends them with ``SERVER_DRAINING``.
"""

from __future__ import annotations

import queue
import threading
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import structlog

from service.calls.decoding import Decoder
from service.calls.encoding import Encoder
from service.calls.games import Game
from service.calls.table_moves import Step, open_state, play, replay, watch_message
from service.tables.errors import (
    ServerDrainingError,
    TableNotFoundError,
    TableStoreUnavailableError,
)
from service.tables.store import Entry, Notice, TableStore
from service.tables.watchers import End, NoticeReader, Watcher, Watchers
from service.telemetry.observe import CallRecord

# Steps a cursor keeps, for the watchers that come back after a move or two; one further behind
# is sent its moves from the table's record. Few: a worker's thousand watched tables would keep
# millions of objects more for the collector to walk through at every full collection.
RECENT_STEPS = 4
RESYNC_SECONDS = 1.0  # how soon the feed reads the tables again after the store failed it

log = structlog.get_logger("ordo.server")


@dataclass
class Cursor:
    """A watched table as the feed has played it: its game and its latest steps."""

    game: Game
    step: Step
    recent: deque[Step] = field(default_factory=lambda: deque(maxlen=RECENT_STEPS))


@dataclass(frozen=True, slots=True)
class _Start:
    watcher: Watcher


@dataclass(frozen=True, slots=True)
class _Forget:
    table_id: str


_RESYNC = "resync"
_STOP = "stop"


class TableFeed:
    """The feed of one worker's watchers (see the module), reading the table store ``store``
    at ``url``, playing moves with the servicer's ``decoder`` and ``encoder``."""

    def __init__(
        self,
        store: TableStore,
        url: str,
        decoder: Decoder,
        encoder: Encoder,
        watchers: Watchers,
    ) -> None:
        self.store = store
        self.decoder = decoder
        self.encoder = encoder
        self.watchers = watchers
        self.draining = False
        self._inbox: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._cursors: dict[str, Cursor] = {}
        self._resync_due = threading.Event()
        self.reader = NoticeReader(url, self._inbox.put, lambda: self._inbox.put(_RESYNC))
        self._thread = threading.Thread(target=self._run, name="table-feed", daemon=True)

    def start(self) -> None:
        """Start listening to the store, and feeding."""
        self.reader.start()
        self._thread.start()

    def stop(self) -> None:
        """Stop listening and feeding (the watchers were ended by ``drain``)."""
        self.reader.stop()
        self._inbox.put(_STOP)
        self._thread.join()

    # ----------------------------------------------------------------- watchers
    def open(self, table_id: str, viewer: int | None, after: int | None) -> Watcher:
        """A new watcher, counted in (``start`` feeds it once its door has attached its sink);
        refused past the worker's bounds, or once the worker drains."""
        if self.draining:
            raise ServerDrainingError
        watcher = Watcher(table_id, viewer, after)
        self.watchers.add(watcher)
        return watcher

    def follow(self, watcher: Watcher) -> None:
        """Feed ``watcher``, whose sink is attached."""
        self._inbox.put(_Start(watcher))

    def close(self, watcher: Watcher) -> None:
        """``watcher``'s stream is over: count it out."""
        watcher.ended = True
        self.watchers.remove(watcher)
        self._inbox.put(_Forget(watcher.table_id))

    def drain(self) -> None:
        """End every stream (``SERVER_DRAINING``) and refuse new ones: the worker stops."""
        self.draining = True
        for table_id in self.watchers.tables():
            for watcher in self.watchers.of(table_id):
                watcher.send(End(ServerDrainingError()))

    # ----------------------------------------------------------------- the thread
    def _run(self) -> None:
        while True:
            item = self._inbox.get()
            if item == _STOP:
                return
            try:
                self._handle(item)
            except TableStoreUnavailableError:
                self._resync_later()
            except Exception as error:  # never lose the feed: log, and go on with the next
                log.exception("table feed failed", error=type(error).__name__)

    def _handle(self, item: Any) -> None:
        call = CallRecord(method="WatchGame")
        if isinstance(item, Notice):
            self._notice(item, call)
        elif isinstance(item, _Start):
            self._start(item.watcher, call)
        elif isinstance(item, _Forget):
            if not self.watchers.of(item.table_id):
                self._cursors.pop(item.table_id, None)
        elif item == _RESYNC:
            self._resync_due.clear()
            self._resync(call)

    def _resync_later(self) -> None:
        """Read the watched tables again shortly (the store failed the feed)."""
        if not self._resync_due.is_set():
            self._resync_due.set()
            timer = threading.Timer(RESYNC_SECONDS, self._inbox.put, (_RESYNC,))
            timer.daemon = True
            timer.start()

    def _start(self, watcher: Watcher, call: CallRecord) -> None:
        """Send a new watcher what its stream starts with: the view now, or every move after
        the revision it saw."""
        if watcher.ended:
            return
        after = watcher.after
        try:
            cursor = self._cursor(watcher.table_id, call)
            latest = cursor.step
            if after is None:
                steps = [Step(latest.revision, latest.state, latest.status)]
            elif after < latest.revision:
                steps = self._since(cursor, watcher.table_id, after, call)
            else:
                steps = []
        except (TableNotFoundError, TableStoreUnavailableError) as error:
            watcher.send(End(error))
            return
        for step in steps:
            watcher.send(watch_message(self.encoder, cursor.game, step, watcher.viewer))
        watcher.revision = latest.revision if after is None else max(after, latest.revision)
        watcher.started = True
        if latest.status.finished and watcher.revision >= latest.revision:
            watcher.send(End())

    def _since(self, cursor: Cursor, table_id: str, after: int, call: CallRecord) -> list[Step]:
        """The steps of a table after revision ``after``, up to its cursor's: from memory when
        the cursor still has them, else from the table's record."""
        kept = [step for step in cursor.recent if step.revision > after]
        if kept and kept[0].revision == after + 1:
            return kept
        history = self.store.history(table_id, cursor.step.revision)
        if len(history.entries) < cursor.step.revision:
            raise TableNotFoundError
        _, steps = replay(self.decoder, history, after + 1, call)
        return steps[1:]

    def _cursor(self, table_id: str, call: CallRecord) -> Cursor:
        """The cursor of a table, read from the store when the feed has none."""
        cursor = self._cursors.get(table_id)
        if cursor is None:
            table = self.store.latest(table_id)
            given = open_state(self.decoder, table.state, call)
            step = Step(table.revision, given.state, given.game.engine.status(given.state))
            cursor = self._cursors[table_id] = Cursor(given.game, step)
        return cursor

    def _notice(self, notice: Notice, call: CallRecord) -> None:
        """Play a table's new moves, and send them to its watchers."""
        cursor = self._cursors.get(notice.table_id)
        if cursor is None:
            return
        have = cursor.step.revision
        if notice.last <= have:
            return
        entries: Sequence[Entry] = notice.entries[max(0, have + 1 - notice.first) :]
        if notice.first > have + 1:
            missed = self.store.entries(notice.table_id, have + 1, notice.first - 1)
            entries = (*missed, *entries)
        self._advance(notice.table_id, cursor, entries, call)

    def _advance(
        self, table_id: str, cursor: Cursor, entries: Sequence[Entry], call: CallRecord
    ) -> None:
        """Play ``entries`` from the cursor's step, sending each step to the watchers that saw
        the one before it."""
        watchers = self.watchers.of(table_id)
        for stored in entries:
            before = cursor.step
            step = play(self.decoder, cursor.game, before.state, before.revision + 1, stored, call)
            cursor.step = step
            cursor.recent.append(step)
            messages: dict[int | None, bytes] = {}
            for watcher in watchers:
                if watcher.started and watcher.revision == before.revision:
                    message = messages.get(watcher.viewer)
                    if message is None:
                        message = watch_message(self.encoder, cursor.game, step, watcher.viewer)
                        messages[watcher.viewer] = message
                    watcher.send(message)
                    watcher.revision = step.revision
        if cursor.step.status.finished:
            for watcher in watchers:
                if watcher.started and watcher.revision == cursor.step.revision:
                    watcher.send(End())

    def _resync(self, call: CallRecord) -> None:
        """Read every watched table's revision again, and play the moves the feed missed."""
        tables = list(self._cursors)
        if not tables:
            return
        for table_id, revision in self.store.revisions(tables).items():
            cursor = self._cursors.get(table_id)
            if cursor is None:
                continue
            if revision is None:
                for watcher in self.watchers.of(table_id):
                    watcher.send(End(TableNotFoundError()))
                del self._cursors[table_id]
            elif revision > cursor.step.revision:
                missed = self.store.entries(table_id, cursor.step.revision + 1, revision)
                self._advance(table_id, cursor, missed, call)
