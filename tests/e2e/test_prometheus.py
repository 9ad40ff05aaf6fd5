"""A real Prometheus scrapes a real server of two worker processes and counts every call.

The server runs as ``make run`` runs it (``python -m service``), on free loopback ports; the
Prometheus is Debian's ``prometheus`` binary with a scrape interval of one second. Games are
played over several connections, so that both workers serve calls, and the counters are read
back through Prometheus's HTTP query API: they must equal the calls made, per method and code.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import pytest
from prometheus_client import CollectorRegistry, multiprocess

from ordo.v1 import engine_service_pb2 as api
from ordo.v1 import engine_service_pb2_grpc as rpc
from service.telemetry.metrics import CODE_NAMES
from tests.deploy.grafana import dashboard_queries
from tests.e2e.server_process import (
    HOST,
    POLL_SECONDS,
    START_SECONDS,
    events,
    free_port,
    read_log,
    running_server,
    terminate,
)
from tests.e2e.server_process import (
    ServerProcess as Server,
)
from tests.service.bots import GAME, Bots, card_not_in_hand, no_state

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
WORKERS = 2
SCRAPE_WAIT_SECONDS = 60  # bound on waiting for a scrape after the last call
SCRAPE_MARGIN_SECONDS = 0.1
COUNT_WAIT_SECONDS = 10  # bound on waiting for a worker to count a call it has answered
MAX_CHANNELS = 32  # connections opened, at most, until one reaches each worker
GAME_SEEDS = (101, 202, 303)
DASHBOARD_RATE_INTERVAL = "1m"  # what Grafana makes of $__rate_interval at this scrape interval
ALL_NAMESPACES = ".*"  # the namespace variable's value for "All"


@dataclass
class Prometheus:
    """The Prometheus process and its HTTP API."""

    process: subprocess.Popen[bytes]
    url: str
    log: Path

    def query(self, promql: str) -> list[dict[str, Any]]:
        """Evaluate an instant query; returns its vector."""
        url = f"{self.url}/api/v1/query?{urllib.parse.urlencode({'query': promql})}"
        with urllib.request.urlopen(url, timeout=10) as response:
            body = json.load(response)
        assert body["status"] == "success", body
        result: list[dict[str, Any]] = body["data"]["result"]
        return result

    def by(self, promql: str, *labels: str) -> dict[tuple[str, ...], float]:
        """An instant query's non-zero values keyed by the given labels ('' when absent)."""
        return {
            tuple(item["metric"].get(label, "") for label in labels): float(item["value"][1])
            for item in self.query(promql)
            if float(item["value"][1])
        }


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    """Start ``python -m service`` with two workers, as ``make run`` does, on free ports."""
    with running_server(tmp_path, workers=WORKERS) as process:
        yield process


@pytest.fixture
def prometheus(tmp_path: Path, server: Server) -> Iterator[Prometheus]:
    """Start a Prometheus scraping the server's metrics every second."""
    binary = shutil.which("prometheus")
    if binary is None:
        pytest.skip("prometheus binary not found: apt-get install prometheus")
    config = tmp_path / "prometheus.yml"
    config.write_text(
        "global:\n"
        "  scrape_interval: 1s\n"
        "  scrape_timeout: 1s\n"
        "scrape_configs:\n"
        "  - job_name: ordo\n"
        "    static_configs:\n"
        f"      - targets: ['{HOST}:{server.metrics_port}']\n"
    )
    web_port = free_port()
    log = tmp_path / "prometheus.log"
    command = [
        binary,
        f"--config.file={config}",
        f"--storage.tsdb.path={tmp_path / 'tsdb'}",
        f"--web.listen-address={HOST}:{web_port}",
    ]
    with log.open("wb") as output:
        process = subprocess.Popen(
            command, cwd=tmp_path, stdin=subprocess.DEVNULL, stdout=output, stderr=output
        )
    running = Prometheus(process, f"http://{HOST}:{web_port}", log)
    try:
        deadline = time.monotonic() + START_SECONDS
        while not ready(running.url):
            assert process.poll() is None, f"Prometheus exited:\n{read_log(log)}"
            assert time.monotonic() < deadline, f"Prometheus did not start:\n{read_log(log)}"
            time.sleep(POLL_SECONDS)
        yield running
    finally:
        terminate(process)


def ready(url: str) -> bool:
    """Whether Prometheus answers its readiness check."""
    try:
        with urllib.request.urlopen(f"{url}/-/ready", timeout=1) as response:
            return response.status == 200
    except (urllib.error.URLError, OSError):
        return False


def handled_per_worker(metrics_dir: Path, scratch: Path) -> dict[int, float]:
    """Calls handled by each worker process, read from its own file in the metrics folder."""
    totals = {}
    for path in metrics_dir.glob("counter_*.db"):
        pid = int(path.stem.removeprefix("counter_"))
        alone = scratch / str(pid)
        alone.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, alone / path.name)
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry, path=str(alone))  # type: ignore[no-untyped-call]
        totals[pid] = sum(
            sample.value
            for family in registry.collect()
            for sample in family.samples
            if sample.name == "grpc_server_handled_total"
        )
    return totals


def connect(bots: Bots, server: Server, channels: list[grpc.Channel], scratch: Path) -> None:
    """Give ``bots`` one connection to each worker, found by trying new ones (bounded).

    SO_REUSEPORT hands each new connection to one worker; a channel of its own (not sharing the
    process-wide pool of connections) is a new connection. One call on it, and the worker whose
    count grew is the one it reached (a worker counts a call once its response has left, so
    the count may grow a moment after the response arrives).
    """
    reached: set[int] = set()
    for _ in range(MAX_CHANNELS):
        before = handled_per_worker(server.metrics_dir, scratch)
        channel = grpc.insecure_channel(
            f"{HOST}:{server.port}", options=[("grpc.use_local_subchannel_pool", 1)]
        )
        channels.append(channel)
        stub = rpc.GameEngineServiceStub(channel)
        bots.call("ListGames", api.ListGamesRequest(), stub)
        deadline = time.monotonic() + COUNT_WAIT_SECONDS
        while True:
            after = handled_per_worker(server.metrics_dir, scratch)
            grown = [pid for pid, total in after.items() if total > before.get(pid, 0)]
            if grown or time.monotonic() > deadline:
                break
            time.sleep(POLL_SECONDS)
        (worker,) = grown
        if worker not in reached:
            reached.add(worker)
            bots.stubs.append(stub)
        if len(reached) == WORKERS:
            return
    pytest.fail(f"{MAX_CHANNELS} connections reached only the workers {sorted(reached)}")


def wait_for_scrape_after(prometheus: Prometheus, moment: float) -> float:
    """Wait until Prometheus holds a successful scrape that started after ``moment``; returns
    when that scrape began."""
    deadline = time.monotonic() + SCRAPE_WAIT_SECONDS
    while time.monotonic() < deadline:
        # timestamp() of a bare selector is the scrape's time (of any other expression, the
        # query's). Prometheus may shift a scrape's timestamp by a few milliseconds to align it
        # with its interval: a margin makes sure the scrape really began after the last call.
        scraped = prometheus.query('timestamp(up{job="ordo"})')
        if scraped and float(scraped[0]["value"][1]) > moment + SCRAPE_MARGIN_SECONDS:
            assert prometheus.by('up{job="ordo"}', "job") == {("ordo",): 1}, "the scrape failed"
            return float(scraped[0]["value"][1])
        time.sleep(POLL_SECONDS)
    pytest.fail(f"no scrape after the last call:\n{read_log(prometheus.log)}")


def test_counters_equal_the_calls_made(
    server: Server, prometheus: Prometheus, tmp_path: Path
) -> None:
    """Prometheus's counters equal the calls made, per method and code, over both workers.

    The games' calls alternate between a connection to one worker and one to the other.
    """
    bots = Bots([])
    channels: list[grpc.Channel] = []
    try:
        connect(bots, server, channels, tmp_path / "per-worker")
        for seed in GAME_SEEDS:
            bots.play(seed)
        state = bots.new_game(seed=404).state
        for _ in range(3):
            bots.reject(card_not_in_hand(state), GAME, "CARD_NOT_IN_HAND")
        for _ in range(2):
            bots.reject(no_state(), "", "STATE_NOT_SET")
        with pytest.raises(grpc.RpcError):
            bots.call("NewGame", api.NewGameRequest(seats=3))  # no game selected
        last_call = time.time()
    finally:
        for channel in channels:
            channel.close()

    wait_for_scrape_after(prometheus, last_call)

    expected = {(method, CODE_NAMES[code]): count for (method, code), count in bots.calls.items()}
    assert ("ApplyAction", "InvalidArgument") in expected
    assert ("NewGame", "InvalidArgument") in expected
    handled = prometheus.by(
        "sum by (grpc_method, grpc_code) (grpc_server_handled_total)", "grpc_method", "grpc_code"
    )
    assert handled == expected

    per_method: Counter[str] = Counter()
    for (method, _code), count in expected.items():
        per_method[method] += count
    started = prometheus.by("sum by (grpc_method) (grpc_server_started_total)", "grpc_method")
    assert started == {(method,): count for method, count in per_method.items()}
    latency = prometheus.by(
        "sum by (grpc_method) (grpc_server_handling_seconds_count)", "grpc_method"
    )
    assert latency == started

    assert prometheus.by("sum by (game) (ordo_games_started_total)", "game") == {
        (GAME,): bots.games_started
    }
    assert prometheus.by("sum by (game) (ordo_games_finished_total)", "game") == {
        (GAME,): len(GAME_SEEDS)
    }
    assert prometheus.by("sum by (game) (ordo_actions_applied_total)", "game") == {
        (GAME,): bots.actions_applied
    }
    rejected = prometheus.by(
        "sum by (game, reason) (ordo_actions_rejected_total)", "game", "reason"
    )
    assert rejected == dict(bots.actions_rejected)

    workers = handled_per_worker(server.metrics_dir, tmp_path / "final")
    assert len(workers) == WORKERS
    assert all(workers.values()), f"a worker served no call: {workers}"
    assert sum(workers.values()) == sum(expected.values())

    assert server.stop() == 0, read_log(server.log)
    assert len(events(server.log, "rpc")) == sum(expected.values())  # one access line per call
    assert len(events(server.log, "draining")) == WORKERS


def test_dashboard_queries_return_series(server: Server, prometheus: Prometheus) -> None:
    """Every query of the Grafana dashboard, as Grafana sends it with every namespace chosen,
    is valid and returns series from the real Prometheus once the server has served a game and
    refused an action."""
    with grpc.insecure_channel(server.target) as channel:
        bots = Bots([rpc.GameEngineServiceStub(channel)])
        bots.play(GAME_SEEDS[0])
        bots.reject(card_not_in_hand(bots.new_game(seed=404).state), GAME, "CARD_NOT_IN_HAND")
        last_call = time.time()
    # A rate needs two samples of a series: the scrape after the last call, and one more.
    wait_for_scrape_after(prometheus, wait_for_scrape_after(prometheus, last_call))
    queries = dashboard_queries()
    assert queries
    for query in queries:
        promql = query.replace("$__rate_interval", DASHBOARD_RATE_INTERVAL)
        promql = promql.replace("$namespace", ALL_NAMESPACES)
        assert prometheus.query(promql), promql
