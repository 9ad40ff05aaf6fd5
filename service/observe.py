"""What the server records about each call, for the access log and the metrics.

The handler wrapper in ``service.server`` creates one ``CallRecord`` per call; the servicer fills
in what only it knows (game, seat, engine time, the new state); observers read the finished
record. Observers never see the request or the state's hidden parts, only these fields.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass(slots=True)
class CallRecord:
    """One RPC as seen by the server."""

    method: str
    request_id: str = ""
    request_bytes: int = 0
    game: str = ""
    seat: int | None = None
    code: str = "OK"  # the grpc status code name, e.g. INVALID_ARGUMENT
    reason: str = ""
    started: float = field(default_factory=time.perf_counter)
    seconds: float = 0.0
    engine_seconds: float = 0.0
    state_message: Any = None  # the new state, when the call produced one
    game_started: bool = False
    game_finished: bool = False

    @contextmanager
    def engine_time(self) -> Iterator[None]:
        """Add the time spent inside the block to ``engine_seconds``."""
        start = time.perf_counter()
        try:
            yield
        finally:
            self.engine_seconds += time.perf_counter() - start


class Observer(Protocol):
    """Something that wants to know about every finished call."""

    def call_finished(self, call: CallRecord) -> None:
        """Record a finished call; must not raise."""
