"""Structured logs: JSON lines in production, readable lines on a terminal, and the access log."""

from __future__ import annotations

import logging
import sys
from typing import Any

import structlog

from service.observe import CallRecord


def configure(level: str = "info", fmt: str = "auto") -> None:
    """Set up structlog for this process: ``fmt`` is json, console or auto (console on a tty)."""
    console = fmt == "console" or (fmt == "auto" and sys.stderr.isatty())
    renderer: Any = (
        structlog.dev.ConsoleRenderer() if console else structlog.processors.JSONRenderer()
    )
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.StackInfoRenderer(),
            structlog.processors.format_exc_info,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(
            logging.getLevelNamesMapping()[level.upper()]
        ),
        logger_factory=structlog.PrintLoggerFactory(sys.stderr),
        cache_logger_on_first_use=True,
    )


class AccessLog:
    """Writes one line per RPC: method, game, seat, status code, reason, latency, request id.

    Only these fields are logged: never a state, a hand, a deck or a seed.
    """

    def __init__(self) -> None:
        self.log = structlog.get_logger("ordo.access")

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
