"""What a call may cost: a CPU budget per call, the caller's deadline, the heavy calls' queue.

A call that asks for more work than the server allows one call is refused before any of it; one
whose caller's deadline passes, or whose caller goes away, stops its search or replay there and
says so in its record; past the worker's bound, heavy calls are refused at once with a delay to
retry after; and however many heavy calls arrive, health checks and cheap calls are answered.
Each through both doors of one worker, as ``service.process.worker`` runs them.
"""

from __future__ import annotations

import base64
import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace

import grpc
import pytest
import structlog
from google.rpc import error_details_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_status import rpc_status

from engines.errors import RulesError
from engines.prng import Rng
from engines.search import Budget
from ordo.v1 import common_pb2 as common
from ordo.v1 import engine_service_pb2 as api
from service.calls.costs import REPLAYED_MOVE_US, Meter, search_world_us
from service.calls.games import registered_games
from service.config import Settings
from service.doors.http_door import http_door
from service.errors import CallBudgetExceededError
from service.process.pool import CallThreadPool
from service.process.worker import create_server, new_servicer
from service.telemetry.observe import CallRecord
from tests.connect_calls import SERVICE_PATH, HttpDoor

DOORS = ("grpc", "connect")
SETTLE_SECONDS = 30.0
# Searches far longer than any deadline the tests give (4,096 iterations of the dearest world:
# seconds on any machine), within a budget that lets them run.
SETTINGS = Settings(
    host="127.0.0.1",
    port=0,
    workers=1,
    metrics_port=0,
    http_port=0,
    max_search_iterations=4_096,
    max_call_cpu_ms=60_000,
)
HEAVY_GAME = "up_or_down"  # the dearest search a world
HEAVY_SEATS = 6
MOST_ITERATIONS = SETTINGS.max_search_iterations
GAMES = registered_games()
PROBE_SECONDS = 1.0  # a probe's deadline, as an orchestrator's would be (theirs: 2-3 s)


class Records:
    """The test server's last observer: the record of every call, by request id, once it ends."""

    def __init__(self) -> None:
        self._started: set[str] = set()
        self._finished: dict[str, CallRecord] = {}
        self._changed = threading.Condition()

    def call_started(self, call: CallRecord) -> None:
        with self._changed:
            self._started.add(call.request_id)
            self._changed.notify_all()

    def call_finished(self, call: CallRecord) -> None:
        with self._changed:
            self._finished[call.request_id] = call
            self._changed.notify_all()

    def started(self, request_id: str) -> None:
        """Return once the call ``request_id`` has reached the servicer."""
        with self._changed:
            assert self._changed.wait_for(lambda: request_id in self._started, SETTLE_SECONDS)

    def finished(self, request_id: str) -> CallRecord:
        """The record of the call ``request_id``, once it has ended."""
        with self._changed:
            assert self._changed.wait_for(lambda: request_id in self._finished, SETTLE_SECONDS)
            return self._finished[request_id]


@dataclass(frozen=True)
class Worker:
    """A worker's two doors on one servicer and one thread pool, and its calls' records."""

    grpc_address: str
    http_address: str
    records: Records


@pytest.fixture
def start_worker() -> Iterator[Callable[..., Worker]]:
    """Start workers with the given settings (the test defaults otherwise)."""
    stops: list[Callable[[], None]] = []

    def start(**changes: object) -> Worker:
        settings = replace(SETTINGS, **changes)
        records = Records()
        pool = CallThreadPool(settings.threads, "rpc")
        servicer = new_servicer(settings)
        server, port, _health = create_server(settings, [records], pool, servicer)
        server.start()
        door = http_door(settings, servicer, [records], structlog.get_logger(), pool)
        door.start()

        def stop() -> None:
            door.stop()
            door.wait()
            server.stop(None)
            pool.shutdown(wait=True)

        stops.append(stop)
        return Worker(f"127.0.0.1:{port}", f"127.0.0.1:{door.port}", records)

    yield start
    for stop in stops:
        stop()


@dataclass
class Outcome:
    """A call's code, its ErrorInfo (when refused), its RetryInfo's delay, its request id."""

    code: grpc.StatusCode
    reason: str = ""
    metadata: dict[str, str] | None = None
    retry_ms: int | None = None
    request_id: str = ""


def call(
    worker: Worker,
    door: str,
    method: str,
    request: object,
    timeout: float = SETTLE_SECONDS,
    request_id: str = "",
) -> Outcome:
    """Call ``method`` through ``door`` (gRPC, or Connect binary over HTTP/1.1)."""
    request_id = request_id or f"test-{time.monotonic_ns()}-{threading.get_ident()}"
    payload = request.SerializeToString()  # type: ignore[attr-defined]
    if door == "grpc":
        with grpc.insecure_channel(worker.grpc_address) as channel:
            try:
                channel.unary_unary(SERVICE_PATH + method)(
                    payload, timeout=timeout, metadata=(("x-request-id", request_id),)
                )
            except grpc.RpcError as error:
                return _grpc_outcome(error, request_id)
        return Outcome(grpc.StatusCode.OK, request_id=request_id)
    client = HttpDoor(worker.http_address)
    headers = {"x-request-id": request_id, "connect-timeout-ms": str(round(timeout * 1000))}
    try:
        answer = client.connect(method, payload, "application/proto", headers)
    finally:
        client.close()
    if answer.code == grpc.StatusCode.OK:
        return Outcome(answer.code, request_id=request_id)
    error = json.loads(answer.body)
    outcome = Outcome(answer.code, request_id=request_id)
    for detail in error.get("details", []):
        value = base64.b64decode(detail["value"] + "=" * (-len(detail["value"]) % 4))
        if detail["type"] == "google.rpc.ErrorInfo":
            info = error_details_pb2.ErrorInfo.FromString(value)
            outcome.reason, outcome.metadata = info.reason, dict(info.metadata)
        elif detail["type"] == "google.rpc.RetryInfo":
            retry = error_details_pb2.RetryInfo.FromString(value)
            outcome.retry_ms = retry.retry_delay.ToMilliseconds()
    return outcome


def _grpc_outcome(error: grpc.RpcError, request_id: str) -> Outcome:
    outcome = Outcome(error.code(), request_id=request_id)  # type: ignore[attr-defined]
    status = rpc_status.from_call(error)  # type: ignore[arg-type]
    for detail in status.details if status is not None else ():
        info, retry = error_details_pb2.ErrorInfo(), error_details_pb2.RetryInfo()
        if detail.Unpack(info):
            outcome.reason, outcome.metadata = info.reason, dict(info.metadata)
        elif detail.Unpack(retry):
            outcome.retry_ms = retry.retry_delay.ToMilliseconds()
    return outcome


def deal(worker: Worker, game: str = HEAVY_GAME, seats: int = HEAVY_SEATS) -> common.GameState:
    """A new game's state, dealt by the worker."""
    with grpc.insecure_channel(worker.grpc_address) as channel:
        raw = channel.unary_unary(SERVICE_PATH + "NewGame")(
            api.NewGameRequest(
                seats=seats, seed=7, options=common.GameOptions(**{game: {}})
            ).SerializeToString(),
            timeout=SETTLE_SECONDS,
        )
    return api.NewGameResponse.FromString(raw).state


def search(state: common.GameState, iterations: int = MOST_ITERATIONS) -> api.SuggestActionRequest:
    """A search bot's suggestion for seat 0, seconds long at the most iterations."""
    return api.SuggestActionRequest(
        state=state, seat=0, policy="search", search_iterations=iterations
    )


@pytest.mark.parametrize("door", DOORS)
class TestCallBudget:
    """A call that asks for more CPU than the server allows one call is refused unplayed."""

    def test_a_record_of_costly_bot_moves_is_refused_before_a_move(
        self, start_worker: Callable[..., Worker], door: str
    ) -> None:
        """40 searched bot moves at the most iterations (a kilobyte): CALL_BUDGET_EXCEEDED
        before a move is played, with the whole record's cost and the budget."""
        worker = start_worker()
        moves = [
            api.RecordedMove(
                bot=api.BotMove(seat=step % 2, policy="search", search_iterations=MOST_ITERATIONS)
            )
            for step in range(40)
        ]
        state = deal(worker, "six_nimmt", seats=2)
        record = api.GameRecord(format_version=1, initial_state=state, moves=moves)
        outcome = call(worker, door, "ReplayGame", api.ReplayGameRequest(record=record))
        assert (outcome.code, outcome.reason) == (
            grpc.StatusCode.INVALID_ARGUMENT,
            "CALL_BUDGET_EXCEEDED",
        )
        move_us = REPLAYED_MOVE_US + MOST_ITERATIONS * search_world_us(GAMES["six_nimmt"])
        assert outcome.metadata == {
            "cost_ms": str(-(-40 * move_us // 1000)),
            "budget_ms": str(SETTINGS.max_call_cpu_ms),
        }

    def test_a_search_over_the_budget_is_refused(
        self, start_worker: Callable[..., Worker], door: str
    ) -> None:
        """A search whose iterations cost more than the budget is refused before it starts."""
        worker = start_worker(max_call_cpu_ms=1_000)
        outcome = call(worker, door, "SuggestAction", search(deal(worker)))
        assert outcome.reason == "CALL_BUDGET_EXCEEDED"
        assert outcome.metadata is not None
        assert set(outcome.metadata) == {"cost_ms", "budget_ms"}  # refused before, unspent

    def test_a_search_within_the_budget_is_answered(
        self, start_worker: Callable[..., Worker], door: str
    ) -> None:
        """A search at its game's default iterations is well within the default budget."""
        worker = start_worker()
        assert call(worker, door, "SuggestAction", search(deal(worker), 0)).code == (
            grpc.StatusCode.OK
        )


class TestMeter:
    """The meter of one call stops its work once the work passes the budget."""

    def test_a_search_stops_at_the_world_that_passes_the_budget(self) -> None:
        """With a budget of ten worlds, a search of a hundred stops after the eleventh."""
        game = GAMES[HEAVY_GAME]
        state = game.engine.new_game(HEAVY_SEATS, 7, game.engine.default_options())
        world = search_world_us(game)
        meter = Meter(10 * world, None)
        with pytest.raises(CallBudgetExceededError) as stopped:
            game.engine.suggest(state, 0, "search", Rng(1), meter.search(game, Budget(100)))
        assert meter.spent_us == 11 * world
        assert stopped.value.metadata["budget_ms"] == str(-(-10 * world // 1000))

    def test_a_call_is_stopped_by_its_threads_cpu_time(self) -> None:
        """Work the nominal costs do not count still stops the call once its thread's CPU
        time passes the budget."""
        meter = Meter(1_000, None)
        started = time.thread_time()
        while time.thread_time() - started < 0.005:
            pass
        with pytest.raises(RulesError) as stopped:
            meter.spend(0)
        assert stopped.value.reason == "CALL_BUDGET_EXCEEDED"
        assert int(stopped.value.metadata["spent_ms"]) >= 5


@pytest.mark.parametrize("door", DOORS)
class TestDeadlines:
    """A call whose caller stops waiting stops its work, and its record says why."""

    def test_a_search_stops_when_its_deadline_passes(
        self, start_worker: Callable[..., Worker], door: str
    ) -> None:
        """A search of seconds with a deadline of 0.2 s: DEADLINE_EXCEEDED for the
        caller, and in the server's record of the call."""
        worker = start_worker()
        outcome = call(worker, door, "SuggestAction", search(deal(worker)), timeout=0.2)
        assert outcome.code == grpc.StatusCode.DEADLINE_EXCEEDED
        assert worker.records.finished(outcome.request_id).code == "DEADLINE_EXCEEDED"

    def test_a_replay_stops_when_its_deadline_passes(
        self, start_worker: Callable[..., Worker], door: str
    ) -> None:
        """A record of searched bot moves, replayed with a deadline shorter than its first
        search: DEADLINE_EXCEEDED in the server's record."""
        worker = start_worker()
        state = deal(worker, seats=2)
        bot = api.BotMove(seat=0, policy="search", search_iterations=MOST_ITERATIONS)
        moves = [api.RecordedMove(bot=bot)]
        record = api.GameRecord(format_version=1, initial_state=state, moves=moves)
        outcome = call(
            worker, door, "ReplayGame", api.ReplayGameRequest(record=record), timeout=0.1
        )
        assert outcome.code == grpc.StatusCode.DEADLINE_EXCEEDED
        assert worker.records.finished(outcome.request_id).code == "DEADLINE_EXCEEDED"

    def test_a_search_stops_when_its_caller_leaves(
        self, start_worker: Callable[..., Worker], door: str
    ) -> None:
        """A caller that cancels its call (gRPC) or closes its connection (HTTP) while the
        search runs: CANCELLED in the server's record."""
        worker = start_worker()
        request = search(deal(worker))
        request_id = f"leaving-{door}"
        if door == "grpc":
            with grpc.insecure_channel(worker.grpc_address) as channel:
                future = channel.unary_unary(SERVICE_PATH + "SuggestAction").future(
                    request.SerializeToString(), metadata=(("x-request-id", request_id),)
                )
                worker.records.started(request_id)
                future.cancel()
        else:
            host, port = worker.http_address.rsplit(":", 1)
            with socket.create_connection((host, int(port))) as connection:
                body = request.SerializeToString()
                connection.sendall(
                    b"POST %sSuggestAction HTTP/1.1\r\nHost: test\r\n"
                    b"Content-Type: application/proto\r\nx-request-id: %s\r\n"
                    b"Content-Length: %d\r\n\r\n%s"
                    % (SERVICE_PATH.encode(), request_id.encode(), len(body), body)
                )
                worker.records.started(request_id)
        assert worker.records.finished(request_id).code == "CANCELLED"


class TestHeavyCalls:
    """Heavy calls wait their turn up to a bound, and never take health's threads."""

    @pytest.mark.parametrize("door", DOORS)
    def test_past_the_bound_heavy_calls_are_refused_with_a_delay(
        self, start_worker: Callable[..., Worker], door: str
    ) -> None:
        """Eight searches at once on a worker that holds two: the others are refused at once
        with RESOURCE_EXHAUSTED, SERVER_BUSY and a RetryInfo delay; the two are answered."""
        worker = start_worker(threads=8, max_heavy_calls=2)
        request = search(deal(worker))
        outcomes: list[Outcome] = []
        together = threading.Barrier(8)  # sent at once: none before another's search ends

        def send() -> None:
            together.wait()
            outcomes.append(call(worker, door, "SuggestAction", request))

        callers = [threading.Thread(target=send) for _ in range(8)]
        for caller in callers:
            caller.start()
        for caller in callers:
            caller.join()
        refused = [each for each in outcomes if each.code != grpc.StatusCode.OK]
        assert len(refused) >= len(outcomes) - 2
        for each in refused:
            assert (each.code, each.reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "SERVER_BUSY")
            assert each.retry_ms is not None
            assert each.retry_ms > 0
            assert each.metadata is not None
            assert each.metadata["retry_after_ms"] == str(each.retry_ms)

    def test_health_and_cheap_calls_answer_while_heavy_calls_run(
        self, start_worker: Callable[..., Worker]
    ) -> None:
        """Fifty searches sent again and again through both doors: every health check (gRPC,
        /healthz) and every GetView, through both doors, answers within a probe's deadline."""
        worker = start_worker()
        state = deal(worker)
        heavy = search(state)
        view = api.GetViewRequest(state=state, viewer=common.Viewer(spectator=True))
        stop = threading.Event()

        def load(index: int) -> None:
            while not stop.is_set():
                call(worker, DOORS[index % 2], "SuggestAction", heavy)

        loaders = [threading.Thread(target=load, args=(index,)) for index in range(50)]
        for loader in loaders:
            loader.start()
        try:
            with grpc.insecure_channel(worker.grpc_address) as channel:
                health = health_pb2_grpc.HealthStub(channel)
                door = HttpDoor(worker.http_address)
                for _ in range(10):
                    answer = health.Check(health_pb2.HealthCheckRequest(), timeout=PROBE_SECONDS)
                    assert answer.status == health_pb2.HealthCheckResponse.SERVING
                    status, _headers, _body = door.request("GET", "/healthz")
                    assert status == 200
                    for each in DOORS:
                        seen = call(worker, each, "GetView", view, timeout=PROBE_SECONDS)
                        assert seen.code == grpc.StatusCode.OK, (each, seen)
                door.close()
        finally:
            stop.set()
            for loader in loaders:
                loader.join()


class TestConcurrencyLimit:
    """--max-concurrent-rpcs bounds the service's calls, never the health checks."""

    def test_health_answers_when_the_calls_fill_the_limit(
        self, start_worker: Callable[..., Worker]
    ) -> None:
        """With one call at a time, and a search holding it: the health check is answered,
        another call refused with RESOURCE_EXHAUSTED (OVERLOADED)."""
        worker = start_worker(max_concurrent_rpcs=1)
        state = deal(worker)
        with grpc.insecure_channel(worker.grpc_address) as channel:
            future = channel.unary_unary(SERVICE_PATH + "SuggestAction").future(
                search(state).SerializeToString(), metadata=(("x-request-id", "holding"),)
            )
            worker.records.started("holding")
            health = health_pb2_grpc.HealthStub(channel)
            answer = health.Check(health_pb2.HealthCheckRequest(), timeout=PROBE_SECONDS)
            assert answer.status == health_pb2.HealthCheckResponse.SERVING
            view = api.GetViewRequest(state=state, viewer=common.Viewer(spectator=True))
            refused = call(worker, "grpc", "GetView", view)
            assert (refused.code, refused.reason) == (
                grpc.StatusCode.RESOURCE_EXHAUSTED,
                "OVERLOADED",
            )
            future.cancel()
