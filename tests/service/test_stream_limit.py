"""The per-connection limit on calls in flight: calls past it are refused cleanly, as
UNAVAILABLE (HTTP/2 REFUSED_STREAM), never cancelled without a word."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import Iterator

import grpc
import pytest

from ordo import AsyncClient, OrdoError
from service.config import Settings
from service.process.worker import MAX_CONCURRENT_STREAMS, create_server

REFUSED = "error code 7"  # how gRPC words a stream reset with REFUSED_STREAM
OK = "OK"


@pytest.fixture
def target() -> Iterator[str]:
    """A worker on a free loopback port."""
    server, port, _health = create_server(
        Settings(host="127.0.0.1", port=0, workers=1, metrics_port=0)
    )
    server.start()
    yield f"127.0.0.1:{port}"
    server.stop(None)


def burst(target: str, calls: int) -> Counter[str]:
    """Send ``calls`` NewGame calls at once on one connection, without retries; how each ended:
    OK, or its code and whether the stream was refused."""

    async def main() -> Counter[str]:
        async with AsyncClient(target, timeout=60.0, retries=0) as ordo:
            await ordo.list_games()  # the connection is up and its settings known

            async def one(seed: int) -> str:
                try:
                    await ordo.new_game("six_nimmt", 4, seed)
                except OrdoError as error:
                    refused = " refused" if REFUSED in error.message else ""
                    return f"{error.code.name}{refused}"
                return OK

            return Counter(await asyncio.gather(*(one(seed) for seed in range(1, calls + 1))))

    return asyncio.run(main())


def test_calls_up_to_the_limit_on_one_connection_all_succeed(target: str) -> None:
    """As many calls at once on one connection as the limit: every one is answered."""
    assert burst(target, MAX_CONCURRENT_STREAMS) == {OK: MAX_CONCURRENT_STREAMS}


def test_calls_past_the_limit_are_refused_as_unavailable(target: str) -> None:
    """Three times the limit at once on one connection: those past it are refused as
    UNAVAILABLE (REFUSED_STREAM: never served, so a client retries them); none is cancelled."""
    ended = burst(target, 3 * MAX_CONCURRENT_STREAMS)
    assert set(ended) <= {OK, f"{grpc.StatusCode.UNAVAILABLE.name} refused"}, ended
    assert ended[OK] >= MAX_CONCURRENT_STREAMS
    assert ended[f"{grpc.StatusCode.UNAVAILABLE.name} refused"] > 0, ended
