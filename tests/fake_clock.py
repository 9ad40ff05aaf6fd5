"""A server clock the tests move by hand: games with a time control are played without waiting."""

from __future__ import annotations

import threading

START_MS = 1_800_000_000_000  # a fixed instant (in 2027), so that every run stamps the same times


class FakeClock:
    """A clock that stands still until a test moves it (``advance``); safe across threads."""

    def __init__(self, now_ms: int = START_MS) -> None:
        self._now_ms = now_ms
        self._lock = threading.Lock()

    def now_ms(self) -> int:
        """The time now, as the test set it."""
        with self._lock:
            return self._now_ms

    def advance(self, ms: int) -> None:
        """Move the clock on by ``ms`` milliseconds."""
        with self._lock:
            self._now_ms += ms
