"""Structured logs: JSON lines in production, readable lines on a terminal, and the access log.

Everything the process logs goes through one renderer, the server's own lines and the standard
``logging`` records of the libraries it uses (grpc) alike, so a log collector reads one format.
"""

from __future__ import annotations

import contextlib
import logging
import sys
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import lru_cache
from json.encoder import encode_basestring_ascii
from typing import Any, TextIO

import structlog

from service.observe import CallRecord


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
    """Writes one line per RPC: method, game, seat, status code, reason, latency, request id.

    Only these fields are logged: never a request, a state, a hand, a deck or a seed. In the
    JSON format the line is rendered here, with the same fields in the same order as structlog
    renders them (method … request_id, event, level, timestamp): one line per call is worth a
    path of its own (``json_access_line``), stamped with the time the call ended. The lines of
    the calls handed over together (see ``service.observe.Recorder``) are written together, in
    writes of whole lines and at most ``CHUNK_BYTES``, so that the writes of several workers to
    one pipe never interleave: a system call per line costs a busy server more than the rest of
    its logging. Other formats go through structlog, a line at a time. Like a structlog logger,
    it keeps the set-up of its first use.
    """

    CHUNK_BYTES = 4096  # PIPE_BUF on Linux: a write this size to a pipe is never split

    def __init__(self) -> None:
        self.log = structlog.get_logger("ordo.access")
        self._sink: _JsonSink | None = None
        self._resolved = False
        self._clock = _Clock()

    def call_started(self, call: CallRecord) -> None:
        """Nothing: the line is written when the call has finished."""

    def calls_finished(self, calls: Sequence[CallRecord]) -> None:
        """Log each call at info level, or warning for a server-side failure."""
        if not self._resolved:
            sink = _json_sink
            current = sink is not None and structlog.get_config()["processors"] is sink.processors
            self._sink = sink if current else None
            self._resolved = True
        sink = self._sink
        if sink is None:
            for call in calls:
                self._log(call)
            return
        stamp = self._clock.format
        chunk: list[str] = []
        size = 0
        for call in calls:
            failed = call.code == "INTERNAL"
            if (logging.WARNING if failed else logging.INFO) < sink.level:
                continue
            line = json_access_line(
                call, "warning" if failed else "info", stamp(call.ended_ns or time.time_ns())
            )
            if chunk and size + len(line) + 1 > self.CHUNK_BYTES:
                sink.write("\n".join(chunk))  # the sink ends it with a newline
                chunk.clear()
                size = 0
            chunk.append(line)
            size += len(line) + 1
        if chunk:
            sink.write("\n".join(chunk))

    def _log(self, call: CallRecord) -> None:
        """The access line of ``call`` through structlog."""
        method = self.log.warning if call.code == "INTERNAL" else self.log.info
        method(
            ACCESS_EVENT,
            method=call.method,
            game=call.game or None,
            seat=call.seat,
            code=call.code,
            reason=call.reason or None,
            latency_ms=latency_ms(call),
            request_id=call.request_id,
        )


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
        f'{latency_ms(call)!r}, "request_id": {_json_text(call.request_id)}{_tail(level)}'
        f'{timestamp}"}}'
    )


@lru_cache(maxsize=FRAGMENTS_KEPT)
def _head(method: str, game: str) -> str:
    return f'{{"method": {_json_text(method)}, "game": {_json_text(game or None)}, "seat": '


@lru_cache(maxsize=FRAGMENTS_KEPT)
def _middle(code: str, reason: str) -> str:
    return f', "code": {_json_text(code)}, "reason": {_json_text(reason or None)}, "latency_ms": '


@lru_cache(maxsize=FRAGMENTS_KEPT)
def _tail(level: str) -> str:
    return f', "event": "{ACCESS_EVENT}", "level": "{level}", "timestamp": "'


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
