"""The Python example of docs/records.md runs as written against a real server, and its record
file reads back as it says."""

from __future__ import annotations

import contextlib
import io
import os
import re
from pathlib import Path

import pytest

from ordo import records

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "records.md"
DEFAULT_ADDRESS = "localhost:50051"


def test_the_recorder_example_saves_and_replays_a_game(
    server_address: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The example records a whole game, saves it, loads it and replays it to its last state,
    printing what its comment says."""
    (example,) = re.findall(r"^```python\n(.*?)^```", GUIDE.read_text(), re.MULTILINE | re.DOTALL)
    comment = re.search(r"# (True \d+)$", example, re.MULTILINE)
    assert comment is not None
    monkeypatch.chdir(tmp_path)
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        exec(compile(example.replace(DEFAULT_ADDRESS, server_address), str(GUIDE), "exec"), {})
    assert output.getvalue() == comment.group(1) + "\n"
    saved = records.load(tmp_path / "game.ordo.json")
    assert len(saved.move_digests) == records.DIGEST_BYTES * len(saved.moves)
    assert os.path.getsize(tmp_path / "game.ordo.json") > 0
