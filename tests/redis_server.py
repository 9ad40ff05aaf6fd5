"""A real ``redis-server`` (Debian's package) for the revision fence's tests: its own process on
a free loopback port, stopped and started again on the same port, keeping its data on disk
(every write in its append-only file) or nothing."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.e2e.server_process import HOST, free_port, terminate

READY = b"Ready to accept connections"


class RedisServer:
    """One ``redis-server`` in ``scratch``, on ``port``, keeping its data across restarts when
    ``durable``; ``start`` waits until it serves."""

    def __init__(self, scratch: Path, port: int | None = None, *, durable: bool = False) -> None:
        executable = shutil.which("redis-server")
        assert executable, "redis-server is not installed (apt-get install redis-server)"
        self.executable = executable
        self.scratch = scratch
        self.port = port or free_port()
        self.durable = durable
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        """The server's URL, as ``--revision-store`` takes it."""
        return f"redis://{HOST}:{self.port}/0"

    def start(self) -> None:
        """Start the server and return once it accepts connections (it says so on its output)."""
        command = [
            self.executable,
            "--port", str(self.port),
            "--bind", HOST,
            "--dir", str(self.scratch),
            "--save", "",
            "--appendonly", "yes" if self.durable else "no",
            "--appendfsync", "always",
            "--protected-mode", "no",
        ]  # fmt: skip
        self.process = subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
        )
        assert self.process.stdout is not None
        seen = b""
        for line in self.process.stdout:
            seen += line
            if READY in line:
                return
        raise AssertionError(f"redis-server did not start:\n{seen.decode(errors='replace')}")

    def stop(self) -> None:
        """Stop the server (its data is lost unless it is durable)."""
        if self.process is not None:
            terminate(self.process)
            if self.process.stdout is not None:
                self.process.stdout.close()
            self.process = None


@contextmanager
def running_redis(scratch: Path, *, durable: bool = False) -> Iterator[RedisServer]:
    """A started ``redis-server``, stopped at the end."""
    server = RedisServer(scratch, durable=durable)
    server.start()
    try:
        yield server
    finally:
        server.stop()
