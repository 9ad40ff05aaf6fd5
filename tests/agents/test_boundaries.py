"""The environments' package stands beside the server: it plays the engines in-process and the
server through the Python client, and never reaches into the server's own packages; neither the
engines nor the client know of it, nor of the libraries it brings."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.clients.test_distribution import imported_roots

ROOT = Path(__file__).resolve().parents[2]
AGENTS = ROOT / "clients" / "agents" / "ordo_agents"
#: Per package: the top-level modules it must never import.
FORBIDDEN = {
    AGENTS: {"service", "tests", "bench"},
    ROOT / "engines": {"ordo_agents", "numpy", "gymnasium", "pettingzoo", "ordo", "service"},
    ROOT / "clients" / "python" / "ordo": {"ordo_agents", "numpy", "gymnasium", "pettingzoo"},
}


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
