"""The architecture's import contracts (``[tool.importlinter]`` in ``pyproject.toml``) hold, and
they are not a formality: a tree whose engine imports the service, or whose supervising process
loads an engine, breaks them."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")
#: What a copy of the tree needs for the contracts: the four root packages and the config.
PACKAGES = ("engines", "service", "clients/python/ordo", "clients/agents/ordo_agents")
PATHS = ("", "clients/python", "clients/agents")  # where a tree's root packages are found


def lint_imports(root: Path) -> subprocess.CompletedProcess[str]:
    """``lint-imports`` run on the tree at ``root`` (its packages first on the path)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(str(root / path) for path in PATHS)}
    return subprocess.run(
        [str(LINT_IMPORTS), "--config", str(root / "pyproject.toml"), "--no-cache"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A copy of the repository's packages and configuration, to break."""
    for package in PACKAGES:
        shutil.copytree(
            ROOT / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__")
        )
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    return tmp_path


class TestImportContracts:
    """``lint-imports`` passes on the repository and fails on a tree that breaks a rule."""

    def test_the_repository_keeps_every_contract(self) -> None:
        """Every contract is kept."""
        result = lint_imports(ROOT)
        assert result.returncode == 0, result.stdout + result.stderr
        assert "0 broken" in result.stdout

    @pytest.mark.parametrize(
        ("module", "line", "broken"),
        [
            ("engines/prng.py", "import service.config", "Engines are plain Python"),
            ("engines/base.py", "import grpc", "Engines are plain Python"),
            ("clients/python/ordo/__init__.py", "import engines", "client stands alone"),
            ("clients/python/ordo/__init__.py", "import ordo_agents", "client stands alone"),
            ("engines/base.py", "import numpy", "Engines are plain Python"),
            ("clients/agents/ordo_agents/table.py", "import service.config", "through the client"),
            ("service/process/supervisor.py", "import engines.registry", "load no engine"),
            ("service/doors/http_guard.py", "import service.calls.servicer", "load no engine"),
            ("service/telemetry/logs.py", "import service.calls.games", "in layers"),
            ("engines/prng.py", "import engines.registry", "No cycles"),
        ],
    )
    def test_a_tree_that_breaks_a_rule_fails(
        self, tree: Path, module: str, line: str, broken: str
    ) -> None:
        """One import against a rule, added at the end of a module, breaks its contract."""
        path = tree / module
        path.write_text(path.read_text(encoding="utf-8") + f"\n{line}\n", encoding="utf-8")
        result = lint_imports(tree)
        assert result.returncode != 0
        _, found, report = result.stdout.partition("Broken contracts")
        assert found, result.stdout + result.stderr
        assert broken in " ".join(report.split())  # the contract it names, unwrapped
