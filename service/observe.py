"""What the server records about each call, for the access log and the metrics.

The handler wrapper in ``service.server`` creates one ``CallRecord`` per call and hands it to
every observer when the call starts (method and request id known), then, once the call has
finished and its response has left, to a ``Recorder`` that hands the finished calls to every
observer in batches. In between, the servicer fills in what only it knows (game, seat, engine
time, the size of the new state). A record holds no part of a request or a state, only these
fields, so an observer cannot leak hidden information (hands, decks, seeds) even by accident.
"""

from __future__ import annotations

import atexit
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol


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
    ended_ns: int = 0  # when the call ended, in nanoseconds since the epoch (``time.time_ns``)
    engine_seconds: float = 0.0
    state_bytes: int | None = None  # the size of the new state, when the call produced one
    game_started: bool = False
    game_finished: bool = False


class Observer(Protocol):
    """Something that wants to know about every call.

    The server calls ``call_started`` before the servicer, and ``calls_finished`` with calls
    that have finished, in the order they were recorded, once their responses have left (see
    ``Recorder``): the caller does not wait for that one, but a thread of the server does, so
    both must be quick. An exception they raise is logged and otherwise ignored: a broken
    observer never fails a call.
    """

    def call_started(self, call: CallRecord) -> None:
        """Record that a call has started (only ``method`` and ``request_id`` are set)."""

    def calls_finished(self, calls: Sequence[CallRecord]) -> None:
        """Record finished calls: their codes, reasons, latencies and what the servicer filled
        in."""


#: What the recorder does when an observer raises: told the observer, the calls and the error.
ObserverFailed = Callable[[Observer, Sequence[CallRecord], Exception], None]


class Recorder:
    """Hands finished calls to the observers, gathered while the server is busy: once
    ``BATCH_CALLS`` have gathered, at once for a call that failed on the server's side
    (INTERNAL), and otherwise at most ``delay_seconds`` after the first of them (a thread of its
    own hands over what waits). A call that finds the server with nothing else to do (``busy``
    says so) is handed over at once, with those that wait; with no delay, each call is handed
    over on its own at once.

    The observers' work per call is the same either way, but done for many calls in a row it
    finds the code and the data it needs in the core's caches, and takes each lock once: in a
    busy server a call left to the observers on its own cost about as much again. In a server
    with time to spare between calls, the work of one call fits in the gap before the next,
    where a batch would hold the next call up. The price is that the access lines and the counts
    of a call appear up to ``delay_seconds`` after it (``close`` hands over what is left).
    Batches reach the observers one at a time, in order.
    """

    BATCH_CALLS = 32

    def __init__(
        self,
        observers: Sequence[Observer],
        delay_seconds: float,
        failed: ObserverFailed,
        busy: Callable[[], bool] = lambda: True,
    ) -> None:
        self.observers = tuple(observers)
        self.delay_seconds = delay_seconds
        self._failed = failed
        self._busy = busy
        self._lock = threading.Lock()  # guards the calls waiting
        self._handing = threading.Lock()  # one batch at a time reaches the observers
        self._waiting: list[CallRecord] = []
        self._closed = threading.Event()
        self._flusher: threading.Thread | None = None

    def record(self, call: CallRecord) -> None:
        """Take a finished call; hand it over now or with the next batch."""
        if not self.delay_seconds:
            self._hand_over([call])
            return
        with self._lock:
            self._waiting.append(call)
            if len(self._waiting) < self.BATCH_CALLS and call.code != "INTERNAL" and self._busy():
                if self._flusher is None:
                    self._start_flusher()
                return
            batch = self._take()
        self._hand_over_taken(batch)

    def flush(self) -> None:
        """Hand over the calls waiting."""
        with self._lock:
            if not self._waiting:
                return
            batch = self._take()
        self._hand_over_taken(batch)

    def close(self) -> None:
        """Hand over what is left and stop the thread; later calls are handed over at once."""
        self.delay_seconds = 0.0
        self._closed.set()
        self.flush()

    def _take(self) -> list[CallRecord]:
        """The calls waiting, for ``_hand_over_taken``. The lock is held: the handing lock is
        taken before it is let go, so batches are handed over in the order they were taken."""
        self._handing.acquire()
        batch, self._waiting = self._waiting, []
        return batch

    def _hand_over_taken(self, batch: Sequence[CallRecord]) -> None:
        try:
            self._deliver(batch)
        finally:
            self._handing.release()

    def _hand_over(self, batch: Sequence[CallRecord]) -> None:
        with self._handing:
            self._deliver(batch)

    def _deliver(self, batch: Sequence[CallRecord]) -> None:
        """Give ``batch`` to every observer. The handing lock is held."""
        for observer in self.observers:
            try:
                observer.calls_finished(batch)
            except Exception as error:
                self._failed(observer, batch, error)

    def _start_flusher(self) -> None:
        """Start the thread that hands over the calls waiting. The lock is held."""
        self._flusher = threading.Thread(
            target=self._flush_until_closed, name="recorder", daemon=True
        )
        self._flusher.start()
        atexit.register(self.flush)  # what waits as the process exits

    def _flush_until_closed(self) -> None:
        while not self._closed.wait(self.delay_seconds):
            self.flush()
