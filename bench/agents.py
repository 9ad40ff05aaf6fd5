"""Environment benchmarks: steps per second of each game's AEC environment (``ordo_agents``), in
this process on one core and over gRPC against a real server.

1. In-process: every seat an agent; a step is the agent's ``last()`` (its observation and action
   mask) and ``step()`` with a uniformly random legal action. The time counted is the CPU time
   of this thread inside those two calls (the random choice, the agent's part, is left out), the
   best of several rounds, ``reset`` included. The baseline, measured in the same run: the
   engine's own random playouts (``bench.engine.play_round``); env / engine is the share of the
   engine's speed the environment keeps. The target is a fixed floor, not a measured baseline.
2. Over gRPC: the same loop with ``server=`` a server started for it (``python -m service``, one
   worker); wall time, as a remote agent waits for its calls. Each step is three calls
   (``GetView``, ``ListLegalActions``, ``ApplyAction``), so its rate is bound by gRPC's cost
   per call, not by the environment.
"""

from __future__ import annotations

import contextlib
import random
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from bench.common import ROUNDS, Game, Settings, fmt_int, section, table
from bench.engine import play_round
from bench.rpc import HOST, running_server
from ordo.client import Client
from ordo_agents import MASK, OrdoEnv

TARGET = 20_000  # environment steps per second, in-process, on one core
CALLS_PER_STEP = 3  # GetView, ListLegalActions, ApplyAction


@dataclass(frozen=True, slots=True)
class StepRound:
    """One timed round of environment steps."""

    steps: int
    games: int
    seconds: float


def step_round(env: OrdoEnv, seconds: float, first_seed: int, clock: str) -> StepRound:
    """Play whole games through ``env`` with random legal actions for about ``seconds``;
    ``clock`` "cpu" counts this thread's CPU time inside the environment's calls, "wall" the
    wall time of the whole loop."""
    chooser = random.Random(first_seed)
    now = time.thread_time if clock == "cpu" else time.perf_counter
    steps = games = 0
    spent = 0.0
    seed = first_seed
    deadline = time.perf_counter() + seconds
    started = time.perf_counter()
    while time.perf_counter() < deadline:
        begin = now()
        env.reset(seed=seed)
        spent += now() - begin
        for _agent in env.agent_iter():
            begin = now()
            observation, _, terminated, _, _ = env.last()
            if terminated:
                env.step(None)
                spent += now() - begin
                continue
            spent += now() - begin
            legal = np.flatnonzero(observation[MASK])
            action = int(legal[chooser.randrange(len(legal))])
            begin = now()
            env.step(action)
            spent += now() - begin
            steps += 1
        games += 1
        seed += 1
    if clock == "wall":
        spent = time.perf_counter() - started
    return StepRound(steps, games, spent)


def run(settings: Settings, chosen: Sequence[Game]) -> None:
    """Measure every chosen game's environment in-process, then over gRPC."""
    in_process = in_process_speed(settings, chosen)
    remote_speed(settings, chosen, in_process)


def in_process_speed(settings: Settings, chosen: Sequence[Game]) -> dict[str, float]:
    """Steps/s of each game's environment in this process, beside its engine's actions/s."""
    section("8. Agents: environment steps/s in-process, one thread, CPU time")
    print(
        "ordo_agents' AEC environment, every seat an agent: a step is last() (observation and\n"
        "action mask) and step() with a uniformly random legal action (the choice not counted),\n"
        f"reset included. steps/s: the best of {ROUNDS} rounds; engine: the game's bare random\n"
        "playouts (section 1's loop) in the same run; env/engine: the share of it the environment\n"
        f"keeps. target: {TARGET:,} steps/s on one core."
    )
    rows = []
    rates: dict[str, float] = {}
    for game in chosen:
        env = OrdoEnv(game.id, game.seats)
        share = settings.seconds / ROUNDS
        best = env_best = 0.0
        steps = games = 0
        for index in range(ROUNDS):
            measured = step_round(env, share, 1 + index * 1_000_000, "cpu")
            engine_round = play_round(game, share, 1 + index * 1_000_000)
            best = max(best, measured.steps / measured.seconds)
            env_best = max(env_best, engine_round.actions / engine_round.seconds)
            steps += measured.steps
            games += measured.games
        env.close()
        rates[game.id] = best
        rows.append(
            (
                game.id,
                game.seats,
                fmt_int(best),
                fmt_int(steps / games),
                fmt_int(env_best),
                f"{best / env_best:.2f}",
                f"{best / TARGET:.2f}" + ("" if best >= TARGET else "  below target"),
            )
        )
    headers = ("game", "seats", "steps/s", "steps/game", "engine", "env/engine", "best/target")
    print(table(headers, rows))
    return rates


def remote_speed(settings: Settings, chosen: Sequence[Game], in_process: dict[str, float]) -> None:
    """Steps/s of each game's environment over gRPC, against a server of one worker."""
    section("9. Agents: environment steps/s over gRPC, wall time")
    print(
        "The same loop with server= a real server (python -m service, one worker, on this\n"
        f"machine): {CALLS_PER_STEP} calls a step (GetView, ListLegalActions, ApplyAction).\n"
        "remote/local: the share of the in-process rate (section 8) it keeps."
    )
    rows = []
    with contextlib.ExitStack() as stack:
        folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="ordo-bench-")))
        args = ["-m", "service", "--host", HOST, "--workers", "1", "--metrics-port", "0"]
        server = stack.enter_context(running_server("ordo", [*args, "--http-port", "0"], 1, folder))
        client = stack.enter_context(Client(server.target))
        for game in chosen:
            env = OrdoEnv(game.id, game.seats, server=client)
            measured = step_round(env, settings.seconds, 1, "wall")
            rate = measured.steps / measured.seconds
            rows.append(
                (
                    game.id,
                    game.seats,
                    fmt_int(rate),
                    fmt_int(rate * CALLS_PER_STEP),
                    f"{rate / in_process[game.id]:.3f}",
                )
            )
    print(table(("game", "seats", "steps/s", "calls/s", "remote/local"), rows))
