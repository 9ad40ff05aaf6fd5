"""Our multiprocess values hold with the newest release of prometheus-client, not only with the
one installed: ``service.telemetry.metric_values`` writes through its internals, and the project
pins it
below the first release it has not been tested with.

The newest release is installed into a folder of its own and put first on the path of a new
pytest process, which runs the tests that compare our values with prometheus-client's own
(``test_metric_values.py``) and the metrics observer's (``test_metrics.py``).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[2]
DISTRIBUTION = "prometheus-client"
SUITES = ("tests/service/test_metric_values.py", "tests/service/test_metrics.py")
INSTALL_SECONDS = 300
SUITE_SECONDS = 600


def pinned() -> Requirement:
    """The project's requirement on prometheus-client."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    for line in project["dependencies"]:
        requirement = Requirement(line)
        if requirement.name == DISTRIBUTION:
            return requirement
    raise AssertionError(f"pyproject.toml requires no {DISTRIBUTION}")


def install_newest(folder: Path) -> Version:
    """Install the newest release of prometheus-client into ``folder``; its version."""
    done = subprocess.run(
        [
            sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
            "--no-deps", "--target", str(folder), DISTRIBUTION,
        ],
        capture_output=True,
        text=True,
        timeout=INSTALL_SECONDS,
        check=False,
    )  # fmt: skip
    if done.returncode:
        pytest.skip(f"no package index to install {DISTRIBUTION} from: {done.stderr[-500:]}")
    [dist_info] = folder.glob("prometheus_client-*.dist-info")
    return Version(dist_info.name.removesuffix(".dist-info").split("-")[1])


class TestNewestRelease:
    """The newest prometheus-client release against our values and the project's pin."""

    def test_the_values_hold_and_the_pin_admits_it(self, tmp_path: Path) -> None:
        """The comparison tests pass with the newest release; once they do, the pin lets it in."""
        newest = install_newest(tmp_path / "site")
        env = {**os.environ, "PYTHONPATH": os.pathsep.join((str(tmp_path / "site"), str(ROOT)))}
        check = "import importlib.metadata as m; print(m.version('prometheus-client'))"
        seen = subprocess.run(
            [sys.executable, "-c", check], env=env, capture_output=True, text=True, check=True
        )
        assert Version(seen.stdout.strip()) == newest  # the tests below run on that release
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *SUITES],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=SUITE_SECONDS,
            check=False,
        )
        assert done.returncode == 0, (
            f"service/telemetry/metric_values.py does not hold with {DISTRIBUTION} {newest}:\n"
            f"{done.stdout[-4000:]}"
        )
        assert pinned().specifier.contains(newest), (
            f"{DISTRIBUTION} {newest} passes: raise the pin in pyproject.toml to admit it"
        )
