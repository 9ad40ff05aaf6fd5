"""Which version runs: the versions reported, and ``--version`` (``ordo_build_info``: in
test_metrics.py; the started line: tests/e2e/test_startup.py)."""

from __future__ import annotations

import platform
from importlib import metadata

import pytest

from service import config
from service.telemetry import build


def test_the_versions_are_those_installed() -> None:
    """Ordo's version is its distribution's; Python's, grpcio's and protobuf's are theirs."""
    assert build.build_info() == {
        "version": metadata.version("ordo-server"),
        "python": platform.python_version(),
        "grpcio": metadata.version("grpcio"),
        "protobuf": metadata.version("protobuf"),
    }


def test_code_run_in_place_has_an_unknown_version() -> None:
    """A distribution that is not installed has the version ``unknown``."""
    assert build.version("no-such-distribution-of-ordo") == build.UNKNOWN


def test_version_flag(capsys: pytest.CaptureFixture[str]) -> None:
    """``ordo-server --version`` prints the name and version, and exits 0."""
    with pytest.raises(SystemExit) as stopped:
        config.load(["--version"], {})
    assert stopped.value.code == 0
    assert capsys.readouterr().out == f"ordo-server {metadata.version('ordo-server')}\n"
