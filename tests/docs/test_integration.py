"""The Python examples of docs/integration.md run as written against a real server."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path
from typing import Any

from ordo import Client

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "integration.md"
DEFAULT_ADDRESS = "localhost:50051"


def examples() -> list[str]:
    """The Python blocks of the guide, in order."""
    text = GUIDE.read_text(encoding="utf-8")
    return re.findall(r"^```python\n(.*?)^```", text, flags=re.MULTILINE | re.DOTALL)


def test_the_shortest_loop_plays_a_whole_game(server_address: str) -> None:
    """The loop, pointed at the test server, plays 6 nimmt! to its end and prints the outcome."""
    loop = examples()[0]
    assert DEFAULT_ADDRESS in loop
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        exec(compile(loop.replace(DEFAULT_ADDRESS, server_address), str(GUIDE), "exec"), {})
    assert re.fullmatch(r"scores \[(\d+, ){3}\d+\] winners \[\d+(, \d+)*\]\n", output.getvalue())


def test_a_compound_move_is_built_step_by_step(server_address: str) -> None:
    """Choosing the first value offered at every step of an Up or Down? turn ends on exactly one
    legal action, and every step offers only values some legal action has."""
    namespace: dict[str, Any] = {}
    exec(compile(examples()[1], str(GUIDE), "exec"), namespace)
    choices = namespace["choices"]
    with Client(server_address) as ordo:
        game = ordo.new_game("up_or_down", seats=3, seed=5)
        legal = [a.up_or_down for a in ordo.list_legal_actions(game.state, 0).actions]
    assert len(legal) > 1
    chosen: dict[str, int] = {}
    asked = 0
    while (step := choices(legal, chosen)) is not None:
        name, values = step
        assert values == {getattr(action, name) for action in legal if _fits(action, chosen)}
        chosen[name] = min(values)
        asked += 1
    fitting = [action for action in legal if _fits(action, chosen)]
    assert len(fitting) == 1
    assert asked >= 2


def _fits(action: Any, chosen: dict[str, int]) -> bool:
    """Whether an action has every part chosen so far."""
    return all(getattr(action, step) == value for step, value in chosen.items())
