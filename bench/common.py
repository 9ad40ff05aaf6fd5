"""What every benchmark shares: the run settings, the games to cover, seeded random playouts,
timing loops and plain-text tables.

Nothing here names a game: the games come from ``engines.registry.ENGINES`` and their messages
from ``service.codecs.CODECS``, so a newly registered game is benchmarked with no code change.
"""

from __future__ import annotations

import os
import platform
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import metadata
from typing import Any

from google.protobuf.internal import api_implementation

from engines.base import GameEngine
from engines.prng import Rng
from engines.registry import ENGINES
from ordo.v1 import common_pb2 as common
from ordo.v1 import engine_service_pb2 as api
from service.codecs import CODECS
from service.codecs.base import Codec
from service.config import available_cpus

Engine = GameEngine[Any, Any, Any, Any]

TYPICAL_SEATS = 4  # benchmark every game at this seat count, clamped to its seat range
MAX_ACTIONS_PER_GAME = 100_000  # a playout longer than this is cut off and reported
ROUNDS = 5  # playouts are timed in rounds; the best round is the least disturbed by other work
CALL_ROUNDS = 7  # the same for the timings of single calls


@dataclass(frozen=True, slots=True)
class Settings:
    """How much to measure: every benchmark scales its work from these."""

    quick: bool
    games: tuple[str, ...]
    seconds: float  # per measured point (a game's playouts, one RPC concurrency)

    @property
    def bot_games(self) -> int:
        """Seeded games per game for the heuristic-vs-random comparison."""
        return 200 if self.quick else 1_000

    @property
    def recorded_games(self) -> int:
        """Random playouts recorded per game for the per-call and RPC measurements."""
        return 4 if self.quick else 16

    @property
    def rpc_rounds(self) -> int:
        """Rounds per RPC point: each server measured once a round, in turn (see
        ``bench.rpc.measure_rounds``), for about a second a round, at least 4 (2 with
        ``--quick``). A longer point gives more rounds, not longer ones: the median ratio
        settles as rounds are added, while a longer round only averages more of the
        machine's bursts of other work into it."""
        least = 2 if self.quick else 4
        return max(least, round(self.seconds))

    @property
    def call_seconds(self) -> float:
        """Time spent on each table of per-call timings (validate, codec …), per game."""
        return self.seconds


@dataclass(frozen=True, slots=True)
class Game:
    """A registered game with its codec and the seat count it is benchmarked at."""

    id: str
    engine: Engine
    codec: Codec
    seats: int


def games(ids: Sequence[str] = ()) -> list[Game]:
    """The registered games (those named in ``ids``, or all), each with its codec."""
    chosen = list(ids) or sorted(ENGINES)
    unknown = [gid for gid in chosen if gid not in ENGINES]
    if unknown:
        raise SystemExit(f"unknown games {unknown}; registered: {', '.join(sorted(ENGINES))}")
    found = []
    for gid in chosen:
        engine = ENGINES[gid]
        info = engine.info
        seats = min(max(TYPICAL_SEATS, info.min_seats), info.max_seats)
        found.append(Game(gid, engine, CODECS[gid], seats))
    return found


# --------------------------------------------------------------------- playouts
@dataclass(frozen=True, slots=True)
class Step:
    """One action of a recorded playout: the state before it, the seat and the action."""

    state: Any
    seat: int
    action: Any


def random_playout(game: Game, seed: int) -> Iterator[Step]:
    """Play one seeded game with uniformly random legal actions, yielding every step.

    In a simultaneous game the acting seat is drawn among the seats to act, so every order of
    arrival is exercised.
    """
    engine = game.engine
    state = engine.new_game(game.seats, seed, engine.default_options())
    rng = Rng(seed)
    for _ in range(MAX_ACTIONS_PER_GAME):
        to_act = engine.seats_to_act(state)
        if not to_act:
            return
        seat = rng.choice(to_act)
        action = rng.choice(engine.legal_actions(state, seat))
        yield Step(state, seat, action)
        state = engine.apply(state, seat, action).state


def mid_game_steps(game: Game, playouts: int) -> list[Step]:
    """The steps of the middle half of ``playouts`` seeded games: typical mid-game states."""
    steps: list[Step] = []
    for seed in range(1, playouts + 1):
        played = list(random_playout(game, seed))
        steps.extend(played[len(played) // 4 : len(played) * 3 // 4 + 1])
    return steps


def encode_state(game: Game, state: Any) -> common.GameState:
    """The wire state (envelope and the game's message), built as the server builds it."""
    return common.GameState(
        rules_version=state.rules_version,
        revision=state.revision,
        **{game.id: game.codec.encode_state(state)},
    )


def apply_request(game: Game, step: Step) -> bytes:
    """The serialized ``ApplyActionRequest`` of one recorded step."""
    action = common.Action(seat=step.seat, **{game.id: game.codec.encode_action(step.action)})
    request = api.ApplyActionRequest(state=encode_state(game, step.state), action=action)
    return request.SerializeToString()


# --------------------------------------------------------------------- timing
def micros_per_call(
    cases: Sequence[tuple[Callable[[Any], object], Sequence[Any]]],
    seconds: float,
    rounds: int = CALL_ROUNDS,
) -> list[float]:
    """The time per call of each ``(call, inputs)`` case, in µs: the least mean over rounds.

    The cases take turns within each round, so a burst of other work on the machine disturbs
    them alike; each turn passes over its inputs until its share of ``seconds`` (wall time) is
    used up. The time per call is CPU time of this thread: time spent waiting for a core does
    not count, though a busy machine still slows the calls down (shared caches).
    """
    best = [float("inf")] * len(cases)
    share = seconds / (rounds * len(cases))
    for _ in range(rounds):
        for index, (call, inputs) in enumerate(cases):
            calls = 0
            deadline = time.perf_counter() + share
            start = time.thread_time()
            while True:
                for item in inputs:
                    call(item)
                calls += len(inputs)
                if time.perf_counter() >= deadline:
                    break
            best[index] = min(best[index], (time.thread_time() - start) / calls)
    return [value * 1e6 for value in best]


# --------------------------------------------------------------------- output
def table(headers: Sequence[str], rows: Sequence[Sequence[object]], left: int = 1) -> str:
    """A plain-text table: the first ``left`` columns left-aligned, the others right-aligned."""
    cells = [[str(cell) for cell in row] for row in rows]
    widths = [max(len(headers[i]), *(len(row[i]) for row in cells)) for i in range(len(headers))]

    def line(row: Sequence[str]) -> str:
        parts = [
            cell.ljust(width) if index < left else cell.rjust(width)
            for index, (cell, width) in enumerate(zip(row, widths, strict=True))
        ]
        return "  ".join(parts).rstrip()

    rule = "  ".join("-" * width for width in widths)
    return "\n".join([line(list(headers)), rule, *(line(row) for row in cells)])


def section(title: str) -> None:
    """Print a section title."""
    print()
    print(title)
    print("=" * len(title))


def header(settings: Settings, chosen: Sequence[Game]) -> str:
    """What was measured where: machine, versions, games and run length."""
    loads = " / ".join(f"{load:.1f}" for load in os.getloadavg())
    lines = [
        f"Ordo benchmarks, {datetime.now(UTC):%Y-%m-%d %H:%M} UTC"
        + (" (--quick)" if settings.quick else ""),
        f"machine:  {available_cpus()} cores ({os.cpu_count()} online), {platform.machine()}, "
        f"{platform.system()} {platform.release()}",
        f"          load average {loads} at start: a shared machine, other work competes",
        f"python:   {platform.python_implementation()} {sys.version.split()[0]}; "
        f"grpcio {metadata.version('grpcio')}; protobuf {metadata.version('protobuf')} "
        f"({api_implementation.Type()})",
        "games:    " + ", ".join(f"{game.id} ({game.seats} seats)" for game in chosen),
        f"timing:   {settings.seconds:g} s per measured point (--seconds). In-process figures: CPU "
        "time of the",
        "          measuring thread, the best of several rounds. RPC figures: wall time.",
    ]
    return "\n".join(lines)


def fmt_int(value: float) -> str:
    """A count with thousands separators."""
    return f"{value:,.0f}"


def fmt_us(value: float) -> str:
    """Microseconds with one decimal."""
    return f"{value:.1f}"
