"""The engine benchmark's handler after other work: the memory gone through before each call."""

from __future__ import annotations

from typing import Any

from bench.engine import CACHE_LINE, after_other_work


class Watched(bytearray):
    """Memory that notes each write, between the calls it sees in ``log``."""

    def __init__(self, data: bytes, log: list[str]) -> None:
        super().__init__(data)
        self.log = log

    def __setitem__(self, index: Any, value: Any) -> None:
        assert isinstance(index, slice)
        assert index.step == CACHE_LINE
        self.log.append("work")
        super().__setitem__(index, value)


def test_the_memory_is_gone_through_before_each_call_and_left_as_it_was() -> None:
    log: list[str] = []
    memory = Watched(bytes(range(4 * CACHE_LINE)), log)
    before = bytes(memory)

    def handle(request: bytes) -> object:
        log.append(request.decode())
        return request

    micros = after_other_work(handle, [b"a", b"b", b"c"], memory, calls=5)
    assert log == ["work", "a", "work", "b", "work", "c", "work", "a", "work", "b"]
    assert micros >= 0
    assert memory == before
