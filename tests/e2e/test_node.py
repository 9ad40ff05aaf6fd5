"""The Node.js client against the server started as ``make run`` starts it (two workers):
its whole suite passes, and the server's access log carries the Node.js client's request ids
with the reasons it was given."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.clients.fakes import closed_port
from tests.e2e.server_process import ServerProcess, events, running_server
from tests.node import node_executable, run_suite

pytestmark = pytest.mark.e2e
FLUSH_SECONDS = 10.0  # the access log writes its lines within 0.1 s; this only bounds the wait


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """One server process with two workers for the module."""
    with running_server(tmp_path_factory.mktemp("server"), workers=2) as process:
        yield process


def access_line(log: Path, request_id: str) -> dict[str, object]:
    """The access line of the call sent with ``request_id``, once the server has written it."""
    deadline = time.monotonic() + FLUSH_SECONDS
    while True:
        found = [line for line in events(log, "rpc") if line["request_id"] == request_id]
        if found or time.monotonic() > deadline:
            assert len(found) == 1, f"{len(found)} access lines of {request_id}"
            return found[0]
        time.sleep(0.1)


def test_the_node_client_plays_against_the_server_process(server: ServerProcess) -> None:
    """Every test of the Node.js client's suite passes against the server process; the call it
    made illegal on purpose is in the access log with its reason, under its request id."""
    run_suite(
        node_executable(),
        {"ORDO_TARGET": server.target, "ORDO_CLOSED_TARGET": f"127.0.0.1:{closed_port()}"},
    )
    line = access_line(server.log, "node-illegal-grpc")
    assert line["method"] == "ApplyAction"
    assert line["game"] == "six_nimmt"
    assert line["code"] == "INVALID_ARGUMENT"
    assert line["reason"] == "CARD_NOT_IN_HAND"
