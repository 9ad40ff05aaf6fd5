"""The examples of docs/agents.md run as written: the play loop, and the evaluation against the
bots (over a few games)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np

from ordo_agents import MASK

DOC = Path(__file__).resolve().parents[2] / "docs" / "agents.md"


def python_blocks() -> list[str]:
    """The doc's Python code blocks."""
    text = DOC.read_text(encoding="utf-8")
    return re.findall(r"^```python\n(.*?)^```", text, flags=re.MULTILINE | re.DOTALL)


class TestAgentsDoc:
    """The doc's code."""

    def test_the_play_loop_plays_a_game_to_its_end(self) -> None:
        """The first example plays a whole game: every agent has terminated and left."""
        play, _ = python_blocks()
        scope: dict[str, Any] = {}
        exec(compile(play, str(DOC), "exec"), scope)
        assert scope["env"].agents == []

    def test_the_evaluation_gives_intervals(self) -> None:
        """The second example's evaluate returns a win rate and a mean score with intervals."""
        _, evaluation = python_blocks()
        scope: dict[str, Any] = {}
        exec(compile(evaluation, str(DOC), "exec"), scope)
        rng = np.random.default_rng(1)

        def policy(observation: dict[str, np.ndarray]) -> int:
            return int(rng.choice(np.flatnonzero(observation[MASK])))

        (win, win_half), (score, score_half) = scope["evaluate"](policy, games=4)
        assert 0.0 <= win <= 1.0
        assert score > 0
        assert win_half >= 0
        assert score_half >= 0
