"""A worker's watchers of hosted tables, and what it hears from the table store.

A ``Watcher`` is one ``WatchGame`` stream: the table and viewer it follows, the last revision it
was sent, and its sink (``send``), which hands each message to the door that streams it: a
queue that the gRPC door's stream thread reads, or the HTTP door's event loop. ``Watchers``
holds a worker's watchers to its bounds, in all (``max_watchers``) and on one table
(``max_table_watchers``), refusing one more with ``RESOURCE_EXHAUSTED`` before anything is
streamed. A watcher whose client does not read falls behind by ``MAX_PENDING`` messages at most:
then its stream ends (``WATCHER_TOO_SLOW``) and it watches again from its last revision.

``NoticeReader`` listens, on a connection of its own, to every table's channel
(``service.tables.store``) and hands each notice on; after a lost connection it says so
(``on_reconnect``), once connected again, so that the watchers' tables are read again for the
moves published meanwhile, which pub/sub does not keep.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import structlog

from engines.errors import RulesError
from service.tables.errors import TableLimitError
from service.tables.store import CHANNEL_PATTERN, Notice, parse_notice, redis_client

MAX_PENDING = 256  # messages a watcher may fall behind by before its stream ends
LISTEN_SECONDS = 1.0  # how long the reader waits for a message before it looks up again
RECONNECT_SECONDS = (0.05, 2.0)  # the reader's first and longest pause between connections
HEALTH_CHECK_SECONDS = 5  # a connection to the store silent this long is checked with a PING

log = structlog.get_logger("ordo.server")


@dataclass(frozen=True, slots=True)
class End:
    """The end of a stream: normal (the game is over) or with an ``error``."""

    error: RulesError | None = None


#: What a watcher's sink takes: a serialized ``WatchGameResponse``, or the end of the stream.
Item = bytes | End


def _nowhere(item: Item) -> None:
    """The sink of a watcher whose door has not attached its own yet."""


class Watcher:
    """One stream that follows ``table_id`` as ``viewer`` (a seat, or None for a spectator)
    from ``after`` (the revision it has seen; None for the view now), through the sink its door
    attaches."""

    def __init__(self, table_id: str, viewer: int | None, after: int | None) -> None:
        self.table_id = table_id
        self.viewer = viewer
        self.after = after
        self.revision: int | None = None  # the last revision sent; set by the feed alone
        self.started = False  # whether the feed has sent what the stream starts with
        self.ended = False
        self._sink: Callable[[Item], None] = _nowhere
        self._pending = 0
        self._lock = threading.Lock()

    def attach(self, sink: Callable[[Item], None]) -> None:
        """Send what follows to ``sink`` (the door's)."""
        self._sink = sink

    def send(self, item: Item) -> None:
        """Hand ``item`` to the door; a watcher too far behind is ended instead (see
        ``MAX_PENDING``). Nothing is sent after the end."""
        with self._lock:
            if self.ended:
                return
            if isinstance(item, End):
                self.ended = True
            elif self._pending >= MAX_PENDING:
                self.ended = True
                item = End(
                    TableLimitError(
                        f"this watcher fell {MAX_PENDING} messages behind: watch again from "
                        "the last revision seen",
                        "WATCHER_TOO_SLOW",
                    )
                )
            else:
                self._pending += 1
        try:
            self._sink(item)
        except RuntimeError:  # the door's event loop has stopped: nobody reads any more
            self.ended = True

    def taken(self) -> None:
        """The door took a message to stream it."""
        with self._lock:
            self._pending -= 1


class Watchers:
    """A worker's watchers, by table, within its bounds."""

    def __init__(self, max_watchers: int, max_table_watchers: int) -> None:
        self.max_watchers = max_watchers
        self.max_table_watchers = max_table_watchers
        self._by_table: dict[str, list[Watcher]] = {}
        self._count = 0
        self._lock = threading.Lock()

    def add(self, watcher: Watcher) -> None:
        """Count ``watcher`` in; raises ``TableLimitError`` past a bound."""
        with self._lock:
            if self._count >= self.max_watchers:
                raise TableLimitError(
                    f"this server streams to {self.max_watchers} watchers at most, and is "
                    "full: watch again shortly (another server may answer)",
                    "WORKER_WATCHER_LIMIT",
                    max_watchers=str(self.max_watchers),
                )
            table = self._by_table.setdefault(watcher.table_id, [])
            if len(table) >= self.max_table_watchers:
                raise TableLimitError(
                    f"this server streams one table to {self.max_table_watchers} watchers at most",
                    "TABLE_WATCHER_LIMIT",
                    max_table_watchers=str(self.max_table_watchers),
                )
            table.append(watcher)
            self._count += 1

    def remove(self, watcher: Watcher) -> None:
        """Count ``watcher`` out (once it has ended, or its client has gone)."""
        with self._lock:
            table = self._by_table.get(watcher.table_id, [])
            if watcher in table:
                table.remove(watcher)
                self._count -= 1
                if not table:
                    del self._by_table[watcher.table_id]

    def of(self, table_id: str) -> list[Watcher]:
        """The watchers of one table now."""
        with self._lock:
            return list(self._by_table.get(table_id, ()))

    def tables(self) -> list[str]:
        """The tables watched now."""
        with self._lock:
            return list(self._by_table)

    def count(self) -> int:
        """The number of watchers now."""
        return self._count


class NoticeReader:
    """A thread that hears every notice the table store at ``url`` publishes (see the
    module)."""

    def __init__(
        self,
        url: str,
        on_notice: Callable[[Notice], None],
        on_reconnect: Callable[[], None],
    ) -> None:
        self.url = url
        self._on_notice = on_notice
        self._on_reconnect = on_reconnect
        self._stop = threading.Event()
        self._subscribed = threading.Event()
        self._thread = threading.Thread(target=self._run, name="table-notices", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def wait_subscribed(self, timeout: float) -> bool:
        """Whether the reader listens (waiting up to ``timeout`` seconds for it)."""
        return self._subscribed.wait(timeout)

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        pause = RECONNECT_SECONDS[0]
        lost = False
        while not self._stop.is_set():
            client = redis_client(self.url, timeout=None)
            pubsub = client.pubsub(ignore_subscribe_messages=True)
            try:
                pubsub.psubscribe(CHANNEL_PATTERN)
                pubsub.health_check_interval = HEALTH_CHECK_SECONDS
                self._subscribed.set()
                pause = RECONNECT_SECONDS[0]
                if lost:
                    self._on_reconnect()
                lost = False
                self._listen(pubsub)
            except Exception as error:  # the store is gone, or its connection
                self._subscribed.clear()
                if not lost:
                    log.warning("table store notices lost", error=type(error).__name__)
                lost = True
            finally:
                _close(pubsub, client)
            self._stop.wait(pause)
            pause = min(pause * 2, RECONNECT_SECONDS[1])

    def _listen(self, pubsub: Any) -> None:
        while not self._stop.is_set():
            message = pubsub.get_message(timeout=LISTEN_SECONDS)
            if message is None or message.get("type") != "pmessage":
                continue
            notice = parse_notice(message["channel"], message["data"])
            if notice is not None:
                self._on_notice(notice)


def _close(pubsub: Any, client: Any) -> None:
    """Close a reader's connection, whatever state it is in."""
    for closing in (pubsub.close, client.close):
        with contextlib.suppress(Exception):  # a broken connection is being dropped anyway
            closing()
