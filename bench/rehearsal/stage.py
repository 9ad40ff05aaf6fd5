"""The rehearsal's stage: the hosts and what runs on them (the store, three replicas, HAProxy,
the two drivers), set up and torn down together, and the moves the phases make with them."""

from __future__ import annotations

import base64
import json
import os
import queue
import shutil
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from bench.rehearsal.cast import (
    GRPC_PORT,
    HTTP_PORT,
    Balancer,
    Release,
    Replica,
    Store,
)
from bench.rehearsal.hosts import Host, Network, end_process

ROOT = Path(__file__).resolve().parents[2]
NODE_DRIVER = Path(__file__).with_name("driver.mjs")
PREVIOUS_RELEASE = "v0.1.0"
# The release's commit, read when a clone holds no tags: it is in main's history.
PREVIOUS_RELEASE_COMMIT = "2db0aecbb8d1020bbdb27f9f7c65b1a370045029"
REPLICAS = ("r1", "r2", "r3")
KEY_BYTES = 64
ORDER_SECONDS = 300.0  # how long an order's answer may take (games of an older epoch ending)


@dataclass(frozen=True, slots=True)
class Timing:
    """How long the phases last, in seconds."""

    steady: float
    settle: float
    partition: float
    pause: float
    pre_stop: float


def write_keys(path: Path, keys: list[tuple[str, bytes]]) -> Path:
    """A keys file of ``keys`` (the first seals), readable by its owner alone."""
    path.write_text("".join(f"{key_id} {base64.b64encode(key).decode()}\n" for key_id, key in keys))
    path.chmod(0o600)
    return path


def previous_release(folder: Path) -> Release:
    """The previous release, checked out from its tag into ``folder`` (once), run from there
    with the same interpreter and its own modules first on the path."""
    if not (folder / "service").is_dir():
        folder.mkdir(parents=True, exist_ok=True)
        tagged = subprocess.run(
            ["git", "-C", str(ROOT), "rev-parse", "--verify", "--quiet", PREVIOUS_RELEASE],
            capture_output=True,
            check=False,
        )
        revision = PREVIOUS_RELEASE if tagged.returncode == 0 else PREVIOUS_RELEASE_COMMIT
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", revision], capture_output=True, check=True
        )
        subprocess.run(["tar", "-x", "-C", str(folder)], input=archive.stdout, check=True)
    python_path = f"{folder}:{folder / 'clients' / 'python'}"
    return Release(PREVIOUS_RELEASE, folder, python_path, hosts_tables=False)


@dataclass
class DriverProcess:
    """A driver running on the client host: its orders in, its lines out."""

    name: str
    process: subprocess.Popen[bytes]
    lines: queue.Queue[str] = field(default_factory=queue.Queue)

    def __post_init__(self) -> None:
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        stdout = self.process.stdout
        assert stdout is not None
        for raw in stdout:
            self.lines.put(raw.decode(errors="replace").rstrip("\n"))
        self.lines.put("")

    def order(self, line: str) -> None:
        """Send one order."""
        stdin: IO[bytes] | None = self.process.stdin
        assert stdin is not None
        stdin.write(line.encode() + b"\n")
        stdin.flush()

    def expect(self, prefix: str, seconds: float = ORDER_SECONDS) -> str:
        """The next line that starts with ``prefix``; fail when the driver ends first."""
        deadline = time.monotonic() + seconds
        while True:
            try:
                line = self.lines.get(timeout=max(deadline - time.monotonic(), 0.01))
            except queue.Empty:
                raise RuntimeError(f"the {self.name} driver did not say {prefix!r}") from None
            if line.startswith(prefix):
                return line
            if line == "" and self.process.poll() is not None:
                raise RuntimeError(f"the {self.name} driver ended before saying {prefix!r}")


class Stage:
    """Everything the rehearsal runs, in ``folder``; ``close`` ends it all."""

    def __init__(self, folder: Path, timing: Timing, *, unfenced: str = "") -> None:
        self.folder = folder
        self.timing = timing
        self.network = Network(f"ordo{os.getpid() % 100000}")
        self.current = Release("this", ROOT)
        self.previous = previous_release(folder / "previous")
        key_a, key_b = os.urandom(KEY_BYTES), os.urandom(KEY_BYTES)
        self.keys = {
            "a": write_keys(folder / "keys-a", [("key-a", key_a)]),
            "ab": write_keys(folder / "keys-ab", [("key-a", key_a), ("key-b", key_b)]),
            "ba": write_keys(folder / "keys-ba", [("key-b", key_b), ("key-a", key_a)]),
            "b": write_keys(folder / "keys-b", [("key-b", key_b)]),
        }
        self.keys_now = self.keys["a"]
        self.unfenced = unfenced
        self.replicas: dict[str, Replica] = {}
        self.drivers: list[DriverProcess] = []
        self.epoch = 0

    def open(self) -> None:
        """Make the hosts, start the store, the replicas, HAProxy, then the drivers."""
        self.network.open()
        self.store = Store(self.network.add("store", 3), self.folder / "store")
        self.store.start()
        addresses = {}
        for number, name in enumerate(REPLICAS, start=11):
            host = self.network.add(name, number)
            replica = Replica(host, self.folder / name, self.store.url, fence=name != self.unfenced)
            replica.start(self.current, self.keys_now)
            self.replicas[name] = replica
            addresses[name] = host.address
        self.balancer = Balancer(self.network.add("lb", 2), self.folder / "lb", addresses)
        self.balancer.start()
        for name in REPLICAS:
            self.balancer.wait_until(name, up=True)
        self.client = self.network.add("client", 4)
        self.start_drivers()

    def start_drivers(self) -> None:
        """Start the Python driver (gRPC) and the Node.js driver (Connect, HTTP/1.1)."""
        address = self.balancer.host.address
        python = [
            sys.executable, "-m", "bench.rehearsal.driver", "--target",
            f"{address}:{GRPC_PORT}", "--callers", "6", "--tables", "2",
            "--games", str(self.folder / "games-python.jsonl"),
        ]  # fmt: skip
        node = shutil.which("node") or "node"
        typescript = [
            node, str(NODE_DRIVER), "--target", f"http://{address}:{HTTP_PORT}",
            "--callers", "4", "--games", str(self.folder / "games-node.jsonl"),
        ]  # fmt: skip
        for name, command in (("python", python), ("typescript", typescript)):
            process = self.client.start(
                command,
                log=self.folder / f"driver-{name}.log",
                cwd=ROOT,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
            )
            driver = DriverProcess(name, process)
            driver.expect("started")
            self.drivers.append(driver)

    def order(self, line: str) -> None:
        """Give every driver the same order."""
        for driver in self.drivers:
            driver.order(line)

    def new_epoch(self) -> None:
        """Games dealt from now on belong to a new epoch; return once no older one is in play."""
        self.epoch += 1
        self.order(f"epoch {self.epoch}")
        for driver in self.drivers:
            driver.expect(f"drained {self.epoch}")

    def tables(self, *, on: bool) -> None:
        """Let the drivers deal hosted tables, or stop them dealing any and return once none is
        in play (the previous release hosts none)."""
        self.order(f"tables {'on' if on else 'off'}")
        if not on:
            for driver in self.drivers:
                driver.expect("tables off")

    def roll(self, name: str, release: Release | None = None, keys: Path | None = None) -> None:
        """Replace replica ``name`` as a Deployment's rollout does: out of the balancer (its
        endpoint removed), the preStop pause, SIGTERM (it drains), then the new one started and
        taken back once it passes its check."""
        replica = self.replicas[name]
        self.balancer.drain(name, draining=True)
        time.sleep(self.timing.pre_stop)
        replica.stop()
        replica.start(release or self.current_release(replica), keys or self.keys_now)
        # Back in the endpoints once it serves, as a pod once its readiness probe passes.
        replica.wait_serving()
        self.balancer.drain(name, draining=False)
        self.balancer.wait_until(name, up=True)

    def current_release(self, replica: Replica) -> Release:
        """The release ``replica`` runs."""
        assert replica.release is not None
        return replica.release

    def roll_all(self, release: Release | None = None, keys: Path | None = None) -> None:
        """Roll every replica, one at a time."""
        if keys is not None:
            self.keys_now = keys
        for name in REPLICAS:
            self.roll(name, release, keys)

    def finish(self) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, int]]]:
        """Stop the drivers and collect their figures, then audit their games on the store."""
        reports: dict[str, dict[str, Any]] = {}
        self.order("end")
        for driver in self.drivers:
            line = driver.expect("report ")
            reports[driver.name] = json.loads(line.removeprefix("report "))
            end_process(driver.process)
        games = [str(self.folder / f"games-{name}.jsonl") for name in ("python", "node")]
        command = [
            sys.executable, "-m", "bench.rehearsal.driver", "--audit", self.store.url, *games,
        ]  # fmt: skip
        audit = self.client.start(
            command, log=self.folder / "audit.log", cwd=ROOT, stdout=subprocess.PIPE
        )
        output, _ = audit.communicate(timeout=ORDER_SECONDS)
        return reports, json.loads(output.decode().strip().splitlines()[-1])

    def close(self) -> None:
        """End every process and remove every namespace."""
        self.network.close()

    def host(self, name: str) -> Host:
        """The host of replica ``name``."""
        return self.replicas[name].host
