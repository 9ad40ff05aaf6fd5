"""The parts of the rehearsal, each on a host of its own: the store (``redis-server`` with its
append-only file), the Ordo replicas (this release or the previous one, from its own checkout)
and HAProxy in front of them, balancing gRPC over HTTP/2 and the HTTP door over HTTP/1.1 with
the readiness checks the manifests use."""

from __future__ import annotations

import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from bench.rehearsal.hosts import Host, end_process

GRPC_PORT = 50051
HTTP_PORT = 8080
METRICS_PORT = 9464
STORE_PORT = 6379
START_SECONDS = 60.0
POLL_SECONDS = 0.1
GRACE_SECONDS = 5  # the replicas' drain: shorter than the Deployment's, as its calls are short
GRPC_BACKEND = "grpc"
HTTP_BACKEND = "http"
# HAProxy's checks: every second, out after two failures, back after two successes (the
# readiness probe's period and threshold, scaled down so that a short rehearsal sees them act).
CHECK = "check inter 1s fall 2 rise 2"


@dataclass(frozen=True)
class Release:
    """A release of the server to run: its source folder and the import path it needs."""

    name: str
    root: Path
    python_path: str = ""
    hosts_tables: bool = True  # it takes --table-store (the previous release does not)


class Store:
    """``redis-server`` on ``host``, keeping every write in its append-only file (fsync always,
    as docs/operations.md advises) in ``folder``, so that a restart forgets no revision."""

    def __init__(self, host: Host, folder: Path) -> None:
        executable = shutil.which("redis-server")
        if executable is None:
            raise RuntimeError("redis-server is not installed (apt-get install redis-server)")
        self.executable = executable
        self.host = host
        self.folder = folder
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """The store's URL, as ``--revision-store`` takes it."""
        return f"redis://{self.host.address}:{STORE_PORT}/0"

    def start(self) -> None:
        """Start the store and return once it accepts connections."""
        self.folder.mkdir(parents=True, exist_ok=True)
        log = self.folder / "redis.log"
        offset = log.stat().st_size if log.exists() else 0
        command = [
            self.executable, "--port", str(STORE_PORT), "--bind", self.host.address,
            "--dir", str(self.folder), "--save", "", "--appendonly", "yes",
            "--appendfsync", "always", "--protected-mode", "no",
        ]  # fmt: skip
        self.process = self.host.start(command, log=log)
        wait_for(lambda: b"Ready to accept connections" in log.read_bytes()[offset:], "the store")

    def stop(self) -> None:
        """Stop the store (SIGTERM: it writes what it holds and exits)."""
        if self.process is not None:
            end_process(self.process)
            self.process = None

    def pause(self, *, paused: bool) -> None:
        """Freeze the store (SIGSTOP: connections stay open, nothing answers) or thaw it."""
        assert self.process is not None
        self.process.send_signal(signal.SIGSTOP if paused else signal.SIGCONT)


class Replica:
    """One Ordo server on ``host``: one worker, the keys file, seat tokens required, the
    revision fence on the store (unless ``fence`` is off) and hosted tables kept there too (when
    its release hosts them)."""

    def __init__(self, host: Host, folder: Path, store_url: str, *, fence: bool = True) -> None:
        self.host = host
        self.folder = folder
        self.store_url = store_url
        self.fence = fence
        self.process: subprocess.Popen[bytes] | None = None
        self.release: Release | None = None
        self.starts = 0
        self.log = folder / "server.log"

    def start(self, release: Release, keys_file: Path) -> None:
        """Start the server of ``release`` with the keys in ``keys_file`` (read at start-up)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        self.starts += 1
        command = [
            sys.executable, "-m", "service", "--host", "0.0.0.0", "--port", str(GRPC_PORT),
            "--http-port", str(HTTP_PORT), "--metrics-port", str(METRICS_PORT),
            "--workers", "1", "--threads", "4", "--grace-seconds", str(GRACE_SECONDS),
            "--log-format", "json", "--state-keys-file", str(keys_file),
            "--require-seat-tokens",
        ]  # fmt: skip
        if self.fence:
            command += ["--revision-store", self.store_url]
        if release.hosts_tables:
            command += ["--table-store", self.store_url]
        env = {"PYTHONPATH": release.python_path} if release.python_path else {}
        self.log = self.folder / f"server-{self.starts}-{release.name}.log"
        self.process = self.host.start(command, log=self.log, cwd=release.root, env=env)
        self.release = release

    def wait_serving(self) -> None:
        """Wait until the worker says it serves (its ``serving`` line)."""
        process = self.process
        assert process is not None
        wait_for(
            lambda: process.poll() is None and b'"event": "serving"' in self.log.read_bytes(),
            f"{self.host.name} serving",
        )

    def stop(self, *, kill: bool = False) -> int:
        """SIGTERM (a drain) or SIGKILL the server; returns its exit code."""
        assert self.process is not None
        code = end_process(self.process, kill=kill)
        self.process = None
        return code


class Balancer:
    """HAProxy on ``host``: gRPC (HTTP/2) on its port 50051 and the HTTP door (HTTP/1.1) on
    8080, each balanced call by call, round robin, over the replicas' ``addresses`` that pass
    the readiness check; its runtime API on a socket in ``folder``."""

    def __init__(self, host: Host, folder: Path, replicas: dict[str, str]) -> None:
        executable = shutil.which("haproxy") or "/usr/sbin/haproxy"
        if not Path(executable).exists():
            raise RuntimeError("haproxy is not installed (apt-get install haproxy)")
        self.executable = executable
        self.host = host
        self.folder = folder
        self.replicas = replicas
        self.socket = folder / "haproxy.sock"
        self.process: subprocess.Popen[bytes] | None = None

    def config(self) -> str:
        """HAProxy's configuration: the two front ends, the two back ends, their checks."""
        grpc_servers = "".join(
            f"  server {name} {address}:{GRPC_PORT} proto h2 {CHECK} port {HTTP_PORT}\n"
            for name, address in self.replicas.items()
        )
        http_servers = "".join(
            f"  server {name} {address}:{HTTP_PORT} {CHECK}\n"
            for name, address in self.replicas.items()
        )
        return HAPROXY_CONFIG.format(
            socket=self.socket,
            address=self.host.address,
            grpc_port=GRPC_PORT,
            http_port=HTTP_PORT,
            grpc_servers=grpc_servers,
            http_servers=http_servers,
        )

    def start(self) -> None:
        """Start HAProxy and return once its runtime API answers."""
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.folder / "haproxy.cfg"
        path.write_text(self.config())
        command = [self.executable, "-db", "-f", str(path)]
        self.process = self.host.start(command, log=self.folder / "haproxy.log")
        wait_for(self.socket.exists, "HAProxy")

    def stop(self) -> None:
        """Stop HAProxy."""
        if self.process is not None:
            end_process(self.process)
            self.process = None

    def command(self, line: str) -> str:
        """One command of HAProxy's runtime API, and its answer."""
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.connect(str(self.socket))
            sock.sendall(line.encode() + b"\n")
            chunks = []
            while chunk := sock.recv(65536):
                chunks.append(chunk)
        return b"".join(chunks).decode()

    def up(self) -> dict[tuple[str, str], bool]:
        """Whether each (back end, server) is up: in service and passing its check."""
        states: dict[tuple[str, str], bool] = {}
        lines = self.command("show stat").splitlines()
        header = lines[0].lstrip("# ").split(",")
        for line in lines[1:]:
            row = dict(zip(header, line.split(","), strict=False))
            if row.get("svname") in self.replicas:
                states[(row["pxname"], row["svname"])] = row.get("status", "").startswith("UP")
        return states

    def wait_until(self, name: str, *, up: bool, seconds: float = START_SECONDS) -> None:
        """Wait until HAProxy sees replica ``name`` up (or down) in both back ends."""

        def reached() -> bool:
            states = self.up()
            return all(states.get((backend, name)) is up for backend in BACKENDS)

        wait_for(reached, f"{name} {'up' if up else 'down'} in HAProxy", seconds)

    def drain(self, name: str, *, draining: bool) -> None:
        """Take replica ``name`` out of rotation (as a pod's endpoint is removed when it is
        deleted) or put it back."""
        state = "maint" if draining else "ready"
        for backend in BACKENDS:
            self.command(f"set server {backend}/{name} state {state}")


BACKENDS = (GRPC_BACKEND, HTTP_BACKEND)
# gRPC is balanced call by call over HTTP/2 to each replica's gRPC port, the HTTP door over
# HTTP/1.1 to its HTTP port. Both are checked on /readyz, which answers 503 while a replica
# drains or cannot reach its revision store, as its gRPC readiness does (the manifests'
# readinessProbe). Release 0.1.0 has no /readyz and answers 404: while replicas of both serve
# (a rolling upgrade from it), 404 counts as ready, and its /healthz-like answer is all a
# balancer gets from it. A call HAProxy cannot connect for is sent to another replica
# (redispatch); any other failure reaches the client, which retries what is retryable.
HAPROXY_CONFIG = """\
global
  stats socket {socket} mode 600 level admin
  maxconn 4096

defaults
  mode http
  timeout connect 1s
  timeout client 60s
  timeout server 6s
  timeout check 1s
  retries 2
  option redispatch 1

frontend grpc_in
  bind {address}:{grpc_port} proto h2
  default_backend grpc

frontend http_in
  bind {address}:{http_port}
  default_backend http

backend grpc
  balance roundrobin
  option httpchk GET /readyz
  http-check expect rstatus ^(200|404)$
{grpc_servers}
backend http
  balance roundrobin
  option httpchk GET /readyz
  http-check expect rstatus ^(200|404)$
{http_servers}"""


def wait_for(condition: Callable[[], bool], what: str, seconds: float = START_SECONDS) -> None:
    """Poll ``condition`` until it holds; raise naming ``what`` after ``seconds``."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            if condition():
                return
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out waiting for {what}")
        time.sleep(POLL_SECONDS)
