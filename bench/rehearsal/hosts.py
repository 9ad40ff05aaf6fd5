"""Hosts on one machine: each a network namespace of its own, all joined by veth links to a
bridge that lives in a namespace of its own too, so that the machine's own network is never
touched. A host's link can be taken down and up again (a network partition). Every process is
started inside its host with ``ip netns exec``; ``Network.close`` ends them all and removes
every namespace, whatever happened before."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

SUBNET = "10.213.0"  # inside the namespaces only: the machine's own routes never see it
PREFIX_LENGTH = 24
BRIDGE = "br0"
STOP_SECONDS = 30.0
POLL_SECONDS = 0.05


def ip(*args: str) -> None:
    """Run one ``ip`` command; raise with its message when it fails."""
    run = subprocess.run(["ip", *args], capture_output=True, text=True, check=False)
    if run.returncode != 0:
        raise RuntimeError(f"ip {' '.join(args)}: {run.stderr.strip()}")


def namespace_pids(name: str) -> list[int]:
    """The processes that run in namespace ``name`` (none when it is gone)."""
    run = subprocess.run(["ip", "netns", "pids", name], capture_output=True, text=True, check=False)
    return [int(word) for word in run.stdout.split()] if run.returncode == 0 else []


def end_process(process: subprocess.Popen[bytes], *, kill: bool = False) -> int:
    """Stop a process: SIGTERM (SIGKILL when ``kill`` or when it outlasts the bound), and reap
    it; returns its exit code."""
    if process.poll() is None:
        process.send_signal(signal.SIGKILL if kill else signal.SIGTERM)
        try:
            process.wait(timeout=STOP_SECONDS)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=STOP_SECONDS)
    return process.returncode


@dataclass
class Host:
    """One host: its namespace, its address and the bridge's end of its link."""

    name: str
    namespace: str
    address: str
    bridge_end: str
    network: Network

    def start(
        self,
        command: Sequence[str],
        *,
        log: Path,
        cwd: Path | None = None,
        env: Mapping[str, str] | None = None,
        stdin: int | None = subprocess.DEVNULL,
        stdout: int | None = None,
    ) -> subprocess.Popen[bytes]:
        """Start ``command`` in this host, its output (and errors) to ``log`` unless ``stdout``
        says otherwise; the network ends it when it closes."""
        with log.open("ab") as sink:
            process = subprocess.Popen(
                ["ip", "netns", "exec", self.namespace, *command],
                cwd=cwd,
                env={**os.environ, **(env or {})},
                stdin=stdin,
                stdout=sink if stdout is None else stdout,
                stderr=sink,
            )
        self.network.processes.append(process)
        return process

    def link(self, *, up: bool) -> None:
        """Take this host's link to the bridge down (a partition) or up again."""
        ip(
            "-n",
            self.network.bridge_namespace,
            "link",
            "set",
            self.bridge_end,
            "up" if up else "down",
        )


@dataclass
class Network:
    """A bridge and the hosts joined to it, all in namespaces named after ``tag``."""

    tag: str
    hosts: dict[str, Host] = field(default_factory=dict)
    processes: list[subprocess.Popen[bytes]] = field(default_factory=list)
    namespaces: list[str] = field(default_factory=list)

    @property
    def bridge_namespace(self) -> str:
        """The namespace of the bridge."""
        return f"{self.tag}-net"

    def open(self) -> None:
        """Make the bridge's namespace and the bridge."""
        self._namespace(self.bridge_namespace)
        ip("-n", self.bridge_namespace, "link", "add", BRIDGE, "type", "bridge")
        ip("-n", self.bridge_namespace, "link", "set", BRIDGE, "up")

    def add(self, name: str, number: int) -> Host:
        """A new host ``name`` at address ``SUBNET.number``, linked to the bridge."""
        namespace = f"{self.tag}-{name}"
        self._namespace(namespace)
        bridge_end = f"v-{name}"
        ip("link", "add", bridge_end, "netns", self.bridge_namespace, "type", "veth",
           "peer", "name", "eth0", "netns", namespace)  # fmt: skip
        ip("-n", self.bridge_namespace, "link", "set", bridge_end, "master", BRIDGE, "up")
        address = f"{SUBNET}.{number}"
        ip("-n", namespace, "addr", "add", f"{address}/{PREFIX_LENGTH}", "dev", "eth0")
        ip("-n", namespace, "link", "set", "eth0", "up")
        ip("-n", namespace, "link", "set", "lo", "up")
        host = Host(name, namespace, address, bridge_end, self)
        self.hosts[name] = host
        return host

    def _namespace(self, name: str) -> None:
        ip("netns", "add", name)
        self.namespaces.append(name)

    def close(self) -> None:
        """End every process started in the hosts (SIGTERM, then SIGKILL), then anything else
        still running in their namespaces, and remove the namespaces."""
        for process in self.processes:
            if process.poll() is None:
                process.terminate()
        deadline = time.monotonic() + STOP_SECONDS
        for process in self.processes:
            try:
                process.wait(timeout=max(deadline - time.monotonic(), 0.1))
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        for namespace in self.namespaces:
            for pid in namespace_pids(namespace):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
        for namespace in reversed(self.namespaces):
            subprocess.run(["ip", "netns", "del", namespace], capture_output=True, check=False)
        self.namespaces.clear()


def leftover_namespaces(prefix: str) -> list[str]:
    """The namespaces whose names start with ``prefix``."""
    run = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, check=False)
    names = [line.split()[0] for line in run.stdout.splitlines() if line.strip()]
    return [name for name in names if name.startswith(prefix)]
