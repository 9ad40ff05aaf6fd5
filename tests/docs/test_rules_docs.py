"""The rules for players: each game's doc opens with the summary the web playground shows, and
lists every option the game takes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from engines.registry import ENGINES

RULES = Path(__file__).resolve().parents[2] / "docs" / "rules"
SUMMARY_LINES = 45  # one screen


def section(text: str, heading: str) -> str:
    """The body of a ``## `` section."""
    start = text.index(f"\n## {heading}\n") + len(heading) + 5
    end = text.find("\n## ", start)
    return text[start : end if end >= 0 else len(text)]


@pytest.mark.parametrize("game", sorted(ENGINES))
def test_the_summary_comes_first(game: str) -> None:
    """The first section is ``## Summary``: one screen of plain Markdown (no table, image, link
    or HTML), which the playground extracts at build time."""
    text = (RULES / f"{game}.md").read_text(encoding="utf-8")
    assert re.findall(r"^## .*$", text, flags=re.MULTILINE)[0] == "## Summary"
    summary = section(text, "Summary").strip()
    assert 0 < len(summary.splitlines()) <= SUMMARY_LINES
    assert not re.search(r"^\||!\[|\]\(|<[a-z]", summary, flags=re.MULTILINE)


@pytest.mark.parametrize("game", sorted(ENGINES))
def test_every_option_is_described(game: str) -> None:
    """Every option ListGames names has a row, with its default, in the doc's options table."""
    options = section((RULES / f"{game}.md").read_text(encoding="utf-8"), "Options")
    rows = dict(re.findall(r"^\| `(\w+)` \| ([^|]+) \|", options, flags=re.MULTILINE))
    for option in ENGINES[game].info.options:
        assert option.name in rows, f"{game}: option {option.name} is not described"
        assert option.default in rows[option.name] or rows[option.name].strip() == "none"
