"""The games a servicer serves, and the wire facts its decoding and encoding share.

A ``Game`` ties a registered engine to its codec and to the keys of its fields in the envelope
messages, found once from the descriptors: the servicer never names a game, it looks one up.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any

from engines import registry
from engines.base import GameEngine
from ordo.v1 import common_pb2 as common
from ordo.v1 import engine_service_pb2 as api
from service.codecs import CODECS, wire
from service.codecs.base import Codec

_STATE_FIELDS = common.GameState.DESCRIPTOR.fields_by_name
_RESPONSE_FIELDS = api.ApplyActionResponse.DESCRIPTOR.fields_by_name
_EVENT_FIELDS = common.Event.DESCRIPTOR.fields_by_name
RULES_VERSION_KEY = wire.key(_STATE_FIELDS["rules_version"].number, wire.VARINT)
REVISION_KEY = wire.key(_STATE_FIELDS["revision"].number, wire.VARINT)
SEALED_KEY = wire.key(_STATE_FIELDS["sealed"].number, wire.LENGTH_DELIMITED)
GAME_ID_KEY = wire.key(_STATE_FIELDS["game_id"].number, wire.LENGTH_DELIMITED)
RESPONSE_STATE_KEY = wire.key(_RESPONSE_FIELDS["state"].number, wire.LENGTH_DELIMITED)
RESPONSE_STATUS_KEY = wire.key(_RESPONSE_FIELDS["status"].number, wire.LENGTH_DELIMITED)
RESPONSE_EVENTS_KEY = wire.key(_RESPONSE_FIELDS["events"].number, wire.LENGTH_DELIMITED)
RESPONSE_AT_KEY = wire.key(_RESPONSE_FIELDS["at_ms"].number, wire.VARINT)
REQUEST_STATE_KEY = wire.key(
    api.ApplyActionRequest.DESCRIPTOR.fields_by_name["state"].number, wire.LENGTH_DELIMITED
)


class EveryEvent(Enum):
    """No viewer: an answer carries every event, each with its audience."""

    EVERY_EVENT = "every event"


EVERY_EVENT = EveryEvent.EVERY_EVENT
#: Whose events an answer carries: a seat's (0-based), a spectator's (None: the public events
#: only), or ``EVERY_EVENT``.
EventViewer = int | None | EveryEvent


@dataclass(frozen=True, slots=True)
class Game:
    """A registered game: its engine, its codec and the key of its field in ``GameState``."""

    id: str
    engine: GameEngine[Any, Any, Any, Any]
    codec: Codec
    state_key: bytes  # the key of the game's field in GameState
    event_key: bytes  # the key of the game's field in Event
    state_type: Any  # the game's state message (its field in GameState)
    id_field: bytes  # the game_id field of its sealed states


def registered_games() -> dict[str, Game]:
    """Every game with both an engine and a codec, by id; a game with one only fails here."""
    missing = set(registry.ENGINES) ^ set(CODECS)
    if missing:
        raise RuntimeError(f"games without both an engine and a codec: {sorted(missing)}")
    return {
        gid: Game(
            gid,
            registry.ENGINES[gid],
            CODECS[gid],
            wire.key(_STATE_FIELDS[gid].number, wire.LENGTH_DELIMITED),
            wire.key(_EVENT_FIELDS[gid].number, wire.LENGTH_DELIMITED),
            type(getattr(common.GameState(), gid)),
            wire.length_delimited(GAME_ID_KEY, gid.encode()),
        )
        for gid in sorted(registry.ENGINES)
    }


def lookup(games: dict[str, Game], game_id: str) -> Game:
    """The game ``game_id`` of ``games``; an unknown one is refused, naming those served."""
    if game_id not in games:
        registry.get(game_id)  # raises UnknownGameError naming the games this server runs
    return games[game_id]
