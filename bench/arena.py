"""``python -m bench.arena`` (``make arena``): bots play whole games against each other.

A *match* is a game, a seat count and a lineup: one policy per side, where a side is a seat, or
a whole team in a team game (the game's ``teams`` option, read from its state: every seat of a
team gets its team's policy). Game ``g`` of a match deals from its own seed and turns the lineup
``g`` places, so that over the games every policy sits at every side. Each policy's *win rate*
is its share of the wins: a game's win is split evenly among the sides that share it (a draw,
without winners, gives no side a win), and a policy with several sides gets its sides' mean. Its
*mean score* is its seats' mean score, in the game's own unit (penalty points in 6 nimmt!,
where lower is better). Both come with a 95 % confidence interval, ±1.96 standard errors of
the per-game figures. ``ms/move`` is the mean CPU time a policy took to choose a move and
``slowest`` its longest (CPU time, not wall time: on a shared machine the two differ, and the
budget is about the CPU).

Every move comes from the engine's own ``suggest`` with a seed derived from the game's seed, its
revision and the seat, so a run is the same on any machine; the games are spread over worker
processes (``--workers``, one per core by default). With no ``--match`` the arena plays the
matches ``MATCHES`` lists (the published run); ``--quick`` plays each for a few games.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engines.base import GameEngine
from engines.prng import Rng, derive_seed
from engines.registry import ENGINES, get
from engines.search import Budget

Engine = GameEngine[Any, Any, Any, Any]

Z_95 = 1.96  # standard errors either side of a mean for a 95 % interval
DEFAULT_GAMES = 200
QUICK_GAMES = 2
MAX_ACTIONS = 100_000  # a game longer than this is a bug, not a result
MS_PER_SECOND = 1000

#: The published run: (game, seats, lineup, games), each game at 2 seats and at its most (and
#: Sequence Numbers at every seat count, whole teams at 4 and 6), the quickest matches first
#: (each prints as it ends). 6 nimmt! plays at 4 seats against three of each other policy, the
#: heuristic over 400 games, and at 10 seats for the time a move there.
MATCHES: tuple[tuple[str, int, tuple[str, ...], int], ...] = (
    ("fora_de_ordem", 2, ("search", "heuristic"), 200),
    ("fora_de_ordem", 6, ("search", *("heuristic",) * 5), 100),
    ("up_or_down", 2, ("search", "heuristic"), 100),
    ("up_or_down", 6, ("search", *("heuristic",) * 5), 100),
    ("six_nimmt", 10, ("search", *("heuristic",) * 9), 20),
    ("sequence_numbers", 2, ("search", "heuristic"), 200),
    ("sequence_numbers", 3, ("search", "heuristic", "heuristic"), 100),
    ("sequence_numbers", 4, ("search", "heuristic"), 100),
    ("sequence_numbers", 6, ("search", "heuristic"), 100),
    ("six_nimmt", 4, ("search", "random", "random", "random"), 200),
    ("six_nimmt", 4, ("search", "heuristic", "heuristic", "heuristic"), 400),
)


@dataclass(frozen=True, slots=True)
class Match:
    """One game at one seat count with one policy per side, played ``games`` times."""

    game: str
    seats: int
    lineup: tuple[str, ...]
    games: int
    seed: int
    iterations: int  # the search budget; 0 for each game's default

    def label(self) -> str:
        """The match as the table names it."""
        sides = " v ".join(self.lineup)
        return f"{self.game} {self.seats} seats: {sides}"


@dataclass(frozen=True, slots=True)
class GameResult:
    """One game: per policy, its share of the win, its seats' mean score, its moves, their
    time and the time of its slowest move."""

    wins: dict[str, float]
    scores: dict[str, float]
    moves: dict[str, int]
    seconds: dict[str, float]
    slowest: dict[str, float]


def teams_of(engine: Engine, state: Any, seats: int) -> int:
    """The sides of a game: its teams when its state has a ``teams`` option, else its seats."""
    teams = getattr(getattr(state, "options", None), "teams", 0)
    return teams if isinstance(teams, int) and 0 < teams < seats else seats


def play_game(match: Match, index: int) -> GameResult:
    """Play game ``index`` of ``match`` with its rotated lineup."""
    engine = get(match.game)
    seed = derive_seed(match.seed, index, match.seats)
    state = engine.new_game(match.seats, seed, engine.default_options())
    sides = teams_of(engine, state, match.seats)
    if len(match.lineup) != sides:
        raise ValueError(f"{match.label()}: the lineup needs one policy for each of {sides} sides")
    lineup = match.lineup[index % sides :] + match.lineup[: index % sides]
    policy_of = [lineup[seat % sides] for seat in range(match.seats)]
    budget = Budget(match.iterations) if match.iterations else None
    moves = dict.fromkeys(match.lineup, 0)
    seconds = dict.fromkeys(match.lineup, 0.0)
    slowest = dict.fromkeys(match.lineup, 0.0)
    for _ in range(MAX_ACTIONS):
        status = engine.status(state)
        if status.finished:
            break
        seat = status.seats_to_act[0]  # simultaneous seats choose one after another
        policy = policy_of[seat]
        rng = Rng(derive_seed(seed, state.revision, seat))
        started = time.process_time()
        action = engine.suggest(state, seat, policy, rng, budget)
        took = time.process_time() - started
        seconds[policy] += took
        slowest[policy] = max(slowest[policy], took)
        moves[policy] += 1
        state = engine.apply(state, seat, action).state
    else:
        raise RuntimeError(f"{match.label()}: game {index} did not end")
    outcome = status.outcome
    assert outcome is not None
    winning_sides = {seat % sides for seat in outcome.winners}
    wins = dict.fromkeys(match.lineup, 0.0)
    for side in winning_sides:
        wins[lineup[side]] += 1 / len(winning_sides) / lineup.count(lineup[side])
    scores: dict[str, list[int]] = {policy: [] for policy in match.lineup}
    for seat, score in enumerate(outcome.scores):
        scores[policy_of[seat]].append(score)
    return GameResult(
        wins=wins,
        scores={policy: sum(got) / len(got) for policy, got in scores.items()},
        moves=moves,
        seconds=seconds,
        slowest=slowest,
    )


def _play(job: tuple[Match, int]) -> GameResult:
    return play_game(*job)


def interval(samples: Sequence[float]) -> tuple[float, float]:
    """The mean of ``samples`` and the half-width of its 95 % confidence interval."""
    count = len(samples)
    mean = sum(samples) / count
    if count < 2:
        return mean, math.inf
    variance = sum((x - mean) ** 2 for x in samples) / (count - 1)
    return mean, Z_95 * math.sqrt(variance / count)


@dataclass(frozen=True, slots=True)
class PolicyResult:
    """A policy's figures over the games of a match."""

    policy: str
    win_rate: tuple[float, float]
    mean_score: tuple[float, float]
    ms_per_move: float
    slowest_ms: float


def summarise(match: Match, results: Sequence[GameResult]) -> list[PolicyResult]:
    """Each policy's win rate and mean score with their intervals, in lineup order."""
    summary = []
    for policy in dict.fromkeys(match.lineup):
        moves = sum(result.moves[policy] for result in results)
        seconds = sum(result.seconds[policy] for result in results)
        summary.append(
            PolicyResult(
                policy,
                interval([result.wins[policy] for result in results]),
                interval([result.scores[policy] for result in results]),
                seconds / moves * MS_PER_SECOND if moves else 0.0,
                max(result.slowest[policy] for result in results) * MS_PER_SECOND,
            )
        )
    return summary


def run(matches: Sequence[Match], workers: int) -> list[tuple[Match, list[PolicyResult]]]:
    """Play every match, its games spread over ``workers`` processes, printing as they end."""
    jobs = [(match, index) for match in matches for index in range(match.games)]
    results: dict[Match, list[GameResult]] = {match: [] for match in matches}
    report = []
    with multiprocessing.get_context("spawn").Pool(workers) as pool:
        for (match, _), result in zip(jobs, pool.imap(_play, jobs), strict=True):
            results[match].append(result)
            if len(results[match]) == match.games:
                summary = summarise(match, results[match])
                print(table(match, summary), flush=True)
                report.append((match, summary))
    return report


def table(match: Match, summary: Sequence[PolicyResult]) -> str:
    """A match's figures as plain text."""
    lines = [f"\n{match.label()} ({match.games} games)"]
    lines.append(
        f"  {'policy':<10} {'win rate':>18} {'mean score':>18} {'ms/move':>9} {'slowest':>9}"
    )
    for row in summary:
        win, win_ci = row.win_rate
        score, score_ci = row.mean_score
        lines.append(
            f"  {row.policy:<10} {win:>10.1%} ± {win_ci:>5.1%} "
            f"{score:>10.1f} ± {score_ci:>5.1f} {row.ms_per_move:>9.1f} {row.slowest_ms:>9.1f}"
        )
    return "\n".join(lines)


def parse_match(text: str, games: int, seed: int, iterations: int) -> Match:
    """``game:seats:policy,policy,...`` as a match of ``games`` games."""
    try:
        game, seats, lineup = text.split(":")
        match = Match(game, int(seats), tuple(lineup.split(",")), games, seed, iterations)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r}: write a match as game:seats:policy,policy,... (one policy per side)"
        ) from None
    if game not in ENGINES:
        raise argparse.ArgumentTypeError(f"{text!r}: no game {game!r}; games: {sorted(ENGINES)}")
    return match


def main(argv: Sequence[str] | None = None) -> None:
    """Parse the options, play the matches, print each one's table as it ends."""
    parser = argparse.ArgumentParser(
        prog="python -m bench.arena",
        description="Ordo arena: bot policies play whole games; win rates and mean scores.",
    )
    parser.add_argument(
        "--match",
        action="append",
        default=[],
        help="game:seats:policy,policy,... (one policy per seat, or per team); repeatable "
        "(default: the published matches)",
    )
    parser.add_argument(
        "--games",
        type=int,
        help=f"games per match (default: the published counts, {DEFAULT_GAMES} with --match; "
        f"--quick {QUICK_GAMES})",
    )
    parser.add_argument("--quick", action="store_true", help="a few games per match: a smoke run")
    parser.add_argument("--seed", type=int, default=1, help="the seed every game's seed comes from")
    parser.add_argument(
        "--iterations", type=int, default=0, help="the search budget (default: each game's own)"
    )
    parser.add_argument(
        "--workers", type=int, default=os.cpu_count() or 1, help="processes (default: one a core)"
    )
    args = parser.parse_args(argv)
    games = args.games or (QUICK_GAMES if args.quick else DEFAULT_GAMES)
    if games < 1 or args.workers < 1 or args.iterations < 0:
        parser.error("--games and --workers must be positive, --iterations at least 0")
    try:
        if args.match:
            matches = [parse_match(text, games, args.seed, args.iterations) for text in args.match]
        else:
            matches = [
                Match(
                    game,
                    seats,
                    lineup,
                    games if args.quick or args.games else published,
                    args.seed,
                    args.iterations,
                )
                for game, seats, lineup, published in MATCHES
            ]
    except argparse.ArgumentTypeError as error:
        parser.error(str(error))
    started = time.perf_counter()
    run(matches, args.workers)
    print(f"\ndone in {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
