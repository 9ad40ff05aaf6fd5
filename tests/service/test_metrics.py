"""The metrics: gRPC server counters per method and code, game counters, sizes, the endpoint.

Values are read as the metrics endpoint reads them, from the multiprocess folder, and compared
as differences, so tests do not depend on each other.
"""

from __future__ import annotations

import math
import os
import socket
import urllib.request
from pathlib import Path
from typing import Any, NoReturn

import grpc
import pytest
from prometheus_client import CollectorRegistry, multiprocess

from ordo.v1 import common_pb2 as common
from ordo.v1 import engine_service_pb2 as api
from service.calls.call_path import SERVICE
from service.calls.servicer import GameEngineServicer
from service.telemetry import metrics
from service.telemetry.build import build_info
from service.telemetry.observe import CallRecord
from tests.service.bots import GAME, Bots, card_not_in_hand, no_state
from tests.service.conftest import StartServer, race

METHODS = [method.name for method in SERVICE.methods]
GRPC_LABELS = {"grpc_service": metrics.SERVICE, "grpc_type": "unary", "protocol": "grpc"}

Sample = tuple[str, frozenset[tuple[str, str]]]


def snapshot() -> dict[Sample, float]:
    """Every sample of every worker of this process, as ``/metrics`` would serve it."""
    registry = CollectorRegistry()
    multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in registry.collect()
        for sample in family.samples
    }


def value(samples: dict[Sample, float], name: str, **labels: str) -> float:
    """One sample's value, 0 when absent."""
    return samples.get((name, frozenset(labels.items())), 0.0)


class Delta:
    """The change of the samples between its creation and each ``of`` call."""

    def __init__(self) -> None:
        self.before = snapshot()

    def of(self, name: str, **labels: str) -> float:
        """How much a sample grew since the creation."""
        return value(snapshot(), name, **labels) - value(self.before, name, **labels)


def handled(method: str, code: str) -> dict[str, str]:
    """The labels of ``grpc_server_handled_total`` for a method and a code."""
    return {**GRPC_LABELS, "grpc_method": method, "grpc_code": code}


def free_port() -> int:
    """A loopback port that was free a moment ago."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def new_game_request(seed: int = 5) -> api.NewGameRequest:
    """A three-seat 6 nimmt! game."""
    return api.NewGameRequest(seats=3, seed=seed, options=common.GameOptions(six_nimmt={}))


class TestGrpcServerMetrics:
    """The standard gRPC server metrics, per method and status code."""

    def test_counted_per_method_and_code(self, start_server: StartServer) -> None:
        """Started and handled count every call once, handled under its status code."""
        stub = start_server([metrics.Metrics(METHODS)])
        delta = Delta()
        states = [stub.NewGame(new_game_request(seed), timeout=10).state for seed in (1, 2, 3)]
        for state in states[:2]:
            with pytest.raises(grpc.RpcError):
                stub.ApplyAction(card_not_in_hand(state), timeout=10)
        stub.ListGames(api.ListGamesRequest(), timeout=10)
        expected = {
            ("NewGame", "OK"): 3,
            ("ApplyAction", "InvalidArgument"): 2,
            ("ListGames", "OK"): 1,
        }
        for (method, code), count in expected.items():
            assert delta.of("grpc_server_handled_total", **handled(method, code)) == count
        assert delta.of("grpc_server_handled_total", **handled("ApplyAction", "OK")) == 0
        for method, count in [("NewGame", 3), ("ApplyAction", 2), ("ListGames", 1)]:
            labels = {**GRPC_LABELS, "grpc_method": method}
            assert delta.of("grpc_server_started_total", **labels) == count
            assert delta.of("grpc_server_handling_seconds_count", **labels) == count

    def test_started_counts_before_the_call_ends(self, start_server: StartServer) -> None:
        """A call is counted as started while it runs, and as handled only once it has ended."""
        seen: list[tuple[float, float]] = []

        class Probe:
            """Reads the counters from inside the call, after the metrics observer."""

            def call_started(self, call: CallRecord) -> None:
                samples = snapshot()
                seen.append(
                    (
                        value(samples, "grpc_server_started_total", **started_labels),
                        value(samples, "grpc_server_handled_total", **handled_labels),
                    )
                )

            def call_finished(self, call: CallRecord) -> None:
                """Nothing to check at the end."""

        started_labels = {**GRPC_LABELS, "grpc_method": "ListGames"}
        handled_labels = handled("ListGames", "OK")
        stub = start_server([metrics.Metrics(METHODS), Probe()])
        before = snapshot()
        stub.ListGames(api.ListGamesRequest(), timeout=10)
        assert seen == [
            (
                value(before, "grpc_server_started_total", **started_labels) + 1,
                value(before, "grpc_server_handled_total", **handled_labels),
            )
        ]

    def test_every_method_is_exported_from_the_start(self) -> None:
        """Before any call, every method has a started and an OK handled series."""
        metrics.Metrics(METHODS)
        samples = snapshot()
        for method in METHODS:
            labels = {**GRPC_LABELS, "grpc_method": method}
            assert ("grpc_server_started_total", frozenset(labels.items())) in samples
            assert (
                "grpc_server_handled_total",
                frozenset(handled(method, "OK").items()),
            ) in samples

    def test_internal_errors(
        self, start_server: StartServer, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        """A failure inside the server is handled with code Internal and is no rejected action."""

        def fail(self: GameEngineServicer, request: Any, call: CallRecord, token: str) -> NoReturn:
            call.game = GAME
            raise RuntimeError("broken")

        monkeypatch.setattr(GameEngineServicer, "ApplyAction", fail)
        stub = start_server([metrics.Metrics(METHODS)])
        delta = Delta()
        with pytest.raises(grpc.RpcError):
            stub.ApplyAction(api.ApplyActionRequest(), timeout=10)
        assert delta.of("grpc_server_handled_total", **handled("ApplyAction", "Internal")) == 1
        assert delta.of("ordo_actions_rejected_total", game=GAME, reason="INTERNAL") == 0
        assert delta.of("ordo_actions_applied_total", game=GAME) == 0

    def test_latency_buckets_from_half_a_millisecond_to_five_seconds(self) -> None:
        """The server time's buckets are those of the operations docs, 0.5 ms to 5 s (and +Inf)."""
        metrics.Metrics(METHODS).call_finished(CallRecord("ListGames", seconds=0.001))
        labels = {**GRPC_LABELS, "grpc_method": "ListGames"}
        bounds = sorted(
            float(dict(sample_labels)["le"])
            for name, sample_labels in snapshot()
            if name == "grpc_server_handling_seconds_bucket"
            and labels.items() <= dict(sample_labels).items()
        )
        assert bounds == [
            0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0,
            math.inf,
        ]  # fmt: skip


class TestCodeNames:
    """The grpc_code label spells codes as the gRPC ecosystem's Go interceptors do."""

    def test_every_code_in_go_spelling(self) -> None:
        """Each status code is its name in CamelCase, but for OK and Go's ``Canceled``."""
        expected = {
            code.name: "".join(word.capitalize() for word in code.name.split("_"))
            for code in grpc.StatusCode
        }
        expected.update(OK="OK", CANCELLED="Canceled")
        assert expected == metrics.CODE_NAMES


class TestGameMetrics:
    """Games started and finished, actions applied and rejected, engine time and sizes."""

    def test_whole_games(self, start_server: StartServer) -> None:
        """Whole games count as started and finished, and every applied action once."""
        bots = Bots([start_server([metrics.Metrics(METHODS)])])
        delta = Delta()
        for seed in (21, 22):
            bots.play(seed)
        assert delta.of("ordo_games_started_total", game=GAME) == bots.games_started == 2
        assert delta.of("ordo_games_finished_total", game=GAME) == bots.games_finished == 2
        assert delta.of("ordo_actions_applied_total", game=GAME) == bots.actions_applied
        assert bots.actions_applied == bots.calls["ApplyAction", "OK"] > 0

    def test_rejected_by_reason(self, start_server: StartServer) -> None:
        """Refused actions count per game and reason; a request naming no game has game ''."""
        stub = start_server([metrics.Metrics(METHODS)])
        bots = Bots([stub])
        state = bots.new_game(seed=3).state
        delta = Delta()
        for _ in range(3):
            bots.reject(card_not_in_hand(state), GAME, "CARD_NOT_IN_HAND")
        bots.reject(no_state(), "", "STATE_NOT_SET")
        assert bots.actions_rejected == {
            (GAME, "CARD_NOT_IN_HAND"): 3,
            ("", "STATE_NOT_SET"): 1,
        }
        for (game, reason), count in bots.actions_rejected.items():
            assert delta.of("ordo_actions_rejected_total", game=game, reason=reason) == count
        assert delta.of("ordo_actions_applied_total", game=GAME) == 0

    def test_validate_is_no_rejection(self, start_server: StartServer) -> None:
        """An illegal action checked with ValidateAction is an answer, not a rejected action."""
        stub = start_server([metrics.Metrics(METHODS)])
        state = stub.NewGame(new_game_request(), timeout=10).state
        delta = Delta()
        illegal = card_not_in_hand(state)
        response = stub.ValidateAction(
            api.ValidateActionRequest(state=state, action=illegal.action), timeout=10
        )
        assert (response.legal, response.reason) == (False, "CARD_NOT_IN_HAND")
        assert delta.of("ordo_actions_rejected_total", game=GAME, reason="CARD_NOT_IN_HAND") == 0
        assert delta.of("grpc_server_handled_total", **handled("ValidateAction", "OK")) == 1

    def test_engine_time_per_game_and_rpc(self, start_server: StartServer) -> None:
        """Engine time is observed once per call about a game, labelled with game and RPC."""
        stub = start_server([metrics.Metrics(METHODS)])
        delta = Delta()
        state = stub.NewGame(new_game_request(), timeout=10).state
        for seat in range(3):
            stub.ListLegalActions(api.ListLegalActionsRequest(state=state, seat=seat), timeout=10)
        stub.ListGames(api.ListGamesRequest(), timeout=10)
        assert delta.of("ordo_engine_seconds_count", game=GAME, rpc="NewGame") == 1
        assert delta.of("ordo_engine_seconds_count", game=GAME, rpc="ListLegalActions") == 3
        assert delta.of("ordo_engine_seconds_sum", game=GAME, rpc="ListLegalActions") > 0
        assert delta.of("ordo_engine_seconds_count", game="", rpc="ListGames") == 0

    def test_request_and_state_sizes(self, start_server: StartServer) -> None:
        """Request sizes per method and returned state sizes per game are exact, in bytes."""
        stub = start_server([metrics.Metrics(METHODS)])
        delta = Delta()
        new_request = new_game_request()
        new = stub.NewGame(new_request, timeout=10)
        list_request = api.ListLegalActionsRequest(state=new.state, seat=0)
        actions = stub.ListLegalActions(list_request, timeout=10).actions
        apply_request = api.ApplyActionRequest(state=new.state, action=actions[0])
        applied = stub.ApplyAction(apply_request, timeout=10)
        for method, request in [
            ("NewGame", new_request),
            ("ListLegalActions", list_request),
            ("ApplyAction", apply_request),
        ]:
            assert delta.of("ordo_request_bytes_sum", grpc_method=method) == request.ByteSize()
            assert delta.of("ordo_request_bytes_count", grpc_method=method) == 1
        assert delta.of("ordo_state_bytes_count", game=GAME) == 2  # ListLegalActions returns none
        assert (
            delta.of("ordo_state_bytes_sum", game=GAME)
            == new.state.ByteSize() + applied.state.ByteSize()
        )


class TestThreads:
    """Calls observed from many threads at once, as a worker's thread pool does."""

    THREADS = 8
    CALLS = 2_000

    def test_count_exactly(self) -> None:
        """Every call of every thread counts once, in the counters, buckets and sums."""
        observer = metrics.Metrics(METHODS)
        game = "threads_test"  # its own series, so that the sums start at 0
        call = CallRecord(
            "ApplyAction", game=game, seconds=0.002, engine_seconds=0.25, state_bytes=100
        )
        delta = Delta()

        def work(index: int) -> None:
            for _ in range(self.CALLS):
                observer.call_started(call)
                observer.call_finished(call)

        race(work, self.THREADS)
        total = self.THREADS * self.CALLS
        labels = {**GRPC_LABELS, "grpc_method": "ApplyAction"}
        assert delta.of("grpc_server_started_total", **labels) == total
        assert delta.of("grpc_server_handled_total", **handled("ApplyAction", "OK")) == total
        assert delta.of("grpc_server_handling_seconds_bucket", **labels, le="0.0025") == total
        assert delta.of("ordo_actions_applied_total", game=game) == total
        assert delta.of("ordo_engine_seconds_sum", game=game, rpc="ApplyAction") == total / 4
        assert delta.of("ordo_state_bytes_sum", game=game) == 100 * total
        assert delta.of("ordo_state_bytes_bucket", game=game, le="128.0") == total


class TestEndpoint:
    """``/metrics`` serves every worker's samples and prints nothing per request."""

    @staticmethod
    def scrape(times: int = 1) -> str:
        """Start the endpoint on a free port, scrape it ``times`` times; the last page."""
        port = free_port()
        server = metrics.start_http_server(port, "127.0.0.1")
        try:
            for _ in range(times):
                url = f"http://127.0.0.1:{port}/metrics"
                with urllib.request.urlopen(url, timeout=10) as response:
                    body: str = response.read().decode()
        finally:
            server.shutdown()
            server.server_close()
        return body

    def test_serves_quietly(self, capfd: pytest.CaptureFixture[str]) -> None:
        """Scrapes get the gRPC metrics and leave no line on stdout or stderr."""
        metrics.Metrics(METHODS)
        body = self.scrape(3)
        assert 'grpc_server_started_total{grpc_method="ListGames"' in body
        assert 'grpc_server_handled_total{grpc_code="OK",grpc_method="ListGames"' in body
        assert capfd.readouterr() == ("", "")

    def test_the_build_info(self) -> None:
        """``ordo_build_info`` is 1, the versions of Ordo and what it runs on as its labels."""
        info = sorted(build_info().items())
        labels = ",".join(f'{key}="{value}"' for key, value in info)
        assert f"ordo_build_info{{{labels}}} 1.0" in self.scrape().splitlines()

    def test_port_zero_turns_it_off(self) -> None:
        """Metrics port 0 starts no endpoint."""
        assert metrics.start_http_server(0) is None


class TestMultiprocessFolder:
    """The folder the workers write their samples to starts empty on every start."""

    def test_emptied_at_start(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        """Samples left by an earlier run are deleted before the workers start."""
        folder = tmp_path / "metrics"
        folder.mkdir()
        (folder / "counter_12345.db").write_bytes(b"stale")
        monkeypatch.setenv(metrics.MULTIPROC_ENV, str(folder))
        assert metrics.prepare_multiprocess_dir() == folder
        assert folder.is_dir()
        assert list(folder.iterdir()) == []

    def test_made_when_absent(self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
        """A configured folder that does not exist yet is created."""
        folder = tmp_path / "deep" / "metrics"
        monkeypatch.setenv(metrics.MULTIPROC_ENV, str(folder))
        metrics.prepare_multiprocess_dir()
        assert folder.is_dir()

    def test_this_process_writes_to_it(self) -> None:
        """The test process itself writes its samples into the exported folder."""
        folder = Path(os.environ[metrics.MULTIPROC_ENV])
        metrics.Metrics(METHODS)
        assert f"counter_{os.getpid()}.db" in {path.name for path in folder.iterdir()}
