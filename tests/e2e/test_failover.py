"""End to end: SIGTERM to one of two servers under load, through a client with its default
settings, fails no call.

Two servers (each ``python -m service``) on their own ports; 16 callers of a client on
``ipv4:127.0.0.1:A,127.0.0.1:B`` (the Python client with ``round_robin``, the TypeScript client
taking both addresses in turn) loop NewGame and ApplyAction (the command ``CALLERS`` names, see
``tests/e2e/caller.py``). Server A gets SIGTERM under load: it drains and
exits 0, every call is answered (its request id has an OK line in A's or B's access log) and the
calls sent once A had exited went to B.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from contextlib import ExitStack
from pathlib import Path

import pytest

from tests.e2e.server_process import HOST, ROOT, STOP_SECONDS, events, running_server

pytestmark = pytest.mark.e2e

CALLER_COUNT = 16
LOAD_SECONDS = 1.5  # of load before the signal
AFTER_SECONDS = 1.5  # of load once server A has exited
START_SECONDS = 60  # bound on the callers' start
#: The commands that run the callers of each client (``tests/e2e/caller.py`` says what they do
#: and print), by client.
CALLERS = {
    "python": [sys.executable, str(ROOT / "tests" / "e2e" / "caller.py")],
    "node": ["node", str(ROOT / "clients" / "node" / "dist" / "test" / "caller.js")],
}


def answered_ok(log: Path) -> set[str]:
    """The request ids of the calls a server's access log shows answered OK."""
    return {line["request_id"] for line in events(log, "rpc") if line["code"] == "OK"}


@pytest.mark.parametrize("client", sorted(CALLERS))
def test_sigterm_to_one_of_two_servers_fails_no_call(tmp_path: Path, client: str) -> None:
    """16 callers on two servers; SIGTERM to one under load: 0 failed calls, each one in an
    access log, and the other server took the rest."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    with ExitStack() as stack:
        a = stack.enter_context(running_server(tmp_path / "a", workers=2, grace_seconds="10"))
        b = stack.enter_context(running_server(tmp_path / "b", workers=1))
        target = f"ipv4:{HOST}:{a.port},{HOST}:{b.port}"
        callers = subprocess.Popen(
            [*CALLERS[client], "--target", target, "--callers", str(CALLER_COUNT)],
            cwd=ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert callers.stdin is not None
        assert callers.stdout is not None
        try:
            assert json.loads(callers.stdout.readline()) == {"started": CALLER_COUNT}
            time.sleep(LOAD_SECONDS)
            a.process.send_signal(signal.SIGTERM)
            assert a.process.wait(timeout=STOP_SECONDS) == 0
            exited = time.time()
            time.sleep(AFTER_SECONDS)
            callers.stdin.close()
            result = json.loads(callers.stdout.readline())
            assert callers.wait(timeout=STOP_SECONDS) == 0
        finally:
            if callers.poll() is None:
                callers.kill()
    # Read once both servers have stopped: a running worker writes its access lines in batches,
    # and the last batch only as it stops.
    by_a, by_b = answered_ok(a.log), answered_ok(b.log)

    assert result["failed"] == 0, result["failures"]
    answered = dict(result["answered"])
    assert len(answered) == result["calls"] > 0
    unaccounted = set(answered) - by_a - by_b
    assert not unaccounted, f"{len(unaccounted)} answered calls in no access log"
    assert set(answered) & by_a  # both served before the signal
    assert set(answered) & by_b
    after = {request_id for request_id, sent in answered.items() if sent > exited}
    assert after, "no call after server A exited"
    assert after <= by_b
    assert events(a.log, "draining")
