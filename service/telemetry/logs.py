"""Structured logs: JSON lines in production, readable lines on a terminal, and the access log.

Everything the process logs goes through one renderer, the server's own lines and the standard
``logging`` records of the libraries it uses (grpc) alike, so a log collector reads one format.
"""

from __future__ import annotations

import atexit
import contextlib
import logging
import sys
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache
from json.encoder import encode_basestring_ascii
from typing import Any, TextIO

import structlog

from service.telemetry.observe import CallRecord


def is_terminal(stream: TextIO) -> bool:
    """Whether ``stream`` is an interactive terminal."""
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False


ACCESS_EVENT = "rpc"  # the event name of every access line
MILLISECONDS_PER_SECOND = 1_000
LATENCY_DECIMALS = 3  # latency_ms is logged to the microsecond
NANOSECONDS_PER_SECOND = 1_000_000_000
NANOSECONDS_PER_MICROSECOND = 1_000
# The refusals that are the server's failure, not the caller's: its access line is a warning.
SERVER_FAILURES = frozenset({"REVISION_STORE_UNAVAILABLE", "REVISION_STORE_OUTCOME_UNKNOWN"})
FRAGMENTS_KEPT = 1024  # access-line fragments kept, one per method and game, code and reason


@dataclass(slots=True)
class _JsonSink:
    """Where ``configure`` sends JSON lines, for the access log to write its lines straight to.

    ``processors`` is structlog's processor list of that configuration: while structlog still
    uses that very list, the set-up is current (``structlog.configure`` and
    ``structlog.reset_defaults`` replace it).
    """

    processors: object
    level: int  # the least level written, as in ``logging`` (INFO, WARNING …)
    write: Callable[[str], None]  # one locked write and flush per line, shared with structlog


_json_sink: _JsonSink | None = None


class _Clock:
    """UTC timestamps in the ISO format of the other lines, the date and time made once a second.

    The access log stamps every call; formatting a datetime costs more than the rest of its line.
    """

    __slots__ = ("_prefix", "_second")

    def __init__(self) -> None:
        self._second = -1
        self._prefix = ""

    def now(self) -> str:
        """The current time, e.g. ``2025-01-01T12:00:00.123456Z``."""
        return self.format(time.time_ns())

    def format(self, time_ns: int) -> str:
        """A time given in nanoseconds since the epoch, e.g. ``2025-01-01T12:00:00.123456Z``."""
        second, nanoseconds = divmod(time_ns, NANOSECONDS_PER_SECOND)
        if second != self._second:
            # Two threads may both refresh the prefix at a second's turn; each writes a true one.
            self._prefix = datetime.fromtimestamp(second, UTC).strftime("%Y-%m-%dT%H:%M:%S")
            self._second = second
        return f"{self._prefix}.{nanoseconds // NANOSECONDS_PER_MICROSECOND:06d}Z"


def configure(level: str = "info", fmt: str = "auto", stream: TextIO | None = None) -> None:
    """Set up the logs of this process.

    ``fmt`` is ``json`` (one object per line), ``console`` (aligned, coloured on a terminal) or
    ``auto`` (console on a terminal, else json); ``level`` is a standard level name such as
    ``info``. Lines go to ``stream``, standard error by default.
    """
    global _json_sink  # noqa: PLW0603 - the one set-up of the process, as structlog's own
    stream = sys.stderr if stream is None else stream
    console = fmt == "console" or (fmt == "auto" and is_terminal(stream))
    numeric_level = logging.getLevelNamesMapping()[level.upper()]
    shared: list[Any] = [
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
        structlog.processors.StackInfoRenderer(),
    ]
    renderer: Any
    if console:
        # Plain tracebacks: the fancy formatters print the local variables of every frame.
        renderer = structlog.dev.ConsoleRenderer(
            colors=is_terminal(stream), exception_formatter=structlog.dev.plain_traceback
        )
    else:
        shared.append(structlog.processors.format_exc_info)
        renderer = structlog.processors.JSONRenderer()
    processors = [*shared, renderer]
    structlog.configure(
        processors=processors,
        wrapper_class=structlog.make_filtering_bound_logger(numeric_level),
        # One write per line (print() makes two): the worker processes share standard error,
        # and lines written in one piece do not interleave.
        logger_factory=structlog.WriteLoggerFactory(stream),
        cache_logger_on_first_use=True,
    )
    _json_sink = (
        None if console else _JsonSink(processors, numeric_level, structlog.WriteLogger(stream).msg)
    )
    handler = logging.StreamHandler(stream)
    handler.setFormatter(
        structlog.stdlib.ProcessorFormatter(
            foreign_pre_chain=[structlog.stdlib.add_logger_name, *shared],
            processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta, renderer],
        )
    )
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(numeric_level)


class AccessLog:
    """Writes one line per RPC: method, game, seat, status code, reason, latency, request id and
    protocol.

    Only these fields are logged: never a request, a state, a hand, a deck or a seed. In the
    JSON format the line is rendered here, with the same fields in the same order as structlog
    renders them (method … request_id, event, level, timestamp): one line per call is worth a
    path of its own (``json_access_line``). Other formats go through structlog. Like a structlog
    logger, it keeps the set-up of its first use.

    With ``flush_seconds`` (JSON only), the calls are gathered and their lines written together
    at most that long after the first of them, or once ``BATCH_CALLS`` have gathered: a system
    call per line costs a busy server more than the rest of its logging, and lines made one
    after the other, off the call, cost less than each made in its call. Each write is of whole
    lines and at most ``CHUNK_BYTES``, so the writes of several workers to one pipe never
    interleave. A warning goes out at once, with the lines before it; ``close`` writes what is
    left.
    """

    BATCH_CALLS = 32  # gathered calls written at once by the call that completes the batch
    CHUNK_BYTES = 4096  # PIPE_BUF on Linux: a write this size to a pipe is never split

    def __init__(self, flush_seconds: float = 0.0) -> None:
        self.log = structlog.get_logger("ordo.access")
        self._sink: _JsonSink | None = None
        self._resolved = False
        self._clock = _Clock()
        self.flush_seconds = flush_seconds
        self._lock = threading.Lock()
        self._pending: list[tuple[CallRecord, str, int]] = []  # call, level, time
        self._closed = threading.Event()
        self._flusher: threading.Thread | None = None

    def call_started(self, call: CallRecord) -> None:
        """Nothing: the line is written when the call has finished."""

    def call_finished(self, call: CallRecord) -> None:
        """Log the call at info level, or warning for a server-side failure (an unexpected
        error, a revision store out of reach)."""
        if not self._resolved:
            sink = _json_sink
            current = sink is not None and structlog.get_config()["processors"] is sink.processors
            self._sink = sink if current else None
            self._resolved = True
        failed = call.code == "INTERNAL" or call.reason in SERVER_FAILURES
        sink = self._sink
        if sink is None:
            method = self.log.warning if failed else self.log.info
            method(
                ACCESS_EVENT,
                method=call.method,
                game=call.game or None,
                seat=call.seat,
                code=call.code,
                reason=call.reason or None,
                latency_ms=latency_ms(call),
                request_id=call.request_id,
                protocol=call.protocol,
            )
            return
        level = logging.WARNING if failed else logging.INFO
        if level < sink.level:
            return
        level_name = "warning" if failed else "info"
        if not self.flush_seconds:
            sink.write(json_access_line(call, level_name, self._clock.now()))
            return
        with self._lock:
            self._pending.append((call, level_name, time.time_ns()))
            if failed or len(self._pending) >= self.BATCH_CALLS:
                self._write_pending(sink)
        if self._flusher is None:
            self._start_flusher()

    def flush(self) -> None:
        """Write the lines gathered so far."""
        sink = self._sink
        if sink is not None:
            with self._lock:
                self._write_pending(sink)

    def close(self) -> None:
        """Write what is left and stop the flusher; later lines are written one by one."""
        self.flush_seconds = 0.0
        self._closed.set()
        self.flush()

    def _write_pending(self, sink: _JsonSink) -> None:
        """Write the lines of the gathered calls, in chunks of whole lines. The lock is held."""
        if not self._pending:
            return
        pending, self._pending = self._pending, []  # lines a failing stream refuses are lost
        stamp = self._clock.format
        chunk: list[str] = []
        size = 0
        for call, level_name, time_ns in pending:
            line = json_access_line(call, level_name, stamp(time_ns))
            if chunk and size + len(line) + 1 > self.CHUNK_BYTES:
                sink.write("\n".join(chunk))  # the sink ends it with a newline
                chunk.clear()
                size = 0
            chunk.append(line)
            size += len(line) + 1
        sink.write("\n".join(chunk))

    def _start_flusher(self) -> None:
        with self._lock:
            if self._flusher is not None:
                return
            self._flusher = threading.Thread(
                target=self._flush_until_closed, name="access-log", daemon=True
            )
            self._flusher.start()
        atexit.register(self._flush_at_exit)

    def _flush_at_exit(self) -> None:
        """Write what is left as the process exits, unless the stream is closed by then."""
        with contextlib.suppress(ValueError, OSError):
            self.flush()

    def _flush_until_closed(self) -> None:
        while not self._closed.wait(self.flush_seconds):
            # A stream that fails (closed, full disk) loses those lines; the flusher goes on.
            with contextlib.suppress(ValueError, OSError):
                self.flush()


def latency_ms(call: CallRecord) -> float:
    """The latency of a call as logged: milliseconds, rounded to the microsecond."""
    return round(call.seconds * MILLISECONDS_PER_SECOND, LATENCY_DECIMALS)


def _json_text(text: str | None) -> str:
    """A string (ASCII-escaped, as ``json.dumps`` writes it) or null."""
    return "null" if text is None else encode_basestring_ascii(text)


def json_access_line(call: CallRecord, level: str, timestamp: str) -> str:
    """The access line of a call as structlog's JSON renderer writes it (``json.dumps``).

    Written out field by field: this is several times quicker than ``json.dumps`` of a dict, and
    every string that may come from the caller (the request id) is escaped as ``json.dumps``
    escapes it. The fields that take few values (method and game, code and reason) are written
    once per combination.
    """
    seat = "null" if call.seat is None else str(call.seat)
    return (
        f"{_head(call.method, call.game)}{seat}{_middle(call.code, call.reason)}"
        f'{latency_ms(call)!r}, "request_id": {_json_text(call.request_id)}'
        f"{_tail(call.protocol, level)}"
        f'{timestamp}"}}'
    )


@lru_cache(maxsize=FRAGMENTS_KEPT)
def _head(method: str, game: str) -> str:
    return f'{{"method": {_json_text(method)}, "game": {_json_text(game or None)}, "seat": '


@lru_cache(maxsize=FRAGMENTS_KEPT)
def _middle(code: str, reason: str) -> str:
    return f', "code": {_json_text(code)}, "reason": {_json_text(reason or None)}, "latency_ms": '


@lru_cache(maxsize=FRAGMENTS_KEPT)
def _tail(protocol: str, level: str) -> str:
    return (
        f', "protocol": {_json_text(protocol)}, "event": "{ACCESS_EVENT}", "level": "{level}", '
        '"timestamp": "'
    )


def error_fields(error: BaseException) -> dict[str, str]:
    """What the log says about an unexpected error: its type and where it was raised.

    The exception's message is left out on purpose: it may quote values taken from the request,
    such as a card in a hand or the generator state. The stack lists files, lines and source
    code, never the values of variables.
    """
    kind = type(error)
    name = (
        kind.__qualname__
        if kind.__module__ == "builtins"
        else f"{kind.__module__}.{kind.__qualname__}"
    )
    return {
        "error": name,
        "stack": "".join(traceback.format_list(traceback.extract_tb(error.__traceback__))),
    }


def log_error(log: Any, event: str, error: BaseException, **fields: Any) -> None:
    """Log an unexpected error; a failure to log (a closed stream) must not fail the call."""
    with contextlib.suppress(Exception):
        log.error(event, **fields, **error_fields(error))
