"""What the server records about each call, for the access log and the metrics.

The call path both doors share (``service.calls.call_path``) creates one ``CallRecord`` per call and
hands it to every observer twice: when the call starts (method and request id known) and when it has
finished, after its response has left. In between, the servicer fills in what only it knows
(game, seat, engine time, the size of the new state). A record holds no part of a request or
a state, only these fields, so an observer cannot leak hidden information (hands, decks,
seeds) even by accident.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol


class Waiting(Protocol):
    """The caller of a call, as its door sees it (gRPC's ``ServicerContext`` is one)."""

    def is_active(self) -> bool:
        """Whether the caller still waits for the answer."""

    def time_remaining(self) -> float | None:
        """Seconds until the caller's deadline (None, or a very large number, without one)."""


@dataclass(slots=True)
class CallRecord:
    """One RPC as seen by the server."""

    method: str
    request_id: str = ""
    protocol: str = "grpc"  # grpc (the gRPC door), or connect, grpc-web, grpc-http (the HTTP door)
    request_bytes: int = 0
    game: str = ""
    seat: int | None = None
    code: str = "OK"  # the grpc status code name, e.g. INVALID_ARGUMENT
    reason: str = ""
    started: float = field(default_factory=time.perf_counter)
    seconds: float = 0.0
    engine_seconds: float = 0.0
    state_bytes: int | None = None  # the size of the new state, when the call produced one
    game_started: bool = False
    game_finished: bool = False
    # The caller, as the door sees it: the servicer stops a call's long work once nobody waits.
    waiting: Waiting | None = field(default=None, repr=False, compare=False)


class Observer(Protocol):
    """Something that wants to know about every call.

    The server calls ``call_started`` before the servicer, and ``call_finished`` on the call's
    thread once the response has left (see ``service.process.pool.CallThreadPool``): the caller does
    not wait for it, but the thread does, so both must be quick. An exception they raise is
    logged and otherwise ignored: a broken observer never fails a call.
    """

    def call_started(self, call: CallRecord) -> None:
        """Record that a call has started (only ``method`` and ``request_id`` are set)."""

    def call_finished(self, call: CallRecord) -> None:
        """Record a finished call: its code, reason, latency and what the servicer filled in."""


#: Leaves ``work(call)`` to run after the current call's response has left (see
#: ``service.process.pool``); False when it cannot, and the caller runs it at once.
After = Callable[[Callable[[CallRecord], None], CallRecord], bool]
