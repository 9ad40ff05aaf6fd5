"""HTTP door benchmark: ``ApplyAction`` through the HTTP door against the gRPC door of the same
server, with h2load (nghttp2's HTTP/2 and HTTP/1.1 load generator, written in C: a Python load
generator would take a core of its own).

One Ordo server runs in its default shape (``python -m service``, access log on, metrics off)
with both doors. The same ``ApplyAction`` request (a mid-game state of the first game chosen)
goes, in turn, through gRPC (the gRPC port), Connect binary over h2c and Connect JSON over
HTTP/1.1 (the HTTP port), at 1, 16 and 64 calls in flight (as many connections, one call at a
time on each), a fixed number of calls; each point is measured in ``ROUNDS`` rounds, the doors in
turn within a round, and the table gives each door's median calls/s and the median of its
per-round ratio to gRPC's, never asserted. Without h2load (``apt-get install nghttp2-client``)
the table is skipped.

``measure`` and ``call_loop`` drive the doors from Python threads instead (gRPC with grpcio,
Connect binary with ``http.client``): ``bench.versions`` compares two servers with them.
"""

from __future__ import annotations

import http.client
import multiprocessing
import os
import re
import shutil
import statistics
import subprocess
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path

import grpc
from google.protobuf import json_format

from bench.common import Game, Settings, apply_request, fmt_int, mid_game_steps, section, table
from bench.rpc import HOST, PATH, free_port, running_server, tree_cpu_seconds
from ordo.v1 import engine_service_pb2 as api
from service.config import Settings as ServerSettings
from service.config import available_cpus

CONCURRENCIES = (1, 16)  # measure's (bench.versions)
DOORS = ("grpc", "connect")  # measure's
CONCURRENCIES_H2LOAD = (1, 16, 64)
H2LOAD_ROUNDS = 3
CALLS_PER_SECOND = 2_500  # the calls a run of a point asks for, per second it should take
CALLS_PER_CONNECTION = 3_500  # below the HTTP door's 4,000 streams per HTTP/2 connection
MIN_CALLS_PER_CONNECTION = 300  # enough that opening the connection costs little of the run
# Each door h2load drives, with the protocol it speaks, and the headers of its calls.
H2LOAD_DOORS = {
    "grpc": "gRPC, h2c",
    "connect-proto": "Connect binary, h2c",
    "connect-json": "Connect JSON, HTTP/1.1",
}
H2LOAD_HEADERS_OF = {
    "grpc": (("content-type", "application/grpc"), ("te", "trailers")),
    "connect-proto": (("content-type", "application/proto"),),
    "connect-json": (("content-type", "application/json"),),
}
H2LOAD_HEADERS = ("in flight", "door", "protocol", "calls/s", "x/grpc")
START_SECONDS = 60.0
CONNECT_HEADERS = {"Content-Type": "application/proto"}


def call_loop(
    door: str, address: str, requests: Sequence[bytes], seconds: float, latencies: list[float]
) -> None:
    """Send ``requests`` in order, again and again, through ``door`` for ``seconds``."""
    deadline = time.perf_counter() + seconds
    if door == "grpc":
        with grpc.insecure_channel(address) as channel:
            method = channel.unary_unary(PATH)
            index = 0
            while (start := time.perf_counter()) < deadline:
                method(requests[index % len(requests)], timeout=30)
                latencies.append(time.perf_counter() - start)
                index += 1
        return
    host, port = address.rsplit(":", 1)
    connection = http.client.HTTPConnection(host, int(port), timeout=30)
    try:
        index = 0
        while (start := time.perf_counter()) < deadline:
            connection.request("POST", PATH, requests[index % len(requests)], CONNECT_HEADERS)
            response = connection.getresponse()
            response.read()
            if response.status != 200:
                raise RuntimeError(f"the HTTP door answered {response.status}")
            latencies.append(time.perf_counter() - start)
            index += 1
    finally:
        connection.close()


def load_process(
    door: str, address: str, slots: list[list[bytes]], seconds: float, out: multiprocessing.Queue
) -> None:
    """One load process: a thread per slot; puts the latencies of every call on ``out``."""
    latencies: list[list[float]] = [[] for _ in slots]
    threads = [
        threading.Thread(target=call_loop, args=(door, address, slot, seconds, latencies[i]))
        for i, slot in enumerate(slots)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    out.put([value for values in latencies for value in values])


def measure(
    door: str, address: str, slots: list[list[bytes]], seconds: float, server_pid: int
) -> tuple[float, list[float], float]:
    """Calls/s, the latencies and the server's CPU seconds of one door at one concurrency."""
    context = multiprocessing.get_context("spawn")
    loaders = max(1, min(len(slots), available_cpus()))
    out: multiprocessing.Queue = context.Queue()
    processes = [
        context.Process(target=load_process, args=(door, address, slots[i::loaders], seconds, out))
        for i in range(loaders)
    ]
    cpu_before = tree_cpu_seconds(server_pid)
    for process in processes:
        process.start()
    latencies = [value for _ in processes for value in out.get()]
    for process in processes:
        process.join()
    cpu = tree_cpu_seconds(server_pid) - cpu_before
    return len(latencies) / seconds, latencies, cpu


def wait_for_http(port: int) -> None:
    """Wait until the HTTP door answers its health path."""
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        try:
            connection = http.client.HTTPConnection(HOST, port, timeout=1)
            connection.request("GET", "/healthz")
            if connection.getresponse().status == 200:
                return
        except OSError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"the HTTP door is not serving after {START_SECONDS} s")


def run(settings: Settings, chosen: Sequence[Game]) -> None:
    """Start one server with both doors, drive ApplyAction through each with h2load, print the
    calls/s of each door and its ratio to gRPC's at each number of calls in flight."""
    section("6. HTTP door: ApplyAction over Connect (binary h2c, JSON HTTP/1.1) against gRPC")
    h2load = shutil.which("h2load")
    if h2load is None:
        print("skipped: h2load is not installed (apt-get install nghttp2-client)")
        return
    workers = ServerSettings().worker_count
    game = chosen[0]
    http_port = free_port()
    args = ["-m", "service", "--host", HOST, "--metrics-port", "0", "--http-port", str(http_port)]
    loads = " / ".join(f"{load:.1f}" for load in os.getloadavg())
    seconds = max(1, round(settings.seconds / H2LOAD_ROUNDS))
    print(
        f"Server: python -m service ({workers} workers), {game.id}; h2load, {H2LOAD_ROUNDS} "
        f"rounds of about {seconds} s a point, doors in turn; load average {loads}."
    )
    with tempfile.TemporaryDirectory() as folder_name:
        folder = Path(folder_name)
        bodies = write_bodies(game, folder)
        with running_server("ordo", args, workers, folder) as server:
            wait_for_http(http_port)
            targets = {
                "grpc": f"http://{server.target}{PATH}",
                "connect-proto": f"http://{HOST}:{http_port}{PATH}",
                "connect-json": f"http://{HOST}:{http_port}{PATH}",
            }
            rows = []
            for concurrency in CONCURRENCIES_H2LOAD:
                rates: dict[str, list[float]] = {door: [] for door in H2LOAD_DOORS}
                for _ in range(H2LOAD_ROUNDS):
                    for door in H2LOAD_DOORS:
                        rate = h2load_rate(
                            h2load, door, targets[door], bodies[door], concurrency, seconds
                        )
                        rates[door].append(rate)
                rows += [
                    [
                        concurrency,
                        door,
                        H2LOAD_DOORS[door],
                        fmt_int(statistics.median(rates[door])),
                        f"{statistics.median(ratios(rates[door], rates['grpc'])):.2f}",
                    ]
                    for door in H2LOAD_DOORS
                ]
    print(table(H2LOAD_HEADERS, rows, left=3))


def write_bodies(game: Game, folder: Path) -> dict[str, Path]:
    """The request of each door, in a file for h2load: a mid-game ``ApplyAction`` of ``game``,
    framed for gRPC, as it is for Connect binary, and in JSON for Connect JSON."""
    raw = apply_request(game, mid_game_steps(game, 1)[0])
    message = api.ApplyActionRequest.FromString(raw)
    contents = {
        "grpc": b"\x00" + len(raw).to_bytes(4, "big") + raw,
        "connect-proto": raw,
        "connect-json": json_format.MessageToJson(message, indent=None).encode(),
    }
    paths = {}
    for door, content in contents.items():
        paths[door] = folder / f"{door}.body"
        paths[door].write_bytes(content)
    return paths


def h2load_rate(
    h2load: str, door: str, url: str, body: Path, concurrency: int, seconds: int
) -> float:
    """The calls/s h2load reaches through ``door`` with ``concurrency`` connections, one call
    in flight on each, over about ``seconds``; every call must be answered 2xx. h2load opens
    each connection once and never again: a run takes at most ``CALLS_PER_CONNECTION`` calls
    on one, below the count at which the HTTP door asks its HTTP/2 clients for a new one."""
    per_connection = min(
        CALLS_PER_CONNECTION,
        max(MIN_CALLS_PER_CONNECTION, seconds * CALLS_PER_SECOND // concurrency),
    )
    command = [
        h2load, "-c", str(concurrency), "-m", "1", "-t", "1",
        "-n", str(per_connection * concurrency), "-d", str(body), url,
    ]  # fmt: skip
    for name, value in H2LOAD_HEADERS_OF[door]:
        command += ["-H", f"{name}: {value}"]
    if door == "connect-json":
        command.append("--h1")
    output = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    finished = re.search(r"finished in [^,]+, ([\d.]+) req/s", output)
    codes = re.search(r"status codes: (\d+) 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx", output)
    done = re.search(r"requests: \d+ total, \d+ started, \d+ done, (\d+) succeeded", output)
    if (
        finished is None
        or codes is None
        or done is None
        or int(done[1]) != per_connection * concurrency
        or any(int(count) for count in codes.groups()[1:])
    ):
        raise RuntimeError(f"h2load through {door} did not get only 2xx answers:\n{output}")
    return float(finished[1])


def ratios(rates: Sequence[float], base: Sequence[float]) -> list[float]:
    """Each round's rate against the base's rate of the same round."""
    return [rate / other for rate, other in zip(rates, base, strict=True)]
