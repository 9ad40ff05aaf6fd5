"""HTTP door benchmark: ``ApplyAction`` over Connect (binary protobuf, HTTP/1.1) against gRPC,
side by side, on the same server.

One Ordo server runs in its default shape (``python -m service``, access log on, metrics off)
with both doors; the same recorded requests (``bench.rpc.record_requests``: every step of seeded
random playouts, each connection playing games of its own in order) go through each door in
turn, at each concurrency, for a bounded time: gRPC with grpcio, one channel per call in flight;
Connect with ``http.client``, one kept-alive connection per call in flight, from as many load
processes as there are CPUs (at most one per call in flight). The ratio is the HTTP door's
against gRPC's in the same run, never asserted.
"""

from __future__ import annotations

import http.client
import multiprocessing
import os
import statistics
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path

import grpc

from bench.common import Game, Settings, fmt_int, section, table
from bench.rpc import (
    HOST,
    PATH,
    free_port,
    record_requests,
    running_server,
    slot_requests,
    tree_cpu_seconds,
)
from service.config import Settings as ServerSettings
from service.config import available_cpus

CONCURRENCIES = (1, 16)
DOORS = ("grpc", "connect")
HEADERS = (
    "in flight", "door", "calls/s", "p50 ms", "p99 ms", "server CPU µs/call", "x/grpc",
)  # fmt: skip
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
    """Start one server with both doors, drive ApplyAction through each, print the table."""
    workers = ServerSettings().worker_count
    game = chosen[0]
    section("6. HTTP door: ApplyAction over Connect (binary) against gRPC, one server")
    http_port = free_port()
    args = ["-m", "service", "--host", HOST, "--metrics-port", "0", "--http-port", str(http_port)]
    playouts = record_requests(game, max(CONCURRENCIES))
    loads = " / ".join(f"{load:.1f}" for load in os.getloadavg())
    print(
        f"Server: python -m service ({workers} workers), {game.id}; {settings.seconds:g} s per "
        f"point, doors in turn; load average {loads}."
    )
    rows = []
    with (
        tempfile.TemporaryDirectory() as folder,
        running_server("ordo", args, workers, Path(folder)) as server,
    ):
        wait_for_http(http_port)
        addresses = {"grpc": server.target, "connect": f"{HOST}:{http_port}"}
        for concurrency in CONCURRENCIES:
            slots = slot_requests(playouts, concurrency)
            rates = {}
            for door in DOORS:
                rate, latencies, cpu = measure(
                    door, addresses[door], slots, settings.seconds, server.process.pid
                )
                rates[door] = rate
                ordered = sorted(latencies)
                p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
                rows.append(
                    [
                        concurrency,
                        door,
                        fmt_int(rate),
                        f"{statistics.median(ordered) * 1000:.2f}",
                        f"{p99 * 1000:.2f}",
                        fmt_int(cpu / max(1, len(latencies)) * 1e6),
                        f"{rate / rates['grpc']:.2f}",
                    ]
                )
    print(table(HEADERS, rows, left=2))
