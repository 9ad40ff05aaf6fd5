"""RPC benchmark: ``ApplyAction`` throughput and latency of the real server against a baseline.

Both servers run as subprocesses on free loopback ports, with the same shape (the default
server's worker processes bound with SO_REUSEPORT, each a sync ``grpc.server`` with the default
thread count, pinned to CPUs where the default server pins them):

- Ordo: ``python -m service --port P --metrics-port 0 --workers W --threads T``, access log on
  (to a file), metrics endpoint off;
- the baseline: ``python -m bench.baseline``, a bare server on the same method path with the same
  message types that answers with the request's state unchanged.

The requests are recorded in-process first: every step of seeded random playouts of each game,
serialized as ``ApplyActionRequest`` (the state before the step and a legal action). Each is
self-contained, so Ordo answers every one with the real next state while the baseline echoes it:
both servers get the same requests, of the same sizes. The load generator sends them as raw bytes
from several processes (the Python client costs about as much CPU per call as the server), with
one connection per call in flight, in a closed loop at each concurrency for a bounded time.

Each connection plays its own games, as a game server plays each of its tables: the steps of a
game in order, a step sent once the answer to the one before is back, so each request carries the
state its connection was last given. At least as many games are recorded as there are calls in
flight, so no two connections play the same game.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import reduce
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from bench.common import Game, Settings, apply_request, fmt_int, random_playout, section
from bench.common import table as render_table
from service.config import Settings as ServerSettings
from service.config import allowed_cpus, available_cpus
from service.process.worker import worker_cpu

PATH = "/ordo.v1.GameEngineService/ApplyAction"
CONCURRENCIES = (1, 16, 64)  # calls in flight, in total over the load processes
HOST = "127.0.0.1"  # loopback only
START_SECONDS = 60.0  # a server that is not SERVING by then failed to start
STOP_SECONDS = 15.0  # SIGTERM, then SIGKILL after this
CONNECT_SECONDS = 30.0
TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
LISTEN = "0A"  # TCP_LISTEN in /proc/net/tcp
RPC_HEADERS = (
    "in flight", "server", "calls/s", "p50 ms", "p99 ms", "server CPU µs/call", "load CPU µs/call",
    "x/base", "rounds", "cpu ratio",
)  # fmt: skip


UNPINNED_BASE = "unpinned base"  # the baseline with its workers left to the kernel


def pinned(settings: ServerSettings) -> bool:
    """Whether the server with ``settings`` pins its workers to CPUs on this machine."""
    return worker_cpu(settings, 0, allowed_cpus()) is not None


def run(settings: Settings, chosen: Sequence[Game]) -> None:
    """Start both servers, drive each game's recorded requests through them, print the tables."""
    defaults = ServerSettings()
    workers, threads = defaults.worker_count, defaults.threads
    cores = available_cpus()
    loaders = max(2, cores)
    warmup = 0.25 if settings.quick else 0.5
    round_count = settings.rpc_rounds
    shape = ["--host", HOST, "--workers", str(workers), "--threads", str(threads)]
    # Both servers in the default shape; then Ordo with its state cache off, and both servers
    # with their workers left to the kernel where the default pins them: a line each.
    ordo_args = ["-m", "service", "--metrics-port", "0", "--http-port", "0"]
    base_args = ["-m", "bench.baseline"]
    variants = [("no cache", [*ordo_args, "--state-cache-bytes", "0"])]
    placement = "left to the kernel"
    if pinned(defaults):
        variants.append(("unpinned", [*ordo_args, "--cpu-affinity", "none"]))
        variants.append((UNPINNED_BASE, [*base_args, "--cpu-affinity", "none"]))
        placement = "each pinned to a CPU"
    section("5. RPC: ApplyAction through gRPC, Ordo against a bare baseline")
    loads = " / ".join(f"{load:.1f}" for load in os.getloadavg())
    print(
        f"Servers: Ordo (python -m service, the default shape: {workers} worker processes with\n"
        f"SO_REUSEPORT x {threads} threads each, {placement}, access log on, metrics\n"
        "endpoint off) and the baseline (python -m bench.baseline: the same shape, method path\n"
        "and message types, answering with the request's state unchanged). Load: recorded\n"
        "ApplyActionRequest bytes of random playouts, the same for both, from up to\n"
        f"{loaders} load processes with one connection per call in flight, closed loop, each\n"
        f"connection playing its own games step by step. Each point: {round_count} rounds,\n"
        "each measuring every server in turn (in the opposite order in the next round) for\n"
        f"{settings.seconds / round_count:g} s after {warmup:g} s of warm-up.\n"
        f"All of it on this machine's {cores} cores: the load generator competes with the\n"
        "servers for them, so calls/s is a bound of this set-up, not of the server alone. CPU\n"
        "µs/call: server processes' CPU time (user + system) per completed call over the\n"
        "measured window; cpu ratio = baseline / Ordo server CPU per call, the ratio if the load\n"
        f"had cores of its own. Load average now: {loads}."
    )
    with contextlib.ExitStack() as stack:
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="ordo-bench-")))
        pool = stack.enter_context(LoadPool(loaders))
        baseline = stack.enter_context(
            running_server(
                "baseline",
                [*base_args, *shape],
                workers,
                folder,
            )
        )
        ordo = stack.enter_context(
            running_server(
                "ordo",
                [*ordo_args, *shape],
                workers,
                folder,
            )
        )
        others = [
            stack.enter_context(
                running_server(name.replace(" ", "-"), [*args, *shape], workers, folder)
            )
            for name, args in variants
        ]
        servers = [baseline, ordo, *others]
        names = ["baseline", "ordo", *(name for name, _ in variants)]
        for game in chosen:
            requests = record_requests(game, max(settings.recorded_games, *CONCURRENCIES))
            count = sum(map(len, requests))
            size = sum(len(request) for playout in requests for request in playout) / count
            print(
                f"\n{game.id}: {game.seats} seats, {len(requests)} recorded games, {count:,} "
                f"requests of {size:,.0f} bytes on average"
            )
            rows = []
            against_unpinned = []
            for concurrency in CONCURRENCIES:
                rounds = measure_rounds(
                    pool, servers, requests, concurrency, warmup, settings.seconds, round_count
                )
                rows.extend(result_rows(concurrency, rounds, names))
                against_unpinned += [
                    f"{round_ratio(rounds[1], points)[0]:.2f} at {concurrency}"
                    for name, points in zip(names, rounds, strict=True)
                    if name == UNPINNED_BASE
                ]
                for name, points in zip(names, rounds, strict=True):
                    if errors := sum(point.errors for point in points):
                        error = next(point.error for point in points if point.error)
                        print(f"  {name} at {concurrency}: {errors} errors: {error}")
            print(render_table(RPC_HEADERS, rows, left=2))
            if against_unpinned:
                print(f"  ordo / {UNPINNED_BASE}: {', '.join(against_unpinned)} in flight")
    print(
        "\n'ordo' is the default server. Each connection plays its own games step by step, as a\n"
        "game server sends back the state it got, so the worker's state cache skips decoding\n"
        "and validating them (a connection stays with one worker). 'no cache' is the same\n"
        "server with --state-cache-bytes 0: every state decoded and validated. On a machine where\n"
        "the default pins its workers to CPUs, 'unpinned' and 'unpinned base' are Ordo and the\n"
        "baseline with --cpu-affinity none, their workers left to the kernel.\n"
        "Target: ordo/base >= 0.80 with the default server. x/base is the median over the\n"
        "rounds of the server's calls/s against the baseline's in the same round; rounds: the\n"
        "lowest and highest of those ratios (how much a point moves on this machine). A Python\n"
        "load generator on the same cores narrows the gap (its own cost is the same for both\n"
        "servers); the cpu ratio is the server-side view, over all rounds."
    )


# --------------------------------------------------------------------- requests
def record_requests(game: Game, playouts: int) -> list[list[bytes]]:
    """Every step of ``playouts`` seeded random games, as serialized ``ApplyActionRequest``, a
    list per game in the order of play."""
    return [
        [apply_request(game, step) for step in random_playout(game, seed)]
        for seed in range(1, playouts + 1)
    ]


def slot_requests(playouts: Sequence[Sequence[bytes]], concurrency: int) -> list[list[bytes]]:
    """What each of ``concurrency`` connections sends, in order: slot ``s`` plays the games
    ``s``, ``s + concurrency`` … one after the other (a game of its own while there are at
    least as many games as slots)."""
    return [
        [
            request
            for playout in playouts[slot % len(playouts) :: concurrency]
            for request in playout
        ]
        for slot in range(concurrency)
    ]


def measure_rounds(
    pool: LoadPool,
    servers: Sequence[Server],
    playouts: Sequence[Sequence[bytes]],
    concurrency: int,
    warmup: float,
    seconds: float,
    rounds: int,
) -> list[list[Point]]:
    """Each server's point in each of ``rounds`` rounds (``seconds`` in all per server): a round
    measures every server in turn, the next one in the opposite order, so that servers next to
    each other in the list run close in time and a drift of the machine's load evens out."""
    points: list[list[Point]] = [[] for _ in servers]
    for number in range(rounds):
        order = range(len(servers)) if number % 2 == 0 else range(len(servers) - 1, -1, -1)
        for index in order:
            points[index].append(
                pool.measure(servers[index], playouts, concurrency, warmup, seconds / rounds)
            )
    return points


def round_ratio(points: Sequence[Point], base: Sequence[Point]) -> tuple[float, float, float]:
    """The median, lowest and highest ratio of a server's calls/s to the baseline's in the same
    round (NaN where the baseline completed no call). The median of the rounds is not moved by
    one round that a burst of the machine's other work slowed down."""
    ratios = [
        point.rate / other.rate if other.calls else float("nan")
        for point, other in zip(points, base, strict=True)
    ]
    return statistics.median(ratios), min(ratios), max(ratios)


def merge(points: Sequence[Point]) -> Point:
    """The points of one server at one concurrency, as one."""
    return reduce(Point.merge, points)


# --------------------------------------------------------------------- servers
@dataclass(frozen=True, slots=True)
class Server:
    """A server subprocess listening on a loopback port."""

    name: str
    process: subprocess.Popen[bytes]
    port: int
    log: Path

    @property
    def target(self) -> str:
        """The address to dial."""
        return f"{HOST}:{self.port}"


def free_port() -> int:
    """A loopback port that nothing listens on now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((HOST, 0))
        port: int = probe.getsockname()[1]
        return port


@contextlib.contextmanager
def running_server(
    name: str, args: list[str], workers: int, folder: Path, tree: Path | None = None
) -> Iterator[Server]:
    """Start ``python <args> --port P`` in its own session, wait until it serves, stop it after.

    The environment is this one without ``ORDO_*`` settings (so the server has its defaults),
    with the metrics folder inside ``folder``; the server's log goes to a file there. ``tree``
    runs the server of another checkout of the repository (its packages first on the path).
    """
    port = free_port()
    env = {key: value for key, value in os.environ.items() if not key.startswith("ORDO_")}
    metrics = folder / f"{name}-metrics"
    metrics.mkdir()
    env["PROMETHEUS_MULTIPROC_DIR"] = str(metrics)
    log = folder / f"{name}.log"
    root = tree or Path(__file__).resolve().parent.parent
    if tree is not None:
        env["PYTHONPATH"] = os.pathsep.join((str(tree), str(tree / "clients" / "python")))
    with open(log, "wb") as sink:
        process = subprocess.Popen(
            [sys.executable, *args, "--port", str(port)],
            cwd=root,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=sink,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    server = Server(name, process, port, log)
    try:
        wait_until_serving(server, workers)
        yield server
    finally:
        stop(server)


def wait_until_serving(server: Server, workers: int) -> None:
    """Wait for health SERVING, then for every worker's listening socket."""
    deadline = time.monotonic() + START_SECONDS
    request = health_pb2.HealthCheckRequest(service="")
    while True:
        if server.process.poll() is not None:
            tail = server.log.read_text(errors="replace")[-2000:]
            raise RuntimeError(f"the {server.name} server exited at start:\n{tail}")
        if time.monotonic() > deadline:
            raise RuntimeError(f"the {server.name} server is not SERVING after {START_SECONDS} s")
        with grpc.insecure_channel(server.target) as channel:
            try:
                reply = health_pb2_grpc.HealthStub(channel).Check(request, timeout=1.0)
            except grpc.RpcError:
                reply = None
        if reply is not None and reply.status == health_pb2.HealthCheckResponse.SERVING:
            break
        time.sleep(0.1)
    # SO_REUSEPORT spreads new connections over the sockets listening now: wait for all of them.
    while listeners(server.port) < workers and time.monotonic() < deadline:
        time.sleep(0.1)


def listeners(port: int) -> int:
    """The number of sockets listening on ``port`` (Linux; elsewhere assume all are)."""
    count = 0
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            return sys.maxsize
        for line in lines:
            fields = line.split()
            if fields[3] == LISTEN and int(fields[1].rsplit(":", 1)[1], 16) == port:
                count += 1
    return count


def stop(server: Server) -> None:
    """SIGTERM, as in production; the whole session is killed if it does not exit in time."""
    process = server.process
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(STOP_SECONDS)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def tree_cpu_seconds(root: int) -> float:
    """User + system CPU time of a process and all its descendants, from /proc (Linux; NaN
    elsewhere)."""
    parents: dict[int, int] = {}
    ticks: dict[int, int] = {}
    if not os.path.isdir("/proc"):
        return float("nan")
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(entry.path, "stat").read_text()
        except OSError:
            continue  # the process ended meanwhile
        fields = stat[stat.rindex(")") + 2 :].split()
        pid = int(entry.name)
        parents[pid] = int(fields[1])
        ticks[pid] = int(fields[11]) + int(fields[12])  # utime, stime
    tree = {root}
    grew = True
    while grew:
        found = {pid for pid, parent in parents.items() if parent in tree} - tree
        tree |= found
        grew = bool(found)
    return sum(ticks.get(pid, 0) for pid in tree) / TICKS


# --------------------------------------------------------------------- load
@dataclass(frozen=True, slots=True)
class Point:
    """One measured point: one server at one concurrency."""

    calls: int
    seconds: float
    latencies: list[float]  # seconds, of the calls completed in the window
    server_cpu: float  # seconds
    load_cpu: float  # seconds
    load_calls: int  # the calls completed while the load's CPU time was measured
    errors: int
    error: str

    def merge(self, other: Point) -> Point:
        """This point and another of the same server and concurrency, as one."""
        return Point(
            calls=self.calls + other.calls,
            seconds=self.seconds + other.seconds,
            latencies=self.latencies + other.latencies,
            server_cpu=self.server_cpu + other.server_cpu,
            load_cpu=self.load_cpu + other.load_cpu,
            load_calls=self.load_calls + other.load_calls,
            errors=self.errors + other.errors,
            error=self.error or other.error,
        )

    @property
    def rate(self) -> float:
        """Completed calls per second."""
        return self.calls / self.seconds

    def percentile(self, share: int) -> float:
        """A latency percentile, in milliseconds."""
        if len(self.latencies) < 2:
            return float("nan")
        return statistics.quantiles(self.latencies, n=100)[share - 1] * 1e3

    def cpu_per_call(self, seconds: float) -> float:
        """CPU µs per completed call."""
        return seconds / self.calls * 1e6 if self.calls else float("nan")

    @property
    def load_cpu_per_call(self) -> float:
        """The load processes' CPU µs per call completed while it was measured."""
        return self.load_cpu / self.load_calls * 1e6 if self.load_calls else float("nan")


@dataclass(frozen=True, slots=True)
class LoadResult:
    """What one load process measured."""

    latencies: list[float]
    cpu_seconds: float
    cpu_calls: int  # the calls completed between the two readings of the CPU time
    errors: int
    error: str


class LoadPool:
    """Load processes (spawned once) that drive a server together at a given concurrency."""

    def __init__(self, size: int) -> None:
        context = multiprocessing.get_context("spawn")
        self.workers: list[tuple[multiprocessing.process.BaseProcess, Connection]] = []
        for index in range(size):
            parent, child = context.Pipe()
            process = context.Process(
                target=load_process, args=(child,), name=f"load-{index}", daemon=True
            )
            process.start()
            child.close()
            self.workers.append((process, parent))

    def __enter__(self) -> LoadPool:
        return self

    def __exit__(self, *exc: object) -> None:
        for process, conn in self.workers:
            with contextlib.suppress(OSError):
                conn.send(None)
            process.join(5)
            if process.is_alive():
                process.terminate()
                process.join()

    def measure(
        self,
        server: Server,
        playouts: Sequence[Sequence[bytes]],
        concurrency: int,
        warmup: float,
        seconds: float,
    ) -> Point:
        """Drive ``server`` with ``concurrency`` calls in flight, each connection playing its
        own recorded games (``slot_requests``); measure after ``warmup``."""
        count = min(concurrency, len(self.workers))
        active = self.workers[:count]
        sequences = slot_requests(playouts, concurrency)
        first = 0
        for index, (_, conn) in enumerate(active):
            slots = concurrency // count + (index < concurrency % count)
            conn.send(("connect", server.target, sequences[first : first + slots]))
            first += slots
        for _, conn in active:
            reply = conn.recv()
            if reply != "ready":
                raise RuntimeError(f"a load process could not connect: {reply}")
        start = time.monotonic() + 0.05
        window = (start + warmup, start + warmup + seconds)
        for _, conn in active:
            conn.send(("go", start, *window))
        sleep_until(window[0])
        cpu_before = tree_cpu_seconds(server.process.pid)
        sleep_until(window[1])
        cpu_after = tree_cpu_seconds(server.process.pid)
        results: list[LoadResult] = [conn.recv() for _, conn in active]
        latencies = [value for result in results for value in result.latencies]
        return Point(
            calls=len(latencies),
            seconds=seconds,
            latencies=latencies,
            server_cpu=cpu_after - cpu_before,
            load_cpu=sum(result.cpu_seconds for result in results),
            load_calls=sum(result.cpu_calls for result in results),
            errors=sum(result.errors for result in results),
            error=next((result.error for result in results if result.error), ""),
        )


def sleep_until(moment: float) -> None:
    """Sleep until ``time.monotonic()`` reaches ``moment``."""
    time.sleep(max(0.0, moment - time.monotonic()))


def load_process(conn: Connection) -> None:
    """A load process: connect when told, then drive the server when told, until ``None``."""
    while (command := conn.recv()) is not None:
        _, target, sequences = command
        try:
            driver = Driver(target, sequences)
        except grpc.FutureTimeoutError:
            conn.send(f"no connection to {target} within {CONNECT_SECONDS} s")
            continue
        conn.send("ready")
        _, start, window_start, window_end = conn.recv()
        conn.send(driver.drive(start, window_start, window_end))


class Driver:
    """Closed-loop callers: each slot has its own connection and one call in flight at a time,
    sending its own requests in order (from the first again after the last); the next call is
    sent from the completion callback, which keeps the client's own cost per call low."""

    def __init__(self, target: str, sequences: Sequence[Sequence[bytes]]) -> None:
        self.sequences = sequences
        self.channels = [
            grpc.insecure_channel(target, options=[("grpc.use_local_subchannel_pool", 1)])
            for _ in sequences
        ]
        for channel in self.channels:
            grpc.channel_ready_future(channel).result(timeout=CONNECT_SECONDS)
        self.calls = [
            channel.unary_unary(PATH, request_serializer=None, response_deserializer=None)
            for channel in self.channels
        ]
        self.latencies: list[float] = []
        self.completions: list[float] = []  # when each call completed, in or out of the window
        self.errors = 0
        self.error = ""
        self.live = len(sequences)
        self.lock = threading.Lock()
        self.done = threading.Event()
        self.window = (0.0, 0.0)

    def drive(self, start: float, window_start: float, window_end: float) -> LoadResult:
        """Run from ``start``; record the calls that complete within the window."""
        self.window = (window_start, window_end)
        sleep_until(start)
        for slot in range(len(self.calls)):
            self.send(slot, 0)
        # Under load this thread may wake well after the moment it slept until: the CPU time is
        # divided by the calls completed between the moments it was read, not by the window's.
        sleep_until(window_start)
        cpu_before, since = time.process_time(), time.monotonic()
        sleep_until(window_end)
        cpu_after, until = time.process_time(), time.monotonic()
        self.done.wait(CONNECT_SECONDS)
        for channel in self.channels:
            channel.close()
        cpu_calls = sum(since <= moment < until for moment in self.completions)
        return LoadResult(
            self.latencies, cpu_after - cpu_before, cpu_calls, self.errors, self.error
        )

    def send(self, slot: int, index: int) -> None:
        """Send ``slot``'s request ``index`` (modulo their count) on its connection."""
        sent = time.monotonic()
        requests = self.sequences[slot]
        future: Any = self.calls[slot].future(requests[index % len(requests)])
        future.add_done_callback(lambda done: self.completed(done, slot, index, sent))

    def completed(self, future: Any, slot: int, index: int, sent: float) -> None:
        """Record the call, then send the slot's next one until the window closes; a slot whose
        call failed stops (its error is reported)."""
        now = time.monotonic()
        failure = future.exception()
        in_window = self.window[0] <= now < self.window[1]
        if failure is None:
            self.completions.append(now)
        if failure is None and in_window:
            self.latencies.append(now - sent)
        elif failure is not None:
            self.errors += 1
            self.error = self.error or f"{failure.code().name}: {failure.details()}"
        if failure is None and now < self.window[1]:
            self.send(slot, index + 1)
            return
        with self.lock:
            self.live -= 1
            if self.live == 0:
                self.done.set()


# --------------------------------------------------------------------- output
def result_rows(
    concurrency: int, rounds: Sequence[Sequence[Point]], names: Sequence[str]
) -> list[tuple[str, ...]]:
    """The lines of one concurrency: the baseline (``rounds[0]``, its point in each round), then
    each other server by name, with its calls/s against the baseline's round by round."""
    merged = [merge(points) for points in rounds]
    base = merged[0]
    base_cpu = base.cpu_per_call(base.server_cpu)
    lines: list[tuple[str, ...]] = []
    for index, (name, points, point) in enumerate(zip(names, rounds, merged, strict=True)):
        server_cpu = point.cpu_per_call(point.server_cpu)
        ratios: tuple[str, ...] = ("", "", "")
        if index:
            median, low, high = round_ratio(points, rounds[0])
            ratios = (f"{median:.2f}", f"{low:.2f}-{high:.2f}", f"{base_cpu / server_cpu:.2f}")
        lines.append(
            (
                str(concurrency) if not index else "",
                name,
                fmt_int(point.rate),
                f"{point.percentile(50):.2f}",
                f"{point.percentile(99):.2f}",
                fmt_int(server_cpu),
                fmt_int(point.load_cpu_per_call),
                *ratios,
            )
        )
    return lines
