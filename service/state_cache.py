"""A bounded cache of the states a worker returned, keyed by their wire bytes.

A game server sends back the state it was given, unchanged, with the next action; the same
connection reaches the same worker. Such a state was encoded here from an engine state that the
rules produced, so decoding and validating it again would only find that engine state once more:
the cache returns it instead. It changes no answer — a state it does not hold, or a single byte
different, is decoded and validated as always — and it is per worker and bounded, so the service
stays stateless: any replica gives the same answers, only slower for states it has not seen.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any


class StateCache:
    """The ``size`` most recently returned states, least recently used evicted first."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._states: OrderedDict[bytes, tuple[str, Any, Any]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: bytes) -> tuple[str, Any, Any] | None:
        """The game id, engine state and its encoded parts (see ``put``) of ``key``, or None."""
        with self._lock:
            found = self._states.get(key)
            if found is not None:
                self._states.move_to_end(key)
            return found

    def put(self, key: bytes, game_id: str, state: Any, parts: Any = None) -> None:
        """Remember that ``key`` is the encoding of ``state``, and the encoding of its parts
        when the codec serializes it in parts (``service.codecs.base.StateParts``)."""
        if not self.size:
            return
        with self._lock:
            if key in self._states:
                self._states.move_to_end(key)
                return
            self._states[key] = (game_id, state, parts)  # a new key goes last: the most recent
            if len(self._states) > self.size:
                self._states.popitem(last=False)

    def __len__(self) -> int:
        return len(self._states)
