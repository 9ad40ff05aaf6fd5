"""The watchers of ``bench.tables``' fan-out: a process of their own, that follows many tables at
once with ``grpc.aio`` and notes when each revision reached each watcher.

    python -m bench.table_watchers TARGET STREAMS_PER_CONNECTION < tables.json > arrivals.json

reads the tables (``[[table_id, [token, ...]], ...]``: one watcher per token) from its input,
opens every stream, prints ``ready`` on its error output once each has given its first message,
then notes each message's arrival (``time.monotonic_ns``: one clock for every process of the
machine) until as many arrived as its input's next line says (or ``SETTLE_SECONDS`` passed),
and prints the arrivals as JSON:
``[[table index, revision, nanoseconds], ...]``.
"""

from __future__ import annotations

import asyncio
import json
import random
import sys
import time

import grpc

from ordo.v1 import engine_service_pb2 as api
from ordo.v1 import engine_service_pb2_grpc as rpc

SEAT_TOKEN_KEY = "ordo-seat-token"
SETTLE_SECONDS = 60.0  # the longest wait for the last messages once the moves are made
OPEN_ATTEMPTS = 8  # tries to open a stream refused on its way (its pause doubling)
# What a stream opened among thousands at once may meet, as any client's call does: gRPC cancels
# the calls it received past its queue of calls not yet taken (CANCELLED), a store's connections
# all busy for a second (UNAVAILABLE). The clients retry both (ordo.tables).
AGAIN = frozenset({grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED})


async def follow(
    stub: rpc.GameEngineServiceStub,
    index: int,
    table_id: str,
    token: str,
    arrivals: list[tuple[int, int, int]],
    started: asyncio.Event,
    count: list[int],
    everyone: int,
) -> None:
    """Follow one table as one seat, noting each message's arrival; a stream refused on its way
    while thousands open at once is opened again after a pause, as the clients do."""
    chance = random.Random(index)
    first = True
    for attempt in range(OPEN_ATTEMPTS):
        stream = stub.WatchGame(
            api.WatchGameRequest(table_id=table_id), metadata=((SEAT_TOKEN_KEY, token),)
        )
        try:
            async for message in stream:
                arrivals.append((index, message.revision, time.monotonic_ns()))
                if first:
                    first = False
                    arrived(count, everyone, started)
            return
        except grpc.aio.AioRpcError as error:
            if not first or error.code() not in AGAIN:
                print(f"a stream failed: {error.code().name} {error.details()}", file=sys.stderr)
                if first:
                    arrived(count, everyone, started)
                return
        await asyncio.sleep(chance.uniform(0, 0.05 * 2**attempt))
    arrived(count, everyone, started)


def arrived(count: list[int], everyone: int, started: asyncio.Event) -> None:
    """One more stream has given its first message (or failed before one)."""
    count[0] += 1
    if count[0] == everyone:
        started.set()


async def main(target: str, per_channel: int) -> None:
    tables: list[tuple[str, list[str]]] = json.loads(sys.stdin.readline())
    everyone = sum(len(tokens) for _, tokens in tables)
    channels = [grpc.aio.insecure_channel(target, options=[("grpc.use_local_subchannel_pool", 1)])
                for _ in range(max(1, -(-everyone // per_channel)))]  # fmt: skip
    stubs = [rpc.GameEngineServiceStub(channel) for channel in channels]
    arrivals: list[tuple[int, int, int]] = []
    started = asyncio.Event()
    count = [0]
    tasks = []
    for index, (table_id, tokens) in enumerate(tables):
        for token in tokens:
            stub = stubs[len(tasks) % len(stubs)]
            tasks.append(
                asyncio.create_task(
                    follow(stub, index, table_id, token, arrivals, started, count, everyone)
                )
            )
    await started.wait()
    print("ready", file=sys.stderr, flush=True)
    expected = int(await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline))
    deadline = time.monotonic() + SETTLE_SECONDS
    while len(arrivals) < expected and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    for task in tasks:
        task.cancel()
    for channel in channels:
        await channel.close(None)
    json.dump(arrivals, sys.stdout)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], int(sys.argv[2])))
