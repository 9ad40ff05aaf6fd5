"""The examples of the Python clients in docs/clients.md run as written against a real server."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "docs" / "clients.md"
SECTION = "## With the Python client"
DEFAULT_ADDRESS = "localhost:50051"


def _examples() -> list[str]:
    """The Python blocks of the section on the Python client."""
    text = README.read_text(encoding="utf-8")
    start = text.index(SECTION)
    section = text[start : text.index("\n## ", start)]
    return re.findall(r"^```python\n(.*?)^```", section, flags=re.MULTILINE | re.DOTALL)


def test_the_section_has_both_clients() -> None:
    """The section shows Client and AsyncClient."""
    examples = _examples()
    assert len(examples) == 2
    assert "Client(" in examples[0]
    assert "AsyncClient(" in examples[1]


@pytest.mark.parametrize("index", [0, 1], ids=["client", "asyncio"])
def test_example_runs(index: int, server_address: str) -> None:
    """The example, pointed at the test server, runs to its end without an error."""
    example = _examples()[index]
    assert DEFAULT_ADDRESS in example
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        exec(compile(example.replace(DEFAULT_ADDRESS, server_address), str(README), "exec"), {})
    printed = output.getvalue()
    assert ("CARD_NOT_IN_HAND" if index == 0 else "[10, 10, 10, 10]") in printed
