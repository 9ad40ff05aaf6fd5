"""The client distribution installs and works alone: no import of the server's packages."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

CLIENT_ROOT = Path(__file__).resolve().parents[2] / "clients" / "python"
PACKAGE = CLIENT_ROOT / "ordo"
SERVER_PACKAGES = frozenset({"engines", "service", "tests", "bench"})
BUILD_SECONDS = 300


def _imported_roots(path: Path) -> set[str]:
    """The top-level names of every absolute import in a module."""
    roots = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            roots.add(node.module.split(".")[0])
    return roots


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A wheel of clients/python, built from a copy so the worktree stays clean."""
    root = tmp_path_factory.mktemp("client-wheel")
    source = root / "src"
    shutil.copytree(
        CLIENT_ROOT, source, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "build")
    )
    subprocess.run(
        [
            *(sys.executable, "-m", "pip", "wheel", "--quiet", "--disable-pip-version-check"),
            *("--no-deps", "--no-build-isolation", "--wheel-dir", str(root / "dist"), str(source)),
        ],
        check=True,
        capture_output=True,
        timeout=BUILD_SECONDS,
    )
    (built,) = (root / "dist").glob("ordo_client-*.whl")
    return built


class TestNoServerImports:
    """The client's modules import nothing from the server's packages."""

    def test_no_module_imports_engines_or_service(self) -> None:
        """An AST scan of every module under clients/python/ordo finds no server import."""
        modules = sorted(PACKAGE.rglob("*.py"))
        assert modules
        offenders = {
            str(path.relative_to(CLIENT_ROOT)): sorted(_imported_roots(path) & SERVER_PACKAGES)
            for path in modules
            if _imported_roots(path) & SERVER_PACKAGES
        }
        assert offenders == {}


class TestWheel:
    """A wheel of the client works with only its declared dependencies next to it."""

    def test_wheel_holds_every_package(self, wheel: Path) -> None:
        """The wheel ships both clients, the CLI, the renderers, the generated code and stubs."""
        names = set(zipfile.ZipFile(wheel).namelist())
        for name in (
            "ordo/__init__.py",
            "ordo/client.py",
            "ordo/aio.py",
            "ordo/cli.py",
            "ordo/render/__init__.py",
            "ordo/render/six_nimmt.py",
            "ordo/v1/engine_service_pb2.py",
            "ordo/v1/engine_service_pb2.pyi",
            "ordo/py.typed",
        ):
            assert name in names

    def test_console_script(self, wheel: Path) -> None:
        """The wheel declares the ``ordo`` command."""
        with zipfile.ZipFile(wheel) as archive:
            (entry_points,) = (n for n in archive.namelist() if n.endswith("entry_points.txt"))
            assert "ordo = ordo.cli:main" in archive.read(entry_points).decode()

    def test_typing_extra(self, wheel: Path) -> None:
        """``ordo-client[typing]`` brings the stubs a type checker needs for grpc and protobuf."""
        with zipfile.ZipFile(wheel) as archive:
            (metadata,) = (n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
            lines = archive.read(metadata).decode().splitlines()
        assert "Provides-Extra: typing" in lines
        extras = {line for line in lines if line.endswith('extra == "typing"')}
        assert {line.split(">=")[0] for line in extras} == {
            "Requires-Dist: types-protobuf",
            "Requires-Dist: grpc-stubs",
        }

    def test_imports_in_isolation(self, wheel: Path) -> None:
        """With only the wheel and the installed libraries on the path, the client imports."""
        libraries = sysconfig.get_paths()["purelib"]  # grpcio, protobuf, grpcio-status
        code = "\n".join(
            (
                "import sys",
                f"sys.path[:0] = [{str(wheel)!r}, {libraries!r}]",
                "import ordo, ordo.aio, ordo.cli, ordo.client, ordo.render.six_nimmt",
                f"assert ordo.__file__.startswith({str(wheel)!r}), ordo.__file__",
                f"assert not set({sorted(SERVER_PACKAGES)!r}) & sys.modules.keys()",
                "from ordo import AsyncClient, Client, OrdoError",
            )
        )
        # -I ignores the environment and the user's site; -S skips the site hooks, so the
        # editable installs of this checkout (.pth files) are not on the path.
        run = subprocess.run(
            [sys.executable, "-I", "-S", "-c", code],
            capture_output=True,
            text=True,
            timeout=BUILD_SECONDS,
            check=False,
        )
        assert run.returncode == 0, run.stderr
