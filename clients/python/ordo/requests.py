"""The requests of the clients' calls, made from their arguments.

A call on a game names it by its state (``common.GameState``), or, on a server that hosts games,
by its table's id (a ``str``: ``NewGameResponse.table_id``): ``Game`` is either.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import grpc
from google.protobuf.message import Message

from ordo.errors import OrdoError
from ordo.v1 import common_pb2 as common
from ordo.v1 import engine_service_pb2 as api

__all__ = [
    "Game",
    "apply_request",
    "game_field",
    "game_options",
    "new_game_request",
    "record_token",
    "replay_request",
    "view_request",
]

GAME_FIELD = "game"  # the oneof of GameOptions whose field names are the game ids
UNKNOWN_GAME = "UNKNOWN_GAME"  # the server's reason for a game it does not run
#: A game a call is about: its state, or the id of the hosted table that keeps it.
Game = common.GameState | str


def new_game_request(
    game: str | common.GameOptions,
    seats: int,
    seed: int = 0,
    options: Message | None = None,
    bots: Mapping[int, str] | None = None,
    host: bool = False,
) -> api.NewGameRequest:
    """The ``NewGameRequest`` of ``Client.new_game``'s arguments."""
    return api.NewGameRequest(
        seats=seats,
        seed=seed,
        options=game_options(game, options),
        bots=[common.BotSeat(seat=seat, policy=policy) for seat, policy in (bots or {}).items()],
        host=host,
    )


def apply_request(
    state: Game,
    viewer: int | common.Viewer | None,
    *,
    action: common.Action | None = None,
    bot: api.BotMove | None = None,
    table_revision: int = 0,
) -> api.ApplyActionRequest:
    """The ``ApplyActionRequest`` of an action or a bot move on a game (its state, or a hosted
    table's id, chosen at ``table_revision``), and a viewer (a seat, a ``Viewer``, or None for
    every event)."""
    request = api.ApplyActionRequest(action=action, bot=bot, **game_field(state))
    if table_revision:
        request.table_revision = table_revision
    if viewer is not None:
        request.viewer.CopyFrom(common.Viewer(seat=viewer) if isinstance(viewer, int) else viewer)
    return request


def record_token(record: api.GameRecord, seat_token: str | None) -> str | None:
    """The seat token a replay of ``record`` sends: the call's own, else the record's (the
    token of whoever kept it), else the client's."""
    if seat_token is None and record.seat_token:
        return record.seat_token
    return seat_token


def replay_request(
    record: api.GameRecord,
    viewer: int | common.Viewer | None,
    reveal: bool,
    first_step: int,
    page_size: int,
    from_state: common.GameState | None = None,
) -> api.ReplayGameRequest:
    """The ``ReplayGameRequest`` of ``Client.replay_game``'s arguments."""
    request = api.ReplayGameRequest(
        record=record,
        reveal=reveal,
        first_step=first_step,
        page_size=page_size,
        from_state=from_state,
    )
    if viewer is not None:
        request.viewer.CopyFrom(common.Viewer(seat=viewer) if isinstance(viewer, int) else viewer)
    return request


def view_request(state: Game, seat: int | None) -> api.GetViewRequest:
    """The ``GetViewRequest`` of a seat, or of a spectator when ``seat`` is None."""
    viewer = common.Viewer(spectator=True) if seat is None else common.Viewer(seat=seat)
    return api.GetViewRequest(viewer=viewer, **game_field(state))


def game_field(game: Game) -> dict[str, Any]:
    """The field a request names its game by: ``state``, or ``table_id`` for a hosted table."""
    return {"table_id": game} if isinstance(game, str) else {"state": game}


def game_options(
    game: str | common.GameOptions, options: Message | None = None
) -> common.GameOptions:
    """The ``GameOptions`` of a game id (with its options message, or its defaults).

    An id that is no field of ``GameOptions.game`` raises ``OrdoError`` as a server would answer
    it (INVALID_ARGUMENT, reason ``UNKNOWN_GAME``, the id in its metadata under ``game``): a game
    id often comes from a person or a configuration, and a caller handles one error type for
    every game a request cannot name. Options given together with a ``GameOptions`` are a
    mistake in the calling code, a ``ValueError``.
    """
    if isinstance(game, common.GameOptions):
        if options is not None:
            raise ValueError("give either a GameOptions or a game id with its options, not both")
        return game
    oneof = common.GameOptions.DESCRIPTOR.oneofs_by_name[GAME_FIELD]
    ids = [field.name for field in oneof.fields]
    if game not in ids:
        raise OrdoError(
            grpc.StatusCode.INVALID_ARGUMENT,
            UNKNOWN_GAME,
            f"unknown game {game!r}; GameOptions knows {', '.join(ids)}",
            {"game": game},
        )
    result = common.GameOptions()
    selected = getattr(result, game)
    if options is None:
        selected.SetInParent()
    else:
        selected.CopyFrom(options)
    return result
