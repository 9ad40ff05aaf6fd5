"""Shared fixtures: a real server on free ports (both doors of one worker), and a channel to it."""

from __future__ import annotations

import contextlib
import os
import signal
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import pytest
import structlog
from hypothesis import settings as hypothesis_settings

from ordo.v1 import engine_service_pb2_grpc as rpc
from service.calls.servicer import GameEngineServicer
from service.config import BOT_POLICIES, Settings
from service.doors.http_door import http_door
from service.process.worker import create_server, new_servicer
from tests.redis_server import running_redis
from tests.state_keys import TEST_KEY
from tests.tables import hosted_server

# Every process the tests start inherits this variable (its value names this run), so that the
# run can find, as it ends, any process of its own still running: a server's worker that
# outlived its supervisor, a redis-server or a browser a test forgot. None may be left.
SESSION_VARIABLE = "PYTEST_ORDO_SESSION"
LEFTOVER_WAIT_SECONDS = 10.0  # processes told to stop just before the end may take this long
LEFTOVER_POLL_SECONDS = 0.1
RESOURCE_TRACKER = b"multiprocessing.resource_tracker"  # a helper that ends with its process

# Tests pin behaviour, never timings: on a busy machine one example may take far longer than
# Hypothesis's default deadline of 200 ms, which would fail a test that is right.
hypothesis_settings.register_profile("ordo", deadline=None)
hypothesis_settings.load_profile("ordo")


@dataclass(frozen=True)
class Worker:
    """The session's server: its gRPC address and its servicer, which the HTTP door shares."""

    grpc_address: str
    servicer: GameEngineServicer
    settings: Settings


@pytest.fixture(scope="session")
def worker() -> Iterator[Worker]:
    """Start one in-process server on a free loopback port for the whole session."""
    settings = Settings(host="127.0.0.1", port=0, workers=1, metrics_port=0, http_port=0)
    servicer = new_servicer(settings)
    server, port, _health = create_server(settings, servicer=servicer)
    server.start()
    yield Worker(f"127.0.0.1:{port}", servicer, settings)
    server.stop(None)


@pytest.fixture(scope="session")
def server_address(worker: Worker) -> str:
    """The gRPC address of the session's server."""
    return worker.grpc_address


@pytest.fixture(scope="session")
def http_address(worker: Worker) -> Iterator[str]:
    """The HTTP door of the session's server, on the same servicer as its gRPC port, as a
    worker runs them (started when a test first needs it: its event loop runs on a thread)."""
    door = http_door(worker.settings, worker.servicer, (), structlog.get_logger("ordo.server"))
    door.start()
    yield f"127.0.0.1:{door.port}"
    door.stop()
    door.wait()


@pytest.fixture(scope="session")
def channel(server_address: str) -> Iterator[grpc.Channel]:
    """A channel to the session's server."""
    with grpc.insecure_channel(server_address) as chan:
        yield chan


@pytest.fixture(scope="session")
def stub(channel: grpc.Channel) -> rpc.GameEngineServiceStub:
    """A raw generated stub on the session's channel."""
    return rpc.GameEngineServiceStub(channel)


@pytest.fixture(scope="session")
def sealed_stub() -> Iterator[rpc.GameEngineServiceStub]:
    """A stub of an in-process server with the test state key, for the whole session."""
    settings = Settings(host="127.0.0.1", port=0, workers=1, metrics_port=0, state_keys=(TEST_KEY,))
    server, port, _health = create_server(settings)
    server.start()
    with grpc.insecure_channel(f"127.0.0.1:{port}") as chan:
        yield rpc.GameEngineServiceStub(chan)
    server.stop(None)


@dataclass(frozen=True)
class Doors:
    """A server's two doors, on one servicer: its gRPC address and its HTTP door's."""

    grpc_address: str
    http_address: str
    servicer: GameEngineServicer


@contextmanager
def seated_doors(**settings: Any) -> Iterator[Doors]:
    """A server that requires seat tokens (with the test state key), both doors, with
    `settings` beside its defaults."""
    every = Settings(
        host="127.0.0.1",
        port=0,
        workers=1,
        metrics_port=0,
        http_port=0,
        state_keys=(TEST_KEY,),
        require_sealed=True,
        require_seat_tokens=True,
        **settings,
    )
    servicer = new_servicer(every)
    server, port, _health = create_server(every, servicer=servicer)
    server.start()
    door = http_door(every, servicer, (), structlog.get_logger("ordo.server"))
    door.start()
    try:
        yield Doors(f"127.0.0.1:{port}", f"127.0.0.1:{door.port}", servicer)
    finally:
        door.stop()
        door.wait()
        server.stop(None)


@pytest.fixture(scope="session")
def seated() -> Iterator[Doors]:
    """A server that requires seat tokens, set as a deployment gets it by default, both doors,
    for the whole session."""
    with seated_doors() as doors:
        yield doors


@pytest.fixture(scope="session")
def seated_searching_stub() -> Iterator[rpc.GameEngineServiceStub]:
    """A stub of a server that requires seat tokens and suggests with every policy, search too
    (``--suggest-policies``), for the whole session: the conformance suite plays every bot
    through it."""
    with (
        seated_doors(suggest_policies=",".join(BOT_POLICIES)) as doors,
        grpc.insecure_channel(doors.grpc_address) as chan,
    ):
        yield rpc.GameEngineServiceStub(chan)


@pytest.fixture(scope="session")
def seated_stub(seated: Doors) -> Iterator[rpc.GameEngineServiceStub]:
    """A stub of the server that requires seat tokens, for the whole session."""
    with grpc.insecure_channel(seated.grpc_address) as chan:
        yield rpc.GameEngineServiceStub(chan)


@pytest.fixture(scope="session")
def hosting(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Doors]:
    """A server that requires seat tokens and hosts tables on a redis-server of its own, both
    doors, for the whole session."""
    with (
        running_redis(tmp_path_factory.mktemp("hosting")) as store,
        hosted_server(store.url) as server,
    ):
        yield Doors(server.grpc_address, server.http_address, server.servicer)


def pytest_configure(config: pytest.Config) -> None:
    """Mark the processes this run starts (see ``SESSION_VARIABLE``)."""
    os.environ[SESSION_VARIABLE] = f"{os.getpid()}-{uuid.uuid4().hex}"


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Fail the run when a process it started still runs, naming each (and then ending it)."""
    mark = f"{SESSION_VARIABLE}={os.environ[SESSION_VARIABLE]}".encode()
    deadline = time.monotonic() + LEFTOVER_WAIT_SECONDS
    while (left := leftovers(mark)) and time.monotonic() < deadline:
        time.sleep(LEFTOVER_POLL_SECONDS)
    if not left:
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    lines = [f"processes of this test run left running: {len(left)}"]
    lines += [f"  pid {pid}: {command}" for pid, command in left.items()]
    if reporter is not None:
        reporter.write_line("\n".join(lines), red=True)
    for pid in left:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    session.exitstatus = pytest.ExitCode.TESTS_FAILED


def leftovers(mark: bytes) -> dict[int, str]:
    """The running processes (zombies aside) whose environment holds ``mark``, with their
    command lines; but this one, and multiprocessing's resource tracker of this one, which
    ends when it does."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            environ = (entry / "environ").read_bytes()
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ")
            parent = int((entry / "stat").read_bytes().rsplit(b")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):  # gone meanwhile, or not ours to read
            continue
        if parent == os.getpid() and RESOURCE_TRACKER in command:
            continue
        if mark in environ.split(b"\0"):
            found[int(entry.name)] = command.decode(errors="replace")
    return found
