"""The table store: hosted games kept in Redis or Valkey, moved on by compare-and-set.

A table is two keys and an entry in an index:

- ``ordo:table:ID``, a hash: ``revision`` (the number of moves), ``state`` (the latest sealed
  ``GameState``, as the server returned it), ``initial`` (the state the game was dealt with),
  ``finished``, ``created`` and ``updated`` (milliseconds since the epoch), ``bytes`` (what the
  table takes, charged against ``max_bytes``) and, for every call that moved it on, the digest of
  that call's request (``request:HEX``) with the revisions its moves made (``FIRST LAST``), so
  that the same request sent again is recognised and answered again, never applied twice;
- ``ordo:table:ID:moves``, a list: each move as the record holds it (``Entry``), in order, the
  n-th making revision n;
- ``ordo:tables``, a sorted set of every table by the time it expires, which bounds how many
  tables the store keeps (``max_tables``).

A move is read, applied by the servicer, and written back by one Lua script (``COMMIT``) that
compares the revision and sets the new state, the moves and the request's digest in one step,
or answers that the table moved on meanwhile (the servicer then reads it again and applies the
move to the newer state). The same script publishes the new moves on the table's channel
(``ordo:table-moves:ID``), so that a watcher learns of them in the order they were stored, on
any server (``service.tables.watchers``). Pub/sub keeps nothing: a watcher that missed a notice
(a server that lost its connection to the store) reads the moves it missed from the list.

Scripts rather than WATCH and MULTI: a move costs two round trips (read, commit) on any pooled
connection, where an optimistic transaction holds one connection for three; docs/performance.md
has the figures. Keys idle for ``idle_seconds`` expire (a finished table's after
``finished_seconds``); a store that cannot be reached refuses the call with ``UNAVAILABLE``,
which clients retry: nothing is applied unless the store took it.
"""

from __future__ import annotations

import re
import secrets
import struct
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from service.tables.errors import (
    TableLimitError,
    TableNotFoundError,
    TableStoreUnavailableError,
)

TABLE_PREFIX = b"ordo:table:"
MOVES_SUFFIX = b":moves"
INDEX_KEY = b"ordo:tables"
CHANNEL_PREFIX = b"ordo:table-moves:"
CHANNEL_PATTERN = CHANNEL_PREFIX + b"*"
TABLE_ID = re.compile(r"[A-Za-z0-9_-]{22}")  # 16 random bytes in unpadded base64url
TABLE_ID_BYTES = 16
DIGEST_BYTES = 4  # a move's digest in the record: the first bytes of its state's SHA-256
CONNECT_SECONDS = 1.0  # how long a call waits for a connection to the store
REPLY_SECONDS = 1.0  # and for its reply: a store slower than that is as good as unreachable
POOL_CONNECTIONS = 32  # connections to the store per worker, shared by its calls
FRAME = struct.Struct(">I")  # the length before each move of a notice
MILLISECONDS = 1000

# KEYS: the table's hash, its moves, the index. ARGV: the table id, now (ms), the time to live
# (ms), the most tables, the initial state, the latest state, the revision, finished (0/1), the
# bytes the table takes, then its moves. Returns 1 once made, 0 when the store is full.
CREATE = """
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', ARGV[2])
if redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[4]) then return 0 end
redis.call('HSET', KEYS[1], 'revision', ARGV[7], 'state', ARGV[6], 'initial', ARGV[5],
  'finished', ARGV[8], 'created', ARGV[2], 'updated', ARGV[2], 'bytes', ARGV[9])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
if #ARGV > 9 then
  redis.call('RPUSH', KEYS[2], unpack(ARGV, 10))
  redis.call('PEXPIRE', KEYS[2], ARGV[3])
end
redis.call('ZADD', KEYS[3], tonumber(ARGV[2]) + tonumber(ARGV[3]), ARGV[1])
return 1
"""
# KEYS: the table's hash, its moves, the index. ARGV: the revision read, the new revision, the
# new state, finished (0/1), the request's field, now (ms), the time to live (ms), the most bytes,
# the table id, the channel, the notice, then the new moves. Returns {1} once stored, {0} for a
# table that is gone, {2} when the table moved on from the revision read, {3, 'FIRST LAST'} when
# this request moved it on already, {4} when the table would take more than the most bytes. A
# request's digest is charged its field's length and 24 bytes for its revisions.
COMMIT = """
local current = redis.call('HGET', KEYS[1], 'revision')
if not current then return {0} end
local seen = redis.call('HGET', KEYS[1], ARGV[5])
if seen then return {3, seen} end
if current ~= ARGV[1] then return {2} end
local size = tonumber(redis.call('HGET', KEYS[1], 'bytes'))
  - redis.call('HSTRLEN', KEYS[1], 'state') + #ARGV[3] + #ARGV[5] + 24
for i = 12, #ARGV do size = size + #ARGV[i] end
if size > tonumber(ARGV[8]) then return {4} end
redis.call('RPUSH', KEYS[2], unpack(ARGV, 12))
redis.call('HSET', KEYS[1], 'revision', ARGV[2], 'state', ARGV[3], 'finished', ARGV[4],
  'updated', ARGV[6], 'bytes', size, ARGV[5], (tonumber(ARGV[1]) + 1) .. ' ' .. ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[7])
redis.call('PEXPIRE', KEYS[2], ARGV[7])
redis.call('ZADD', KEYS[3], tonumber(ARGV[6]) + tonumber(ARGV[7]), ARGV[9])
redis.call('PUBLISH', ARGV[10], ARGV[11])
return {1}
"""
STORED, GONE, MOVED_ON, RETRIED, TOO_LARGE = 1, 0, 2, 3, 4


@dataclass(frozen=True, slots=True)
class Entry:
    """One move of a table as the store keeps it: the first bytes of the digest of the state it
    led to, and the ``RecordedMove`` as the record holds it (serialized)."""

    digest: bytes
    move: bytes

    def data(self) -> bytes:
        """The entry as stored."""
        return self.digest + self.move

    @classmethod
    def of(cls, data: bytes) -> Entry:
        """The entry stored as ``data``."""
        return cls(data[:DIGEST_BYTES], data[DIGEST_BYTES:])


@dataclass(frozen=True, slots=True)
class Table:
    """A table as read: its revision, its latest state, whether its game is over and, when a
    request's digest was asked about and had moved the table on, the revisions its moves made."""

    table_id: str
    revision: int
    state: bytes
    finished: bool
    retried: tuple[int, int] | None = None


@dataclass(frozen=True, slots=True)
class History:
    """A table's game as a record holds it: its initial state, its moves and its latest state."""

    initial: bytes
    entries: tuple[Entry, ...]
    state: bytes
    finished: bool


@dataclass(frozen=True, slots=True)
class Notice:
    """New moves of a table, as published: the revision the first one made, and the moves."""

    table_id: str
    first: int
    entries: tuple[Entry, ...]

    @property
    def last(self) -> int:
        """The revision the last move made."""
        return self.first + len(self.entries) - 1


def notice_data(first: int, entries: Sequence[Entry]) -> bytes:
    """A notice's message: the first revision, a space, then each move after its length."""
    framed = b"".join(FRAME.pack(len(data)) + data for data in (e.data() for e in entries))
    return b"%d " % first + framed


def parse_notice(channel: bytes, message: bytes) -> Notice | None:
    """The notice published as ``message`` on ``channel``; None for anything else."""
    if not channel.startswith(CHANNEL_PREFIX):
        return None
    head, _, rest = message.partition(b" ")
    if not head.isdigit():
        return None
    entries = []
    at = 0
    while at + FRAME.size <= len(rest):
        (size,) = FRAME.unpack_from(rest, at)
        at += FRAME.size
        entries.append(Entry.of(rest[at : at + size]))
        at += size
    table_id = channel[len(CHANNEL_PREFIX) :].decode("ascii", "replace")
    return Notice(table_id, int(head), tuple(entries))


def new_table_id() -> str:
    """A new table's id: 16 random bytes, which nobody guesses."""
    return secrets.token_urlsafe(TABLE_ID_BYTES)


def is_table_id(text: str) -> bool:
    """Whether ``text`` has the form of a table id."""
    return TABLE_ID.fullmatch(text) is not None


def redis_client(url: str, *, timeout: float | None = REPLY_SECONDS) -> Any:
    """A client of the Redis or Valkey at ``url`` that fails at once when the store does not
    answer: no retries of its own (the callers retry UNAVAILABLE with their backoff). Its calls
    share ``POOL_CONNECTIONS`` connections, a call waiting up to ``CONNECT_SECONDS`` for one:
    a burst of calls (hundreds of watchers coming back at once) waits its turn, where
    redis-py's default pool would refuse the calls past its hundredth connection."""
    import redis  # noqa: PLC0415 - only a server with a store needs it
    from redis.backoff import NoBackoff  # noqa: PLC0415
    from redis.retry import Retry  # noqa: PLC0415

    pool = redis.BlockingConnectionPool.from_url(
        url,
        max_connections=POOL_CONNECTIONS,
        timeout=CONNECT_SECONDS,
        socket_connect_timeout=CONNECT_SECONDS,
        socket_timeout=timeout,
        retry=Retry(NoBackoff(), 0),
    )
    return redis.Redis(connection_pool=pool)


class TableStore:
    """Hosted tables in the Redis or Valkey at ``url`` (see the module)."""

    def __init__(
        self,
        url: str,
        *,
        idle_seconds: float,
        finished_seconds: float,
        max_tables: int,
        max_bytes: int,
    ) -> None:
        import redis  # noqa: PLC0415

        self.url = url
        self.idle_ms = max(1, round(idle_seconds * MILLISECONDS))
        self.finished_ms = max(1, round(finished_seconds * MILLISECONDS))
        self.max_tables = max_tables
        self.max_bytes = max_bytes
        self.errors: tuple[type[Exception], ...] = (redis.RedisError, OSError)
        self._client = redis_client(url)
        self._create = self._client.register_script(CREATE)
        self._commit = self._client.register_script(COMMIT)

    def create(self, initial: bytes, state: bytes, entries: Sequence[Entry], finished: bool) -> str:
        """Keep a new table: its ``initial`` state, the ``entries`` its bots moved at once and
        its latest ``state``; its id. Raises ``TableLimitError`` when the store is full."""
        table_id = new_table_id()
        data = [entry.data() for entry in entries]
        size = len(initial) + len(state) + sum(map(len, data))
        if size > self.max_bytes:
            raise self._too_large()
        now = _now_ms()
        made = self._call(
            self._create,
            keys=self._keys(table_id),
            args=[
                table_id,
                now,
                self.finished_ms if finished else self.idle_ms,
                self.max_tables,
                initial,
                state,
                len(data),
                int(finished),
                size,
                *data,
            ],
        )
        if not made:
            raise TableLimitError(
                f"the table store keeps {self.max_tables} tables at most, and is full: try "
                "again once some games are over",
                "STORE_TABLE_LIMIT",
                max_tables=str(self.max_tables),
            )
        return table_id

    def latest(self, table_id: str, digest: str = "") -> Table:
        """The table ``table_id`` now, and whether the request of ``digest`` moved it on
        already. Raises ``TableNotFoundError`` or ``TableStoreUnavailableError``."""
        fields = [b"revision", b"state", b"finished"]
        if digest:
            fields.append(_request_field(digest))
        values = self._call(self._client.hmget, _table_key(table_id), fields)
        revision, state, finished = values[:3]
        if revision is None:
            raise TableNotFoundError
        retried = None
        if digest and values[3] is not None:
            first, last = values[3].split()
            retried = (int(first), int(last))
        return Table(table_id, int(revision), state, finished == b"1", retried)

    def commit(
        self,
        table: Table,
        state: bytes,
        entries: Sequence[Entry],
        finished: bool,
        digest: str,
    ) -> int | tuple[int, int] | None:
        """Move ``table`` on by ``entries`` to ``state``, by the request of ``digest``, if it
        is still at the revision it was read at: returns the new revision; None when it moved on
        meanwhile (read it again); the revisions made by this very request when it had moved
        the table on already. Raises ``TableNotFoundError``, ``TableLimitError`` (its bytes),
        ``TableStoreUnavailableError``."""
        data = [entry.data() for entry in entries]
        revision = table.revision + len(data)
        notice = notice_data(table.revision + 1, entries)
        now = _now_ms()
        result = self._call(
            self._commit,
            keys=self._keys(table.table_id),
            args=[
                table.revision,
                revision,
                state,
                int(finished),
                _request_field(digest),
                now,
                self.finished_ms if finished else self.idle_ms,
                self.max_bytes,
                table.table_id,
                CHANNEL_PREFIX + table.table_id.encode(),
                notice,
                *data,
            ],
        )
        outcome = int(result[0])
        if outcome == STORED:
            return revision
        if outcome == MOVED_ON:
            return None
        if outcome == RETRIED:
            first, last = result[1].split()
            return int(first), int(last)
        if outcome == TOO_LARGE:
            raise self._too_large()
        raise TableNotFoundError

    def history(self, table_id: str, last: int | None = None) -> History:
        """The table's initial state, its moves up to revision ``last`` (every move when None)
        and its latest state, read at once."""
        key = _table_key(table_id)
        with self._client.pipeline(transaction=True) as pipe:
            pipe.hmget(key, [b"initial", b"state", b"finished"])
            pipe.lrange(key + MOVES_SUFFIX, 0, -1 if last is None else last - 1)
            found, moves = self._call(pipe.execute)
        initial, state, finished = found
        if initial is None:
            raise TableNotFoundError
        entries = tuple(Entry.of(data) for data in moves)
        return History(initial, entries, state, finished == b"1")

    def entries(self, table_id: str, first: int, last: int) -> tuple[Entry, ...]:
        """The moves that made revisions ``first`` to ``last`` (inclusive)."""
        key = _table_key(table_id) + MOVES_SUFFIX
        found = self._call(self._client.lrange, key, first - 1, last - 1)
        return tuple(Entry.of(data) for data in found)

    def revisions(self, table_ids: Sequence[str]) -> dict[str, int | None]:
        """The revision of each table (None for one that is gone)."""
        with self._client.pipeline(transaction=False) as pipe:
            for table_id in table_ids:
                pipe.hget(_table_key(table_id), b"revision")
            found = self._call(pipe.execute)
        return {
            table_id: None if value is None else int(value)
            for table_id, value in zip(table_ids, found, strict=True)
        }

    def close(self) -> None:
        """Close the connections to the store."""
        self._client.close()

    def _keys(self, table_id: str) -> list[bytes]:
        key = _table_key(table_id)
        return [key, key + MOVES_SUFFIX, INDEX_KEY]

    def _call(self, function: Any, *args: Any, **kwargs: Any) -> Any:
        """``function(*args, **kwargs)`` on the store; a store that does not answer raises
        ``TableStoreUnavailableError``."""
        try:
            return function(*args, **kwargs)
        except self.errors:
            raise TableStoreUnavailableError from None

    def _too_large(self) -> TableLimitError:
        return TableLimitError(
            f"a hosted table takes at most {self.max_bytes} bytes in the store, and this move "
            "would take it past them",
            "TABLE_BYTE_LIMIT",
            max_bytes=str(self.max_bytes),
        )


def _table_key(table_id: str) -> bytes:
    return TABLE_PREFIX + table_id.encode()


def _request_field(digest: str) -> bytes:
    return b"request:" + digest.encode()


def _now_ms() -> int:
    return int(time.time() * MILLISECONDS)
