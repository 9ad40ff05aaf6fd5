"""The environments' package stands beside the server: it plays the engines in-process and the
server through the Python client, and never reaches into the server's own packages; neither the
engines nor the client know of it, nor of the libraries it brings."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
AGENTS = ROOT / "clients" / "agents" / "ordo_agents"
#: Per package: the top-level modules it must never import.
FORBIDDEN = {
    AGENTS: {"service", "tests", "bench"},
    ROOT / "engines": {"ordo_agents", "numpy", "gymnasium", "pettingzoo", "ordo", "service"},
    ROOT / "clients" / "python" / "ordo": {"ordo_agents", "numpy", "gymnasium", "pettingzoo"},
}


def imported_roots(path: Path) -> set[str]:
    """The top-level names of every absolute import in a module, at its top or inside."""
    roots = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            roots.add(node.module.split(".")[0])
    return roots


class TestImports:
    """What each package imports."""

    @pytest.mark.parametrize("package", sorted(FORBIDDEN), ids=lambda path: path.name)
    def test_no_forbidden_imports(self, package: Path) -> None:
        """No module of the package imports what it must not."""
        modules = sorted(package.rglob("*.py"))
        assert modules
        offenders = {
            str(path.relative_to(ROOT)): sorted(imported_roots(path) & FORBIDDEN[package])
            for path in modules
            if imported_roots(path) & FORBIDDEN[package]
        }
        assert offenders == {}
