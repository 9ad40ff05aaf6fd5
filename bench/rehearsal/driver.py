"""The rehearsal's Python driver: callers playing games through the balancer with ``ordo.Client``
over gRPC, each call counted under the phase it was made in.

It runs on the client host and takes its orders on standard input, one a line: ``phase NAME``
(count the next calls under NAME), ``probe`` (each caller's next step sends an older state
again), ``epoch N`` (games dealt from now on belong to epoch N; it answers ``drained N`` once no
game of an earlier epoch is in play) and ``end`` (stop, print the figures as one JSON line
``report {...}``, and write each game's last revision to ``--games``).

A caller deals a game (two seats, seat tokens required), then for the seat to act lists the
legal actions, picks one and applies it, until the game ends or has had ``MAX_MOVES`` moves.
Every ``PROBE_EVERY`` moves (and when told to) it sends the state before the last move again
with another action: the revision fence must refuse it (``STATE_SUPERSEDED``); one accepted is
counted. Its client retries nothing by itself: the caller retries a failed call the way
``ordo.Client`` would (the retryable codes with no answer of the service, and the service's
``RETRIED_REASONS``), counting each failure by reason, so that the report shows what failed and
that every retried call went through in the end.

``python -m bench.rehearsal.driver --audit STORE GAMES...`` compares the games' last revisions,
as their players saw them, with the revision store's: one lower in the store is a move lost,
one higher a move applied twice.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from bench.rehearsal.table_play import play_table
from ordo import Client, OrdoError
from ordo.client import RETRIED_REASONS, RETRY_AFTER_KEY, RETRYABLE
from ordo.v1 import common_pb2 as common

MAX_MOVES = 40  # a game played longer is left (it counts as played): games stay short
PROBE_EVERY = 7  # moves between two stale states sent again
ATTEMPT_SECONDS = 10.0  # one attempt's deadline: longer than the balancer's server timeout
GIVE_UP_SECONDS = 90.0  # a retried call that has not gone through by then failed for good
BACKOFF_SECONDS = 0.05
MAX_BACKOFF_SECONDS = 2.0
SUPERSEDED = "STATE_SUPERSEDED"
GAMES = ("six_nimmt", "sequence_numbers", "up_or_down", "fora_de_ordem")
SEATS = 2
STORE_KEY_PREFIX = b"ordo:revision:"
T = TypeVar("T")


@dataclass
class PhaseFigures:
    """What the callers saw in one phase."""

    calls: int = 0
    failures: dict[str, int] = field(default_factory=dict)  # every failed attempt, by reason
    samples: dict[str, str] = field(default_factory=dict)  # the first message of each reason
    refused: dict[str, int] = field(default_factory=dict)  # failures not retried, by reason
    retried: int = 0  # calls that needed more than one attempt
    gave_up: int = 0  # retried calls that never went through
    moves: int = 0
    games: int = 0
    probes: int = 0
    stale_accepted: int = 0
    revision_skips: int = 0  # answers whose revision is not the state's next
    tables: int = 0  # hosted tables played (to their end, or left when the run ended)
    table_moves_lost: int = 0  # moves applied that the table's record lacks
    table_moves_twice: int = 0  # moves in the table's record beyond those applied
    watchers: int = 0
    watchers_missed: int = 0  # watchers that missed a revision of their table
    watch_failures: dict[str, int] = field(default_factory=dict)  # streams cut, by reason
    latencies_ms: list[float] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        """The figures as JSON values (latencies kept whole: the report takes percentiles)."""
        return {
            "calls": self.calls,
            "failures": self.failures,
            "samples": self.samples,
            "refused": self.refused,
            "retried": self.retried,
            "gave_up": self.gave_up,
            "moves": self.moves,
            "games": self.games,
            "probes": self.probes,
            "stale_accepted": self.stale_accepted,
            "revision_skips": self.revision_skips,
            "tables": self.tables,
            "table_moves_lost": self.table_moves_lost,
            "table_moves_twice": self.table_moves_twice,
            "watchers": self.watchers,
            "watchers_missed": self.watchers_missed,
            "watch_failures": self.watch_failures,
            "latencies_ms": [round(value, 2) for value in self.latencies_ms],
        }


def reason_of(error: OrdoError) -> str:
    """A failure's name in the report: its service reason, else its status code."""
    return error.reason or error.code.name


def retryable(error: OrdoError) -> bool:
    """Whether ``ordo.Client`` would send the call again after ``error``."""
    if error.answered:
        return error.reason in RETRIED_REASONS
    return error.code in RETRYABLE


class Driver:
    """The callers, their shared figures and the orders they follow."""

    def __init__(self, target: str, callers: int, seed: int, tables: int = 0) -> None:
        self.target = target
        self.callers = callers
        self.table_callers = tables
        self.hosting = threading.Event()  # whether table callers deal new tables
        self.hosting.set()
        self.seed = seed
        self.lock = threading.Lock()
        self.phase = "start"
        self.figures: dict[str, PhaseFigures] = {}
        self.stopping = threading.Event()
        self.probe_round = 0
        self.epoch = 0
        self.playing: dict[int, int] = {}  # caller -> epoch of its game in play
        self.tables_in_play: set[int] = set()  # table callers with a table in play
        self.finished_games: list[dict[str, Any]] = []

    def figures_now(self) -> PhaseFigures:
        """The current phase's figures (hold the lock)."""
        return self.figures.setdefault(self.phase, PhaseFigures())

    def call(self, send: Callable[[], T], *, stale: bool = False) -> T | OrdoError:
        """Send a call until it goes through or fails for good; a stale probe's expected
        refusal is returned as its error."""
        started = time.monotonic()
        attempt = 0
        rng = random.Random()
        while True:
            try:
                result = send()
            except OrdoError as error:
                failure = error
            else:
                self.count(started, attempt, None, stale=stale)
                return result
            if stale and failure.reason == SUPERSEDED:
                self.count(started, attempt, failure, stale=stale)
                return failure
            with self.lock:
                figures = self.figures_now()
                name = reason_of(failure)
                figures.failures[name] = figures.failures.get(name, 0) + 1
                figures.samples.setdefault(name, failure.message[:200])
            if not retryable(failure) or time.monotonic() - started > GIVE_UP_SECONDS:
                self.count(started, attempt, failure, stale=stale)
                return failure
            pause = rng.uniform(0, min(MAX_BACKOFF_SECONDS, BACKOFF_SECONDS * 2**attempt))
            asked = failure.metadata.get(RETRY_AFTER_KEY, "")
            if asked.isdigit():
                pause = max(pause, int(asked) / 1000)
            time.sleep(pause)
            attempt += 1

    def count(
        self, started: float, attempt: int, failure: OrdoError | None, *, stale: bool
    ) -> None:
        """Count one call as it ends: its latency when it went through."""
        with self.lock:
            figures = self.figures_now()
            figures.calls += 1
            figures.retried += attempt > 0
            if failure is None:
                figures.latencies_ms.append((time.monotonic() - started) * 1000)
                figures.stale_accepted += stale
            elif not (stale and failure.reason == SUPERSEDED):
                name = reason_of(failure)
                figures.refused[name] = figures.refused.get(name, 0) + 1
                figures.gave_up += attempt > 0 and retryable(failure)

    def count_move(self, *, skipped: bool) -> None:
        """Count one move applied, and whether its answer skipped a revision."""
        with self.lock:
            figures = self.figures_now()
            figures.moves += 1
            figures.revision_skips += skipped

    def count_table(
        self,
        *,
        moves: int,
        recorded: int | None,
        missed: int,
        watchers: int,
        watch_failures: list[str],
    ) -> None:
        """Count a table played: its record against its moves (when it ended), its watchers."""
        with self.lock:
            figures = self.figures_now()
            figures.tables += 1
            if recorded is not None:
                figures.table_moves_lost += max(moves - recorded, 0)
                figures.table_moves_twice += max(recorded - moves, 0)
            figures.watchers += watchers
            figures.watchers_missed += missed
            for name in watch_failures:
                figures.watch_failures[name] = figures.watch_failures.get(name, 0) + 1

    def run_table_caller(self, number: int) -> None:
        """Play hosted tables while hosting is on, until told to stop."""
        rng = random.Random(self.seed * 1000 + 500 + number)
        client = Client(self.target, retries=0, timeout=ATTEMPT_SECONDS)
        key = -1 - number  # table callers' keys in ``playing``, beside the game callers'
        try:
            while not self.stopping.is_set():
                if not self.hosting.wait(timeout=0.1):
                    continue
                with self.lock:
                    self.playing[key] = self.epoch
                    self.tables_in_play.add(number)
                play_table(self, client, rng, GAMES[rng.randrange(len(GAMES))], SEATS)
                with self.lock:
                    self.playing.pop(key, None)
                    self.tables_in_play.discard(number)
        finally:
            client.close()

    def run_caller(self, number: int) -> None:
        """Play games until told to stop."""
        rng = random.Random(self.seed * 1000 + number)
        client = Client(self.target, retries=0, timeout=ATTEMPT_SECONDS)
        try:
            while not self.stopping.is_set():
                with self.lock:
                    self.playing[number] = self.epoch
                self.play(client, rng, GAMES[rng.randrange(len(GAMES))])
                with self.lock:
                    self.playing.pop(number, None)
        finally:
            client.close()

    def play(self, client: Client, rng: random.Random, game: str) -> None:
        """Play one game of ``game`` from its deal to its end (or ``MAX_MOVES``)."""
        dealt = self.call(lambda: client.new_game(game, SEATS))
        if isinstance(dealt, OrdoError):
            return
        tokens = list(dealt.seat_tokens)
        state, status = dealt.state, dealt.status
        previous: tuple[common.GameState, int, list[common.Action], int] | None = None
        probed = self.probe_round
        moves = 0
        while not status.finished and moves < MAX_MOVES and not self.stopping.is_set():
            if previous is not None and (moves % PROBE_EVERY == 0 or probed != self.probe_round):
                probed = self.probe_round
                self.probe(client, tokens, previous)
            seat = status.seats_to_act[0]
            listed = self.call(
                partial(client.list_legal_actions, state, seat, seat_token=tokens[seat])
            )
            if isinstance(listed, OrdoError):
                break
            actions = list(listed.actions)
            choice = rng.randrange(len(actions))
            sent = state
            applied = self.call(
                partial(client.apply_action, sent, actions[choice], seat_token=tokens[seat])
            )
            if isinstance(applied, OrdoError):
                break
            moves += 1
            self.count_move(skipped=applied.state.revision != sent.revision + 1)
            previous = (sent, seat, actions, choice)
            state, status = applied.state, applied.status
        with self.lock:
            self.figures_now().games += 1
            self.finished_games.append(
                {"phase": self.phase, "match_id": state.match_id.hex(), "revision": state.revision}
            )

    def probe(
        self,
        client: Client,
        tokens: Sequence[str],
        previous: tuple[common.GameState, int, list[common.Action], int],
    ) -> None:
        """Send the state before the last move again, with another of its legal actions."""
        state, seat, actions, choice = previous
        others = [action for index, action in enumerate(actions) if index != choice]
        if not others:
            return
        with self.lock:
            self.figures_now().probes += 1
        self.call(
            lambda: client.apply_action(state, others[0], seat_token=tokens[seat]), stale=True
        )

    def drained(self, epoch: int) -> bool:
        """Whether no game dealt before ``epoch`` is in play."""
        with self.lock:
            return all(played >= epoch for played in self.playing.values())

    def switch_tables(self, *, on: bool) -> None:
        """Deal tables again, or deal no more and say ``tables off`` once none is in play."""
        if on:
            self.hosting.set()
            return
        self.hosting.clear()
        while True:
            with self.lock:
                if not self.tables_in_play:
                    break
            time.sleep(0.05)
        print("tables off", flush=True)

    def follow_orders(self) -> None:
        """Read the orders on standard input until ``end``."""
        for line in sys.stdin:
            word, _, argument = line.strip().partition(" ")
            if word == "phase":
                with self.lock:
                    self.phase = argument
            elif word == "probe":
                self.probe_round += 1
            elif word == "epoch":
                epoch = int(argument)
                with self.lock:
                    self.epoch = epoch
                while not self.drained(epoch):
                    time.sleep(0.05)
                print(f"drained {epoch}", flush=True)
            elif word == "tables":
                self.switch_tables(on=argument == "on")
            elif word == "end":
                return


def drive(arguments: argparse.Namespace) -> None:
    """Run the callers until ``end``, then report."""
    driver = Driver(arguments.target, arguments.callers, arguments.seed, arguments.tables)
    threads = [
        threading.Thread(target=driver.run_caller, args=(number,), daemon=True)
        for number in range(arguments.callers)
    ]
    threads += [
        threading.Thread(target=driver.run_table_caller, args=(number,), daemon=True)
        for number in range(arguments.tables)
    ]
    for thread in threads:
        thread.start()
    print("started", flush=True)
    driver.follow_orders()
    driver.stopping.set()
    for thread in threads:
        thread.join()
    with Path(arguments.games).open("w") as sink:
        sink.writelines(json.dumps(game) + "\n" for game in driver.finished_games)
    report = {phase: figures.summary() for phase, figures in driver.figures.items()}
    print("report " + json.dumps(report), flush=True)


def audit(store: str, paths: Sequence[str]) -> dict[str, dict[str, int]]:
    """Per phase, the moves lost and applied twice: each game's last revision as its players
    saw it against the store's."""
    import redis  # noqa: PLC0415 - the audit alone needs the store's client

    client: Any = redis.Redis.from_url(store, socket_timeout=5)
    figures: dict[str, dict[str, int]] = {}
    for path in paths:
        games = [json.loads(line) for line in Path(path).read_text().splitlines() if line]
        for game in games:
            entry = client.get(STORE_KEY_PREFIX + bytes.fromhex(game["match_id"]))
            stored = int(entry.split(b" ", 1)[0]) if entry else 0
            phase = figures.setdefault(game["phase"], {"games_audited": 0, "lost": 0, "twice": 0})
            phase["games_audited"] += 1
            phase["lost"] += max(game["revision"] - stored, 0)
            phase["twice"] += max(stored - game["revision"], 0)
    client.close()
    return figures


def main(argv: Sequence[str] | None = None) -> None:
    """Drive, or audit."""
    parser = argparse.ArgumentParser(prog="python -m bench.rehearsal.driver")
    parser.add_argument("--target", default="localhost:50051")
    parser.add_argument("--callers", type=int, default=6)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--tables", type=int, default=0, help="callers playing hosted tables")
    parser.add_argument("--games", default="games-python.jsonl")
    parser.add_argument("--audit", nargs="+", metavar=("STORE", "GAMES"))
    arguments = parser.parse_args(argv)
    if arguments.audit:
        store, *paths = arguments.audit
        print(json.dumps(audit(store, paths)), flush=True)
    else:
        drive(arguments)


if __name__ == "__main__":
    main()
