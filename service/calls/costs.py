"""What one call may cost: a CPU budget per call, the caller's deadline, and the heavy calls.

**The budget.** Every call may spend at most ``--max-call-cpu-ms`` of CPU (``CostLimits``). Its
work is counted in nominal costs, measured on the reference machine and rounded up, so that the
same request is refused or served alike on every replica:

- a search (the ``search`` bot's move) costs ``SEARCH_MOVE_US`` at its game's default iterations
  (each game's default is set to answer within that on one core, ``docs/bots.md``), and so a
  world costs that share of it: a search of twice the default iterations costs twice as much;
- any other bot's move (``heuristic``, ``random``) costs ``BOT_MOVE_US``;
- a move that ``ReplayGame`` plays again costs ``REPLAYED_MOVE_US`` (applied, encoded, sealed,
  hashed, and its step's views).

A call first adds up what its request asks for (the search iterations it names, the moves and
bot moves of a record) and is refused with ``CALL_BUDGET_EXCEEDED`` before any of that work when
the sum is over the budget (``Meter.plan``). It then counts its work as it goes, and also reads
its thread's CPU time: it stops with the same reason as soon as either passes the budget
(``Meter.spend``), so that no call costs more than the budget says, whatever the machine.

**The caller.** Each check of ``spend`` also asks the door whether the caller still waits
(``Waiting``: gRPC's context, or the HTTP door's view of the request): a call whose deadline
passed or whose caller went away stops there, its access line saying ``DEADLINE_EXCEEDED`` or
``CANCELLED``. A search checks after every world, a replay after every move: a few
milliseconds at most.

**Heavy calls.** A call that plans more than ``HEAVY_CALL_US`` of work (every search, a long
replay) is heavy: a worker runs one at a time (its core is one core, and a second would only
slow the first), keeps a bounded number waiting (``--max-heavy-calls``, running or waiting), and
refuses the next with ``RESOURCE_EXHAUSTED`` (``SERVER_BUSY``) and a delay to retry after, at
once, without work (``HeavyCalls``). So the worker's other threads stay free for health checks
and cheap calls, whatever mix of heavy calls arrives.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from engines.search import SEARCH_POLICY, Budget
from service.calls.games import Game
from service.config import DEFAULT_MAX_CALL_CPU_MS, DEFAULT_MAX_HEAVY_CALLS
from service.errors import (
    CallBudgetExceededError,
    CallCancelledError,
    CallDeadlineExceededError,
    ServerBusyError,
)
from service.telemetry.observe import CallRecord, Waiting

US_PER_MS = 1_000
US_PER_SECOND = 1_000_000
SEARCH_MOVE_US = 100_000  # a search at its game's default iterations
BOT_MOVE_US = 500  # a heuristic or random bot's move
REPLAYED_MOVE_US = 500  # a move of a record played again, with its step
HEAVY_CALL_US = 20_000  # a call that plans more than this is heavy
WAIT_POLL_SECONDS = 0.005  # how often a heavy call that waits looks whether its caller still does
MIN_RETRY_MS = 50  # the shortest delay a busy worker asks a refused heavy call to wait


@dataclass(frozen=True, slots=True)
class CostLimits:
    """A worker's limits: the CPU budget of one call, and how many heavy calls it holds."""

    call_us: int = DEFAULT_MAX_CALL_CPU_MS * US_PER_MS
    heavy_calls: int = DEFAULT_MAX_HEAVY_CALLS


DEFAULT_COST_LIMITS = CostLimits()


def search_world_us(game: Game) -> int:
    """The nominal cost of one world of ``game``'s search."""
    info = game.engine.search_info
    default = info.searcher.default_iterations if info is not None else 1
    return -(-SEARCH_MOVE_US // default)


def bot_cost_us(game: Game, policy: str, budget: Budget | None) -> int:
    """The nominal cost of a bot's move with ``policy`` and the search ``budget`` (None: the
    game's default), as planned before it is made."""
    if policy != SEARCH_POLICY or game.engine.search_info is None:
        return BOT_MOVE_US
    if budget is None:
        return SEARCH_MOVE_US
    return budget.iterations * search_world_us(game)


class Meter:
    """The work of one call so far against its budget, and its caller (see the module)."""

    __slots__ = ("budget_us", "cpu_started", "planned_us", "spent_us", "waiting")

    def __init__(self, budget_us: int, waiting: Waiting | None) -> None:
        self.budget_us = budget_us
        self.waiting = waiting
        self.planned_us = 0
        self.spent_us = 0
        self.cpu_started = time.thread_time()

    def plan(self, cost_us: int) -> None:
        """Add ``cost_us`` to what the call asks for; refuse it when that is over the budget,
        before any of it is done."""
        self.planned_us += cost_us
        if self.planned_us > self.budget_us:
            raise CallBudgetExceededError(
                f"the call asks for about {_ms(self.planned_us)} ms of CPU; this server allows "
                f"{_ms(self.budget_us)} ms a call: ask for fewer search iterations, or replay a "
                "shorter record",
                cost_ms=str(_ms(self.planned_us)),
                budget_ms=str(_ms(self.budget_us)),
            )

    def spend(self, cost_us: int) -> None:
        """Count ``cost_us`` of work done; stop the call when its caller no longer waits, or
        when its count or its thread's CPU time passes the budget."""
        self.check_caller()
        self.spent_us += cost_us
        cpu_us = round((time.thread_time() - self.cpu_started) * US_PER_SECOND)
        spent = max(self.spent_us, cpu_us)
        if spent > self.budget_us:
            raise CallBudgetExceededError(
                f"the call was stopped after {_ms(spent)} ms of CPU; this server allows "
                f"{_ms(self.budget_us)} ms a call",
                spent_ms=str(_ms(spent)),
                budget_ms=str(_ms(self.budget_us)),
            )

    def check_caller(self) -> None:
        """Stop the call when its caller no longer waits: its deadline passed (read from the
        deadline itself, not from the library's news of it, which a busy worker hears late),
        or it left."""
        waiting = self.waiting
        if waiting is None:
            return
        remaining = waiting.time_remaining()
        if remaining is not None and remaining <= 0:
            raise CallDeadlineExceededError
        if not waiting.is_active():
            raise CallCancelledError

    def search(self, game: Game, budget: Budget | None) -> Budget | None:
        """``budget`` (None: the game's default) with each world counted against this call."""
        info = game.engine.search_info
        if info is None:
            return budget
        world_us = search_world_us(game)

        def each_world() -> None:
            self.spend(world_us)

        if budget is None:
            return Budget(info.searcher.default_iterations, each_world=each_world)
        return Budget(budget.iterations, budget.time_ms, each_world)


class HeavyCalls:
    """A worker's heavy calls: one runs, the others wait their turn, up to ``limit`` in all."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._lock = threading.Lock()
        self._turn = threading.Lock()  # held by the heavy call that runs
        self._held_us: list[int] = []  # the planned cost of each call running or waiting

    @contextmanager
    def turn(self, meter: Meter) -> Iterator[None]:
        """Run the body as the worker's one heavy call, once the calls before it are done;
        refuse at once (``SERVER_BUSY``) when ``limit`` calls run or wait already, and stop
        waiting when the caller does."""
        cost = meter.planned_us
        with self._lock:
            if len(self._held_us) >= self.limit:
                ahead = sum(self._held_us)
                raise ServerBusyError(
                    f"this worker runs or queues {len(self._held_us)} heavy calls (searches, "
                    "long replays), its most: send the call again later",
                    retry_after_ms=max(MIN_RETRY_MS, _ms(ahead)),
                    heavy_calls=str(self.limit),
                )
            self._held_us.append(cost)
        try:
            while not self._turn.acquire(timeout=WAIT_POLL_SECONDS):
                meter.check_caller()
            try:
                yield
            finally:
                self._turn.release()
        finally:
            with self._lock:
                self._held_us.remove(cost)


class CallCosts:
    """A worker's cost limits and its heavy calls, which every call of its servicer shares."""

    def __init__(self, limits: CostLimits) -> None:
        self.limits = limits
        self.heavy = HeavyCalls(limits.heavy_calls)

    def meter(self, call: CallRecord) -> Meter:
        """A new meter of ``call``'s work, with the worker's budget and the call's caller."""
        return Meter(self.limits.call_us, call.waiting)

    @contextmanager
    def work(self, meter: Meter) -> Iterator[None]:
        """Do the body, the work ``meter`` planned: in its turn among the heavy calls when it
        is heavy, at once when it is not."""
        if meter.planned_us <= HEAVY_CALL_US:
            yield
            return
        with self.heavy.turn(meter):
            yield


def _ms(us: int) -> int:
    """Microseconds in whole milliseconds, rounded up."""
    return -(-us // US_PER_MS)
