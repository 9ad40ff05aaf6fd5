"""End to end: SIGTERM while calls are in flight.

Every call that reached the service (its access line is in the log) is finished and answered OK:
the drain cuts none off. A call that had not reached it is refused, as `UNAVAILABLE`, or as
`CANCELLED` when gRPC still held it unclaimed as the worker stopped listening (it cancels those).
No call fails in any other way, and the server exits 0.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from ordo.v1 import common_pb2 as common
from ordo.v1 import engine_service_pb2 as api
from ordo.v1 import engine_service_pb2_grpc as rpc
from service.calls.call_path import REQUEST_ID_KEY
from tests.e2e.server_process import (
    HOST,
    POLL_SECONDS,
    ROOT,
    START_SECONDS,
    STOP_SECONDS,
    ServerProcess,
    events,
    read_log,
    running_server,
    server_env,
    terminate,
)

pytestmark = pytest.mark.e2e

CALLERS = 24  # callers, each with a call in flight all the time: a queue at one pool thread
SERVED_BEFORE_SIGNAL = 2 * CALLERS  # calls answered before the signal: the load is on
WAIT_SECONDS = 30.0  # the longest the test waits for the load to reach a point
REFUSED_PAUSE_SECONDS = 0.01  # between a caller's calls once the server refuses them
OK = grpc.StatusCode.OK
REFUSED = {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED}  # never reached the service


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a caller saw of one call: its request id, when it was sent and ended
    (``time.monotonic()``) and its status code."""

    request_id: str
    sent: float
    ended: float
    code: grpc.StatusCode


def apply_request(server: ServerProcess) -> bytes:
    """A valid ApplyAction request: a legal first move of a new 6 nimmt! game."""
    with grpc.insecure_channel(server.target) as channel:
        stub = rpc.GameEngineServiceStub(channel)
        new = stub.NewGame(
            api.NewGameRequest(seats=4, seed=7, options=common.GameOptions(six_nimmt={})),
            timeout=10,
        )
        seat = new.status.seats_to_act[0]
        legal = stub.ListLegalActions(
            api.ListLegalActionsRequest(state=new.state, seat=seat), timeout=10
        )
    return api.ApplyActionRequest(state=new.state, action=legal.actions[0]).SerializeToString()


class Load:
    """``CALLERS`` threads sending a request again and again, each call with a request id of its
    own, until stopped; every call's outcome, and a condition signalled at each."""

    def __init__(self, server: ServerProcess, request: bytes) -> None:
        self.outcomes: list[Outcome] = []
        self.changed = threading.Condition()
        self.stop = threading.Event()
        self._callers = [
            threading.Thread(target=self._caller, args=(server, request, index))
            for index in range(CALLERS)
        ]
        for thread in self._callers:
            thread.start()

    def _caller(self, server: ServerProcess, request: bytes, index: int) -> None:
        # A channel of its own per caller, and no retries: each call is one attempt.
        options = [("grpc.enable_retries", 0), ("grpc.use_local_subchannel_pool", 1)]
        with grpc.insecure_channel(server.target, options=options) as channel:
            call = channel.unary_unary("/ordo.v1.GameEngineService/ApplyAction")
            count = 0
            while not self.stop.is_set():
                count += 1
                request_id = f"drain-{index}-{count}"
                sent = time.monotonic()
                try:
                    call(request, timeout=30, metadata=((REQUEST_ID_KEY, request_id),))
                    code = OK
                except grpc.RpcError as error:
                    code = error.code()
                with self.changed:
                    self.outcomes.append(Outcome(request_id, sent, time.monotonic(), code))
                    self.changed.notify_all()
                if code is not OK:
                    time.sleep(REFUSED_PAUSE_SECONDS)

    def wait_for(self, reached: Callable[[list[Outcome]], bool]) -> None:
        """Wait until the outcomes so far satisfy ``reached``."""
        with self.changed:
            assert self.changed.wait_for(lambda: reached(self.outcomes), WAIT_SECONDS)

    def finish(self) -> list[Outcome]:
        """Stop the callers; every call's outcome."""
        self.stop.set()
        for thread in self._callers:
            thread.join()
        return self.outcomes


def test_sigterm_under_load_finishes_every_call_that_reached_the_service(tmp_path: Path) -> None:
    """Calls that reached the service end OK, those in flight at the signal included; the others
    are refused; the server exits 0 once drained."""
    # One worker with one pool thread: the callers' calls queue in it, in flight at the signal.
    with running_server(tmp_path, workers=1, threads="1", grace_seconds="20") as server:
        load = Load(server, apply_request(server))
        load.wait_for(lambda outcomes: len(outcomes) >= SERVED_BEFORE_SIGNAL)
        signalled = time.monotonic()
        server.process.send_signal(signal.SIGTERM)
        exit_code = server.process.wait(timeout=30)
        exited = time.monotonic()
        # Every caller has sent a call since the exit, and heard how it ended.
        load.wait_for(
            lambda outcomes: (
                len({o.request_id.rsplit("-", 1)[0] for o in outcomes if o.sent > exited})
                == CALLERS
            )
        )
        outcomes = load.finish()

    assert exit_code == 0
    assert events(server.log, "draining")
    assert events(server.log, "stopped")
    served = {line["request_id"]: line["code"] for line in events(server.log, "rpc")}
    reached = [outcome for outcome in outcomes if outcome.request_id in served]
    assert {served[outcome.request_id] for outcome in reached} == {"OK"}
    assert {outcome.code for outcome in reached} == {OK}  # none cut off by the drain
    assert any(outcome.sent < signalled < outcome.ended for outcome in reached)  # drained
    refused = {outcome.code for outcome in outcomes if outcome.request_id not in served}
    assert refused <= REFUSED, f"calls that never reached the service ended with {refused}"
    after_exit = {outcome.code for outcome in outcomes if outcome.sent > exited}
    assert after_exit == {grpc.StatusCode.UNAVAILABLE}


def test_sigterm_turns_health_not_serving(tmp_path: Path) -> None:
    """A health watch open on a worker hears NOT_SERVING as SIGTERM starts the drain."""
    with running_server(tmp_path, workers=1, grace_seconds="5") as server:
        with grpc.insecure_channel(server.target) as channel:
            health = health_pb2_grpc.HealthStub(channel)
            watch = health.Watch(health_pb2.HealthCheckRequest(service=""), timeout=STOP_SECONDS)
            assert next(watch).status == health_pb2.HealthCheckResponse.SERVING
            server.process.send_signal(signal.SIGTERM)
            assert next(watch).status == health_pb2.HealthCheckResponse.NOT_SERVING
            watch.cancel()
        assert server.process.wait(timeout=STOP_SECONDS) == 0


# A worker (no parent) whose access log hears of each call a second after its response has left.
LATE_ACCESS_LOG = """
import sys, time
from service import config
from service.telemetry import logs
from service.process import worker
finished = logs.AccessLog.call_finished
def late(self, call):
    time.sleep(1.0)
    finished(self, call)
logs.AccessLog.call_finished = late
worker.run_worker(config.load(sys.argv[1:]))
"""


def test_a_stopping_worker_finishes_the_work_after_its_last_call(tmp_path: Path) -> None:
    """SIGTERM right after a call has been answered: the worker writes the call's access line,
    which it makes after the response has left, before it exits."""
    log, metrics_dir = tmp_path / "worker.log", tmp_path / "metrics"
    metrics_dir.mkdir()
    env = server_env(metrics_dir, port="0", workers="1", metrics_port="0")
    with log.open("wb") as output:
        process = subprocess.Popen(
            [sys.executable, "-c", LATE_ACCESS_LOG],
            cwd=ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=output,
            stderr=output,
        )
    try:
        deadline = time.monotonic() + START_SECONDS
        while not (serving := events(log, "serving")):
            assert process.poll() is None, f"the worker exited:\n{read_log(log)}"
            assert time.monotonic() < deadline, f"the worker did not start:\n{read_log(log)}"
            time.sleep(POLL_SECONDS)
        with grpc.insecure_channel(f"{HOST}:{serving[0]['port']}") as channel:
            list_games = channel.unary_unary("/ordo.v1.GameEngineService/ListGames")
            list_games(b"", timeout=10, metadata=((REQUEST_ID_KEY, "the-last-call"),))
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=STOP_SECONDS) == 0, read_log(log)
        assert [line["request_id"] for line in events(log, "rpc")] == ["the-last-call"]
    finally:
        terminate(process)
