"""Running the Node.js client (``clients/node``, built by ``make node``) from the tests."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NODE_DIR = ROOT / "clients" / "node"
BUILT = NODE_DIR / "dist"
CLI = BUILT / "src" / "cli.js"
RUN_SECONDS = 300  # a bound on a hung run, far above the few seconds a run takes


def suites() -> list[Path]:
    """The built test files of the client's own suite."""
    return sorted((BUILT / "test").glob("*.test.js"))


def node_executable() -> str:
    """The ``node`` executable, once the client is built; fails the test otherwise."""
    found = shutil.which("node")
    assert found, "Node.js is not installed: the Node.js client's tests need it"
    assert CLI.exists(), f"the Node.js client is not built: run 'make node' ({BUILT})"
    assert suites(), f"the Node.js client's tests are not built: run 'make node' ({BUILT})"
    return found


def run_node(
    node: str, *args: str, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``node`` with the arguments in ``clients/node``; never raises on a non-zero exit."""
    return subprocess.run(
        [node, *args],
        cwd=NODE_DIR,
        env={**os.environ, **(env or {})},
        capture_output=True,
        text=True,
        timeout=RUN_SECONDS,
        check=False,
    )


def run_suite(node: str, env: dict[str, str]) -> str:
    """Run the client's own suite (``node --test``) with ``env`` (its ``ORDO_*`` addresses);
    its report, once every test has passed and none was skipped."""
    done = run_node(node, "--test", *map(str, suites()), env=env)
    report = done.stdout + done.stderr
    assert done.returncode == 0, report
    assert "# fail 0" in report, report
    assert "# pass 0" not in report, report
    return report
