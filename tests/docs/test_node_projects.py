"""The TypeScript client's examples of the README and docs/integration.md run as their text says,
in a default npm project (``npm init -y``) that installs the client from this checkout."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.node import NODE_DIR, RUN_SECONDS, node_executable

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
GUIDE = ROOT / "docs" / "integration.md"
DEFAULT_ADDRESS = "localhost:50051"
CHECKOUT = "/path/to/ordo"  # where the docs say the checkout is
# A package the docs install by name comes from this checkout's own copy (the tests run offline).
LOCAL_PACKAGES = {"typescript": NODE_DIR / "node_modules" / "typescript"}


def block(path: Path, language: str, after: str) -> str:
    """The first ``language`` block of ``path`` after the text ``after``."""
    text = path.read_text(encoding="utf-8")
    found = re.search(rf"^```{language}\n(.*?)^```", text[text.index(after) :], re.M | re.S)
    assert found, f"{path.name} has no {language} block after {after!r}"
    return found[1]


def shell(project: Path, line: str) -> subprocess.CompletedProcess[str]:
    """Run a shell command line of the docs in ``project``, with the checkout's path for the
    docs' and npm working offline; never raises on a non-zero exit."""
    line = line.replace(CHECKOUT, str(ROOT))
    for name, folder in LOCAL_PACKAGES.items():
        line = re.sub(rf"(?<=npm install )(.*\b){name}\b", rf"\g<1>{folder}", line)
    return subprocess.run(
        ["bash", "-euo", "pipefail", "-c", line],
        cwd=project,
        env={**os.environ, "npm_config_offline": "true", "npm_config_audit": "false"},
        capture_output=True,
        text=True,
        timeout=RUN_SECONDS,
        check=False,
    )


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A default npm project, as ``npm init -y`` makes it."""
    node_executable()
    assert shutil.which("npm"), "npm is not installed"
    done = shell(tmp_path, "npm init -y")
    assert done.returncode == 0, done.stderr
    return tmp_path


def test_the_readme_tour_runs_in_a_default_project(project: Path, server_address: str) -> None:
    """The README's JavaScript tour, saved and run as the README says, prints the seats."""
    text = README.read_text(encoding="utf-8")
    section = text[text.index("### With TypeScript") :]
    install = re.search(r"`(npm install [^`]+)`", section)
    saved = re.search(r"save this as `([^`]+)`", section)
    run = re.search(r"run `(node [^`]+)`", section)
    assert install
    assert saved
    assert run
    done = shell(project, install[1])
    assert done.returncode == 0, done.stderr
    example = block(README, "js", "### With TypeScript")
    (project / saved[1]).write_text(example.replace(DEFAULT_ADDRESS, server_address))
    done = shell(project, run[1])
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[ 0, 1, 2, 3 ]"


def test_the_typescript_loop_runs_as_the_guide_says(project: Path, server_address: str) -> None:
    """docs/integration.md's TypeScript loop, compiled and run by the guide's own commands,
    plays a whole game and prints its outcome."""
    loop = block(GUIDE, "ts", "## The shortest loop")
    commands = block(GUIDE, "sh", "To run it as it is")
    name = re.search(r"save\s+it\s+as\s+`([^`]+)`", GUIDE.read_text(encoding="utf-8"))
    assert name
    (project / name[1]).write_text(loop.replace(DEFAULT_ADDRESS, server_address))
    for line in commands.strip().splitlines():
        done = shell(project, line)
        assert done.returncode == 0, f"{line}\n{done.stdout}{done.stderr}"
    assert "scores" in done.stdout
    assert "winners" in done.stdout
