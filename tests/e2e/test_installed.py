"""The server installed as a user installs it (non-editable, into a fresh virtual environment)
serves the web playground at ``/``: the package ships the built playground as its data."""

from __future__ import annotations

import http.client
import shutil
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

from tests.e2e.server_process import HOST, ROOT, events, running_server

PLAYGROUND = ROOT / "service" / "playground"
INSTALL_SECONDS = 300
# What a wheel of the server is built from: the rest of the checkout stays out of the copy.
SOURCES = ("pyproject.toml", "README.md", "LICENSE", "engines", "service")


def get(port: int, path: str) -> tuple[int, str, bytes]:
    """GET ``path`` from the HTTP door on ``port``: status, content type and body."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        return response.status, response.getheader("content-type") or "", response.read()
    finally:
        connection.close()


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The python of a fresh virtual environment holding wheels of both distributions, built
    from a copy of the checkout; the libraries they need come from this environment's
    site-packages, named on the path (so none of this checkout's editable installs apply)."""
    assert (PLAYGROUND / "index.html").is_file(), "the playground is not built: run 'make web'"
    root = tmp_path_factory.mktemp("installed")
    source = root / "src"
    source.mkdir()
    ignore = shutil.ignore_patterns("__pycache__", "*.egg-info", "build", "*.map")
    for name in SOURCES:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, source / name, ignore=ignore)
        else:
            shutil.copy2(ROOT / name, source / name)
    shutil.copytree(ROOT / "clients" / "python", root / "client", ignore=ignore)
    wheels = root / "wheels"
    for project in (root / "client", source):
        subprocess.run(
            [
                *(sys.executable, "-m", "pip", "wheel", "--quiet", "--disable-pip-version-check"),
                *("--no-deps", "--no-build-isolation", "--wheel-dir", str(wheels), str(project)),
            ],
            check=True,
            capture_output=True,
            timeout=INSTALL_SECONDS,
        )
    environment = root / "venv"
    venv.create(environment, with_pip=False)
    python = environment / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    (Path(purelib) / "libraries.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run(
        [
            *(sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet"),
            *("--disable-pip-version-check", "--no-deps", "--no-index"),
            *map(str, sorted(wheels.glob("*.whl"))),
        ],
        check=True,
        capture_output=True,
        timeout=INSTALL_SECONDS,
    )
    return python


class TestInstalledServer:
    """A non-editable install serves what a checkout serves."""

    def test_the_installed_package_is_the_one_that_runs(self, installed: Path) -> None:
        """The environment imports the server from its own site-packages, not this checkout."""
        where = subprocess.run(
            [str(installed), "-I", "-c", "import service; print(service.__file__)"],
            check=True,
            capture_output=True,
            text=True,
            cwd=installed.parent,
        ).stdout
        assert str(installed.parents[1]) in where
        assert str(ROOT / "service") not in where

    def test_serves_the_playground_at_the_root(self, installed: Path, tmp_path: Path) -> None:
        """``/`` is the playground's page, with its script, styles and icon beside it, and the
        server says where to open it as it starts."""
        with running_server(tmp_path, workers=1, python=str(installed)) as server:
            (started,) = events(server.log, "started")
            assert started["playground"] == f"http://{HOST}:{server.http_port}/"
            status, kind, body = get(server.http_port, "/")
            assert (status, kind.split(";")[0]) == (200, "text/html")
            assert b"Ordo playground" in body
            for path, expected in (
                ("/app.js", "text/javascript"),
                ("/styles.css", "text/css"),
                ("/favicon.svg", "image/svg+xml"),
                ("/rules/six_nimmt.html", "text/html"),
            ):
                status, kind, body = get(server.http_port, path)
                assert (status, kind.split(";")[0]) == (200, expected), path
                assert body
