"""A cache of the states a worker returned, keyed by their wire bytes, bounded in bytes.

A game server sends back the state it was given, unchanged, with the next action; the same
connection reaches the same worker. Such a state was encoded here from an engine state that the
rules produced, so decoding and validating it again would only find that engine state once more:
the cache returns it instead. It changes no answer — a state it does not hold, or a single byte
different, is decoded and validated as always — and it is per worker and bounded, so the service
stays stateless: any replica gives the same answers, only slower for states it has not seen.

The bound is in bytes, not entries: a state may be a few hundred bytes (6 nimmt!) or 33 KB (Fora
de Ordem with the longest custom questions), so a count of entries bounds nothing. Each entry is
charged ``state_cost`` of its key: the key itself, plus the engine state and its encoded parts,
which measure (tracemalloc, decoding states of every game at every stage afresh) at most
``DECODED_BYTES_PER_BYTE`` times the encoded size plus ``STATE_OVERHEAD_BYTES``: the largest
Fora de Ordem states take 3.3 times their size, a small state up to 4 KB of fixed costs
(objects' headers, small tuples). The charge is an upper bound: a state made by an action shares
most of its objects with the state before it.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from service.trust.seats import NO_SEATING, Seating

DECODED_BYTES_PER_BYTE = 4  # an engine state and its encoded parts, per byte of its encoding
STATE_OVERHEAD_BYTES = 8 * 1024  # and a fixed part: twice the largest one measured
ENTRY_BYTES = 200  # the cache's own entry: the table's slot, the tuple, the key's header


@dataclass(frozen=True, slots=True)
class KnownState:
    """A state this worker returned, as the cache keeps it under the bytes that went out."""

    game_id: str
    state: Any  # the engine state
    parts: Any = None  # its encoded parts, when its codec serializes states in parts
    seating: Seating = NO_SEATING  # the match id and bot seats beside it
    seal: bytes = b""  # its sealed payload (GameState.sealed); empty for a plain state
    clock: Any = None  # its game's clock (``engines.clock.GameClock``), None without one


def state_cost(key: bytes) -> int:
    """The bytes an entry keyed by ``key`` (a serialized state) is charged."""
    return len(key) * (1 + DECODED_BYTES_PER_BYTE) + STATE_OVERHEAD_BYTES + ENTRY_BYTES


class StateCache:
    """The most recently returned states that fit in ``max_bytes`` (see ``state_cost``), least
    recently used evicted first; 0 turns the cache off."""

    def __init__(self, max_bytes: int) -> None:
        self.max_bytes = max_bytes
        self.bytes = 0  # what the entries held now are charged
        self._states: OrderedDict[bytes, KnownState] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: bytes) -> KnownState | None:
        """The state that ``key`` encodes, or None."""
        with self._lock:
            found = self._states.get(key)
            if found is not None:
                self._states.move_to_end(key)
            return found

    def put(self, key: bytes, known: KnownState) -> None:
        """Remember that ``key`` is the encoding of ``known``."""
        cost = state_cost(key)
        if cost > self.max_bytes:
            return
        with self._lock:
            if key in self._states:
                self._states.move_to_end(key)
                return
            # A new key goes last: the most recent.
            self._states[key] = known
            self.bytes += cost
            while self.bytes > self.max_bytes:
                evicted, _ = self._states.popitem(last=False)
                self.bytes -= state_cost(evicted)

    def __len__(self) -> int:
        return len(self._states)
