"""``python -m bench.memory``: where a worker's memory goes under steady load, measured inside it.

A worker's RSS swings by megabytes from minute to minute under the soak's load (caches fill and
are cleared, large states come and go, the allocators keep freed memory), so a slope of a tenth
of a megabyte a minute cannot be told from noise by reading it. This runs one worker in this
process (``create_server`` with the observers of a real worker: access log and metrics) on a
free loopback port and drives it through real gRPC with the soak's callers (``bench.soak``) in
other processes. Every ``--interval`` seconds, after a full collection, it prints:

- the memory Python has allocated and tracemalloc's own (``tracemalloc``, ``--frames`` deep);
- the objects the collector tracks, and the types whose count changed most;
- the collections of each generation since the line before and the unreachable objects they
  found (objects in reference cycles, which only a collection frees: between two collections of
  the oldest generation they are live objects too);
- the RSS and the anonymous memory (``/proc/self/smaps_rollup``), and what the anonymous
  memory is made of: the arenas of Python's small-object allocator and the blocks used in them
  (``sys._debugmallocstats``; tracemalloc hides them, so ``--frames 0``), and what glibc's
  allocator has handed out (large Python objects, gRPC's core, protobuf) and holds free
  (``mallinfo2``);
- the size of every table the worker keeps (the caches of states, encodings, actions and
  audiences, the metrics' and access log's batches, every ``lru_cache`` of the service).

At the end, the lines of code whose allocations grew most between the end of the warm-up and
the end of the run. Memory that grows with the calls served shows as a figure that grows line
after line; a bounded table as a size that stops growing. ``--trim`` gives glibc's free memory
back after each line (``malloc_trim``), to tell memory in use from memory kept. Nothing is
asserted. tracemalloc slows the worker several times over: its figures are of memory, not speed.
"""

from __future__ import annotations

import argparse
import ctypes
import ctypes.util
import gc
import multiprocessing
import os
import queue
import sys
import tempfile
import time
import tracemalloc
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.soak import HANDOVER_SECONDS, READY_SECONDS, Tally, caller_process
from service.calls.servicer import GameEngineServicer
from service.config import Settings
from service.process.pool import CallThreadPool
from service.process.worker import create_server, worker_observers
from service.telemetry import logs

MB = 1e6
KIB = 1024
SMAPS_ANONYMOUS = "Anonymous:"
STATUS_RSS = "VmRSS:"
TYPES_SHOWN = 8  # object types whose count changed most, per interval


def proc_kib(path: str, field: str) -> float:
    """The figure of ``field`` (in kB) in ``/proc`` file ``path``, in MB."""
    for line in Path(path).read_text().splitlines():
        if line.startswith(field):
            return int(line.split()[1]) * KIB / MB
    return 0.0


LIBC = ctypes.CDLL(ctypes.util.find_library("c"))


class MallInfo2(ctypes.Structure):
    """glibc's ``struct mallinfo2``: what its allocator holds, over every arena."""

    _fields_ = [
        (name, ctypes.c_size_t)
        for name in (
            "arena",
            "ordblks",
            "smblks",
            "hblks",
            "hblkhd",
            "usmblks",
            "fsmblks",
            "uordblks",
            "fordblks",
            "keepcost",
        )
    ]


LIBC.mallinfo2.restype = MallInfo2


def malloc_mb() -> tuple[float, float]:
    """The bytes glibc's allocator has handed out (in MB) and those it holds free."""
    info = LIBC.mallinfo2()
    return (info.uordblks + info.hblkhd) / MB, info.fordblks / MB


def pymalloc_mb() -> tuple[float, float]:
    """The memory of Python's small-object allocator (in MB): its arenas, and the blocks in
    them in use (``sys._debugmallocstats``, which writes to the standard error)."""
    figures = {}
    with tempfile.TemporaryFile("w+") as out:
        sys.stderr.flush()
        saved = os.dup(2)
        os.dup2(out.fileno(), 2)
        try:
            sys._debugmallocstats()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        out.seek(0)
        for line in out:
            name, _, value = line.partition("=")
            figures[name.strip()] = value.strip().replace(",", "")
    arenas = next((int(value) for name, value in figures.items() if "bytes/arena" in name), 0)
    return arenas / MB, int(figures.get("# bytes in allocated blocks", "0")) / MB


def malloc_trim() -> None:
    """Give the C allocator's free memory back to the kernel (glibc's ``malloc_trim(0)``)."""
    LIBC.malloc_trim(0)


def lru_sizes() -> dict[str, int]:
    """The entries held by every ``functools.lru_cache`` of the service's modules."""
    sizes = {}
    for module in list(__import__("sys").modules.values()):
        name = getattr(module, "__name__", "")
        if not name.startswith("service"):
            continue
        for attribute, value in list(vars(module).items()):
            info = getattr(value, "cache_info", None)
            if callable(info):
                sizes[f"{name.removeprefix('service.')}.{attribute}"] = info().currsize
    return sizes


def table_sizes(servicer: Any, observers: Sequence[Any]) -> dict[str, int]:
    """The size of every table the worker keeps that could grow with the calls it serves."""
    from service.telemetry import metric_values  # noqa: PLC0415 - prometheus-client reads its env at import

    sizes = {
        "states": len(servicer.states),
        "states_mb": round(servicer.states.bytes / MB),
        "encodings": len(servicer.encodings),
        "actions": len(servicer.actions),
        "audiences": len(servicer.audiences),
        "metric_files": len(metric_values._files),
    }
    for observer in observers:
        for name in ("_started", "_finished", "_pending"):
            table = getattr(observer, name, None)
            if table is not None:
                sizes[f"{type(observer).__name__}.{name}"] = len(table)
    sizes.update({name: size for name, size in lru_sizes().items() if size})
    return sizes


class Collections:
    """The collections of each generation and the unreachable objects they found, counted by a
    ``gc.callbacks`` hook until ``take`` hands them over."""

    def __init__(self) -> None:
        self.runs = [0, 0, 0]
        self.found = [0, 0, 0]
        gc.callbacks.append(self.hook)

    def hook(self, phase: str, info: dict[str, int]) -> None:
        """Count a collection as it ends."""
        if phase == "stop":
            self.runs[info["generation"]] += 1
            self.found[info["generation"]] += info["collected"]

    def take(self) -> str:
        """The counts since the last call, as ``runs/found`` per generation; starts again."""
        pairs = zip(self.runs, self.found, strict=True)
        text = " ".join(f"{runs}/{found}" for runs, found in pairs)
        self.runs, self.found = [0, 0, 0], [0, 0, 0]
        return text


def object_counts() -> Counter[str]:
    """The objects the collector tracks, by type name."""
    return Counter(type(item).__name__ for item in gc.get_objects())


def main(argv: Sequence[str] | None = None) -> None:
    """Parse the options, serve and load, print a line per interval and the growth at the end."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.memory",
        description="A worker under steady load, its memory measured inside it (no asserts).",
    )
    parser.add_argument("--minutes", type=float, default=4.0, help="how long, warm-up included")
    parser.add_argument("--warm-up", type=float, default=1.0, help="minutes before the baseline")
    parser.add_argument("--interval", type=float, default=20.0, help="seconds per line")
    parser.add_argument("--processes", type=int, default=2, help="caller processes")
    parser.add_argument("--threads", type=int, default=4, help="callers per process")
    parser.add_argument("--bad-share", type=float, default=0.05, help="as for bench.soak")
    parser.add_argument(
        "--frames",
        type=int,
        default=1,
        help="frames kept per allocation; 0 leaves tracemalloc off (the worker at full speed, "
        "and the figures of Python's allocator, which tracemalloc hides)",
    )
    parser.add_argument(
        "--trim",
        action="store_true",
        help="after each line, give the C allocator's free memory back and print the RSS left",
    )
    parser.add_argument("--top", type=int, default=15, help="lines of code shown at the end")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="ordo-memory-") as scratch:
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = scratch
        run(args)


def run(args: argparse.Namespace) -> None:
    """Serve on a free port, start the callers, measure until the time is up."""
    settings = Settings(host="127.0.0.1", port=0, metrics_port=0, log_level="warning")
    logs.configure(settings.log_level, "json")
    observers = worker_observers(settings)
    pool = CallThreadPool(max_workers=settings.threads, thread_name_prefix="rpc")
    server, port, _health = create_server(settings, observers, pool)
    servicer = next(item for item in gc.get_objects() if type(item) is GameEngineServicer)
    if args.frames:
        tracemalloc.start(args.frames)
    server.start()
    context = multiprocessing.get_context("spawn")
    out: multiprocessing.Queue[Tally | None] = context.Queue()
    stopping = context.Event()
    target = f"127.0.0.1:{port}"
    callers = [
        context.Process(
            target=caller_process, args=(target, args.threads, args.bad_share, index, out, stopping)
        )
        for index in range(args.processes)
    ]
    for process in callers:
        process.start()
    for _ in callers:
        out.get(timeout=READY_SECONDS)
    print(
        f"memory: one worker in pid {os.getpid()} on {target}, {args.processes} x "
        f"{args.threads} callers, {args.minutes:g} min, baseline after {args.warm_up:g} min",
        flush=True,
    )
    print(
        "minute    calls  python MB (traced/tracing)  objects    rss MB  anon MB"
        "  pymalloc MB (arenas/used)  malloc MB (used/free)  tables / object counts changed",
        flush=True,
    )
    started = time.monotonic()
    calls = 0
    baseline: tracemalloc.Snapshot | None = None
    counts = object_counts()
    collections = Collections()
    end = started + args.minutes * 60
    moment = started
    try:
        while moment < end:
            moment = min(moment + args.interval, end)
            while (left := moment - time.monotonic()) > 0:
                try:
                    counted = out.get(timeout=min(left, HANDOVER_SECONDS * 4))
                except queue.Empty:
                    continue
                if counted is not None:
                    calls += len(counted.latencies)
            collected = collections.take()  # before the line's own collection
            gc.collect()
            collections.take()
            minute = (time.monotonic() - started) / 60
            traced, _peak = tracemalloc.get_traced_memory()
            tracing = tracemalloc.get_tracemalloc_memory()
            arenas, used = pymalloc_mb()
            handed, free = malloc_mb()
            now_counts = object_counts()
            changed = now_counts.copy()
            changed.subtract(counts)
            counts = now_counts
            shown = sorted(changed.items(), key=lambda item: -abs(item[1]))[:TYPES_SHOWN]
            print(
                f"{minute:6.2f} {calls:8d} {traced / MB:10.2f}/{tracing / MB:<15.2f}"
                f" {sum(now_counts.values()):8d}"
                f" {proc_kib('/proc/self/status', STATUS_RSS):9.1f}"
                f" {proc_kib('/proc/self/smaps_rollup', SMAPS_ANONYMOUS):8.1f}"
                f"  {arenas:6.1f}/{used:<6.1f}  {handed:6.1f}/{free:<6.1f}"
                f"  {table_sizes(servicer, observers)}",
                flush=True,
            )
            print(f"{'':16}{' '.join(f'{name}{n:+d}' for name, n in shown if n)}", flush=True)
            print(f"{'':16}collections/unreachable found, by generation: {collected}", flush=True)
            if args.trim:
                malloc_trim()
                print(
                    f"{'':16}after malloc_trim: rss"
                    f" {proc_kib('/proc/self/status', STATUS_RSS):.1f} MB, anonymous"
                    f" {proc_kib('/proc/self/smaps_rollup', SMAPS_ANONYMOUS):.1f} MB",
                    flush=True,
                )
            if baseline is None and minute >= args.warm_up and args.frames:
                baseline = tracemalloc.take_snapshot()
        final = tracemalloc.take_snapshot() if args.frames else None
    finally:
        stopping.set()
        for process in callers:
            process.join(timeout=30)
            if process.is_alive():
                process.kill()
        server.stop(0)
        pool.shutdown(wait=True)
    if baseline is not None and final is not None:
        print(f"allocations that grew most after minute {args.warm_up:g}:", flush=True)
        for stat in final.compare_to(baseline, "lineno")[: args.top]:
            print(f"  {stat}", flush=True)


if __name__ == "__main__":
    main()
