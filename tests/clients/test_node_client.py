"""The TypeScript client (``clients/node``), run with Node.js against real servers.

Its own suite (``clients/node/test``, ``node --test``) runs against the session's server, the
TLS server and a closed port. Beside it: its command-line client plays the same games as the
Python client, state for state, and waits for a server that starts after it; its package is
the Python client's version, its generated code covers the whole contract, and its browser
entry bundles for browsers with nothing of Node.js.
``make test`` installs its packages (``npm ci``) and builds it (``tsc``) first.
"""

from __future__ import annotations

import base64
import json
import re
import shutil
import subprocess
import time
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path

import pytest
import structlog

from engines import registry
from ordo.client import RETRYABLE, Client
from ordo.v1 import common_pb2 as common
from service.calls.servicer import GameEngineServicer
from service.config import Settings
from service.doors.http_door import http_door
from service.process.worker import create_server
from tests.clients.fakes import CERTIFICATE, WAITING_SECONDS, closed_port
from tests.conftest import Doors
from tests.node import BUILT, CLI, NODE_DIR, ROOT, RUN_SECONDS, node_executable, run_node, run_suite

POLICY = "heuristic"
# (game, seats): each game of the registry once, at seat counts spread over their ranges.
GAMES = [("six_nimmt", 4), ("sequence_numbers", 3), ("up_or_down", 5), ("fora_de_ordem", 2)]
README = ROOT / "docs" / "clients.md"
README_SECTION = "## With the TypeScript client"
DEFAULT_ADDRESS = "localhost:50051"


@pytest.fixture(scope="module")
def http_address() -> Iterator[str]:
    """Ordo's HTTP door (Connect, gRPC-Web) on a free loopback port, for the module."""
    settings = Settings(host="127.0.0.1", port=0, http_port=0, metrics_port=0, workers=1)
    door = http_door(settings, GameEngineServicer(), [], structlog.get_logger("ordo.server"))
    door.start()
    yield f"127.0.0.1:{door.port}"
    door.stop()
    door.wait()


@pytest.fixture(scope="module")
def node() -> str:
    """The ``node`` executable, with the client built (``make test`` builds it)."""
    return node_executable()


def test_the_node_suite_passes_against_real_servers(
    node: str,
    server_address: str,
    http_address: str,
    tls_server_address: str,
    seated: Doors,
    hosting: Doors,
) -> None:
    """``node --test`` over the client's own suite, over gRPC and over the HTTP door's Connect
    (and gRPC-Web), against a server that requires seat tokens and one that hosts tables: every
    test passes, none is skipped."""
    env = {
        "ORDO_HOSTING_TARGET": hosting.grpc_address,
        "ORDO_HOSTING_HTTP_TARGET": hosting.http_address,
        "ORDO_SEATED_TARGET": seated.grpc_address,
        "ORDO_SEATED_HTTP_TARGET": seated.http_address,
        "ORDO_TARGET": server_address,
        "ORDO_HTTP_TARGET": http_address,
        "ORDO_CLOSED_TARGET": f"127.0.0.1:{closed_port()}",
        "ORDO_TLS_TARGET": tls_server_address,
        "ORDO_CA_FILE": str(CERTIFICATE),
    }
    report = run_suite(node, env)
    assert "# skipped 0" in report, report


def play_with_python(address: str, game: str, seats: int, seed: int) -> common.GameState:
    """The game ``ordo-node play`` plays, played with the Python client: the first seat to act
    takes the bot's suggestion, turn after turn."""
    with Client(address) as client:
        started = client.new_game(game, seats, seed)
        state, status = started.state, started.status
        while not status.finished:
            seat = status.seats_to_act[0]
            action = client.suggest_action(state, seat, POLICY).action
            applied = client.apply_action(state, action)
            state, status = applied.state, applied.status
        return state


@pytest.mark.parametrize(("game", "seats"), GAMES)
def test_node_and_python_play_the_same_game(
    node: str, server_address: str, game: str, seats: int
) -> None:
    """``ordo-node play`` reaches the very state the Python client reaches from the same seed,
    one JSON line per action, the outcome last."""
    seed = 20261201
    done = run_node(
        node, str(CLI), "--target", server_address, "play", game, "--seats", str(seats),
        "--seed", str(seed), "--policy", POLICY,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    first, *actions, last = lines
    assert (first["game"], first["seats"], first["seed"]) == (game, seats, str(seed))
    assert actions
    assert [int(line["revision"]) for line in actions] == list(range(1, len(actions) + 1))
    assert last["finished"] is True
    assert last["outcome"]["winners"]
    assert all("seat" in line["action"] for line in actions), "seat 0's actions name it"
    assert [line["action"]["seat"] for line in actions] == [line["seat"] for line in actions]
    expected = play_with_python(server_address, game, seats, seed)
    assert common.GameState.FromString(base64.b64decode(last["state"])) == expected
    assert base64.b64decode(last["state"]) == expected.SerializeToString()


def test_node_and_python_clients_retry_the_same_codes(node: str) -> None:
    """The TypeScript client's ``RETRYABLE`` holds the very codes of the Python client's."""
    script = "import('./dist/src/index.js').then((m) => console.log(JSON.stringify(m.RETRYABLE)))"
    done = run_node(node, "-e", script)
    assert done.returncode == 0, done.stderr
    assert sorted(json.loads(done.stdout)) == sorted(code.value[0] for code in RETRYABLE)


def test_node_games_lists_every_game(node: str, server_address: str) -> None:
    """``ordo-node games``: a line per game with its title, seat counts and policies, then a line
    per option with its default, its allowed values and what it does."""
    done = run_node(node, str(CLI), "--target", server_address, "games")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    ids = [line.split("\t")[0] for line in lines if not line.startswith(" ")]
    assert ids == sorted(registry.ENGINES)
    assert "6 nimmt!\t2, 3, 4, 5, 6, 7, 8, 9, 10 seats\tpolicies: heuristic, random" in done.stdout
    with Client(server_address) as client:
        for game in client.list_games().games:
            start = lines.index(next(line for line in lines if line.startswith(f"{game.id}\t")))
            options = lines[start + 1 : start + 1 + len(game.options)]
            assert len(game.options) > 0
            for option, line in zip(game.options, options, strict=True):
                values = ", ".join(option.allowed_values)
                allowed = f" (one of {values})" if values else ""
                expected = f"  {option.name} = {option.default_value}{allowed}: "
                assert line == expected + option.description


def test_node_errors_name_the_reason_and_exit_1(node: str, server_address: str) -> None:
    """A failed call prints the code, the reason and the request id; a usage error exits 2."""
    done = run_node(
        node, str(CLI), "--target", server_address, "play", "six_nimmt", "--seats", "11"
    )
    assert done.returncode == 1
    assert done.stderr.startswith("ordo-node: INVALID_ARGUMENT ")
    assert "(request " in done.stderr


@pytest.mark.parametrize(
    ("args", "said"),
    [
        ((), "no command"),
        (("dance",), "unknown command: dance"),
        (("play", "chess", "--seats", "2"), 'unknown game "chess"'),
        (("play", "six_nimmt"), "play takes one game id and --seats"),
        (("play", "six_nimmt", "--seats", "four"), "--seats takes a positive whole number"),
        (("play", "six_nimmt", "--seats", "4", "--seed", "1.5"), "--seed takes a whole number"),
        (("--timeout-ms", "0", "games"), "--timeout-ms takes a positive whole number"),
        (("--ca-file", "/no/such.pem", "games"), "cannot read --ca-file"),
        (("--bogus", "games"), "Unknown option '--bogus'"),
    ],
)
def test_node_usage_errors_exit_2(node: str, args: tuple[str, ...], said: str) -> None:
    """A command line that makes no sense says why, with the usage, and calls no server."""
    done = run_node(node, str(CLI), "--target", f"127.0.0.1:{closed_port()}", *args)
    assert done.returncode == 2
    assert done.stderr.startswith(f"ordo-node: {said}")
    assert "usage: ordo-node" in done.stderr


def test_node_trusts_a_ca_file(node: str, tls_server_address: str) -> None:
    """``--ca-file`` reaches a TLS server whose certificate it trusts; plaintext does not."""
    trusted = run_node(
        node, str(CLI), "--target", tls_server_address, "--ca-file", str(CERTIFICATE), "games"
    )
    assert trusted.returncode == 0, trusted.stderr
    assert "six_nimmt" in trusted.stdout
    plaintext = run_node(node, str(CLI), "--target", tls_server_address, "games")
    assert plaintext.returncode == 1
    assert plaintext.stderr.startswith("ordo-node: "), plaintext.stderr


@pytest.fixture
def late_server() -> Iterator[tuple[int, list[object]]]:
    """A port, and a list that starting a server on it appends that server to."""
    servers: list[object] = []
    yield closed_port(), servers
    for server in servers:
        server.stop(None)  # type: ignore[attr-defined]


def test_node_waits_for_a_server_that_starts_later(
    node: str, late_server: tuple[int, list[object]]
) -> None:
    """``--wait-for-ready``: the command is still waiting while nothing listens, and answers
    once the server is up."""
    port, servers = late_server
    command = [node, str(CLI), "--target", f"127.0.0.1:{port}", "--wait-for-ready", "games"]
    with subprocess.Popen(command, cwd=NODE_DIR, stdout=subprocess.PIPE, text=True) as waiting:
        time.sleep(WAITING_SECONDS * 2)
        assert waiting.poll() is None, "the command did not wait"
        server, _, _ = create_server(Settings(host="127.0.0.1", port=port, metrics_port=0))
        server.start()
        servers.append(server)
        out, _ = waiting.communicate(timeout=RUN_SECONDS)
    assert waiting.returncode == 0
    assert "six_nimmt" in out


def test_the_package_is_the_python_clients_version() -> None:
    """Both clients of one release carry its version."""
    package = json.loads((NODE_DIR / "package.json").read_text())
    assert package["version"] == metadata.version("ordo-client")
    lock = json.loads((NODE_DIR / "package-lock.json").read_text())
    assert lock["version"] == package["version"]


def test_the_generated_code_covers_every_proto_file() -> None:
    """Every file of the contract has its TypeScript module, which the generated index exports
    and v1.ts exports as ``v1``."""
    protos = sorted(path.stem for path in (ROOT / "proto" / "ordo" / "v1").glob("*.proto"))
    folder = NODE_DIR / "src" / "gen" / "ordo" / "v1"
    generated = sorted(path.stem.removesuffix("_pb") for path in folder.glob("*_pb.ts"))
    assert generated == protos
    index = (folder / "index.ts").read_text()
    for name in protos:
        assert f'export * from "./{name}_pb.js";' in index
    assert 'export * from "./gen/ordo/v1/index.' in (NODE_DIR / "src" / "v1.ts").read_text()


def test_node_tls_trusts_grpc_default_roots(node: str, tls_server_address: str) -> None:
    """``--tls`` trusts gRPC's default roots, which ``GRPC_DEFAULT_SSL_ROOTS_FILE_PATH`` names
    here: the test certificate. Without it, the public roots do not trust that certificate."""
    args = (str(CLI), "--target", tls_server_address, "--tls", "games")
    roots = {"GRPC_DEFAULT_SSL_ROOTS_FILE_PATH": str(CERTIFICATE)}
    trusted = run_node(node, *args, env=roots)
    assert trusted.returncode == 0, trusted.stderr
    assert "six_nimmt" in trusted.stdout
    untrusted = run_node(node, *args)
    assert untrusted.returncode == 1
    assert "ordo-node: UNAVAILABLE" in untrusted.stderr, untrusted.stderr


def test_the_readme_example_runs(node: str, server_address: str, tmp_path: Path) -> None:
    """The JavaScript example of docs/clients.md runs as written against the session's server (its
    package name resolved to the built client)."""
    text = README.read_text(encoding="utf-8")
    start = text.index(README_SECTION)
    section = text[start : text.index("\n## ", start)]
    [example] = re.findall(r"^```js\n(.*?)^```", section, flags=re.MULTILINE | re.DOTALL)
    assert DEFAULT_ADDRESS in example
    assert '"@ordo/client"' in example
    script = tmp_path / "example.mjs"
    script.write_text(
        example.replace(DEFAULT_ADDRESS, server_address).replace(
            '"@ordo/client"', json.dumps((BUILT / "src" / "index.js").as_uri())
        )
    )
    done = run_node(node, str(script))
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["sixNimmt 9", "INVALID_ARGUMENT CARD_NOT_IN_HAND"]


def test_the_package_installs_alone(node: str, tmp_path: Path) -> None:
    """``npm pack`` makes the package (of the client ``make node`` built: its own ``prepack``
    builds it the same way); installed into an empty project from the tarball, it is imported
    by its name, and ``ordo-node`` runs."""
    npm = shutil.which("npm")
    assert npm, "npm is not installed"
    packed = subprocess.run(
        [npm, "pack", "--ignore-scripts", "--pack-destination", str(tmp_path), "--loglevel=error"],
        cwd=NODE_DIR, capture_output=True, text=True, timeout=RUN_SECONDS, check=False,
    )  # fmt: skip
    assert packed.returncode == 0, packed.stderr
    [tarball] = tmp_path.glob("ordo-client-*.tgz")
    app = tmp_path / "app"
    app.mkdir()
    (app / "package.json").write_text('{"name": "app", "private": true, "type": "module"}')
    installed = subprocess.run(
        [npm, "install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error",
         str(tarball)],
        cwd=app, capture_output=True, text=True, timeout=RUN_SECONDS, check=False,
    )  # fmt: skip
    assert installed.returncode == 0, installed.stderr
    (app / "check.mjs").write_text(
        'import { create, fromBinary, toBinary } from "@bufbuild/protobuf";\n'
        'import { OrdoClient, OrdoError, v1, Code } from "@ordo/client";\n'
        'import * as web from "@ordo/client/web";\n'
        'const client = new OrdoClient("127.0.0.1:1", { retries: 0 });\n'
        "try { await client.listGames(); } catch (error) {\n"
        "  console.log(error instanceof OrdoError, error.code === Code.Unavailable);\n"
        "} finally { client.close(); }\n"
        "const state = create(v1.GameStateSchema, { revision: 7n });\n"
        "const bytes = toBinary(v1.GameStateSchema, state);\n"
        "console.log(fromBinary(v1.GameStateSchema, bytes).revision);\n"
        "console.log(typeof web.OrdoClient, web.OrdoError === OrdoError);\n"
    )
    checked = subprocess.run(
        [node, "check.mjs"], cwd=app, capture_output=True, text=True, timeout=60, check=False
    )
    assert checked.returncode == 0, checked.stderr
    assert checked.stdout.split() == ["true", "true", "7n", "function", "true"]
    usage = subprocess.run(
        [app / "node_modules" / ".bin" / "ordo-node", "--help"],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert usage.returncode == 0
    assert usage.stdout.startswith("usage: ordo-node")


def bundle_for_browser(entry: str, out: Path) -> subprocess.CompletedProcess[str]:
    """esbuild (the client's pinned one) bundles ``entry`` as a browser would load it."""
    esbuild = NODE_DIR / "node_modules" / ".bin" / "esbuild"
    return subprocess.run(
        [esbuild, entry, "--bundle", "--platform=browser", "--format=esm", "--log-level=error",
         f"--outfile={out}", f"--metafile={out}.json"],
        cwd=NODE_DIR, capture_output=True, text=True, timeout=RUN_SECONDS, check=False,
    )  # fmt: skip


def test_the_web_entry_bundles_for_a_browser(tmp_path: Path) -> None:
    """``@ordo/client/web`` bundles for a browser with nothing of Node.js in it (no builtin, no
    Connect-ES Node.js transport), where the Node.js entry cannot."""
    bundled = bundle_for_browser("src/web.ts", tmp_path / "web.js")
    assert bundled.returncode == 0, bundled.stderr
    inputs = json.loads((tmp_path / "web.js.json").read_text())["inputs"]
    assert any("connect-web" in path for path in inputs)
    assert not [path for path in inputs if "connect-node" in path or path.startswith("node:")]
    code = (tmp_path / "web.js").read_text()
    assert "OrdoClient" in code
    assert not re.search(r"""\bfrom\s*["']node:|require\(""", code)
    node_entry = bundle_for_browser("src/index.ts", tmp_path / "node.js")
    assert node_entry.returncode != 0
    assert "node:" in node_entry.stderr
    package = json.loads((NODE_DIR / "package.json").read_text())
    assert package["exports"]["./web"]["default"] == "./dist/src/web.js"
