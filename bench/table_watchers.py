"""The watchers of ``bench.tables``' fan-out: a process of their own, that follows many tables at
once with ``grpc.aio`` and notes when each revision reached each watcher.

    python -m bench.table_watchers TARGET < tables.json > arrivals.json

reads the tables (``[[table_id, [token, ...]], ...]``: one watcher per token) from its input,
opens every stream, prints ``ready`` on its error output once each has given its first message,
then notes each message's arrival (``time.monotonic_ns``: one clock for every process of the
machine) until its input's next line, and prints the arrivals as JSON:
``[[table index, revision, nanoseconds], ...]``.
"""

from __future__ import annotations

import asyncio
import json
import sys
import time

import grpc

from ordo.v1 import engine_service_pb2 as api
from ordo.v1 import engine_service_pb2_grpc as rpc

SEAT_TOKEN_KEY = "ordo-seat-token"
# A channel is one connection, and the server takes at most 1,000 streams on one.
STREAMS_PER_CHANNEL = 500


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
    """Follow one table as one seat, noting each message's arrival."""
    stream = stub.WatchGame(
        api.WatchGameRequest(table_id=table_id), metadata=((SEAT_TOKEN_KEY, token),)
    )
    first = True
    try:
        async for message in stream:
            arrivals.append((index, message.revision, time.monotonic_ns()))
            if first:
                first = False
                arrived(count, everyone, started)
    except grpc.aio.AioRpcError as error:
        print(f"a stream failed: {error.code().name} {error.details()}", file=sys.stderr)
        if first:
            arrived(count, everyone, started)


def arrived(count: list[int], everyone: int, started: asyncio.Event) -> None:
    """One more stream has given its first message (or failed before one)."""
    count[0] += 1
    if count[0] == everyone:
        started.set()


async def main(target: str) -> None:
    tables: list[tuple[str, list[str]]] = json.loads(sys.stdin.readline())
    everyone = sum(len(tokens) for _, tokens in tables)
    channels = [grpc.aio.insecure_channel(target, options=[("grpc.use_local_subchannel_pool", 1)])
                for _ in range(max(1, -(-everyone // STREAMS_PER_CHANNEL)))]  # fmt: skip
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
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    for task in tasks:
        task.cancel()
    for channel in channels:
        await channel.close(None)
    json.dump(arrivals, sys.stdout)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
