"""The thread pool of a worker process: gRPC runs each call as one of its tasks.

It differs from ``concurrent.futures.ThreadPoolExecutor`` in two ways:

- **Work after the call.** A task may leave work with ``after``; it runs on the same thread once
  the task has returned. A call's task hands the response and the status to the transport,
  which sends them without waiting for the task to end (``tests/service/test_call_pool.py``
  holds a call's observers back to show it), so what the caller need not wait for (the access
  line, the metrics) costs it no latency. The thread takes its next call once that work is
  done: under load it costs what it always did.
- **The last thread to go idle takes the next task.** ThreadPoolExecutor's idle threads wait on
  one queue and are woken in turn, so at low load every call runs on the thread that has been
  idle longest, the one whose stack and data the core's caches have most likely lost. Here the
  idle threads form a stack: one call at a time runs on one thread, call after call.

Threads start as tasks need them, up to ``max_workers``; one idle for ``IDLE_SECONDS`` ends.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from concurrent import futures
from typing import Any

import structlog

from service.telemetry import logs
from service.telemetry.observe import CallRecord

Task = tuple["futures.Future[Any]", Callable[..., Any], tuple[Any, ...], dict[str, Any]]
#: The work a task left, each piece with its call.
Left = list[tuple[Callable[[CallRecord], None], CallRecord]]

log = structlog.get_logger("ordo.server")


class _Idle:
    """An idle thread's hand-over: the task given to it, and the lock it waits on."""

    __slots__ = ("task", "wake")

    def __init__(self) -> None:
        self.task: Task | None = None
        self.wake = threading.Lock()
        self.wake.acquire()  # held until a task (or the shutdown) is handed over


class CallThreadPool(futures.Executor):
    """Runs tasks on up to ``max_workers`` threads, the most recently idle first."""

    IDLE_SECONDS = 60.0

    def __init__(self, max_workers: int, thread_name_prefix: str = "") -> None:
        if max_workers < 1:
            raise ValueError(f"max_workers must be at least 1, not {max_workers}")
        self.max_workers = max_workers
        self._prefix = thread_name_prefix or f"CallThreadPool-{id(self):x}"
        self._lock = threading.Lock()
        self._queue: deque[Task] = deque()  # tasks no thread has taken yet
        self._idle: list[_Idle] = []  # the idle threads, the most recently idle last
        self._threads: set[threading.Thread] = set()
        self._started = 0
        self._shutdown = False
        self._local = threading.local()

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> futures.Future[Any]:
        """Schedule ``fn(*args, **kwargs)``, then the work it leaves, as one task."""
        future: futures.Future[Any] = futures.Future()
        task: Task = (future, fn, args, kwargs)
        with self._lock:
            if self._shutdown:
                raise RuntimeError("cannot schedule new futures after shutdown")
            if self._idle:
                idle = self._idle.pop()
                idle.task = task
                idle.wake.release()
                return future
            self._queue.append(task)
            if len(self._threads) < self.max_workers:
                self._start_thread()
        return future

    def after(self, work: Callable[[CallRecord], None], call: CallRecord) -> bool:
        """Leave ``work(call)`` to run once the current task is done; False outside a task."""
        left: Left | None = getattr(self._local, "left", None)
        if left is None:
            return False
        left.append((work, call))
        return True

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Take no more tasks; the threads end once the tasks already given are done (those
        not started yet are cancelled with ``cancel_futures``). ``wait`` joins them."""
        with self._lock:
            self._shutdown = True
            if cancel_futures:
                while self._queue:
                    self._queue.popleft()[0].cancel()
            idle, self._idle = self._idle, []
            threads = list(self._threads)
        for each in idle:
            each.wake.release()  # with no task: the thread finds the pool shut down
        if wait:
            for thread in threads:
                if thread is not threading.current_thread():
                    thread.join()

    def busy(self) -> bool:
        """Whether a task runs (or the work it left), or waits for a thread."""
        with self._lock:
            return bool(self._queue) or len(self._threads) > len(self._idle)

    def __len__(self) -> int:
        """The number of threads running now."""
        return len(self._threads)

    def _start_thread(self) -> None:
        """Start one more thread. The lock is held."""
        self._started += 1
        thread = threading.Thread(
            target=self._work, name=f"{self._prefix}_{self._started}", daemon=True
        )
        thread.start()  # it waits for the lock held here, so it is in the set before it runs
        self._threads.add(thread)

    def _work(self) -> None:
        """A thread's loop: the waiting tasks first, else wait to be handed one."""
        idle = _Idle()
        current = threading.current_thread()
        while True:
            with self._lock:
                task = self._queue.popleft() if self._queue else None
                if task is None:
                    if self._shutdown:
                        self._threads.discard(current)
                        return
                    self._idle.append(idle)
            if task is None:
                if not idle.wake.acquire(timeout=self.IDLE_SECONDS):
                    with self._lock:
                        if idle in self._idle:  # nobody is handing it a task: end the thread
                            self._idle.remove(idle)
                            self._threads.discard(current)
                            return
                    idle.wake.acquire()  # a task was handed over as the wait ended
                task, idle.task = idle.task, None
                if task is None:  # woken by the shutdown
                    continue
            self._run(task)
            del task  # the task's arguments and result are not kept while idle

    def _run(self, task: Task) -> None:
        """Run a task, then the work it left, then complete its future."""
        future, fn, args, kwargs = task
        if not future.set_running_or_notify_cancel():
            return
        left: Left = []
        self._local.left = left
        try:
            result = fn(*args, **kwargs)
        except BaseException as error:  # the future carries it, as ThreadPoolExecutor's does
            self._local.left = None
            self._run_left(left)
            future.set_exception(error)
        else:
            self._local.left = None
            self._run_left(left)
            future.set_result(result)

    @staticmethod
    def _run_left(left: Left) -> None:
        for work, call in left:
            try:
                work(call)
            except Exception as error:  # stops neither the rest nor the thread
                logs.log_error(log, "work after the call failed", error, method=call.method)
