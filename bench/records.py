"""Game records: how fast a record replays, and how large a whole game's record is.

1. The engine replaying a game's moves (``apply`` alone, as a replay does before it encodes
   anything), in moves per second on one core, against a target of ``REPLAY_TARGET``.
2. The ``ReplayGame`` handler in-process on a whole game's record: checking every digest (each
   state serialized, sealed with keys, and hashed), then also encoding a seat's view and events
   at every step, on plain and on sealed states; in moves per second.
3. The size of a whole 6 nimmt! game to 66 points (heuristic bots at every seat) as a record
   file (proto JSON, one move a line), for each seat count, against ``SIZE_TARGET`` bytes.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Sequence
from typing import Any

from bench.common import Game, Settings, fmt_int, random_playout, section, table
from bench.engine import BENCH_KEY
from engines.registry import ENGINES
from ordo import records
from ordo.v1 import common_pb2 as common
from ordo.v1 import engine_service_pb2 as api
from service.calls.servicer import GameEngineServicer
from service.telemetry.observe import CallRecord
from service.trust.sealing import Sealer

REPLAY_TARGET = 20_000  # moves a second the engine replays on one core
SIZE_TARGET = 20_000  # bytes of a whole 6 nimmt! game's record as JSON
SIZE_GAME = "six_nimmt"
SIZE_SEEDS = 10  # games per seat count for the record sizes (3 with --quick)


def run(settings: Settings, chosen: Sequence[Game]) -> None:
    """Every table of this benchmark."""
    section("Game records: replay speed (one core) and record size")
    engine_replay(settings, chosen)
    handler_replay(settings, chosen)
    record_sizes(settings)


def engine_replay(settings: Settings, chosen: Sequence[Game]) -> None:
    """Moves per second of the engine replaying whole games' moves."""
    rows = []
    for game in chosen:
        playouts = [list(random_playout(game, seed)) for seed in range(1, 5)]
        games = [
            (steps[0].state, [(step.seat, step.action) for step in steps]) for steps in playouts
        ]
        moves = sum(len(played) for _, played in games)
        apply = game.engine.apply
        best = float("inf")
        deadline = time.perf_counter() + settings.seconds
        while time.perf_counter() < deadline:
            start = time.thread_time()
            for first, played in games:
                state = first
                for seat, action in played:
                    state = apply(state, seat, action).state
            best = min(best, time.thread_time() - start)
        rate = moves / best
        rows.append(
            (
                game.id,
                game.seats,
                fmt_int(moves / len(games)),
                fmt_int(rate),
                f"{rate / REPLAY_TARGET:.1f}",
            )
        )
    target = fmt_int(REPLAY_TARGET)
    print(f"\nThe engine replaying whole random games (apply alone), moves/s (target {target}):")
    print(table(("game", "seats", "moves/game", "moves/s", "x target"), rows))


def recorded(
    servicer: GameEngineServicer, game: Game, seed: int, as_actions: bool = False
) -> api.GameRecord:
    """A whole game of heuristic bots through ``servicer``, recorded as a client records it:
    bot moves, or (``as_actions``) the same moves as the actions the bots suggest."""
    started = servicer.NewGame(
        api.NewGameRequest(
            seats=game.seats, seed=seed, options=common.GameOptions(**{game.id: {}})
        ),
        CallRecord("NewGame"),
    )
    record = api.GameRecord(format_version=records.FORMAT_VERSION, initial_state=started.state)
    state, status = started.state, started.status
    while not status.finished:
        bot = api.BotMove(seat=status.seats_to_act[0], policy="heuristic")
        request = api.ApplyActionRequest(state=state, bot=bot)
        if as_actions:
            asked = api.SuggestActionRequest(state=state, seat=bot.seat, policy=bot.policy)
            action = servicer.SuggestAction(asked, CallRecord("SuggestAction")).action
            request = api.ApplyActionRequest(state=state, action=action)
        answer = api.ApplyActionResponse.FromString(
            servicer.ApplyAction(request, CallRecord("ApplyAction"))
        )
        state, status = answer.state, answer.status
        record.moves.add(**({"action": action} if as_actions else {"bot": bot}))
        record.move_digests += records.state_digest(state)[: records.DIGEST_BYTES]
    record.final_digest = records.state_digest(state)
    return record


def handler_replay(settings: Settings, chosen: Sequence[Game]) -> None:
    """Moves per second of the ReplayGame handler, checking digests, with and without views."""
    rows = []
    for game in chosen:
        row: list[Any] = [game.id]
        for sealer in (None, Sealer([BENCH_KEY])):
            servicer = GameEngineServicer(sealer=sealer)
            record = recorded(servicer, game, 1)
            for viewer in (None, common.Viewer(seat=0)):
                request = api.ReplayGameRequest(record=record, viewer=viewer, page_size=1_000)
                seconds = _best(servicer, request, settings)
                row.append(fmt_int(len(record.moves) / seconds))
        rows.append(row)
    print("\nThe ReplayGame handler on a whole heuristic game, moves/s (every digest checked):")
    print(
        table(
            (
                "game",
                "plain: verify",
                "plain: + seat 0's views",
                "sealed: verify",
                "sealed: + views",
            ),
            rows,
        )
    )


def record_sizes(settings: Settings) -> None:
    """The record file's size of whole 6 nimmt! games to 66 points, per seat count."""
    engine = ENGINES[SIZE_GAME]
    seeds = range(1, (3 if settings.quick else SIZE_SEEDS) + 1)
    servicer = GameEngineServicer()
    rows = []
    for seats in engine.info.seat_counts:
        game = Game(SIZE_GAME, engine, None, seats)  # type: ignore[arg-type]  # no codec needed
        row: list[Any] = [seats]
        for as_actions in (False, True):
            made = [recorded(servicer, game, seed, as_actions) for seed in seeds]
            sizes = [len(records.to_json(record).encode()) for record in made]
            if not as_actions:
                row.append(fmt_int(statistics.mean(len(record.moves) for record in made)))
            row += [fmt_int(statistics.mean(sizes)), fmt_int(max(sizes))]
        rows.append(row)
    print(
        f"\nA whole {SIZE_GAME} game to 66 points as a record file (JSON), heuristic bots, "
        f"{len(seeds)} games per seat count (target: under {fmt_int(SIZE_TARGET)} bytes):"
    )
    print("(the same games recorded as bot moves, and as the actions the bots chose)")
    headers = ("seats", "moves", "bots: mean", "bots: max", "actions: mean", "actions: max")
    print(table(headers, rows, left=0))


def _best(
    servicer: GameEngineServicer, request: api.ReplayGameRequest, settings: Settings
) -> float:
    """The least CPU time of a replay over the rounds that fit in the run's time."""
    best = float("inf")
    deadline = time.perf_counter() + settings.seconds
    while True:
        start = time.thread_time()
        servicer.ReplayGame(request, CallRecord("ReplayGame"))
        best = min(best, time.thread_time() - start)
        if time.perf_counter() >= deadline:
            return best
