"""The recorder: finished calls handed to the observers in batches, in order, within a delay."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence

from service.observe import CallRecord, Observer, Recorder
from tests.service.conftest import race

WAIT_SECONDS = 10.0


class Seen:
    """An observer that keeps every batch it was handed."""

    def __init__(self) -> None:
        self.batches: list[list[str]] = []
        self.changed = threading.Condition()

    def call_started(self, call: CallRecord) -> None:
        """Nothing at the start."""

    def calls_finished(self, calls: Sequence[CallRecord]) -> None:
        with self.changed:
            self.batches.append([call.request_id for call in calls])
            self.changed.notify_all()

    @property
    def calls(self) -> list[str]:
        return [request_id for batch in self.batches for request_id in batch]

    def wait_for(self, count: int) -> None:
        with self.changed:
            assert self.changed.wait_for(lambda: len(self.calls) >= count, WAIT_SECONDS)


class Failing:
    """An observer that fails on every batch."""

    def call_started(self, call: CallRecord) -> None:
        """Nothing at the start."""

    def calls_finished(self, calls: Sequence[CallRecord]) -> None:
        raise RuntimeError("broken")


def call(request_id: str, code: str = "OK") -> CallRecord:
    return CallRecord("ApplyAction", request_id=request_id, code=code)


def no_failure(observer: Observer, calls: Sequence[CallRecord], error: Exception) -> None:
    raise AssertionError(f"{type(observer).__name__} failed: {error!r}")


def test_without_a_delay_each_call_is_handed_over_at_once() -> None:
    seen = Seen()
    recorder = Recorder([seen], 0.0, no_failure)
    recorder.record(call("a"))
    recorder.record(call("b"))
    assert seen.batches == [["a"], ["b"]]


def test_a_full_batch_is_handed_over_at_once_and_whole() -> None:
    seen = Seen()
    recorder = Recorder([seen], 60.0, no_failure)
    ids = [str(index) for index in range(Recorder.BATCH_CALLS + 1)]
    for request_id in ids:
        recorder.record(call(request_id))
    assert seen.batches == [ids[:-1]]  # the last one waits for the next batch
    recorder.close()
    assert seen.batches == [ids[:-1], ids[-1:]]


def test_a_server_with_nothing_else_to_do_hands_over_at_once() -> None:
    """A call that finds the server idle goes at once, with those that waited for a batch."""
    busy = [True]
    seen = Seen()
    recorder = Recorder([seen], 60.0, no_failure, busy=lambda: busy[0])
    recorder.record(call("a"))
    recorder.record(call("b"))
    assert seen.batches == []
    busy[0] = False
    recorder.record(call("c"))
    recorder.record(call("d"))
    assert seen.batches == [["a", "b", "c"], ["d"]]
    recorder.close()


def test_a_server_side_failure_takes_the_calls_before_it_along() -> None:
    seen = Seen()
    recorder = Recorder([seen], 60.0, no_failure)
    recorder.record(call("a"))
    recorder.record(call("b", "INTERNAL"))
    assert seen.batches == [["a", "b"]]
    recorder.close()


def test_the_calls_waiting_are_handed_over_within_the_delay() -> None:
    seen = Seen()
    recorder = Recorder([seen], 0.02, no_failure)
    start = time.monotonic()
    recorder.record(call("a"))
    seen.wait_for(1)
    assert time.monotonic() - start < WAIT_SECONDS
    recorder.close()
    assert seen.batches == [["a"]]


def test_every_call_once_in_the_order_recorded_from_many_threads() -> None:
    """Batches reach the observers one at a time, in the order they were taken: each thread's
    calls arrive in the order it recorded them, none lost or repeated."""
    seen = Seen()
    recorder = Recorder([seen], 0.001, no_failure)
    per_thread = 500

    def work(thread: int) -> None:
        for index in range(per_thread):
            recorder.record(call(f"{thread}-{index}"))

    race(work, 8)
    recorder.close()
    assert len(seen.calls) == len(set(seen.calls)) == 8 * per_thread
    for thread in range(8):
        mine = [int(rid.split("-")[1]) for rid in seen.calls if rid.startswith(f"{thread}-")]
        assert mine == list(range(per_thread))


def test_a_failing_observer_stops_neither_the_others_nor_the_thread() -> None:
    seen = Seen()
    failures: list[tuple[str, int, str]] = []

    def failed(observer: Observer, calls: Sequence[CallRecord], error: Exception) -> None:
        failures.append((type(observer).__name__, len(calls), str(error)))

    recorder = Recorder([Failing(), seen], 0.01, failed)
    recorder.record(call("a"))
    seen.wait_for(1)
    recorder.record(call("b"))
    seen.wait_for(2)
    recorder.close()
    assert seen.calls == ["a", "b"]
    assert failures == [("Failing", 1, "broken")] * 2
