"""The arena (``python -m bench.arena``, ``make arena``): a quick run prints every match's table;
its figures show it works, not how strong a bot is."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from bench.arena import MATCHES, Match, interval, play_game, summarise

ROOT = Path(__file__).resolve().parents[2]
RUN_SECONDS = 300  # bound on the whole quick run
ROW = re.compile(
    r"^  (\w+)\s+(\d+\.\d)% ± +(\d+\.\d|inf)%\s+(-?\d+\.\d) ± +(\d+\.\d|inf)"
    r"\s+(\d+\.\d)\s+(\d+\.\d)$"
)


class TestFigures:
    """The arithmetic of the table."""

    def test_the_interval_is_two_standard_errors(self) -> None:
        """A mean comes with ±1.96 standard errors; one sample has no interval."""
        mean, half = interval([0.0, 1.0, 0.0, 1.0])
        assert mean == pytest.approx(0.5)
        assert half == pytest.approx(1.96 * (1 / 3) ** 0.5 / 2)
        assert interval([3.0])[1] == float("inf")

    def test_a_team_game_gives_each_team_one_policy(self) -> None:
        """In Sequence Numbers at 4 seats the lineup names two teams; a win is the team's,
        shared by its seats, and the shares of the policies sum to at most one game."""
        match = Match("sequence_numbers", 4, ("heuristic", "random"), 2, 1, 0)
        results = [play_game(match, index) for index in range(match.games)]
        for result in results:
            assert sum(result.wins.values()) <= 1.0 + 1e-9
            assert set(result.wins) == {"heuristic", "random"}
        summary = summarise(match, results)
        assert [row.policy for row in summary] == ["heuristic", "random"]

    def test_a_lineup_must_fit_the_sides(self) -> None:
        """A lineup with a policy count that is not the game's side count is refused."""
        match = Match("up_or_down", 3, ("heuristic", "random"), 1, 1, 0)
        with pytest.raises(ValueError, match="one policy for each of 3 sides"):
            play_game(match, 0)


@pytest.mark.slow
def test_a_quick_run_prints_every_match() -> None:
    """``--quick`` plays a few games of every published match with a small search budget, on
    two processes, and prints a table per match: a row per policy with its win rate, mean
    score, mean time a move and slowest move."""
    done = subprocess.run(
        [sys.executable, "-m", "bench.arena", "--quick", "--iterations", "2", "--workers", "2"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=RUN_SECONDS,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    for game, seats, lineup, _games in MATCHES:
        assert f"{game} {seats} seats: {' v '.join(lineup)} (2 games)" in done.stdout
    rows = [line for line in done.stdout.splitlines() if ROW.match(line)]
    assert len(rows) == sum(len(set(lineup)) for _, _, lineup, _ in MATCHES)
    for row in rows:
        mean_ms, slowest_ms = (float(figure) for figure in ROW.findall(row)[0][-2:])
        assert slowest_ms >= mean_ms, row
    assert done.stdout.rstrip().splitlines()[-1].startswith("done in ")
