"""The test run ends with no process of its own left: its last hook (``tests/conftest.py``)
fails the run when one still runs, names it, and ends it."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tests.conftest import SESSION_VARIABLE

ROOT = Path(__file__).resolve().parents[1]
RUN_SECONDS = 120
LEFT_BEHIND = """
import subprocess


def test_leaves_a_process_behind() -> None:
    '''Starts a process that outlives the test, in a session of its own, as an orphan would.'''
    subprocess.Popen(["sleep", "3600"], start_new_session=True)
"""
HOOKS = "from tests.conftest import pytest_configure, pytest_sessionfinish  # noqa: F401\n"


class TestLeftovers:
    """A run that leaves a process behind fails."""

    def test_a_process_left_behind_fails_the_run_and_is_ended(self, tmp_path: Path) -> None:
        """A run whose only test passes but leaves ``sleep 3600`` running fails, naming it,
        and the process is gone afterwards."""
        (tmp_path / "conftest.py").write_text(HOOKS)
        (tmp_path / "test_left.py").write_text(LEFT_BEHIND)
        env = {key: value for key, value in os.environ.items() if key != SESSION_VARIABLE}
        env["PYTHONPATH"] = str(ROOT)
        run = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=RUN_SECONDS,
            check=False,
        )
        assert run.returncode == 1, run.stdout + run.stderr
        assert "1 passed" in run.stdout
        assert "processes of this test run left running: 1" in run.stdout
        assert "sleep 3600" in run.stdout
        (pid,) = re.findall(r"pid (\d+): sleep 3600", run.stdout)
        assert not running(int(pid))


def running(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie, ended and not yet reaped, does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="ascii")
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"
