"""docs/operations.md lists every setting of the server, each once, with its flag, its
environment variable and its default, as ``service.config`` defines them."""

from __future__ import annotations

import re
from dataclasses import fields
from pathlib import Path

from service.config import DERIVED, Settings, env_name

ROOT = Path(__file__).resolve().parents[2]
ROW = re.compile(r"^\| `--([a-z0-9-]+)` +\| `(ORDO_[A-Z0-9_]+)` +\| ([^|]+?) +\|", re.MULTILINE)


def documented() -> dict[str, tuple[str, str]]:
    """Each setting row of the operations docs: the setting, its variable and its default."""
    text = (ROOT / "docs" / "operations.md").read_text(encoding="utf-8")
    rows = ROW.findall(text)
    names = [flag.replace("-", "_") for flag, _, _ in rows]
    assert len(names) == len(set(names)), "a setting is listed twice"
    return {flag.replace("-", "_"): (variable, default) for flag, variable, default in rows}


def shown(value: object) -> str:
    """A default as the table writes it."""
    if value == "":
        return "(none)"
    if isinstance(value, bool):
        return f"`{str(value).lower()}`"
    return f"`{value}`"


class TestSettingsTable:
    """The settings table and the settings agree."""

    def test_every_setting_has_its_row(self) -> None:
        """The table's settings are exactly the server's (derived ones aside)."""
        settings = {each.name for each in fields(Settings) if each.name not in DERIVED}
        assert set(documented()) == settings

    def test_each_row_names_the_variable_and_default(self) -> None:
        """Each row's variable is ORDO_ and the setting's name, its default the setting's."""
        defaults = Settings()
        for name, (variable, default) in documented().items():
            assert variable == env_name(name)
            assert default == shown(getattr(defaults, name)), name
