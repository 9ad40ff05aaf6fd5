"""10. Hosted tables: what the table store's two ways cost, moves through a table against the same
moves through the stateless API, and the time from a move to its last watcher with many tables.

- **The store's mechanics**, on a ``redis-server`` of the benchmark's own: a move's compare-and-set
  as one Lua script after a read (two round trips, what ``service.tables.store`` does) against
  WATCH, a read and MULTI/EXEC; and a notice's way to a listener through pub/sub (one pattern
  subscription, as ``service.tables.watchers.NoticeReader``) against a blocking XREAD over every
  table's stream.
- **Moves per second**: a 6 nimmt! game of four people played to its end, each move a
  ``ListLegalActions`` then an ``ApplyAction``, by a few client threads, through a hosted table
  and with the state carried (seat tokens required both ways, one worker), measured in turns.
- **Fan-out**: ``--quick`` 100, else 1,000 hosted tables of four watchers each, on one worker
  (its gRPC door), the watchers in a process of their own (``bench.table_watchers``); moves are
  applied one after the other across the tables, and each one's time runs from its request to
  its arrival at the last of its table's watchers. The worker's memory is read once every
  stream is open, and after the moves.

Printed, never asserted.
"""

from __future__ import annotations

import base64
import contextlib
import json
import random
import secrets
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import grpc

from bench.common import Settings, fmt_int, section
from bench.rpc import free_port, running_server
from bench.seats import redis_server
from engines.registry import ENGINES
from ordo.v1 import common_pb2 as common
from ordo.v1 import engine_service_pb2 as api
from ordo.v1 import engine_service_pb2_grpc as rpc
from service.tables.store import MOVES_SUFFIX, TABLE_PREFIX, Entry, TableStore

SEATS = 4
CLIENT_THREADS = 4  # clients of the moves-per-second rounds
ROUNDS = 2  # each way measured this many times, in turn
NOTICES = 2_000  # notices of the pub/sub and streams comparison
STREAM_KEYS = 1_000  # tables of that comparison
FANOUT_TABLES = (100, 1_000)  # --quick, full
FANOUT_MOVES = (300, 3_000)
ONE_HAND = common.GameOptions(
    six_nimmt={"end": "SIX_NIMMT_END_RULE_FIXED_HANDS", "hands": 1}  # type: ignore[dict-item]
)
TOKEN_KEY = "ordo-seat-token"
# Streams a watcher connection carries: the gRPC port takes 1,000 at once on one connection, the
# HTTP door's HTTP/2 128.
PER_CONNECTION = {"gRPC": 500, "HTTP": 100}
MOVE = Entry(b"\x00" * 4, b"\x0a\x04\x08\x01\x52\x00")  # a move of the size of a selection


def run(settings: Settings) -> None:
    """Print the three measurements (nothing without a redis-server)."""
    section("11. Hosted tables (a redis-server on loopback, one worker)")
    with redis_server() as url:
        if url is None:
            print("(no redis-server installed: hosted tables are not measured)")
            return
        mechanics(url, settings)
        with tempfile.TemporaryDirectory(prefix="ordo-bench-tables-") as folder:
            keys = Path(folder) / "keys"
            keys.write_text(f"bench-1 {base64.b64encode(secrets.token_bytes(64)).decode()}\n")
            args = [
                "-m", "service", "--workers", "1", "--metrics-port", "0",
                "--state-keys-file", str(keys), "--require-seat-tokens", "--table-store", url,
                "--table-max-watchers", "8192", "--log-level", "warning",
            ]  # fmt: skip
            with running_server("tables", [*args, "--http-port", "0"], 1, Path(folder)) as server:
                sizes(server.target, url)
                moves_per_second(server.target, settings)
            # A fresh worker for each door, its memory its own: the watchers on the gRPC port,
            # then on the HTTP port (gRPC over h2c, served by the HTTP door as Connect is).
            for door in ("gRPC", "HTTP"):
                http = free_port()
                served = [*args, "--http-port", str(http)]
                with running_server(f"fanout-{door}", served, 1, Path(folder)) as one:
                    watched = one.target if door == "gRPC" else f"127.0.0.1:{http}"
                    fanout(one.target, watched, door, one.process.pid, settings)


# ----------------------------------------------------------------------------- the store
def mechanics(url: str, settings: Settings) -> None:
    """Compare-and-set by script against WATCH/MULTI; pub/sub against streams."""
    store = TableStore(
        url, idle_seconds=600, finished_seconds=600, max_tables=10**6, max_bytes=1 << 30
    )
    table_id = store.create(b"initial", b"state", [], False)
    client = store._client
    key = b"ordo:table:" + table_id.encode()

    def scripted(index: int) -> None:
        table = store.latest(table_id, f"{index:064x}")
        store.commit(table, b"state %d" % index, [MOVE], False, f"{index:064x}")

    def watched(index: int) -> None:
        with client.pipeline(transaction=True) as pipe:
            pipe.watch(key)
            revision = int(pipe.hget(key, b"revision"))
            pipe.hget(key, b"request:%064x" % index)
            pipe.multi()
            pipe.hset(key, mapping={b"revision": revision + 1, b"state": b"state %d" % index})
            pipe.rpush(key + b":moves", b"move")
            pipe.publish(b"ordo:table-moves:" + table_id.encode(), b"notice")
            pipe.execute()

    script = rate(scripted, settings.seconds)
    optimistic = rate(watched, settings.seconds)
    print(
        f"compare-and-set per second: one script after a read {fmt_int(script)}, WATCH + read + "
        f"MULTI/EXEC {fmt_int(optimistic)} (script / optimistic {script / optimistic:.2f})"
    )
    published = notice_latency(url, client, "pubsub")
    streamed = notice_latency(url, client, "streams")
    print(
        f"a notice to its listener, {STREAM_KEYS} tables: pub/sub p50 {published[0]:.0f} µs, p99 "
        f"{published[1]:.0f} µs; XREAD over every table's stream p50 {streamed[0]:.0f} µs, p99 "
        f"{streamed[1]:.0f} µs"
    )
    store.close()


def rate(work: Callable[[int], None], seconds: float) -> float:
    """Calls of ``work`` per second, one after the other, for about ``seconds``."""
    done = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        work(done)
        done += 1
    return done / (time.perf_counter() - start)


def notice_latency(url: str, client: Any, way: str) -> tuple[float, float]:
    """The p50 and p99 (µs) from publishing a notice to its arrival at a listener, through
    pub/sub (a pattern) or streams (a blocking XREAD over ``STREAM_KEYS`` keys)."""
    import redis  # noqa: PLC0415

    listener = redis.Redis.from_url(url)  # a connection of its own, that may wait for long
    keys = [b"bench:stream:%d" % index for index in range(STREAM_KEYS)]
    arrived: list[int] = []
    ready = threading.Event()
    done = threading.Event()

    def listen() -> None:
        if way == "pubsub":
            pubsub = listener.pubsub(ignore_subscribe_messages=True)
            pubsub.psubscribe(b"bench:channel:*")
            ready.set()
            while len(arrived) < NOTICES and not done.is_set():
                with contextlib.suppress(redis.TimeoutError):
                    message = pubsub.get_message(timeout=1.0)
                    if message is not None:
                        arrived.append(time.monotonic_ns() - int(message["data"]))
            pubsub.close()
        else:
            last = dict.fromkeys(keys, b"$")
            ready.set()
            while len(arrived) < NOTICES and not done.is_set():
                try:
                    found = listener.xread(last, block=1000)
                except redis.TimeoutError:
                    continue
                now = time.monotonic_ns()
                for stream, entries in found:
                    for entry_id, fields in entries:
                        arrived.append(now - int(fields[b"t"]))
                        last[stream] = entry_id
        done.set()

    thread = threading.Thread(target=listen, daemon=True)
    thread.start()
    ready.wait()
    time.sleep(0.2)  # the subscription or the first XREAD is in place (a benchmark, not a test)
    chance = random.Random(7)
    for _ in range(NOTICES):
        index = chance.randrange(STREAM_KEYS)
        stamp = str(time.monotonic_ns())
        if way == "pubsub":
            client.publish(b"bench:channel:%d" % index, stamp)
        else:
            client.xadd(keys[index], {b"t": stamp}, maxlen=16)
        time.sleep(0.0002)
    done.wait(30)
    done.set()
    thread.join()
    listener.close()
    client.delete(*keys)
    micros = sorted(value / 1000 for value in arrived)
    return quantile(micros, 0.5), quantile(micros, 0.99)


def sizes(target: str, url: str) -> None:
    """What a finished table of four bots takes in the store, for each game."""
    import redis  # noqa: PLC0415

    client = redis.Redis.from_url(url)
    lines = []
    with grpc.insecure_channel(target) as channel:
        stub = rpc.GameEngineServiceStub(channel)
        for game in sorted(ENGINES):
            info = ENGINES[game].info
            seats = min(max(SEATS, info.min_seats), info.max_seats)
            options = common.GameOptions(**{game: {}})
            bots = [common.BotSeat(seat=seat) for seat in range(seats)]
            dealt = stub.NewGame(
                api.NewGameRequest(seats=seats, options=options, bots=bots, host=True)
            )
            key = TABLE_PREFIX + dealt.table_id.encode()
            charged = int(client.hget(key, b"bytes") or 0)
            memory = sum(client.memory_usage(k) or 0 for k in (key, key + MOVES_SUFFIX))
            lines.append(f"{game} {charged / 1024:.1f} KB ({memory / 1024:.1f} KB in Redis)")
    client.close()
    print(f"a finished table of {SEATS} bots in the store: " + ", ".join(lines))


# ----------------------------------------------------------------------------- moves
def moves_per_second(target: str, settings: Settings) -> None:
    """A game of four people played by ``CLIENT_THREADS`` clients, hosted against carried."""
    hosted = carried = 0.0
    for _ in range(ROUNDS):
        hosted = max(hosted, client_rate(target, True, settings.seconds))
        carried = max(carried, client_rate(target, False, settings.seconds))
    print(
        f"moves per second, {CLIENT_THREADS} clients (each a ListLegalActions and an "
        f"ApplyAction): hosted table {fmt_int(hosted)}, state carried {fmt_int(carried)} "
        f"(hosted / carried {hosted / carried:.2f})"
    )


def client_rate(target: str, hosted: bool, seconds: float) -> float:
    """Moves per second of ``CLIENT_THREADS`` threads playing games for ``seconds``."""
    counts = [0] * CLIENT_THREADS
    deadline = time.perf_counter() + seconds

    def work(index: int) -> None:
        with grpc.insecure_channel(target, options=[("grpc.use_local_subchannel_pool", 1)]) as ch:
            stub = rpc.GameEngineServiceStub(ch)
            while time.perf_counter() < deadline:
                counts[index] += play_game(stub, hosted, deadline)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(CLIENT_THREADS)]
    start = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return sum(counts) / (time.perf_counter() - start)


def play_game(stub: rpc.GameEngineServiceStub, hosted: bool, deadline: float) -> int:
    """Play one game (until its end or ``deadline``); the moves made."""
    dealt = stub.NewGame(api.NewGameRequest(seats=SEATS, options=ONE_HAND, host=hosted))
    game: dict[str, Any] = {"table_id": dealt.table_id} if hosted else {"state": dealt.state}
    status, revision, moves = dealt.status, 0, 0
    while not status.finished and time.perf_counter() < deadline:
        seat = status.seats_to_act[0]
        meta = ((TOKEN_KEY, dealt.seat_tokens[seat]),)
        actions = stub.ListLegalActions(
            api.ListLegalActionsRequest(seat=seat, **game), metadata=meta
        ).actions
        request = api.ApplyActionRequest(action=actions[0], table_revision=revision, **game)
        answer = stub.ApplyAction(request, metadata=meta)
        if not hosted:
            game = {"state": answer.state}
        status, revision, moves = answer.status, answer.table_revision, moves + 1
    return moves


# ----------------------------------------------------------------------------- fan-out
def fanout(target: str, watched: str, door: str, supervisor: int, settings: Settings) -> None:
    """Many tables of four watchers on one worker, watching through ``door`` at ``watched``:
    the time from a move (sent to ``target``) to its last watcher."""
    tables = FANOUT_TABLES[0] if settings.quick else FANOUT_TABLES[1]
    moves = FANOUT_MOVES[0] if settings.quick else FANOUT_MOVES[1]
    with grpc.insecure_channel(target) as channel:
        stub = rpc.GameEngineServiceStub(channel)
        dealt = [
            stub.NewGame(api.NewGameRequest(seats=SEATS, options=ONE_HAND, host=True))
            for _ in range(tables)
        ]
        watchers = subprocess.Popen(
            [sys.executable, "-m", "bench.table_watchers", watched, str(PER_CONNECTION[door])],
            cwd=Path(__file__).resolve().parent.parent,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert watchers.stdin is not None
        assert watchers.stderr is not None
        listed = [[d.table_id, list(d.seat_tokens)] for d in dealt]
        watchers.stdin.write(json.dumps(listed) + "\n")
        watchers.stdin.flush()
        said = watchers.stderr.readline().strip()
        if said != "ready":
            raise RuntimeError(f"the watchers did not start: {said}")
        worker = worker_pid(supervisor)
        open_mb = rss_mb(worker)
        sent = play_across(stub, dealt, moves)
        after_mb = rss_mb(worker)
        expected = SEATS * (tables + len(sent))  # the views the streams start with, the moves
        out, _ = watchers.communicate(f"{expected}\n", timeout=120)
    arrivals: dict[tuple[int, int], list[int]] = {}
    for index, revision, at in json.loads(out):
        arrivals.setdefault((index, revision), []).append(at)
    latencies = sorted(
        (max(arrivals[key]) - at) / 1e6
        for key, at in sent.items()
        if len(arrivals.get(key, ())) == SEATS
    )
    missing = len(sent) - len(latencies)
    print(
        f"fan-out, {tables} tables x {SEATS} watchers on one worker's {door} port, {len(sent)} "
        f"moves: request "
        f"to last watcher p50 {quantile(latencies, 0.5):.1f} ms, p99 "
        f"{quantile(latencies, 0.99):.1f} ms, max {latencies[-1]:.1f} ms"
        + (f", {missing} moves not seen by every watcher" if missing else "")
    )
    print(f"worker memory: {open_mb:.0f} MB with every stream open, {after_mb:.0f} MB after")


def play_across(
    stub: rpc.GameEngineServiceStub, dealt: Sequence[api.NewGameResponse], moves: int
) -> dict[tuple[int, int], int]:
    """Apply ``moves`` moves one after the other, a table at a time in turn; when each was sent
    (``time.monotonic_ns``), by table and revision."""
    statuses = [d.status for d in dealt]
    revisions = [0] * len(dealt)
    sent: dict[tuple[int, int], int] = {}
    index = 0
    for _ in range(moves):
        for _ in range(len(dealt)):
            index = (index + 1) % len(dealt)
            if not statuses[index].finished:
                break
        else:
            break
        seat = statuses[index].seats_to_act[0]
        meta = ((TOKEN_KEY, dealt[index].seat_tokens[seat]),)
        table = dealt[index].table_id
        actions = stub.ListLegalActions(
            api.ListLegalActionsRequest(table_id=table, seat=seat), metadata=meta
        ).actions
        started = time.monotonic_ns()
        answer = stub.ApplyAction(
            api.ApplyActionRequest(
                table_id=table, action=actions[0], table_revision=revisions[index]
            ),
            metadata=meta,
        )
        statuses[index], revisions[index] = answer.status, answer.table_revision
        sent[index, answer.table_revision] = started
    return sent


def worker_pid(supervisor: int) -> int:
    """The pid of the one worker of the server whose supervisor is ``supervisor``: its largest
    child (the other is multiprocessing's resource tracker)."""
    children = Path(f"/proc/{supervisor}/task/{supervisor}/children").read_text().split()
    return max(map(int, children), key=rss_mb, default=supervisor)


def rss_mb(pid: int) -> float:
    """The resident memory of ``pid`` in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def quantile(values: Sequence[float], share: float) -> float:
    """The ``share`` quantile of sorted ``values`` (nan for none)."""
    if len(values) < 2:
        return values[0] if values else float("nan")
    return statistics.quantiles(values, n=100, method="inclusive")[round(share * 100) - 1]
