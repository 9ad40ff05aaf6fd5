"""The shape of the engines: every game is a package with the same parts in the same places, and
no module grows past about 600 lines without saying why it must be one piece."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

from engines import registry

ENGINES = Path(__file__).resolve().parents[2] / "engines"
GAMES = sorted(registry.ENGINES)
#: The names every game package exports.
EXPORTS = ["ENGINE", "GAME_ID", "Action", "Options", "State", "View"]
#: The parts of every game package; ``rules`` is a module or, when it is long, a package, and the
#: consistency check ``check`` a module beside it or in it.
PARTS = ("__init__.py", "engine.py", "bots.py", "search.py", "data.py")
MAX_LINES = 650  # "about 600": a module a little over it needs no reason
ONE_PIECE = "one piece"  # the words of a docstring that says why a longer module is not split


class TestGamePackages:
    """Every registered game is a package of the same shape."""

    @pytest.mark.parametrize("game", GAMES)
    def test_the_package_has_every_part(self, game: str) -> None:
        """The package holds __init__, engine, rules (a module or a package), check (beside
        the rules or in them), bots, search and data."""
        package = ENGINES / game
        assert all((package / part).is_file() for part in PARTS)
        rules = package / "rules"
        assert rules.with_suffix(".py").is_file() or (rules / "__init__.py").is_file()
        assert (package / "check.py").is_file() or (rules / "check.py").is_file()
        check = importlib.import_module(
            f"engines.{game}.check" if (package / "check.py").is_file() else f"engines.{game}.rules"
        )
        assert callable(check.validate)

    @pytest.mark.parametrize("game", GAMES)
    def test_the_package_exports_the_same_names(self, game: str) -> None:
        """The package exports ENGINE, GAME_ID, Action, Options, State and View, and no more."""
        package = importlib.import_module(f"engines.{game}")
        assert package.__all__ == EXPORTS
        assert game == package.GAME_ID

    @pytest.mark.parametrize("game", GAMES)
    def test_the_registered_engine_is_the_one_of_engine_py(self, game: str) -> None:
        """The registry lists the ENGINE that the game's engine.py builds."""
        engine = importlib.import_module(f"engines.{game}.engine")
        assert registry.get(game) is engine.ENGINE
        assert importlib.import_module(f"engines.{game}").ENGINE is engine.ENGINE


class TestModuleLength:
    """Modules stay short enough to read."""

    @pytest.mark.parametrize(
        "module", sorted(ENGINES.rglob("*.py")), ids=lambda path: str(path.relative_to(ENGINES))
    )
    def test_a_long_module_says_why_it_is_one_piece(self, module: Path) -> None:
        """A module over about 600 lines says in its docstring why it must be one piece."""
        text = module.read_text(encoding="utf-8")
        if text.count("\n") > MAX_LINES:
            assert ONE_PIECE in (ast.get_docstring(ast.parse(text)) or "")
