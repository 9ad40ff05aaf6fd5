"""Game records: keep one as a game is played, save and load it as a file, replay it.

A ``GameRecord`` (``ordo.v1``) is the state ``NewGame`` returned and every move sent to
``ApplyAction`` after it, the first ``DIGEST_BYTES`` of the SHA-256 of the state each move led to,
and the full SHA-256 of the last state. ``Recorder`` wraps a client's ``new_game``,
``apply_action`` and ``play_bot`` and keeps the record of the game they play; ``save`` and
``load`` read and write its file (proto JSON, ``.ordo.json``, one move a line); ``replay_steps``
walks every page of ``ReplayGame``.

A digest is over the state as the server returned it, serialized with its fields in number
order: what protobuf's deterministic serialization gives, on any client.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from google.protobuf import json_format

from ordo.client import Client
from ordo.v1 import common_pb2 as common
from ordo.v1 import engine_service_pb2 as api

__all__ = [
    "DIGEST_BYTES",
    "FORMAT_VERSION",
    "SUFFIX",
    "Recorder",
    "from_json",
    "load",
    "replay_steps",
    "save",
    "state_digest",
    "to_json",
]

FORMAT_VERSION = 1  # GameRecord.format_version of the records written here
DIGEST_BYTES = 4  # a move's digest: the first bytes of its state's SHA-256
SUFFIX = ".ordo.json"  # the name ending of a record's file
MOVES_FIELD = "moves"  # the record's field that its file writes one entry a line


def state_digest(state: common.GameState) -> bytes:
    """The SHA-256 of ``state`` as the server returned it (its canonical serialization)."""
    return hashlib.sha256(state.SerializeToString(deterministic=True)).digest()


class Recorder:
    """Plays one game through ``client`` and keeps its record: call ``new_game`` once, then
    ``apply_action``, ``play_bot`` and ``claim_timeout`` with the latest state, as a client's
    own methods. Each move keeps the time the server stamped (a game with a clock)."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.record = api.GameRecord(format_version=FORMAT_VERSION)
        self.state: common.GameState | None = None  # the latest state

    def new_game(self, *args: Any, **kwargs: Any) -> api.NewGameResponse:
        """Deal the game (``Client.new_game``'s arguments) and start the record with it."""
        if self.state is not None:
            raise ValueError("this recorder already holds a game: use a new one per game")
        response = self.client.new_game(*args, **kwargs)
        self.record.initial_state.CopyFrom(response.state)
        self._reached(response.state)
        return response

    def apply_action(
        self, state: common.GameState, action: common.Action, **kwargs: Any
    ) -> api.ApplyActionResponse:
        """Apply ``action`` (``Client.apply_action``) and record it."""
        self._check(state)
        response = self.client.apply_action(state, action, **kwargs)
        self.record.moves.add(action=action, at_ms=response.at_ms)
        self._reached(response.state)
        return response

    def play_bot(
        self,
        state: common.GameState,
        seat: int,
        policy: str = "",
        seed: int = 0,
        **kwargs: Any,
    ) -> api.ApplyActionResponse:
        """Apply a bot's move (``Client.play_bot``) and record it as it was sent (an empty
        ``policy``: the game's own for a bot seat, ``heuristic`` for any other)."""
        self._check(state)
        response = self.client.play_bot(state, seat, policy, seed, **kwargs)
        iterations = kwargs.get("search_iterations", 0)
        self.record.moves.add(
            bot=api.BotMove(seat=seat, policy=policy, seed=seed, search_iterations=iterations),
            at_ms=response.at_ms,
        )
        self._reached(response.state)
        return response

    def claim_timeout(
        self, state: common.GameState, seat: int, **kwargs: Any
    ) -> api.ClaimTimeoutResponse:
        """Claim that ``seat``'s time is up (``Client.claim_timeout``) and record the timeout
        when a move was played for it (a claim that found the seat no longer to act leaves
        the game, and the record, as they were)."""
        self._check(state)
        response = self.client.claim_timeout(state, seat, **kwargs)
        if response.timed_out:
            self.record.moves.add(timeout=api.TimeoutClaim(seat=seat), at_ms=response.at_ms)
            self._reached(response.state)
        return response

    def kept_by(self, seat: int | None, seat_token: str = "") -> None:
        """Name who keeps the record: a seat, or a spectator (None), and their seat token on a
        server that requires them, which a replay of the record then sends. A record holding
        the token of a game still in play lets whoever holds it act as that seat."""
        viewer = common.Viewer(spectator=True) if seat is None else common.Viewer(seat=seat)
        self.record.kept_by.CopyFrom(viewer)
        self.record.seat_token = seat_token

    def _check(self, state: common.GameState) -> None:
        if self.state is None:
            raise ValueError("the record has no game yet: call new_game first")
        if state != self.state:
            raise ValueError("a recorded game goes on from its latest state only")

    def _reached(self, state: common.GameState) -> None:
        """``state`` is the latest: the digest of the move that led to it, if any, and the
        record's last digest."""
        digest = state_digest(state)
        if self.state is not None:
            self.record.move_digests += digest[:DIGEST_BYTES]
        self.state = state
        self.record.final_digest = digest


def to_json(record: api.GameRecord) -> str:
    """The file text of ``record``: proto JSON, one move a line (not indented: a whole game's
    record stays small)."""
    lines = []
    for name, value in json_format.MessageToDict(record).items():
        if name == MOVES_FIELD:
            entries = ",\n".join(_compact(move) for move in value)
            lines.append(f'  "{MOVES_FIELD}": [\n{entries}\n  ]')
        else:
            lines.append(f"  {json.dumps(name)}: {_compact(value)}")
    return "{\n" + ",\n".join(lines) + "\n}\n"


def from_json(text: str | bytes) -> api.GameRecord:
    """The record of a file's text; ``ValueError`` when it is not one (cut short, say)."""
    record = api.GameRecord()
    try:
        json_format.Parse(text, record)
    except (json_format.ParseError, UnicodeDecodeError, RecursionError) as error:
        raise ValueError(f"not a game record: {error}") from None
    return record


def save(record: api.GameRecord, path: str | Path) -> None:
    """Write ``record`` to ``path``."""
    Path(path).write_text(to_json(record), encoding="utf-8")


def load(path: str | Path) -> api.GameRecord:
    """Read the record in ``path``."""
    return from_json(Path(path).read_bytes())


def replay_steps(
    client: Client,
    record: api.GameRecord,
    viewer: int | common.Viewer | None = None,
    *,
    reveal: bool = False,
    page_size: int = 0,
) -> Iterator[api.ReplayStep]:
    """Every step of ``record`` as ``viewer`` saw it (every seat with ``reveal``), page after
    page of ``ReplayGame``: the first page checks the whole record, each next one replays its
    own moves from the state the page before ended on (with ``reveal``, the whole record)."""
    page = client.replay_game(record, viewer, reveal=reveal, page_size=page_size)
    yield from page.steps
    while page.next_step:
        page = client.replay_game(
            record,
            viewer,
            reveal=reveal,
            first_step=page.next_step,
            page_size=page_size,
            from_state=None if reveal else page.next_state,
        )
        yield from page.steps


def _compact(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
