"""A worker never outlives its supervisor, however the supervisor dies (SIGKILL included).

A worker process is the supervisor's child; when the supervisor dies, the kernel gives its
children to init, and a worker left so would go on serving its port (SO_REUSEPORT keeps it
open) with nobody to stop it. So each worker, as it starts:

- asks the kernel to send it SIGTERM when its parent dies (Linux's ``PR_SET_PDEATHSIG``): it then
  drains as on any SIGTERM;
- and watches its parent itself, from a thread: once its parent is gone it sends itself SIGTERM
  where the kernel could not, and, if it is still running after the grace period and a margin
  (a drain stuck on a call), ends at once.

The parent is named by its pid as it started the worker, so that a parent that died before
the worker looked is seen too.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal
import sys
import threading
import time

import structlog

PR_SET_PDEATHSIG = 1  # prctl(2): the signal the calling process gets when its parent dies
POLL_SECONDS = 0.5  # how often a worker looks whether its parent is alive
EXIT_MARGIN_SECONDS = 5.0  # past the grace period, an orphaned worker ends without waiting more
EXIT_ORPHANED = 3  # the exit code of a worker that had to end itself so

log = structlog.get_logger("ordo.server")


def die_with_parent(parent: int, grace_seconds: float) -> None:
    """Make this process end when ``parent`` (the pid of the process that started it) dies."""
    signalled = _parent_death_signal()
    if os.getppid() != parent:  # it died before the kernel was asked
        os.kill(os.getpid(), signal.SIGTERM)
    thread = threading.Thread(
        target=_watch,
        args=(parent, grace_seconds, signalled),
        name="parent-watch",
        daemon=True,
    )
    thread.start()


def _parent_death_signal() -> bool:
    """Ask the kernel for SIGTERM when the parent dies; False where it cannot be asked."""
    if not sys.platform.startswith("linux"):
        return False
    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    return bool(libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0) == 0)


def _watch(parent: int, grace_seconds: float, signalled: bool) -> None:
    while os.getppid() == parent:
        time.sleep(POLL_SECONDS)
    log.warning("the supervisor is gone: the worker stops", parent=parent)
    if not signalled:
        os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(grace_seconds + EXIT_MARGIN_SECONDS)
    os._exit(EXIT_ORPHANED)
