"""End to end: the server started as ``make run`` starts it, called with real ``curl`` and ``jq``
exactly as the README and docs/http.md show, and its HTTP port served by every worker."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.server_process import HOST, ROOT, ServerProcess, events, running_server
from tests.state_keys import TEST_KEY, keys_file_text

DOCUMENTED_ADDRESS = "localhost:8080"
SCRIPT_SECONDS = 300


def shell_blocks(path: Path, heading: str) -> list[str]:
    """The ```sh blocks of the section of ``path`` under ``heading`` (to the next heading of the
    same or a higher level)."""
    text = path.read_text()
    level = len(heading.split(" ", maxsplit=1)[0])
    start = text.index(f"\n{heading}\n")
    ends = [m.start() for m in re.finditer(rf"\n#{{1,{level}}} ", text[start + 1 :])]
    section = text[start : start + 1 + ends[0]] if ends else text[start:]
    return re.findall(r"```sh\n(.*?)```", section, re.DOTALL)


def run_script(blocks: list[str], server: ServerProcess, cwd: Path) -> str:
    """Run the blocks, with the documented address turned into the server's, in one bash."""
    if shutil.which("curl") is None or shutil.which("jq") is None:
        pytest.skip("curl and jq are needed: apt-get install curl jq")
    address = f"{HOST}:{server.http_port}"
    script = "set -euo pipefail\n" + "\n".join(blocks).replace(DOCUMENTED_ADDRESS, address)
    done = subprocess.run(
        ["bash", "-c", script],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=SCRIPT_SECONDS,
        check=False,
    )
    assert done.returncode == 0, f"{script}\n---\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """The server with two workers, its HTTP door on a free port."""
    with running_server(tmp_path_factory.mktemp("curl"), workers=2) as process:
        yield process


def test_readme_walk_through(server: ServerProcess, tmp_path: Path) -> None:
    """The README's curl commands start a game, list seat 0's actions, play one, and view it."""
    blocks = shell_blocks(ROOT / "README.md", "### With curl")
    assert blocks, "the README has no curl commands"
    output = run_script(blocks, server, tmp_path)
    game = json.loads((tmp_path / "game.json").read_text())
    legal = json.loads((tmp_path / "legal.json").read_text())
    applied = json.loads((tmp_path / "next.json").read_text())
    assert game["state"]["sixNimmt"]
    assert legal["actions"]
    assert int(applied["state"]["revision"]) == int(game["state"].get("revision", "0")) + 1
    status = json.loads(output.strip().splitlines()[-1])
    assert status["seatsToAct"] == [1, 2, 3]


def test_docs_walk_through(server: ServerProcess, tmp_path: Path) -> None:
    """docs/http.md's walk-through plays a whole game with curl to its outcome, and its refused
    call names the reason."""
    blocks = shell_blocks(ROOT / "docs" / "http.md", "## Walk-through with curl")
    refused = blocks.pop()
    output = run_script(blocks, server, tmp_path).strip().splitlines()
    assert "six_nimmt" in output
    assert int(output[output.index("up_or_down") + 1]) > 0  # seat 0's legal actions
    assert len(json.loads(output[-2])) == 4  # the rows
    outcome = json.loads(output[-1])
    assert len(outcome["scores"]) == 2
    error = json.loads(run_script([blocks[0], refused], server, tmp_path).splitlines()[-1])
    documented = (ROOT / "docs" / "http.md").read_text()
    assert json.dumps(error) in documented


def test_docs_bots_and_seat_token(tmp_path: Path) -> None:
    """docs/http.md's game against the server's bots plays to its outcome on a server that
    requires seat tokens, the JSON of ``bots`` as the docs show it."""
    keys = tmp_path / "keys"
    keys.write_text(keys_file_text(TEST_KEY))
    with running_server(
        tmp_path, workers=1, state_keys_file=str(keys), require_seat_tokens="true"
    ) as fair:
        blocks = shell_blocks(
            ROOT / "docs" / "http.md", "## Against the server's bots, with a seat token"
        )
        output = run_script(blocks, fair, tmp_path).strip().splitlines()
    documented = (ROOT / "docs" / "http.md").read_text()
    assert f"`{output[0]}`" in documented
    assert len(json.loads(output[-1])) == 3  # the scores


def test_every_worker_serves_the_http_port(server: ServerProcess) -> None:
    """Each worker says it serves the HTTP port, which health answers on."""
    serving = events(server.log, "serving")
    assert [line["http_port"] for line in serving] == [server.http_port] * 2
    done = subprocess.run(
        ["curl", "-sS", f"http://{HOST}:{server.http_port}/healthz"],
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    assert done.stdout == "SERVING\n"


@pytest.mark.parametrize("version", ["--http1.1", "--http2-prior-knowledge"])
def test_connect_over_http1_and_http2(server: ServerProcess, version: str) -> None:
    """Connect JSON answers over HTTP/1.1 and over HTTP/2 (h2c) alike."""
    if shutil.which("curl") is None:
        pytest.skip("curl is needed: apt-get install curl")
    done = subprocess.run(
        [
            "curl", "-sS", version, "-w", "\n%{http_version}",
            "-H", "Content-Type: application/json", "-d", "{}",
            f"http://{HOST}:{server.http_port}/ordo.v1.GameEngineService/ListGames",
        ],
        capture_output=True, text=True, timeout=30, check=True,
    )  # fmt: skip
    body, http_version = done.stdout.rsplit("\n", 1)
    assert http_version == ("2" if version == "--http2-prior-knowledge" else "1.1")
    assert len(json.loads(body)["games"]) == 4
