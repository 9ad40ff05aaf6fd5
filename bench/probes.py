"""Probes under heavy calls: how long health checks and a cheap call take while one worker is
sent searches at the largest budget, again and again, from many callers over both doors.

One Ordo server runs with one worker (``python -m service --workers 1``, its other settings at
their defaults). ``HEAVY_CALLERS`` callers each send ``SuggestAction`` with the ``search`` policy
at ``--max-search-iterations`` through one door or the other (gRPC, Connect binary) and send it
again once it is answered, or after the delay its refusal names (as the clients do); meanwhile
one prober sends, in turn, a gRPC health check, ``GET /healthz`` and ``GetView`` through each
door, on connections of its own, and times each, first with no other load, then under the heavy
calls. The callers run in a process of their own: in the prober's, their threads would hold its
interpreter lock and the probes' times would be the bench's own waits. The table gives each
probe's median, 99th percentile and largest time, and how the heavy calls ended (answered,
refused as busy). Never asserted: ``tests/service/test_call_costs.py`` holds the probes to a
deadline.
"""

from __future__ import annotations

import http.client
import json
import multiprocessing
import statistics
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Callable
from multiprocessing.synchronize import Event
from pathlib import Path
from typing import Any

import grpc
from google.rpc import error_details_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_status import rpc_status

from bench.common import Settings, section, table
from bench.rpc import HOST, free_port, running_server
from ordo.v1 import common_pb2 as common
from ordo.v1 import engine_service_pb2 as api
from service.config import Settings as ServerSettings

HEAVY_CALLERS = 50
GAME = "up_or_down"  # the dearest world of the four games' searches
SEATS = 6
SERVICE_PATH = "/ordo.v1.GameEngineService/"
PROBES = ("gRPC health", "/healthz", "GetView gRPC", "GetView Connect")
HEADERS = ("probe", "load", "probes", "p50 ms", "p99 ms", "max ms")
TIMEOUT_SECONDS = 30.0
HTTP_OK = 200
MS_PER_SECOND = 1000


def run(settings: Settings) -> None:
    """Start the server, load it with heavy calls, probe it, print the table."""
    section("10. Probes while one worker is sent searches at the largest budget")
    http_port = free_port()
    args = [
        "-m", "service", "--host", HOST, "--workers", "1", "--metrics-port", "0",
        "--http-port", str(http_port),
    ]  # fmt: skip
    with (
        tempfile.TemporaryDirectory() as folder,
        running_server("probes", args, 1, Path(folder)) as server,
    ):
        state = deal(server.target)
        heavy = api.SuggestActionRequest(
            state=state,
            seat=0,
            policy="search",
            search_iterations=ServerSettings().max_search_iterations,
        ).SerializeToString()
        view = api.GetViewRequest(state=state, viewer=common.Viewer(spectator=True))
        quiet = probe(server.target, http_port, view.SerializeToString(), settings.seconds)
        stop = multiprocessing.Event()
        ended: multiprocessing.Queue[Counter[str]] = multiprocessing.Queue()
        callers = multiprocessing.Process(
            target=heavy_callers, args=(server.target, http_port, heavy, stop, ended)
        )
        callers.start()
        times = probe(server.target, http_port, view.SerializeToString(), settings.seconds * 5)
        stop.set()
        outcomes = ended.get(timeout=TIMEOUT_SECONDS * 2)
        callers.join()
    rows = [
        [
            name,
            load_name,
            len(values),
            f"{statistics.median(values) * 1000:.1f}",
            f"{sorted(values)[int(len(values) * 0.99)] * 1000:.1f}",
            f"{max(values) * 1000:.1f}",
        ]
        for name in PROBES
        for load_name, values in (("none", quiet[name]), ("heavy", times[name]))
    ]
    print(
        f"{HEAVY_CALLERS} callers sending {GAME} searches at the largest budget through both "
        f"doors; heavy calls: {dict(outcomes)}"
    )
    print(table(HEADERS, rows, left=2))


def deal(target: str) -> common.GameState:
    """A new game's state."""
    request = api.NewGameRequest(seats=SEATS, seed=7, options=common.GameOptions(up_or_down={}))
    with grpc.insecure_channel(target) as channel:
        raw = channel.unary_unary(SERVICE_PATH + "NewGame")(
            request.SerializeToString(), timeout=TIMEOUT_SECONDS
        )
    return api.NewGameResponse.FromString(raw).state


def heavy_callers(
    target: str,
    http_port: int,
    heavy: bytes,
    stop: Event,
    ended: multiprocessing.Queue[Counter[str]],
) -> None:
    """``HEAVY_CALLERS`` callers sending the heavy call until ``stop`` (run in a process of
    their own); how the calls ended goes to ``ended``."""
    outcomes: Counter[str] = Counter()
    callers = [
        threading.Thread(target=load, args=(index, target, http_port, heavy, stop, outcomes))
        for index in range(HEAVY_CALLERS)
    ]
    for caller in callers:
        caller.start()
    for caller in callers:
        caller.join()
    ended.put(outcomes)


def load(
    index: int,
    target: str,
    http_port: int,
    heavy: bytes,
    stop: Event,
    outcomes: Counter[str],
) -> None:
    """Send the heavy call again and again through one door until ``stop``; a refused one
    again after the delay its refusal names, as the clients do."""
    if index % 2:
        connection = http.client.HTTPConnection(HOST, http_port, timeout=TIMEOUT_SECONDS)
        while not stop.is_set():
            headers = {"Content-Type": "application/proto"}
            connection.request("POST", SERVICE_PATH + "SuggestAction", heavy, headers)
            response = connection.getresponse()
            body = response.read()
            if response.status == HTTP_OK:
                outcomes["answered"] += 1
                continue
            outcomes[f"refused (HTTP {response.status})"] += 1
            details = json.loads(body).get("details", [])
            stop.wait(retry_after([detail.get("debug", {}) for detail in details]))
        connection.close()
        return
    with grpc.insecure_channel(target) as channel:
        method = channel.unary_unary(SERVICE_PATH + "SuggestAction")
        while not stop.is_set():
            try:
                method(heavy, timeout=TIMEOUT_SECONDS)
                outcomes["answered"] += 1
            except grpc.RpcError as error:
                outcomes[f"refused ({error.code().name})"] += 1  # type: ignore[attr-defined]
                status = rpc_status.from_call(error)  # type: ignore[arg-type]
                infos = []
                for detail in status.details if status is not None else ():
                    info = error_details_pb2.ErrorInfo()
                    if detail.Unpack(info):
                        infos.append({"metadata": dict(info.metadata)})
                stop.wait(retry_after(infos))


def retry_after(infos: list[dict[str, Any]]) -> float:
    """The delay, in seconds, the ErrorInfo among ``infos`` asks a retry to wait."""
    for info in infos:
        asked = info.get("metadata", {}).get("retry_after_ms", "")
        if asked.isdigit():
            return int(asked) / MS_PER_SECOND
    return 0.0


def probe(target: str, http_port: int, view: bytes, seconds: float) -> dict[str, list[float]]:
    """Send each probe in turn for ``seconds``; the times of each."""
    times: dict[str, list[float]] = {name: [] for name in PROBES}
    with grpc.insecure_channel(target) as channel:
        health = health_pb2_grpc.HealthStub(channel)
        get_view = channel.unary_unary(SERVICE_PATH + "GetView")
        connection = http.client.HTTPConnection(HOST, http_port, timeout=TIMEOUT_SECONDS)

        def healthz() -> None:
            connection.request("GET", "/healthz")
            connection.getresponse().read()

        def view_over_connect() -> None:
            connection.request(
                "POST", SERVICE_PATH + "GetView", view, {"Content-Type": "application/proto"}
            )
            connection.getresponse().read()

        calls: dict[str, Callable[[], object]] = {
            "gRPC health": lambda: health.Check(
                health_pb2.HealthCheckRequest(), timeout=TIMEOUT_SECONDS
            ),
            "/healthz": healthz,
            "GetView gRPC": lambda: get_view(view, timeout=TIMEOUT_SECONDS),
            "GetView Connect": view_over_connect,
        }
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            for name, send in calls.items():
                start = time.perf_counter()
                send()
                times[name].append(time.perf_counter() - start)
        connection.close()
    return times
