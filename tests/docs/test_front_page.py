"""The README is a front page: one screen of what Ordo is and how to start, whose examples run
as written against a real server."""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path

from engines import registry
from tests.node import BUILT, node_executable, run_node

README = Path(__file__).resolve().parents[2] / "README.md"
DEFAULT_ADDRESS = "localhost:50051"
MAX_LINES = 200


def blocks(language: str) -> list[str]:
    """The README's code blocks in one language."""
    text = README.read_text(encoding="utf-8")
    return re.findall(rf"^```{language}\n(.*?)^```", text, flags=re.MULTILINE | re.DOTALL)


def test_the_readme_is_a_front_page() -> None:
    """At most 200 lines, naming the two commands, the picture of the playground and every
    game's rules."""
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= MAX_LINES
    for needed in ("make run", "make test", "docs/playground.png", "docs/integration.md"):
        assert needed in text
    for game in registry.ENGINES:
        assert f"docs/rules/{game}.md" in text


def test_the_python_tour_runs(server_address: str) -> None:
    """The Python example, pointed at the test server, plays a turn and shows the refusal."""
    [example] = blocks("python")
    assert DEFAULT_ADDRESS in example
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        exec(compile(example.replace(DEFAULT_ADDRESS, server_address), str(README), "exec"), {})
    assert "INVALID_ARGUMENT CARD_NOT_IN_HAND" in output.getvalue()


def test_the_typescript_tour_runs(server_address: str, tmp_path: Path) -> None:
    """The JavaScript example runs with Node.js against the test server (its package name
    resolved to the built client) and prints the seats to act."""
    node = node_executable()
    [example] = blocks("js")
    assert DEFAULT_ADDRESS in example
    script = tmp_path / "tour.mjs"
    script.write_text(
        example.replace(DEFAULT_ADDRESS, server_address).replace(
            '"@ordo/client"', json.dumps((BUILT / "src" / "index.js").as_uri())
        )
    )
    done = run_node(node, str(script))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[ 0, 1, 2, 3 ]"
