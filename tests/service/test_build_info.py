"""Which version runs: ``--version``, the start-up line and ``ordo_build_info`` on /metrics."""

from __future__ import annotations

import platform
import socket
import urllib.request
from importlib import metadata

import pytest

from service import build, config, metrics


def free_port() -> int:
    """A loopback port nothing listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


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


def test_metrics_export_the_build_info() -> None:
    """/metrics has ``ordo_build_info`` at 1, the versions as its labels."""
    port = free_port()
    server = metrics.start_http_server(port, "127.0.0.1")
    try:
        url = f"http://127.0.0.1:{port}/metrics"
        with urllib.request.urlopen(url, timeout=10) as response:
            body = response.read().decode()
    finally:
        server.shutdown()
        server.server_close()
    labels = ",".join(f'{key}="{value}"' for key, value in sorted(build.build_info().items()))
    assert f"ordo_build_info{{{labels}}} 1.0" in body.splitlines()
