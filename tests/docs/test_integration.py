"""The Python examples of docs/integration.md run as written against a real server."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path
from typing import Any

from ordo import Client
from tests.conftest import Doors

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
    block = next(example for example in examples() if "def choices" in example)
    exec(compile(block, str(GUIDE), "exec"), namespace)
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


def test_the_seat_token_example_runs_against_a_server_that_requires_them(seated: Doors) -> None:
    """The seat tokens example, pointed at a server that requires seat tokens, deals a game with
    two bots, sees seat 0's view and moves a bot with the person's token."""
    block = next(example for example in examples() if "seat_tokens" in example)
    assert DEFAULT_ADDRESS in block
    namespace: dict[str, Any] = {}
    exec(
        compile(block.replace(DEFAULT_ADDRESS, seated.grpc_address), str(GUIDE), "exec"), namespace
    )
    assert namespace["game"].seat_tokens[1:] == ["", ""]
    assert namespace["view"].view.six_nimmt.hand
    assert namespace["moved"].state.revision == 1
