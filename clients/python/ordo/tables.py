"""Hosted tables on the client's side: a table's stream that comes back by itself, and the links a
host gives the people at the table.

``Client.watch_game`` (and ``AsyncClient.watch_game``) follow a table with ``WatchGame``: when
the stream is cut on its way (a server that stops, a lost connection, a store out of reach for a
moment), they watch again from the last revision they gave, on the next connection, after a
pause that doubles from the client's ``backoff`` to its ``max_backoff``, so the caller sees every
revision once, in order. They give up after ``MAX_RECONNECTS`` attempts in a row that brought
no message, raising the last failure; any other answer of the service (a token refused, a table
unknown) is raised at once.

A link to a table is the address of the server's HTTP port (its playground) with the table id
and one seat's token in the URL's fragment, which browsers never send to a server:
``http://host:8080/#table=TABLE_ID&token=TOKEN``.
"""

from __future__ import annotations

import random
from collections.abc import Collection
from dataclasses import dataclass
from urllib.parse import parse_qs, urlsplit

import grpc

from ordo.errors import OrdoError
from ordo.v1 import common_pb2 as common
from ordo.v1 import engine_service_pb2 as api

__all__ = [
    "MAX_RECONNECTS",
    "RECONNECT_REASONS",
    "Link",
    "parse_link",
    "reconnects",
    "table_link",
    "token_seat",
    "watch_request",
]

MAX_RECONNECTS = 10  # attempts in a row without a message before a watch gives up
# The service's answers that end a stream it can take up again: a server that stops, a store
# out of reach, a watcher that fell behind (every other answer would come again the same).
RECONNECT_REASONS = frozenset({"SERVER_DRAINING", "TABLE_STORE_UNAVAILABLE", "WATCHER_TOO_SLOW"})
SPECTATOR_SEAT = "s"  # the seat word of a spectator's token (o1.KEY.MATCH.SEAT.MAC)


@dataclass(frozen=True, slots=True)
class Link:
    """What a table's link holds: the server's HTTP address, the table and one token."""

    base_url: str
    table_id: str
    token: str

    @property
    def seat(self) -> int | None:
        """The seat the token plays (None: the spectator's token)."""
        return token_seat(self.token)


def reconnects(failure: OrdoError, codes: Collection[grpc.StatusCode]) -> bool:
    """Whether a watch cut by ``failure`` is taken up again: a failure on the way (one of the
    client's retry ``codes``) or one of the ``RECONNECT_REASONS``."""
    if failure.answered:
        return failure.reason in RECONNECT_REASONS
    return failure.code in codes


def pause(attempt: int, backoff: float, max_backoff: float, chance: random.Random) -> float:
    """The pause before watching again after ``attempt`` failures in a row (full jitter)."""
    return chance.uniform(0.0, min(max_backoff, backoff * 2**attempt))


def watch_request(
    table_id: str, after_revision: int | None, viewer: int | common.Viewer | None
) -> api.WatchGameRequest:
    """The ``WatchGameRequest`` of a table, from ``after_revision`` when given, for ``viewer``
    (a seat, a ``Viewer``, or None: the token's own seat)."""
    request = api.WatchGameRequest(table_id=table_id)
    if after_revision is not None:
        request.after_revision = after_revision
    if viewer is not None:
        request.viewer.CopyFrom(common.Viewer(seat=viewer) if isinstance(viewer, int) else viewer)
    return request


def table_link(base_url: str, table_id: str, token: str) -> str:
    """The link that seats the holder of ``token`` at a table: the token in the fragment."""
    return f"{base_url.rstrip('/')}/#table={table_id}&token={token}"


def parse_link(link: str) -> Link:
    """The table and token of a link (``table_link``'s); ``ValueError`` for any other text."""
    parts = urlsplit(link.strip())
    found = parse_qs(parts.fragment)
    table, token = found.get("table", [""])[0], found.get("token", [""])[0]
    if not (parts.scheme and parts.netloc and table and token):
        raise ValueError(
            f"not a table's link: {link!r} (expected http://HOST:PORT/#table=ID&token=TOKEN)"
        )
    return Link(f"{parts.scheme}://{parts.netloc}", table, token)


def token_seat(token: str) -> int | None:
    """The seat a seat token plays (None for a spectator's): its fourth word."""
    words = token.split(".")
    if len(words) != 5 or not (words[3].isdigit() or words[3] == SPECTATOR_SEAT):
        raise ValueError("not a seat token: expected o1.KEY_ID.MATCH.SEAT.MAC")
    return None if words[3] == SPECTATOR_SEAT else int(words[3])
