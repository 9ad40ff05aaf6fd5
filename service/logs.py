"""Structured logs: JSON lines in production, readable lines on a terminal, and the access log.

Everything the process logs goes through one renderer, the server's own lines and the standard
``logging`` records of the libraries it uses (grpc) alike, so a log collector reads one format.
"""

from __future__ import annotations

import logging
import sys
from typing import Any, TextIO

import structlog

from service.observe import CallRecord


def is_terminal(stream: TextIO) -> bool:
    """Whether ``stream`` is an interactive terminal."""
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # no isatty, or a closed stream
        return False


def configure(level: str = "info", fmt: str = "auto", stream: TextIO | None = None) -> None:
    """Set up the logs of this process.

    ``fmt`` is ``json`` (one object per line), ``console`` (aligned, coloured on a terminal) or
    ``auto`` (console on a terminal, else json); ``level`` is a standard level name such as
    ``info``. Lines go to ``stream``, standard error by default.
    """
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
    structlog.configure(
        processors=[*shared, renderer],
        wrapper_class=structlog.make_filtering_bound_logger(numeric_level),
        # One write per line (print() makes two): the worker processes share standard error,
        # and lines written in one piece do not interleave.
        logger_factory=structlog.WriteLoggerFactory(stream),
        cache_logger_on_first_use=True,
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

    Only these fields are logged: never a request, a state, a hand, a deck or a seed.
    """

    def __init__(self) -> None:
        self.log = structlog.get_logger("ordo.access")

    def call_started(self, call: CallRecord) -> None:
        """Nothing: the line is written when the call has finished."""

    def call_finished(self, call: CallRecord) -> None:
        """Log the call at info level, or warning for a server-side failure."""
        method = self.log.warning if call.code == "INTERNAL" else self.log.info
        method(
            "rpc",
            method=call.method,
            game=call.game or None,
            seat=call.seat,
            code=call.code,
            reason=call.reason or None,
            latency_ms=round(call.seconds * 1000, 3),
            request_id=call.request_id,
        )
