"""The ``ApplyAction`` handler with seat tokens required, and with the revision fence, beside the
handler on plain and on sealed states (``python -m bench --only sealed`` prints it too).

The recorded requests are sealed as a server with keys returns them, each of a game of its own
(a match id of its own), and each sent with the token of the seat that acts. Every column has
the state cache off, as for states another replica returned (players' games come back to any
replica): a plain state is decoded and validated, a sealed one opened. With the fence, the
store is a ``redis-server`` on loopback, started here on a free port (Debian's package; the
table says so when there is none): the first pass over the requests moves each game on, every
later pass is recognised as a retry, one script call to the store either way.
"""

from __future__ import annotations

import contextlib
import hashlib
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from bench.common import (
    Game,
    Settings,
    apply_request,
    fmt_us,
    micros_per_call,
    mid_game_steps,
    table,
)
from bench.engine import BENCH_KEY, Context, apply_handler, sealed_request
from ordo.v1 import engine_service_pb2 as api
from service.calls.servicer import GameEngineServicer
from service.trust.revision_fence import RevisionFence
from service.trust.sealing import Sealer
from service.trust.seat_tokens import HEADER, MATCH_ID_BYTES, SeatTokens
from service.trust.seats import seating

READY = b"Ready to accept connections"
IDLE_SECONDS = 600.0


@contextlib.contextmanager
def redis_server() -> Iterator[str | None]:
    """The URL of a ``redis-server`` of this benchmark's own, on a free loopback port (None when
    none is installed); stopped at the end."""
    executable = shutil.which("redis-server")
    if executable is None:
        yield None
        return
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with tempfile.TemporaryDirectory(prefix="ordo-bench-redis-") as folder:
        command = [
            executable, "--port", str(port), "--bind", "127.0.0.1", "--dir", folder,
            "--save", "", "--appendonly", "no",
        ]  # fmt: skip
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        try:
            assert process.stdout is not None
            for line in process.stdout:
                if READY in line:
                    break
            yield f"redis://127.0.0.1:{port}/0"
        finally:
            process.terminate()
            process.wait()


def seated_request(
    game: Game, raw: bytes, index: int, sealer: Sealer, tokens: SeatTokens
) -> tuple[bytes, str]:
    """A recorded request with its state sealed in a game of its own, and the token of the
    seat that acts."""
    match_id = hashlib.sha256(b"%s %d" % (game.id.encode(), index)).digest()[:MATCH_ID_BYTES]
    sealed = sealed_request(game, raw, sealer, seating(match_id, ()))
    seat = api.ApplyActionRequest.FromString(raw).action.seat
    return sealed, tokens.issue(match_id, seat)


def run(settings: Settings, chosen: Sequence[Game]) -> None:
    """The handler (no observers, the state cache off) on plain states, on sealed ones, with
    seat tokens required, and with tokens and the fence, on mid-game requests."""
    print(
        "\nThe handler (no observers) with seat tokens required, and with tokens and the revision\n"
        "fence, beside plain and sealed states, µs per call, the state cache off (states new\n"
        "here, as players' games reach any replica). 'tokens': each request checked against\n"
        "its seat's token (HMAC-SHA256) before the state is opened. '+fence': and the game\n"
        "moved on in a redis-server on loopback (one script call)."
    )
    sealer = Sealer([BENCH_KEY])
    tokens = SeatTokens([BENCH_KEY])
    with redis_server() as url:
        fence = RevisionFence(url, IDLE_SECONDS) if url else None
        rows = []
        for game in chosen:
            steps = mid_game_steps(game, settings.recorded_games)
            plain = [apply_request(game, step) for step in steps]
            seated = [
                seated_request(game, raw, index, sealer, tokens) for index, raw in enumerate(plain)
            ]
            context = Context()
            cases: list[tuple[Callable[[Any], object], Sequence[Any]]] = [
                (apply_handler(GameEngineServicer(0)), plain),
                (apply_handler(GameEngineServicer(0, sealer)), [raw for raw, _ in seated]),
                (token_handler(tokens, sealer, None, context), seated),
            ]
            if fence is not None:
                cases.append((token_handler(tokens, sealer, fence, context), seated))
            measured = micros_per_call(cases, settings.call_seconds)
            sealed = measured[1]
            row = [game.id, *(fmt_us(value) for value in measured)]
            row += [f"{value / sealed:.2f}" for value in measured[2:]]
            rows.append(row)
        if fence is not None:
            fence.close()
    headers = ["game", "plain", "sealed", "tokens"]
    headers += ["tokens+fence", "tokens/sealed", "+fence/sealed"] if url else ["tokens/sealed"]
    print(table(headers, rows))
    if url is None:
        print("(no redis-server installed: the fence is not measured)")


def token_handler(
    tokens: SeatTokens, sealer: Sealer, fence: RevisionFence | None, context: Context
) -> Callable[[tuple[bytes, str]], object]:
    """The handler of a servicer that requires seat tokens (and fences with ``fence``), called
    with a request and its token."""
    servicer = GameEngineServicer(0, sealer, True, tokens, require_seat_tokens=True, fence=fence)
    handle = apply_handler(servicer, calls=context)

    def served(item: tuple[bytes, str]) -> object:
        context.metadata = ((HEADER, item[1]),)
        return handle(item[0])

    return served
