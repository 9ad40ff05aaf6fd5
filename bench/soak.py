"""``python -m bench.soak`` (``make soak``): steady load on a server for a long time, to see its
memory and latency hold.

It starts ``python -m service`` (``--workers`` workers on free loopback ports) and drives both
of its doors at once from ``--processes`` processes of ``--threads`` callers each: the callers
take turns over gRPC (``ordo.Client`` with its default settings) and the HTTP door's Connect
binary, Connect JSON and gRPC-Web (``bench.http_calls``). A caller plays every game in turn to
the end (NewGame, then SuggestAction and ApplyAction for the seats to act, a GetView now and
then); Fora de Ordem is dealt now and then with the largest custom questions the rules allow,
whose states are the largest a worker can be sent. A share of the calls (``--bad-share``) are
bad requests, which must come back INVALID_ARGUMENT; a share of the HTTP callers' turns
(``--garbage-share``) also send one piece of garbage (``bench.http_calls.GARBAGE``: bytes that
are not UTF-8, unknown encodings, gRPC over HTTP/1.1 ...), which must be refused as the caller's
error. Every ``--interval`` seconds (a minute by default) it prints the calls per second, the
p50 and p99 latency, the calls that failed in a way they should not have, and each worker's
memory, read every ``--sample`` seconds (2 by default): the mean and the largest RSS
(``/proc/<pid>/status``) of the interval, and the mean anonymous memory (``smaps_rollup``: the
heaps, without the interpreter and libraries mapped from files). At the end, each worker's RSS
slope over the interval means after the warm-up (``--warm-up`` minutes), with its standard
error, that of its anonymous memory and its largest RSS, and the p99 of the first and last
intervals after the warm-up. Nothing is asserted: the figures are for people (and
``docs/performance.md``). ``python -m bench.memory`` looks inside one worker.
"""

from __future__ import annotations

import argparse
import multiprocessing
import queue
import random
import signal
import statistics
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from multiprocessing.synchronize import Event as EventType
from pathlib import Path
from typing import Any

import grpc

from bench.http_calls import HTTP_PROTOCOLS, HttpClient, send_garbage
from bench.rpc import STOP_SECONDS, free_port, running_server
from engines.fora_de_ordem.data import ITEMS, MAX_TEXT_LENGTH
from engines.fora_de_ordem.rules import MAX_ROUNDS, MAX_SEATS
from engines.registry import ENGINES
from ordo import Client, OrdoError
from ordo.v1 import common_pb2 as common
from ordo.v1 import fora_de_ordem_pb2 as fora

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_MINUTES = 30.0
SECONDS_PER_MINUTE = 60.0
LARGEST_SHARE = 0.2  # of the Fora de Ordem games, dealt with the largest custom questions
VIEW_SHARE = 0.1  # of the turns, a GetView of a seat first
WIDE_CHARACTER = "\U0001f600"  # four bytes in UTF-8, four in a Python string: the largest text
KIB = 1024
STATUS_RSS = "VmRSS:"
SMAPS_ANONYMOUS = "Anonymous:"
EPSILON_MINUTES = 1e-6  # an interval that begins this close to the warm-up's end is after it
SAMPLE_SECONDS = 2.0  # how often each worker's memory is read
BAD_CODE = grpc.StatusCode.INVALID_ARGUMENT
CHANNELS = 4  # connections per caller process: the kernel spreads them over the workers
READY_SECONDS = 300.0  # bound on a caller process's start
HANDOVER_SECONDS = 0.5  # how often the callers hand over what they counted


def largest_fora_de_ordem_options(tag: str = "") -> common.GameOptions:
    """Fora de Ordem options whose states are the largest the rules allow: every round played
    with a custom question whose id, category and items are as long as allowed, in characters
    that take four bytes each. ``tag`` opens every text (to make distinct games)."""

    def text(name: str) -> str:
        head = f"{tag}{name}:"
        return head + WIDE_CHARACTER * (MAX_TEXT_LENGTH - len(head))

    questions = [
        fora.ForaDeOrdemQuestion(
            id=text(f"q{number}"),
            category=text(f"c{number}"),
            items=[text(f"q{number}i{item}") for item in range(ITEMS)],
            ranks=range(1, ITEMS + 1),
        )
        for number in range(MAX_ROUNDS)
    ]
    return common.GameOptions(
        fora_de_ordem=fora.ForaDeOrdemOptions(rounds=MAX_ROUNDS, custom_questions=questions)
    )


# ------------------------------------------------------------------------- the server's workers
def worker_pids(server_pid: int) -> list[int]:
    """The worker processes of the server ``server_pid`` (its children that multiprocessing
    spawned to run a worker), by pid."""
    try:
        children = Path(f"/proc/{server_pid}/task/{server_pid}/children").read_text().split()
    except OSError:
        return []
    pids = []
    for child in map(int, children):
        try:
            command = Path(f"/proc/{child}/cmdline").read_bytes()
        except OSError:
            continue
        if b"spawn_main" in command:
            pids.append(child)
    return sorted(pids)


def proc_mb(path: Path, field_name: str) -> float | None:
    """The figure of ``field_name`` (in kB) in the ``/proc`` file ``path``, in MB (10^6
    bytes); None when the process is gone."""
    try:
        lines = path.read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        if line.startswith(field_name):
            return int(line.split()[1]) * KIB / 1e6
    return None


def rss_mb(pid: int) -> float | None:
    """The resident memory of process ``pid`` in MB, None when it is gone."""
    return proc_mb(Path(f"/proc/{pid}/status"), STATUS_RSS)


def anonymous_mb(pid: int) -> float | None:
    """The anonymous memory of process ``pid`` in MB (its heaps and stacks, resident: the part
    of its RSS that is not files mapped in, such as the interpreter and libraries), None when it
    is gone."""
    return proc_mb(Path(f"/proc/{pid}/smaps_rollup"), SMAPS_ANONYMOUS)


@dataclass(frozen=True)
class Memory:
    """A worker's memory over one interval, from the samples read in it (MB)."""

    minute: float  # the mean time of the samples, since the load started
    rss_mean: float
    rss_max: float
    anonymous_mean: float


class Sampler:
    """Reads each worker's RSS and anonymous memory every ``seconds`` on a thread of its own.
    One reading a minute is too noisy for a trend: a worker's RSS swings by megabytes within
    seconds (large requests come and go, caches are cleared, the allocator keeps or returns
    pages), so each interval is summed up by the mean of its samples (and the largest)."""

    def __init__(self, pids: Sequence[int], seconds: float, started: float) -> None:
        self.pids = list(pids)
        self.seconds = seconds
        self.started = started
        self._samples: dict[int, list[tuple[float, float, float]]] = {pid: [] for pid in pids}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> Sampler:
        self.sample()
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(self.seconds):
            self.sample()

    def sample(self) -> None:
        """Read each worker's memory once."""
        minute = (time.monotonic() - self.started) / SECONDS_PER_MINUTE
        for pid in self.pids:
            rss, anonymous = rss_mb(pid), anonymous_mb(pid)
            if rss is not None and anonymous is not None:
                with self._lock:
                    self._samples[pid].append((minute, rss, anonymous))

    def take(self) -> dict[int, Memory | None]:
        """Each worker's memory over the samples read since the last ``take`` (None for a
        worker that is gone), which it forgets."""
        taken: dict[int, Memory | None] = {}
        with self._lock:
            for pid, samples in self._samples.items():
                taken[pid] = (
                    Memory(
                        minute=statistics.fmean(minute for minute, _, _ in samples),
                        rss_mean=statistics.fmean(rss for _, rss, _ in samples),
                        rss_max=max(rss for _, rss, _ in samples),
                        anonymous_mean=statistics.fmean(anon for _, _, anon in samples),
                    )
                    if samples
                    else None
                )
                samples.clear()
        return taken


# ------------------------------------------------------------------------- the callers
@dataclass
class Tally:
    """What the callers of one process saw since the last report."""

    latencies: list[float] = field(default_factory=list)  # seconds, of every call
    bad: int = 0  # bad requests refused as they should be
    failed: list[str] = field(default_factory=list)  # calls that failed as they should not

    def add(self, other: Tally) -> None:
        """Count ``other`` in this tally too."""
        self.latencies += other.latencies
        self.bad += other.bad
        self.failed += other.failed


class Caller:
    """Plays every game in turn on one client, a share of its calls bad requests; counts
    into ``tally`` under ``lock``."""

    def __init__(
        self,
        client: Client | HttpClient,
        tally: Tally,
        lock: threading.Lock,
        seed: int,
        bad_share: float,
        stopping: EventType,
        garbage: tuple[str, float] | None = None,
    ) -> None:
        self.client = client
        self.garbage = garbage  # the HTTP door's address and the share of turns to send it
        self.stopping = stopping
        self.tally = tally
        self.lock = lock
        self.rng = random.Random(seed)
        self.bad_share = bad_share

    def timed(self, call: str, *args: Any, bad: bool = False) -> Any:
        """Make one call, record its latency and how it ended; its response, or None."""
        started = time.perf_counter()
        failure = None
        try:
            response = getattr(self.client, call)(*args)
        except OrdoError as error:
            response, failure = None, error
        seconds = time.perf_counter() - started
        with self.lock:
            self.tally.latencies.append(seconds)
            if failure is None and bad:
                self.tally.failed.append(f"{call}: a bad request was answered")
            elif failure is not None and bad and failure.code == BAD_CODE:
                self.tally.bad += 1
            elif failure is not None:
                self.tally.failed.append(f"{call}: {failure}")
        return response

    def bad_request(self, state: common.GameState, game: str) -> None:
        """One bad request: an action of a seat the game does not have, a game with too few
        seats, or an action of another game."""
        kind = self.rng.randrange(3)
        if kind == 0:
            self.timed("apply_action", state, common.Action(seat=99, **{game: {}}), bad=True)
        elif kind == 1:
            self.timed("new_game", game, 1, bad=True)
        else:
            other = self.rng.choice([name for name in sorted(ENGINES) if name != game])
            self.timed("apply_action", state, common.Action(seat=0, **{other: {}}), bad=True)

    def play(self, game: str) -> None:
        """One game to its end (or until a call fails, or the soak ends)."""
        info = ENGINES[game].info
        seats = self.rng.choice(info.seat_counts)
        options = common.GameOptions(**{game: {}})
        if game == "fora_de_ordem" and self.rng.random() < LARGEST_SHARE:
            seats = MAX_SEATS
            options = largest_fora_de_ordem_options(f"{self.rng.getrandbits(32):x}")
        new = self.timed("new_game", options, seats)
        if new is None:
            return
        state, status = new.state, new.status
        while not status.finished and not self.stopping.is_set():
            if self.rng.random() < self.bad_share:
                self.bad_request(state, game)
            if self.garbage is not None and self.rng.random() < self.garbage[1]:
                problem = send_garbage(self.garbage[0], self.rng)
                with self.lock:
                    if problem is None:
                        self.tally.bad += 1
                    else:
                        self.tally.failed.append(problem)
            seat = self.rng.choice(list(status.seats_to_act))
            if self.rng.random() < VIEW_SHARE and self.timed("get_view", state, seat) is None:
                return
            suggested = self.timed("suggest_action", state, seat)
            if suggested is None:
                return
            applied = self.timed("apply_action", state, suggested.action)
            if applied is None:
                return
            state, status = applied.state, applied.status


def caller_process(
    target: str,
    threads: int,
    bad_share: float,
    seed: int,
    out: multiprocessing.Queue[Tally | None],
    stopping: EventType,
    http_target: str = "",
    garbage_share: float = 0.0,
) -> None:
    """Run ``threads`` callers until ``stopping``: on one gRPC client for ``target``, or, with
    an ``http_target``, taking turns over the doors and protocols (an HTTP client each, which
    sends garbage before ``garbage_share`` of its turns). Hand over what they saw every
    ``HANDOVER_SECONDS`` (an empty tally first, once ready), then once more and None at the
    end."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent stops the load
    tally, lock = Tally(), threading.Lock()
    games = sorted(ENGINES)
    protocols = ("grpc", *HTTP_PROTOCOLS) if http_target else ("grpc",)
    with Client(target, channels=CHANNELS) as client:

        def loop(index: int) -> None:
            protocol = protocols[(seed + index) % len(protocols)]
            http = None if protocol == "grpc" else HttpClient(http_target, protocol)
            caller = Caller(
                client if http is None else http,
                tally,
                lock,
                seed * 1_000 + index,
                bad_share,
                stopping,
                None if http is None else (http_target, garbage_share),
            )
            turn = index
            while not stopping.is_set():
                caller.play(games[turn % len(games)])
                turn += 1
            if http is not None:
                http.close()

        callers = [threading.Thread(target=loop, args=(i,), daemon=True) for i in range(threads)]
        out.put(Tally())  # ready: the run's clock starts once every process is
        for thread in callers:
            thread.start()
        while not stopping.wait(HANDOVER_SECONDS):
            out.put(take(tally, lock))
        for thread in callers:
            thread.join()
        out.put(take(tally, lock))
    out.put(None)


def take(tally: Tally, lock: threading.Lock) -> Tally:
    """What ``tally`` holds, which it forgets."""
    with lock:
        taken = Tally(tally.latencies, tally.bad, tally.failed)
        tally.latencies, tally.bad, tally.failed = [], 0, []
    return taken


# ------------------------------------------------------------------------- the report
def percentile(values: Sequence[float], share: float) -> float:
    """The value below which ``share`` of ``values`` lie (nearest rank); 0 for none."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def slope(points: Sequence[tuple[float, float]]) -> float | None:
    """The least-squares slope of ``points`` (x, y); None for fewer than two x values."""
    fitted = fit(points)
    return None if fitted is None else fitted[0]


def fit(points: Sequence[tuple[float, float]]) -> tuple[float, float] | None:
    """The least-squares slope of ``points`` (x, y) and its standard error (0 for fewer than
    three points); None for fewer than two x values. A worker's RSS swings by megabytes from
    minute to minute (the caches churn, large requests come and go): the error says how far
    the slope could be from the trend."""
    if len({x for x, _ in points}) < 2:
        return None
    xs, ys = [x for x, _ in points], [y for _, y in points]
    x_mean, y_mean = statistics.fmean(xs), statistics.fmean(ys)
    spread = sum((x - x_mean) ** 2 for x in xs)
    value = sum((x - x_mean) * (y - y_mean) for x, y in points) / spread
    if len(points) < 3:  # a line through two points has no residual
        return value, 0.0
    residual = sum((y - y_mean - value * (x - x_mean)) ** 2 for x, y in points)
    return value, (residual / (len(points) - 2) / spread) ** 0.5


@dataclass
class Row:
    """One interval of the run."""

    minute: float  # since the load started, at the interval's end
    calls: int
    seconds: float
    p50_ms: float
    p99_ms: float
    bad: int
    failed: int
    memory: dict[int, Memory | None]


def format_row(row: Row) -> str:
    """A line of the table."""
    memory = " ".join(
        f"{pid}=gone"
        if mb is None
        else f"{pid}={mb.rss_mean:.1f}/{mb.rss_max:.1f}/{mb.anonymous_mean:.1f}"
        for pid, mb in row.memory.items()
    )
    return (
        f"{row.minute:6.1f} {row.calls / row.seconds:9.0f} {row.p50_ms:8.2f} {row.p99_ms:8.2f}"
        f" {row.bad:6d} {row.failed:6d}  {memory}"
    )


HEADER = (
    "minute  calls/s   p50 ms   p99 ms    bad failed  "
    "worker MB (pid=RSS mean/RSS max/anonymous mean)"
)


def shown_fit(points: Sequence[tuple[float, float]]) -> str:
    """A slope and its standard error as the summary shows them."""
    fitted = fit(points)
    if fitted is None:
        return "n/a (too few intervals)"
    return f"{fitted[0]:+.3f} MB/min (standard error {fitted[1]:.3f})"


def started(row: Row) -> float:
    """The minute at which the interval of ``row`` began."""
    return row.minute - row.seconds / SECONDS_PER_MINUTE


def summary(rows: Sequence[Row], warm_up: float) -> list[str]:
    """The closing lines: each worker's RSS slope after the warm-up (of the means of its
    intervals), and that of its anonymous memory, and its largest RSS; the p99 of the first and
    last intervals after the warm-up; the failures."""
    after = [row for row in rows if started(row) >= warm_up - EPSILON_MINUTES] or list(rows[-1:])
    lines = []
    pids = sorted({pid for row in rows for pid in row.memory})
    for pid in pids:
        seen = [mb for row in after if (mb := row.memory.get(pid)) is not None]
        rss = shown_fit([(mb.minute, mb.rss_mean) for mb in seen])
        anonymous = shown_fit([(mb.minute, mb.anonymous_mean) for mb in seen])
        peak = max((mb.rss_max for row in rows if (mb := row.memory.get(pid))), default=0.0)
        lines.append(
            f"rss slope after minute {warm_up:g}: worker {pid}: {rss}; "
            f"anonymous memory {anonymous}; largest RSS {peak:.1f} MB"
        )
    if after:
        lines.append(
            f"p99 after minute {warm_up:g}: first interval {after[0].p99_ms:.2f} ms, "
            f"last {after[-1].p99_ms:.2f} ms"
        )
    calls = sum(row.calls for row in rows)
    failed = sum(row.failed for row in rows)
    bad = sum(row.bad for row in rows)
    lines.append(f"calls {calls}, bad requests refused {bad}, failed {failed}")
    return lines


# ------------------------------------------------------------------------- the run
def server_args(args: argparse.Namespace, http_port: int) -> list[str]:
    """The server's command line but its port: ``python -m service`` without its access log
    (tens of thousands of lines a minute) and metrics endpoint."""
    workers = ["--workers", str(args.workers), "--host", "127.0.0.1"]
    return [
        "-m",
        "service",
        *workers,
        "--http-port",
        str(http_port),
        "--metrics-port",
        "0",
        "--log-level",
        "warning",
        *args.server_arg,
    ]


def run(args: argparse.Namespace) -> None:
    """Start the server and the callers, print a row per interval and the summary."""
    total = args.minutes * SECONDS_PER_MINUTE
    context = multiprocessing.get_context("spawn")
    http_port = free_port()
    with (
        tempfile.TemporaryDirectory(prefix="ordo-soak-") as scratch,
        running_server("soak", server_args(args, http_port), args.workers, Path(scratch)) as server,
    ):
        pids = worker_pids(server.process.pid)
        print(
            f"soak: {args.minutes:g} min, server pid {server.process.pid} with workers "
            f"{' '.join(map(str, pids))}, {args.processes} x {args.threads} callers, "
            f"bad share {args.bad_share:g}, garbage share {args.garbage_share:g}, "
            f"report every {args.interval:g} s",
            flush=True,
        )
        print(HEADER, flush=True)
        out: multiprocessing.Queue[Tally | None] = context.Queue()
        stopping = context.Event()
        callers = [
            context.Process(
                target=caller_process,
                args=(
                    server.target,
                    args.threads,
                    args.bad_share,
                    index,
                    out,
                    stopping,
                    f"127.0.0.1:{http_port}",
                    args.garbage_share,
                ),
            )
            for index in range(args.processes)
        ]
        for process in callers:
            process.start()
        for _ in callers:
            out.get(timeout=READY_SECONDS)
        started = time.monotonic()
        with Sampler(pids, args.sample, started) as sampler:
            rows: list[Row] = []
            last, running = started, len(callers)
            while last - started < total - 1e-9 and running:
                moment = min(last + args.interval, started + total)
                tally = Tally()
                while running and (left := moment - time.monotonic()) > 0:
                    try:
                        counted = out.get(timeout=left)
                    except queue.Empty:
                        break
                    if counted is None:  # a caller process ended early
                        running -= 1
                    else:
                        tally.add(counted)
                now = time.monotonic()
                row = Row(
                    minute=(now - started) / SECONDS_PER_MINUTE,
                    calls=len(tally.latencies),
                    seconds=max(now - last, 1e-9),
                    p50_ms=percentile(tally.latencies, 0.5) * 1e3,
                    p99_ms=percentile(tally.latencies, 0.99) * 1e3,
                    bad=tally.bad,
                    failed=len(tally.failed),
                    memory=sampler.take(),
                )
                rows.append(row)
                last = now
                print(format_row(row), flush=True)
                for failure in tally.failed[:3]:
                    print(f"  failed: {failure}", flush=True)
        stopping.set()
        while running:  # what the callers counted after the last row is left out
            try:
                if out.get(timeout=STOP_SECONDS) is None:
                    running -= 1
            except queue.Empty:
                break
        for process in callers:
            process.join(timeout=STOP_SECONDS)
    for line in summary(rows, args.warm_up):
        print(line, flush=True)


def main(argv: Sequence[str] | None = None) -> None:
    """Parse the options and run the soak."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.soak",
        description="Steady load on a server: throughput, latency and worker RSS over time.",
    )
    parser.add_argument("--minutes", type=float, default=DEFAULT_MINUTES, help="how long")
    parser.add_argument(
        "--interval",
        type=float,
        default=SECONDS_PER_MINUTE,
        help="seconds per report row (default a minute)",
    )
    parser.add_argument(
        "--warm-up", type=float, default=5.0, help="minutes left out of the RSS slope"
    )
    parser.add_argument(
        "--sample",
        type=float,
        default=SAMPLE_SECONDS,
        help=f"seconds between readings of each worker's memory (default {SAMPLE_SECONDS:g})",
    )
    parser.add_argument("--workers", type=int, default=2, help="the server's worker processes")
    parser.add_argument("--processes", type=int, default=2, help="caller processes")
    parser.add_argument("--threads", type=int, default=4, help="callers per process")
    parser.add_argument(
        "--bad-share",
        type=float,
        default=0.05,
        help="share of the turns that also send a bad request",
    )
    parser.add_argument(
        "--garbage-share",
        type=float,
        default=0.02,
        help="share of the HTTP callers' turns that also send a piece of garbage",
    )
    parser.add_argument(
        "--server-arg",
        action="append",
        default=[],
        help="a flag for the server, e.g. --server-arg=--threads=8 (repeatable)",
    )
    args = parser.parse_args(argv)
    if min(args.minutes, args.interval, args.sample) <= 0 or args.workers < 1 or args.processes < 1:
        parser.error("minutes, interval, sample, workers and processes must be positive")
    run(args)


if __name__ == "__main__":
    main()
