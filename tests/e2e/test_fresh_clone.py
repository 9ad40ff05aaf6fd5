"""The README's tour on a fresh clone: the project's tracked files alone, set up by ``make run``
and nothing else, which builds the playground and the TypeScript client and starts the server;
then the tour's curl, Python, TypeScript and terminal examples run as written (their addresses
turned into the server's free ports). The clone shares this checkout's virtual environment,
whose packages ``make run`` would install again otherwise; everything of Node.js is its own."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from grpc_health.v1 import health_pb2

from tests.docs.test_front_page import blocks
from tests.e2e.server_process import (
    HOST,
    POLL_SECONDS,
    ROOT,
    STOP_SECONDS,
    free_port,
    health_status,
    read_log,
    server_env,
)

VENV = Path(sys.executable).parent.parent
BUILD_SECONDS = 600  # npm installs and two builds, on a busy machine; only stops a hung run
RUN_SECONDS = 120  # a bound on one example
GRPC_ADDRESS = "localhost:50051"
HTTP_ADDRESS = "localhost:8080"


def tracked_copy(target: Path) -> Path:
    """The files git tracks in this checkout, as they are, copied to ``target``: a fresh clone
    of this tree, with no build and no installed package."""
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout.split(b"\0")
    for name in filter(None, listed):
        source = ROOT / name.decode()
        if source.is_file():
            (target / name.decode()).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name.decode())
    return target


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, int, int]]:
    """A fresh clone served by ``make run``: the clone, its gRPC port and its HTTP port."""
    if shutil.which("npm") is None or shutil.which("make") is None:
        pytest.fail("make run on a fresh clone needs make and npm")
    scratch = tmp_path_factory.mktemp("fresh")
    clone = tracked_copy(scratch / "ordo")
    port, http_port = free_port(), free_port()
    env = server_env(
        scratch / "metrics",
        port=str(port),
        http_port=str(http_port),
        metrics_port=str(free_port()),
        workers="1",
    )
    log = scratch / "make-run.log"
    # The virtual environment is this checkout's, taken as set up (-o: its stamp is not made
    # again, so pip leaves this checkout's editable installs alone).
    command = ["make", "-o", f"{VENV}/.installed-run", f"VENV={VENV}", "run"]
    with log.open("wb") as output:
        make = subprocess.Popen(
            command, cwd=clone, env=env, stdout=output, stderr=output, start_new_session=True
        )
    try:
        deadline = time.monotonic() + BUILD_SECONDS
        while health_status(port) != health_pb2.HealthCheckResponse.SERVING:
            assert make.poll() is None, f"make run exited:\n{read_log(log)}"
            assert time.monotonic() < deadline, f"make run did not serve:\n{read_log(log)}"
            time.sleep(POLL_SECONDS)
        yield clone, port, http_port
    finally:
        if make.poll() is None:
            os.killpg(make.pid, signal.SIGTERM)
            make.wait(timeout=STOP_SECONDS)


def run(command: list[str], cwd: Path, **env: str) -> str:
    """Run ``command``; its output, once it succeeded."""
    done = subprocess.run(
        command,
        cwd=cwd,
        env={**os.environ, **env},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=RUN_SECONDS,
        check=False,
    )
    assert done.returncode == 0, f"{command}\n{done.stdout}\n{done.stderr}"
    return done.stdout


def shell(section: str, address: str, target: str, cwd: Path, **env: str) -> str:
    """The README's ``sh`` blocks of ``section``, run in one bash with ``address`` turned into
    ``target``."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index(f"\n{section}\n")
    end = text.find("\n### ", start + 1)
    part = text[start:end]
    scripts = [block for block in blocks("sh") if block in part]
    assert scripts, f"no sh block under {section}"
    script = "set -euo pipefail\n" + "\n".join(scripts).replace(address, target)
    return run(["bash", "-c", script], cwd, **env)


def test_the_tour_runs_after_make_run_alone(fresh: tuple[Path, int, int], tmp_path: Path) -> None:
    """After ``make run`` on a fresh clone: the playground is served, the curl commands play a
    move, the Python example shows its refusal, the TypeScript example installs the client
    from the clone and prints the seats to act, and the terminal's demo, play and replay run."""
    clone, port, http_port = fresh
    grpc_target, http_target = f"{HOST}:{port}", f"{HOST}:{http_port}"
    page = run(["curl", "-sS", f"http://{http_target}/"], tmp_path)
    assert "<title>" in page
    shown = shell("### With curl", HTTP_ADDRESS, http_target, tmp_path)
    assert json.loads(shown.strip().splitlines()[-1])["seatsToAct"] == [1, 2, 3]
    [python] = blocks("python")
    script = tmp_path / "tour.py"
    script.write_text(python.replace(GRPC_ADDRESS, grpc_target))
    assert "INVALID_ARGUMENT CARD_NOT_IN_HAND" in run([sys.executable, str(script)], tmp_path)
    project = tmp_path / "project"
    project.mkdir()
    run(["npm", "init", "-y"], project)
    run(["npm", "install", "--no-audit", "--no-fund", str(clone / "clients" / "node")], project)
    [example] = blocks("js")
    (project / "tour.mjs").write_text(example.replace(GRPC_ADDRESS, grpc_target))
    assert run(["node", "tour.mjs"], project).strip() == "[ 0, 1, 2, 3 ]"
    path = f"{VENV / 'bin'}{os.pathsep}{os.environ['PATH']}"
    played = shell("### In a terminal", "", "", tmp_path, PATH=path, ORDO_TARGET=grpc_target)
    assert "game over after" in played
    assert "The game's record is saved in game.ordo.json." in played
    assert "A game of 0 moves, checked by the server." in played
