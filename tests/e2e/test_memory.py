"""End to end: a worker's memory stays below its ceiling whatever states it is sent, and its
allocator is held to a few arenas.

The largest states the rules allow (Fora de Ordem dealt with the longest custom questions, in
four-byte characters: 33 KB each) fill the state cache, which is bounded in bytes: the worker's
RSS levels off below the ceiling the operations docs give. With the cache bounded by a count of
entries (4,096, as it once was) the same games took a worker past 400 MB.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from bench.soak import largest_fora_de_ordem_options, rss_mb, worker_pids
from engines.fora_de_ordem.rules import MAX_SEATS
from ordo import Client
from service.config import WORKER_RSS_CEILING_MB
from tests.e2e.server_process import running_server

pytestmark = pytest.mark.e2e

GAMES = 2_400  # states sent: at the cost of the old bound's 4,096 entries, ~250 MB of them
BATCHES = 8  # RSS is read after each batch
CALLERS = 4
LARGE_STATE_BYTES = 30_000
PLATEAU_MB = 15.0  # growth allowed over the second half once the cache is full
ARENAS = "MALLOC_ARENA_MAX"


def test_largest_states_leave_a_worker_below_its_memory_ceiling(tmp_path: Path) -> None:
    """Thousands of the largest legal states sent to one worker: its RSS levels off below the
    ceiling (it rises with the cache, then holds)."""
    with running_server(tmp_path, workers=1) as server:
        (worker,) = worker_pids(server.process.pid)
        samples = [rss_mb(worker)]
        with Client(server.target, timeout=60) as client:

            def deal(index: int) -> int:
                options = largest_fora_de_ordem_options(f"{index:x}")
                return client.new_game(options, MAX_SEATS, seed=index + 1).state.ByteSize()

            with ThreadPoolExecutor(CALLERS) as pool:
                per_batch = GAMES // BATCHES
                for batch in range(BATCHES):
                    start = batch * per_batch
                    sizes = list(pool.map(deal, range(start, start + per_batch)))
                    assert min(sizes) > LARGE_STATE_BYTES
                    samples.append(rss_mb(worker))
    shown = ", ".join(f"{mb:.0f}" for mb in samples if mb is not None)
    assert all(mb is not None for mb in samples), f"the worker died: RSS MB {shown}"
    highest = max(mb for mb in samples if mb is not None)
    assert highest < WORKER_RSS_CEILING_MB, f"RSS MB after each batch: {shown}"
    second_half = [mb for mb in samples[BATCHES // 2 :] if mb is not None]
    assert max(second_half) - min(second_half) < PLATEAU_MB, f"still rising: {shown}"


@pytest.mark.parametrize(("given", "expected"), [(None, "2"), ("4", "4")])
def test_workers_run_with_few_malloc_arenas(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, given: str | None, expected: str
) -> None:
    """The workers start with glibc's allocator held to two arenas (MALLOC_ARENA_MAX), which
    keeps the free memory they hold from creeping up; an operator's own setting is kept."""
    if given is None:
        monkeypatch.delenv(ARENAS, raising=False)
    else:
        monkeypatch.setenv(ARENAS, given)
    with running_server(tmp_path, workers=2) as server:
        workers = worker_pids(server.process.pid)
        environments = [Path(f"/proc/{pid}/environ").read_bytes().split(b"\0") for pid in workers]
    assert len(workers) == 2
    for environment in environments:
        assert f"{ARENAS}={expected}".encode() in environment
