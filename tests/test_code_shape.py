"""The code stays readable in pieces: no module of the server or the engines grows past about 600
lines (tests/engines/test_layout.py says the engines' rule) and no function past about 80, so
that each reads on a screen or two."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("service", "engines")
MAX_MODULE_LINES = 650  # "about 600"
MAX_FUNCTION_LINES = 85  # "about 80"
MODULES = sorted(path for package in PACKAGES for path in (ROOT / package).rglob("*.py"))


def function_lengths(tree: ast.Module) -> dict[str, int]:
    """The length in lines of every function and method of a module, by name."""
    return {
        node.name: (node.end_lineno or node.lineno) - node.lineno + 1
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    }


@pytest.mark.parametrize("module", MODULES, ids=lambda path: str(path.relative_to(ROOT)))
class TestShape:
    """Every module of ``service/`` and ``engines/``."""

    def test_no_long_module(self, module: Path) -> None:
        """A module of about 600 lines at most."""
        assert module.read_text(encoding="utf-8").count("\n") <= MAX_MODULE_LINES

    def test_no_long_function(self, module: Path) -> None:
        """Functions of about 80 lines at most."""
        lengths = function_lengths(ast.parse(module.read_text(encoding="utf-8")))
        assert {name: n for name, n in lengths.items() if n > MAX_FUNCTION_LINES} == {}
