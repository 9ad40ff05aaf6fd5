"""What a worker keeps from one call to the next, and the bounds that keep its memory flat.

Every table is bounded in bytes, each entry charged an upper bound of what it holds: the states
(``service.calls.state_cache``), the encodings of the statuses and events the engines share
(``Encodings``), the actions decoded before (``KnownAction``, by the request bytes that carried
them) and the encoded audiences of events. A full table is dropped and filled again.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from service.calls.games import EVERY_EVENT, EventViewer
from service.calls.state_cache import DECODED_BYTES_PER_BYTE

# With the defaults a worker's tables hold at most 64 + 2 x 4 + 1 + 1 MiB, charged as upper bounds.
DEFAULT_STATE_CACHE_BYTES = 64 << 20  # states per worker (--state-cache-bytes)
ENCODING_BYTES = 4 << 20  # status and event encodings per table (new, asked for again)
ACTION_BYTES = 1 << 20  # decoded actions, by the request bytes that carried them
AUDIENCE_BYTES = 1 << 20  # the encoded audiences of events, by seat count and audience
KEPT_ACTION_BYTES = 64  # longer action bytes are decoded every time, never kept
# What a kept action, encoding or audience is charged beyond its bytes: the table's slot, the
# key and the decoded value (tracemalloc: a decoded action of any game takes under 600 bytes).
KEPT_OVERHEAD_BYTES = 1024
KEPT_ACTION_COST = KEPT_ACTION_BYTES + KEPT_OVERHEAD_BYTES  # the most a kept action is charged
MAX_SEATS = 10  # no game has more: an audience is at most this many seats
AUDIENCE_COST = 2 * MAX_SEATS + KEPT_OVERHEAD_BYTES  # the most a kept audience is charged


@dataclass(frozen=True, slots=True)
class KnownAction:
    """An action decoded before, kept by the bytes of the request that followed its state (the
    ``action`` and ``viewer`` fields): the same bytes decode to the same seat, action and viewer."""

    seat: int
    game: str
    action: Any
    viewer: EventViewer = EVERY_EVENT


def encoding_cost(encoding: bytes) -> int:
    """What a kept encoding is charged: its bytes, and the engine value it encodes (an event
    may carry a question's text, as its encoding does) bounded as a decoded state is."""
    return len(encoding) * (1 + DECODED_BYTES_PER_BYTE) + KEPT_OVERHEAD_BYTES


class Encodings:
    """Encodings of engine values, kept per object and context: new ones and those asked for
    again, each table at most ``max_bytes`` (see ``encoding_cost``) and dropped when full,
    which keeps the memory of a worker flat.

    Encoding is a pure function of an engine value (a frozen dataclass) and its context (the
    game, the seat count), so a kept encoding is the one protobuf would make again. Engines
    return the same objects for the values that recur (a status, a selection, a draw), so a
    value is looked up by identity: an entry holds its value, so its id is not reused while
    kept. Looking values up by equality would hash every new event an action makes (a turn
    with its cards), twice when it is new, to find an equal one now and then. Most values are
    asked for once, so an encoding moves to the table of those asked for again on its second
    use: the new ones, which fill their table call after call, never push those out.
    """

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self._again: dict[tuple[int, Any], tuple[Any, bytes]] = {}
        self._new: dict[tuple[int, Any], tuple[Any, bytes]] = {}
        self._bytes = {id(self._again): 0, id(self._new): 0}  # what each table is charged

    def get(self, value: Any, context: Any = None) -> bytes | None:
        """The encoding kept for ``value`` (this very object) in ``context``, or None."""
        key = (id(value), context)
        seen = self._again.get(key)
        if seen is None:
            seen = self._new.pop(key, None)
            if seen is None:
                return None
            self._bytes[id(self._new)] -= encoding_cost(seen[1])
            self._keep(self._again, key, seen)
        return seen[1] if seen[0] is value else None

    def put(self, value: Any, context: Any, encoding: bytes) -> None:
        """Keep ``encoding`` for ``value`` in ``context``."""
        self._keep(self._new, (id(value), context), (value, encoding))

    def _keep(
        self, table: dict[tuple[int, Any], tuple[Any, bytes]], key: Any, entry: tuple[Any, bytes]
    ) -> None:
        cost = encoding_cost(entry[1])
        if cost > self.max_bytes:
            return
        charged = self._bytes[id(table)] + cost
        if charged > self.max_bytes:
            table.clear()
            charged = cost
        table[key] = entry
        self._bytes[id(table)] = charged

    def __len__(self) -> int:
        return len(self._again) + len(self._new)
